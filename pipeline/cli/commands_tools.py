"""The commands around the runs: `rlaif judge` (one answer, through the cache), `config` (show,
check, document), `cache` (stats, export, import)."""

import json
import logging
import sys
from pathlib import Path

import yaml

from pipeline.config.schema import Config
from pipeline.config.file import describe

from pipeline.cli.common import config_file_line

log = logging.getLogger("rlaif")


def cmd_judge(cfg: Config, a) -> int:
    from data.loaders import load_source
    from pipeline.config.errors import RunError
    from pipeline.stages.judging import Judging
    if a.completion == "-":
        completion = sys.stdin.read()
    else:
        try:
            completion = Path(a.completion).expanduser().read_text()
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise RunError(f"--completion {a.completion}: cannot read it ({why}); give the file holding the "
                           "answer to score, or - to read it from stdin") from None
    own = (cfg.data.source, *cfg.data.rl_sources, *cfg.data.warm_start_sources)   # data.mapping applies to these
    problems: dict = {}
    for src in dict.fromkeys((*own, "builtin", "ocaml")):          # an id in two sets: the first set's, as training's
        for p in load_source(src, (cfg.data.mapping or None) if src in own else None, cfg.data.language):
            problems.setdefault(p.id, p)
    if a.problem not in problems:
        print(f"error: no problem {a.problem!r} in data.source={cfg.data.source}"
              + "".join(f", {k}={v}" for k, v in (("data.rl_sources", cfg.data.rl_sources),
                                                  ("data.warm_start_sources", cfg.data.warm_start_sources)) if v)
              + " or the builtin sets (Python, OCaml)", file=sys.stderr)
        return 2
    j = Judging(cfg)
    score = j.score_all([(problems[a.problem], completion, a.truncated)])[0]
    j.cache.close()
    print(json.dumps({"problem": a.problem, **score.to_json(), "cache_hit": j.hits == 1}, indent=2))
    return 0


def cmd_config(cfg: Config, a) -> int:
    if a.doc:
        for key, default, doc in describe():
            print(f"{key:<34} {default:<24} {doc}")
    else:
        print(f"# {config_file_line(a.config)}")  # a YAML comment: the output still loads as a config file
        print(yaml.safe_dump(cfg.model_dump(), sort_keys=False), end="")
    return 0


def cmd_cache(cfg: Config, a) -> int:
    from judges.cache import JudgeCache
    from pipeline.config.errors import RunError
    from pipeline.stages.judging import cache_dir
    if a.what == "import" and not Path(a.file).expanduser().is_file():
        raise RunError(f"cache import {a.file}: no such file; give a file written by `rlaif cache export` "
                       "(.jsonl or .parquet)")
    if a.what in ("stats", "export") and not (Path(cache_dir(cfg)) / "cache.db").exists():
        raise RunError(f"no judge cache at {cache_dir(cfg)} (judge.cache_dir, else <run.dir>/.judge-cache): a run "
                       "makes it at its first judgement")
    c = JudgeCache(cache_dir(cfg))
    try:
        if a.what == "stats":
            print(json.dumps({"directory": str(c.directory), "entries": len(c), "bytes": c.volume()}, indent=2))
        elif a.what == "export":
            print(f"exported {c.export(Path(a.file).expanduser())} judgements from {c.directory} to {a.file}")
        else:
            added, present = c.import_(Path(a.file).expanduser())
            print(f"imported {added} judgements into {c.directory} ({present} were already there, kept as they were)")
    finally:
        c.close()
    return 0
