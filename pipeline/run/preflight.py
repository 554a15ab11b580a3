"""What a command checks before any work, so that a bad setting, a missing or malformed data file, or
a path the run cannot write fails in a line, with nothing written: no run directory, lock, cache or
epoch."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Callable

from pipeline.store import dist
from pipeline.config.schema import Config
from pipeline.config.base import ConfigError
from pipeline.config.errors import RunError


def check_engines(cfg: Config, sampling: bool = True, updating: bool = True, processes: int | None = None) -> None:
    """sample.engine / eval.engine = vllm without vLLM installed, or with several processes, fails
    here, before any work (`sampling`: a command that samples); so does a command that trains
    (`updating`) under a DeepSpeed accelerate config launched by hand (`--accelerate-config` refuses
    one before launching). processes: the count a launch is about to start (else this process's world)."""
    if updating and os.environ.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true":
        raise RunError("launched with a DeepSpeed accelerate config (ACCELERATE_USE_DEEPSPEED=true): the update does "
                       "not run under DeepSpeed yet (it accumulates gradients itself, and DeepSpeed's engine steps on "
                       "every backward); use DDP (no accelerate config) or FSDP")
    if ((sampling and cfg.sample.engine == "vllm") or cfg.eval.engine == "vllm") and (processes or dist.world_size()) > 1:
        raise ConfigError("sample.engine=vllm / eval.engine=vllm do not run with several processes yet (each rank's "
                          "engine would take the first GPU); use the hf engine, or one process")
    if (sampling and cfg.sample.engine == "vllm") or cfg.eval.engine == "vllm":
        from pipeline.engines import vllm as engine_vllm
        engine_vllm.require("sample.engine" if sampling and cfg.sample.engine == "vllm" else "eval.engine")


def check_prompt_lengths(cfg: Config, sampling: bool = True) -> None:
    """The stages' own check of their prompts (pipeline.engines.hf.check_prompts, the same error), before
    any work: with `sampling`, every problem RL can draw (the pool) within data.max_prompt_tokens and,
    with sample.max_new_tokens, within the student's context; the eval's problems, with
    eval.max_new_tokens, within it. Run by the dry run and before a warm-start that has yet to run (it
    loads torch and the tokenizer: not on a rerun that reuses everything), so a prompt too long fails
    there, not at epoch 1's sample stage after the warm-start (its teacher answers paid, with an API
    teacher) has run. Reads the student's tokenizer and config, never its weights. Data that cannot be
    read is check_data's to say, naming its key (run before it): this then checks nothing."""
    from pipeline.stages.problems import eval_problems, pool, rl_problems, training_problems
    try:
        train = pool(rl_problems(cfg), cfg.data.pool_size, cfg.run.seed) if sampling else []
        evals = eval_problems(cfg)
    except Exception:  # noqa: BLE001 - check_data reads the same problems and says what is wrong, with the key
        return
    if not train and not evals:
        return
    from pipeline.engines.hf import chat_prompt, check_prompts
    tok, context = student_tokenizer(cfg)
    if train:
        first = {p.id for p in training_problems(cfg)}   # (else data.rl_sources': other ids)
        check_prompts(cfg, [chat_prompt(tok, cfg, p.prompt) for p in train],
                      [f"{p.id} of {'data.source' if p.id in first else 'data.rl_sources'}" for p in train],
                      cfg.sample.max_new_tokens, "sample.max_new_tokens", context)
    if evals:
        check_prompts(cfg, [chat_prompt(tok, cfg, p.prompt) for _, p in evals], [f"{src}:{p.id}" for src, p in evals],
                      cfg.eval.max_new_tokens, "eval.max_new_tokens", context, prompt_limit=False)


def student_tokenizer(cfg: Config):
    """(student.model's tokenizer, its context length or None), from the model's files, not its weights:
    the embedded model not yet converted to safetensors (a first run converts it when it loads the
    weights) gives the tokenizer saved from its GGUF and no context (its stages check that)."""
    from pipeline.engines import model
    model.check_model(cfg.student.model)   # an unreachable Hub id fails once, not after retries
    if cfg.student.model == model.EMBEDDED and not model.embedded_converted():
        from transformers import AutoTokenizer
        return AutoTokenizer.from_pretrained(model.embedded_tokenizer_dir()), None
    from pipeline.engines.hf import context_length
    return model.load_tokenizer(cfg.student), context_length(cfg)


TRACKERS = {"tensorboard": ("tensorboard", "tensorboardX"), "wandb": ("wandb",)}
"""run.trackers' names -> the packages (any one) accelerate's tracker imports."""


def check_trackers(cfg: Config) -> None:
    """Each of run.trackers' packages importable, before any work (a tracker logs once an epoch has run)."""
    import importlib.util
    for name in cfg.run.trackers or []:
        if not any(importlib.util.find_spec(pkg) for pkg in TRACKERS.get(name, (name,))):
            raise ConfigError(f"run.trackers includes {name}, whose package is not installed: it would fail once the "
                              f"first epoch has run; `pip install -e '.[trackers]'` in this project's checkout (wandb and "
                              f"tensorboard) or `pip install {name}`, or take {name} out of run.trackers")


def check_model(cfg: Config) -> None:
    """student.model's config and tokenizer reachable (pipeline.engines.model.check_model), before any
    stage; so are an hf teacher's and an hf judge's (judge.kind=hf, or an hf component of judge.mix), and
    a python judge's functions (judge.python.function, each: found, imported, its arguments offered)."""
    from pipeline.engines.model import check_model as check
    check(cfg.student.model)
    from pipeline.run.lora_targets import check_lora_targets
    check_lora_targets(cfg)
    if cfg.teacher.kind == "hf":
        check(cfg.teacher.model, "teacher.model")
    from pipeline.stages.judging import components
    if "hf" in components(cfg):
        from pipeline.stages.judging import judge_model
        check(judge_model(cfg, "hf"), "judge.models.hf" if cfg.judge.models.get("hf") else "judge.model")
    if "python" in components(cfg):   # each of judge.python.function's imports, and takes what it will be given
        from pipeline.stages.judging_python import python_judge
        python_judge(cfg)


def check_data(cfg: Config) -> None:
    """data.source, a warm-start or eval source that names a local file that is not there, or a row of
    one that does not parse, fails here, before the run creates anything (its directory, its lock, an
    epoch's prompts); so does a run directory or judge cache that would have to be made under a file."""
    from data.loaders import check_source, file_split, saved_dataset
    from data.rows import DataError
    check_paths(cfg)
    check_model(cfg)
    local = []
    check_source(cfg.data.source)
    local.append(("data.source", cfg.data.source))
    for key, sources in (("data.warm_start_sources", cfg.data.warm_start_sources),
                         ("data.rl_sources", cfg.data.rl_sources), ("eval.sources", cfg.eval.sources)):
        for src in sources or []:
            if src != "validation":  # the problems carved out of data.source, checked above
                check_source(src, key)
                if key == "eval.sources":   # the other two are read once, below, by the check their problems go through
                    local.append((key, src))
    from pipeline.stages.problems import eval_problems, extra_problems, source_problems, training_problems
    for key, src in local:   # the user's own files, read whole: a malformed row names its key, file and line
        if Path(file_split(src)[0]).expanduser().is_file() or saved_dataset(src):
            try:
                source_problems(cfg, src)
            except DataError as e:
                raise DataError(f"{key}: {e}") from None
    src, split = file_split(cfg.data.source)
    if split is None and (Path(src).expanduser().is_file() or saved_dataset(src)):   # rows marked held out, read
        # whole (a file, or a save_to_disk folder): every one trains
        marked = Counter(p.split for p in source_problems(cfg, src) if p.split != "train")
        if marked:
            import logging
            logging.getLogger("rlaif").warning(
                "%s: %s of its rows are marked split=%s, but data.source names the file whole, so every row is a "
                "training problem; data.source=%s:train trains on the train rows alone (eval.sources=[%s:%s] scores "
                "the others)", src, sum(marked.values()), "/".join(sorted(marked)), src, src, sorted(marked)[0])
    train = training_problems(cfg)
    # the same problem: its id and its prompt (two files may each number their ids from 0)
    scored = {(p.id, p.prompt): src for src, p in eval_problems(cfg, sample=False)}
    if not scored and cfg.eval.sources != []:   # [] turns the eval off on purpose
        import logging
        logging.getLogger("rlaif").warning(
            "the eval has no problems to score (eval.sources=%s%s): every epoch's eval/pass@1 will be missing; set "
            "data.validation_size=N to hold N of data.source's problems out, or eval.sources=[a held-out file] (or "
            "builtin:heldout); eval.sources=[] turns the eval off, and this warning", cfg.eval.sources,
            f"; data.validation_size={cfg.data.validation_size} holds none of data.source's "
            f"{len(source_problems(cfg, cfg.data.source))} problems out" if "validation" in (cfg.eval.sources or ["validation"]) else "")
    from pipeline.stages.eval import check_tests
    check_tests(cfg)
    both = [] if cfg.eval.allow_trained else [(p.id, p.prompt) for p in train if (p.id, p.prompt) in scored]
    if both:   # (the validation split is carved out of the training problems: never both)
        raise RunError(f"data.source={cfg.data.source} trains on {len(both)} problem(s) the eval scores "
                       f"(eval.sources: {scored[both[0]]}; e.g. {', '.join(i for i, _ in both[:3])}): a held-out score of problems "
                       f"trained on measures memory; " + (
                           f"take {scored[both[0]]} out of eval.sources, or name its held-out split "
                           f"({held_out(scored[both[0]])})" if cfg.data.source.endswith((":train", ":tune"))
                           else f"{_train_split(cfg.data.source)} or take them out of eval.sources")
                       + " (eval.allow_trained=true for a positive control)")
    # read whole here (a malformed row named with its key), one the eval scores refused now, not at the warm-start
    warm = train + extra_problems(cfg, "data.warm_start_sources", "the warm-start", train)
    rl = train + extra_problems(cfg, "data.rl_sources", "RL", train)
    if not rl:
        check_some_training(cfg)
    if cfg.update.warm_start and cfg.teacher.kind == "reference" and not any(p.reference for p in warm):
        raise RunError(f"update.warm_start=true learns the teacher's answers, and teacher.kind=reference finds none: "
                       f"none of the {len(warm)} problems of data.source={cfg.data.source}"
                       + (f" and data.warm_start_sources={cfg.data.warm_start_sources}" if cfg.data.warm_start_sources else "")
                       + " has a reference field; add references, use a model teacher (teacher.kind=anthropic, openai "
                       "or hf), or set update.warm_start=false")
    check_early_stop(cfg)
    check_scorable(cfg, rl)
    from pipeline.run.preflight_rows import check_entry_points, check_system_turns
    check_entry_points([*rl, *(p for _, p in eval_problems(cfg))])
    check_system_turns(cfg, [*rl, *warm])
    if cfg.curriculum.strategy == "linear" and len(tiers := {p.difficulty for p in rl}) == 1:
        import logging
        logging.getLogger("rlaif").warning(
            "curriculum.strategy=linear: all %d training problems are %s (a row without `difficulty` is medium), so its "
            "schedule has one bucket to draw from; give the rows a difficulty, or curriculum.buckets=quantiles buckets "
            "them by the student's own pass rates once it has some", len(rl), tiers.pop())
    both = list(dict.fromkeys(p.id for p in [*rl, *warm, *(p for _, p in eval_problems(cfg, sample=False))]
                              if p.tests and p.test_code))
    if both:   # judges/execution.run_tests runs one of the two
        import logging
        logging.getLogger("rlaif").warning(
            "%d %s both `tests` and `test_code` (%s%s): the execution judge runs their `tests` alone and "
            "never their test_code; drop one of the two (or move the test_code's cases into tests)",
            len(both), "problem has" if len(both) == 1 else "problems have", ", ".join(both[:3]), ", ..." if len(both) > 3 else "")
    from pipeline.stages.judging import components
    if "python" in components(cfg):   # a reward function's required columns, in the rows RL will judge
        from judges.python_reward import RewardFunctionError
        from pipeline.stages.judging_python import python_judge
        try:
            python_judge(cfg).check_columns(rl)
        except RewardFunctionError as e:
            raise RunError(f"data.source={cfg.data.source}: {e}") from None


def check_some_training(cfg) -> None:
    """RunError: RL has no problem to draw (data.difficulties or the validation split took them all)."""
    from collections import Counter
    from pipeline.stages.problems import source_problems
    have = source_problems(cfg, cfg.data.source)
    tiers = ", ".join(f"{d} {n}" for d, n in sorted(Counter(p.difficulty for p in have).items()))
    raise RunError(f"no training problem: data.source={cfg.data.source} has {len(have)} ({tiers or 'none'}); "
                   f"data.difficulties={list(cfg.data.difficulties)}"
                   + (f" and data.validation_size={cfg.data.validation_size}" if cfg.data.validation_size else "")
                   + " leave none for RL; name the difficulties the data has (data.difficulties), or add problems "
                   "(data.rl_sources)")


def check_early_stop(cfg: Config) -> None:
    """eval.early_stop_metric names a figure an epoch writes (when eval.patience turns early stopping on): a
    misspelt one was never found in metrics.json, and early stopping was silently off."""
    from pipeline.metrics.doc import METRICS, metric_info
    name = cfg.eval.early_stop_metric
    # one source's figure is eval/<the source as eval.sources names it>/<figure>, and a path holds '/'
    own = next((name[len(f"eval/{s}/"):] for s in cfg.eval.sources or [] if name.startswith(f"eval/{s}/")), None)
    if cfg.eval.patience and metric_info(name) is None and (own is None or metric_info(f"eval/{own}") is None):
        import difflib
        near = difflib.get_close_matches(name, [k for k in METRICS if "<" not in k], n=3, cutoff=0.5)
        raise RunError(f"eval.early_stop_metric={name!r} is no metric an epoch writes, so eval.patience="
                       f"{cfg.eval.patience} would never stop the run" + (f"; did you mean {', '.join(near)}?" if near
                                                                         else "") + " (`rlaif metrics` lists them)")
    info = metric_info(name) or (metric_info(f"eval/{own}") if own else None)
    if cfg.eval.patience and info is not None and info.good == "lower":   # (early stopping waits for a rise)
        raise RunError(f"eval.early_stop_metric={name} is better lower, and early stopping watches for a figure that "
                       "stops rising; name one better higher (eval/score, eval/pass@1)")


def check_scorable(cfg: Config, problems: list) -> None:
    """The execution judge (judge.kind=execution, or a component of judge.mix) needs tests on every problem
    RL draws from: one without any fails here, named with its source (in a mix, that component scores
    its answers None, and so does the whole mix, its LLM components' calls still paid); a reference
    teacher's missing answers are said (the teacher stage scores them None, and the warm-start leaves
    them out)."""
    import logging
    from data.rows import DataError
    from pipeline.stages.judging import components
    if "execution" in components(cfg):
        bare = [p.id for p in problems if not p.tests and not p.test_code]
        if bare:
            mix = cfg.judge.kind == "mix"
            raise DataError(f"data.source={cfg.data.source}"
                            + (f" (with data.rl_sources={cfg.data.rl_sources})" if cfg.data.rl_sources else "")
                            + f": {len(bare)} of {len(problems)} training problems have no tests ({', '.join(bare[:5])}"
                            + (", ..." if len(bare) > 5 else "") + "), so "
                            + ("judge.mix's execution component has nothing to run on their answers: it scores them "
                               "None, and so does the whole mix (its other components still called, an LLM's paid); "
                               "give each row tests (or test_code), drop those rows, or take execution out of "
                               "judge.mix={" + ", ".join(f"{k}: {w:g}" for k, w in cfg.judge.mix.items()) + "}" if mix else
                               "judge.kind=execution has nothing to run on their answers; give each row tests (or "
                               "test_code), drop those rows, or score them with an LLM judge (judge.kind=anthropic, "
                               "openai or hf)"))
        asserted = [p.id for p in problems if p.test_code and not p.tests]
        if asserted:
            logging.getLogger("rlaif").warning(
                "%d of %d training problems are tested by test_code (assertions, as HumanEval's check: %s%s): those "
                "run inside the sandbox beside the answer, which can fool them (a Python object whose == always says "
                "True, a check or exec of its own, an OCaml program writing the check's result line), and RL rewards whatever passes; input/expected `tests` are compared "
                "outside the sandbox and cannot be fooled: train on those where you can (docs/GUARANTEES.md)",
                len(asserted), len(problems), ", ".join(asserted[:3]), ", ..." if len(asserted) > 3 else "")
    if cfg.teacher.kind == "reference":
        missing = [p.id for p in problems if not p.reference]
        if missing:
            logging.getLogger("rlaif").warning(
                "teacher.kind=reference: %d of %d training problems have no reference answer (%s%s): their teacher "
                "score is None and the warm-start leaves them out; add a reference field, or use a model teacher",
                len(missing), len(problems), ", ".join(missing[:5]), ", ..." if len(missing) > 5 else "")


def check_paths(cfg: Config) -> None:
    """run.dir, the run's directory (run.dir/run.name) and judge.cache_dir are directories or can be
    made: a file at one of them (or above one) fails here, naming the key, before anything is written."""
    from pipeline.stages.judging import cache_dir
    run_dir = Path(cfg.run.dir)
    for key, path in (("run.dir", run_dir), ("run.name", run_dir / cfg.run.name), ("judge.cache_dir", cache_dir(cfg))):
        for p in (path, *path.parents):
            if p.exists() and not p.is_dir():
                raise ConfigError(f"{key}: {p} is a file, not a directory (the run writes under {path}); "
                                  f"choose another {key} or move the file away")


DATA_FILES = "data_files.json"
"""Each local data file the run read and the sha256 of its content when it last did."""


def check_data_files(cfg: Config, run_dir: Path) -> tuple[list[str], Callable[[], None]]:
    """(warnings, record) for the local data files (data.source, the warm-start, RL and eval sources)
    whose content changed since the run last recorded them: a finished stage keeps the problems it was
    made with (its prompts or eval table), so an edited test or prompt reaches only the stages that
    run anew. Each warning is logged; `record()`, called once the command has run, writes the files'
    hashes (data_files.json), so each change is said once."""
    import hashlib
    import json
    import logging
    from data.loaders import file_split, saved_dataset
    from pipeline.store.artifacts import write_json
    files: dict[str, tuple[str, str]] = {}
    for key, sources in (("data.source", [cfg.data.source]), ("data.warm_start_sources", cfg.data.warm_start_sources),
                         ("data.rl_sources", cfg.data.rl_sources), ("eval.sources", cfg.eval.sources)):
        for src in sources or []:
            saved = saved_dataset(src)   # a save_to_disk folder: its files' names and bytes
            path = saved[0] if saved else Path(file_split(src)[0]).expanduser()
            if saved:
                h = hashlib.sha256()
                for f in sorted(p for p in path.rglob("*") if p.is_file()):
                    h.update(str(f.relative_to(path)).encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
                files.setdefault(str(path.resolve()), (key, h.hexdigest()))
            elif path.is_file():
                files.setdefault(str(path.resolve()), (key, hashlib.sha256(path.read_bytes()).hexdigest()))
    record_path = run_dir / DATA_FILES
    try:
        seen = json.loads(record_path.read_text()) if record_path.exists() else {}
    except ValueError:
        seen = {}
    warnings = [f"{key}: {path} changed since this run last read it; finished stages keep the problems they were "
                f"made with (a fixed test or prompt reaches only stages that run anew): `rlaif epoch N --force` "
                f"remakes epoch N with the file as it is now, or start a new run.name"
                + (f". The validation split (data.validation_size={cfg.data.validation_size}) is drawn from the "
                   "file's rows: a row added or removed can move problems between training and validation, so "
                   "epochs made before and after the edit may have trained on what the other evaluates"
                   if key == "data.source" and cfg.data.validation_size else "")
                for path, (key, sha) in files.items() if seen.get(path, sha) != sha]
    for w in warnings:
        logging.getLogger("rlaif").warning(w)

    def record() -> None:
        if files and dist.is_main() and run_dir.is_dir():
            write_json(record_path, {**seen, **{p: sha for p, (_, sha) in files.items()}})
    return warnings, record


def _train_split(source: str) -> str:
    """How to train on a split of `source` that the eval does not score, in words for a hint."""
    base = source.split(":")[0]
    if base in ("builtin", "bank", "ocaml"):
        return f"train on its training split (data.source={base}:train)"
    return f"train on a split ({_file_of(source)}:train, read from each row's `split` field)"


def held_out(source: str) -> str:
    """The held-out split of an eval source (builtin:heldout for builtin, my.jsonl:heldout for my.jsonl)."""
    from data.loaders import FIXED
    return (source.split(":")[0] if source in FIXED else _file_of(source)) + ":heldout"


def _file_of(source: str) -> str:
    """The file of a data source, its split left off, to name in a hint (`my.jsonl` for a shipped set or a
    Hub dataset)."""
    from data.loaders import file_split
    from data.rows import DataError
    if source.startswith("hf:") or source.split(":")[0] in ("builtin", "bank", "ocaml", "humaneval"):
        return "my.jsonl"
    try:
        return file_split(source)[0]
    except DataError:
        return source
