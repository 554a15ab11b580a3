"""Which problems a run trains on and which it holds out: data.source's problems of
data.difficulties, less the validation split (data.validation_size), the fixed training pool
(data.pool_size), the epoch's choice among them (the curriculum's schedule: `choose_prompts`,
for the prompts stage and `--dry-run`), and the compiler check before any OCaml work."""
from __future__ import annotations

import functools
import json
import random

from pipeline.config.errors import RunError
from pipeline.store.history import score_history


def source_problems(cfg, src: str) -> list:
    """One source's problems as the run reads every source: data.language for rows that name none;
    data.mapping for data.source's own file or Hub dataset (any split of it), and for another file of
    the user's whose rows it fits (one already in our layout reads as it is; a shipped set has its own)."""
    from data.loaders import FIXED
    from data.rows import DataError
    dc = cfg.data
    if src in FIXED or not dc.mapping:
        return _load(src, None, dc.language)
    if _dataset(src) == _dataset(dc.source):
        return _load(src, dc.mapping, dc.language)
    try:
        return _load(src, dc.mapping, dc.language)
    except DataError as mapped:
        try:
            return _load(src, None, dc.language)
        except DataError:
            raise mapped from None


def _load(src: str, mapping: dict | None, language: str) -> list:
    """load_source, parsed once per process while the file's content is as it was: a run's checks and
    stages ask for the same sources several times (training, validation, eval, the extra sources'
    overlap). Hashing the bytes costs a small part of parsing them."""
    import hashlib
    import json
    from pathlib import Path

    from data.loaders import file_split
    path = Path(file_split(src)[0]).expanduser()
    stamp = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return list(_load_once(src, json.dumps(mapping, sort_keys=True) if mapping else None, language, stamp))


@functools.lru_cache(maxsize=16)
def _load_once(src: str, mapping: str | None, language: str, stamp) -> tuple:
    import json

    from data.loaders import load_source
    return tuple(load_source(src, json.loads(mapping) if mapping else None, language))


def _dataset(spec: str) -> str:
    """The file or Hub dataset a source spec reads, less its split."""
    from pathlib import Path

    from data.loaders import file_split
    if spec.startswith("hf:"):
        return ":".join(spec.split(":")[:2])
    return str(Path(file_split(spec)[0]).expanduser().resolve())


def training_problems(cfg) -> list:
    """data.source's problems of data.difficulties, less the validation split (data.validation_size)."""
    from data.loaders import split_validation
    dc = cfg.data
    try:
        train, _ = split_validation(source_problems(cfg, dc.source), dc.validation_size)
    except ValueError as e:
        raise RunError(str(e)) from None
    return [p for p in train if p.difficulty in dc.difficulties]


def warm_start_problems(cfg) -> list:
    """What the supervised warm-start learns: the training problems, then those of
    data.warm_start_sources (of data.difficulties) that are not among them already (by id). A
    problem of an eval source or of the validation split among the extra ones is refused: the
    warm-start must not see what the eval scores or what the recipe is tuned on."""
    train = training_problems(cfg)
    return train + extra_problems(cfg, "data.warm_start_sources", "the warm-start", train)


def rl_problems(cfg) -> list:
    """What RL draws its prompts from: the training problems, then those of data.rl_sources (of
    data.difficulties) not among them already (by id), refused as the warm-start's extra ones are."""
    train = training_problems(cfg)
    return train + extra_problems(cfg, "data.rl_sources", "RL", train)


def extra_problems(cfg, key: str, who: str, train: list) -> list:
    """The problems of the sources `key` names (data.warm_start_sources, data.rl_sources), of
    data.difficulties, not among the training problems `train` already nor named twice (by id and prompt); a
    problem an eval source scores or the validation split holds fails, naming the key, as does an id that
    another problem of the run holds with another prompt."""
    dc = cfg.data
    sources = cfg.get(key)
    if not sources:
        return []
    # a problem is its id and its prompt (two files may each number their ids from 0, as check_data allows),
    # or its id and its tests (the same problem, its prompt worded otherwise: hf:openai_humaneval, humaneval)
    held = eval_problems(cfg, sample=False) + ([("validation (data.validation_size)", p) for p in validation_problems(cfg)]
                                               if dc.validation_size else [])
    scored = {k: src for src, p in held for k in _same(p)}
    seen = {p.id: p.prompt for p in train}
    out = []
    for src in sources:
        try:
            extra = source_problems(cfg, src)
        except ValueError as e:
            raise RunError(f"{key}: {e}") from None
        for p in extra:
            if hit := next((scored[k] for k in _same(p) if k in scored), None):
                raise RunError(f"{key}: {src} holds problem {p.id!r}, which the eval scores "
                               f"(eval.sources: {hit}); {who} must not learn a problem the eval "
                               "scores: name a training split (bank:train, not bank) or take it out of eval.sources")
            if p.difficulty not in dc.difficulties or seen.get(p.id) == p.prompt:
                continue   # filtered out, or a problem already there
            if p.id in seen:   # the tables key answers by problem id: one id, one problem
                raise RunError(f"{key}: {src} holds problem {p.id!r} with another prompt than the training "
                               f"problem of that id; problem ids must be unique across data.source and {key}: "
                               "give that file's problems their own ids (e.g. a prefix)")
            seen[p.id] = p.prompt
            out.append(p)
    return out


def _same(p) -> tuple:
    """Keys under which two problems are one: the id and the prompt; the id and the tests."""
    tests = json.dumps(p.tests, sort_keys=True) if p.tests else p.test_code
    return ((p.id, "prompt", p.prompt),) + (((p.id, "tests", tests),) if tests else ())


def eval_problems(cfg, sample: bool = True) -> list:
    """(source, problem) of every eval source (validation: the problems carved out of
    data.source), each source cut to eval.max_problems by a fixed draw when `sample` (what the eval
    stage scores); every problem of every source when not (what the warm-start must stay clear of)."""
    out = []
    for src in cfg.eval.sources or []:
        probs = validation_problems(cfg) if src == "validation" else source_problems(cfg, src)
        if sample and cfg.eval.max_problems and len(probs) > cfg.eval.max_problems:
            probs = random.Random(0).sample(probs, cfg.eval.max_problems)
        out += [(src, p) for p in probs]
    return out


def validation_problems(cfg) -> list:
    """The problems data.validation_size carves out of data.source (the eval source `validation`)."""
    from data.loaders import split_validation
    return split_validation(source_problems(cfg, cfg.data.source), cfg.data.validation_size)[1]


def require_compilers(cfg, problems: list) -> None:
    """Fail before any work when OCaml problems are to be judged and the compiler is missing."""
    if any(p.language == "ocaml" for p in problems):
        from judges.ocaml import CompilerMissing, compiler_path
        try:
            compiler_path(cfg.judge.ocaml.compiler)
        except CompilerMissing as e:
            raise RunError(str(e)) from None


def pool(problems: list, size: int, seed: int) -> list:
    """The fixed training subset of data.pool_size problems (all when 0 or not fewer): seeded,
    independent of the order the loader returned them in, the same for every epoch."""
    if not size or size >= len(problems):
        return problems
    ordered = sorted(problems, key=lambda p: p.id)
    keep = set(random.Random(f"pool:{seed}").sample(range(len(ordered)), size))
    return [p for i, p in enumerate(ordered) if i in keep]


def choose_prompts(cfg, run_dir, epoch: int):
    """(chosen ids, problems by id, figures, schedule rows) for the epoch: the curriculum
    schedule (curriculum.strategy) over the training set (and data.rl_sources'), from each prompt's tier, teacher
    score and the student's score history of earlier epochs."""
    from curriculum import schedule as cur
    dc = cfg.data
    problems = rl_problems(cfg)
    require_compilers(cfg, problems)
    if not problems:
        raise RunError(f"data.source={dc.source} has no problems with difficulty in {dc.difficulties}"
                       + (f" outside its validation split (data.validation_size={dc.validation_size})"
                          if dc.validation_size else ""))
    problems = pool(problems, dc.pool_size, cfg.run.seed)
    history, teacher = score_history(run_dir, epoch)
    ids = cur.schedule(problems, history, teacher, epoch, dc.prompts_per_epoch, cfg.curriculum, cfg.run.seed)
    rows = {r["problem_id"]: r for r in cur.rows(ids, problems, history, teacher, cfg.curriculum)}
    return ids, {p.id: p for p in problems}, cur.figures(ids, problems, history, teacher, cfg.curriculum), rows
