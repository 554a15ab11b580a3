"""`rlaif` command line. Every command takes `--config FILE` and `key.sub=value` overrides."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import yaml

if os.environ.get("RANK", "0") != "0":  # several processes: rank 0's progress bars speak for all
    os.environ.setdefault("TQDM_DISABLE", "1")  # (tqdm reads it when it is imported)

from pipeline import dist
from pipeline.config import Config, ConfigError
from pipeline.config_file import describe, load_config

log = logging.getLogger("rlaif")


def _runner(cfg: Config):
    from pipeline.runner import Runner
    return Runner(cfg)


def check_engines(cfg: Config, sampling: bool = True) -> None:
    """sample.engine / eval.engine = vllm without vLLM installed, or with several processes, fails
    here, before any work."""
    if ((sampling and cfg.sample.engine == "vllm") or cfg.eval.engine == "vllm") and dist.world_size() > 1:
        raise ConfigError("sample.engine=vllm / eval.engine=vllm do not run with several processes yet (each rank's "
                          "engine would take the first GPU); use the hf engine, or one process")
    if (sampling and cfg.sample.engine == "vllm") or cfg.eval.engine == "vllm":
        from pipeline import engine_vllm
        engine_vllm.require("sample.engine" if sampling and cfg.sample.engine == "vllm" else "eval.engine")


def cmd_epoch(cfg: Config, a) -> int:
    """`rlaif epoch N`: epochs 1..N, each one's finished stages reused (an epoch done earlier costs a
    line); `rlaif update N`, `rlaif replay N`, `--only`, `--force`: epoch N alone."""
    check_engines(cfg, sampling=a.cmd != "update")
    r = _runner(cfg)
    ranks = f" on {dist.world_size()} processes" if dist.world_size() > 1 else ""
    dry_run = getattr(a, "dry_run", False)
    single = a.cmd != "epoch" or a.n <= 1 or getattr(a, "only", None) is not None or getattr(a, "force", False)
    if cfg.update.optimizer_state == "carry" and a.n > cfg.update.planned_epochs and cfg.update.scheduler != "constant":
        say(f"warning: epoch {a.n} is past update.planned_epochs={cfg.update.planned_epochs}, where the LR schedule "
            f"ends ({cfg.update.scheduler}: lr 0, nothing more is learned); set update.planned_epochs={a.n}")
    t = time.time()
    if single:
        what = {"update": "update-only rerun of epoch", "replay": "replay of epoch"}.get(a.cmd, "epoch")
        say(f"{what} {a.n} of run {r.run_dir}{ranks}")
        res = r.run_epoch(a.n, only=getattr(a, "only", None), force=getattr(a, "force", False),
                          update_only=a.cmd == "update", dry_run=dry_run,
                          ignore_early_stop=getattr(a, "ignore_early_stop", False))
        done = [a.n]
    else:
        say(f"epochs 1 to {a.n} of run {r.run_dir}{ranks} (finished stages are reused)")
        done = []
        for n in range(1, a.n + 1):
            if dry_run and n > 1 and r.chosen_update(n - 1) is None:
                say(f"epochs {n} to {a.n}: to run after epoch {n - 1} (their stages depend on its policy)")
                break
            reused, lines = [0], []

            def echo(line: str) -> None:
                reused[0] += " reused " in line
                if " reused " not in line:
                    lines.append(line)
                    say(line)
            say(f"epoch {n}")
            t1 = time.time()
            res = r.run_epoch(n, dry_run=dry_run, echo=echo, ignore_early_stop=getattr(a, "ignore_early_stop", False))
            done.append(n)
            if dist.is_main() and not dry_run:
                say(epoch_line(r, n, reused[0], len(lines), time.time() - t1))
    if not dist.is_main():
        return 0
    if dry_run:
        from pipeline.dryrun import estimate
        for line in estimate(r, done[0] if single else next((n for n in done if r.chosen_update(n) is None), done[-1])):
            print("  " + line)
        return 0
    if "update" in res:
        print(f"policy: {res['update'].get('fingerprint', '')[:8]} -> {r.epoch_dir(a.n)}/update-{res['update']['fingerprint'][:8]}/adapter")
    if single:
        print(epoch_line(r, a.n))
    from pipeline.flags import analyse
    from pipeline.report import load_metrics, run_settings
    for f in analyse(load_metrics(r), cfg.report, run_settings(r)):
        if f.epoch in done:
            print(f"  [{f.severity}] epoch {f.epoch} {f.name}: {f.evidence} -> {f.advice}")
    print(f"done in {time.time() - t:.1f}s")
    return 0


def epoch_line(r, n: int, reused: int | None = None, ran: int = 0, secs: float | None = None) -> str:
    """One epoch's line: its headline metrics (and, looping over epochs, what ran)."""
    path = r.epoch_dir(n) / "metrics.json"
    m = json.loads(path.read_text()) if path.exists() else {}
    keys = ["reward/mean", "reward/best_of_n", "reward/frac_zero_std", "score/student_mean", "score/teacher_mean",
            "loss/total", "kl/k3", "eval/pass@1", "judge/api_calls", "judge/cache_hits"]
    figures = "  ".join(f"{k}={m[k]:.4g}" for k in keys if isinstance(m.get(k), (int, float)))
    if reused is None:
        return figures
    how = "every stage reused" if not ran else f"{reused} stages reused, the rest ran in {secs:.0f}s"
    return f"epoch {n} done ({how}): {figures}"


def say(text: str) -> None:
    """print, from rank 0 alone when several processes run the command."""
    if dist.is_main():
        print(text, flush=True)


def sweep_grid(grid: list[str]) -> list[list[str]]:
    """`--grid update.lr=5e-5,2e-4 --grid update.kl_coef=0.01,0.1` -> the 4 override lists."""
    import itertools
    axes = []
    for g in grid:
        key, sep, values = g.partition("=")
        if not sep or not key.startswith("update.") or not values:
            raise ConfigError(f"--grid {g}: expected update.KEY=V1,V2,... (a sweep varies only update settings; "
                              "anything else would change the samples or judgements: run `rlaif epoch` for that)")
        axes.append([f"{key}={v}" for v in values.split(",")])
    return [list(c) for c in itertools.product(*axes)]


def cmd_sweep(cfg: Config, a) -> int:
    """Update-only variants of epoch N over a grid, in one process: the samples, judgements and
    logprobs are read from disk, torch and the libraries are imported once."""
    if not a.grid:
        raise ConfigError("rlaif sweep needs at least one --grid update.KEY=V1,V2,...")
    combos = sweep_grid(a.grid)
    check_engines(cfg, sampling=False)
    from pipeline.runner import Runner
    t = time.time()
    for i, combo in enumerate(combos, 1):
        c = load_config(a.config, a.overrides + combo)
        r = Runner(c)
        say(f"[{i}/{len(combos)}] {' '.join(combo)}")
        t1 = time.time()
        res = r.run_epoch(a.n, update_only=True)
        fp = res["update"]["fingerprint"][:8]
        say(f"  -> update-{fp} ({time.time() - t1:.1f}s)")
    if not dist.is_main():
        return 0
    print(f"sweep of {len(combos)} variants done in {time.time() - t:.1f}s; side by side:")
    cmd_compare(cfg, a)
    print(f"choose one with `rlaif promote {a.n} update-<fp8>` (else the last one is chosen)")
    return 0


def cmd_eval(cfg: Config, a) -> int:
    check_engines(cfg, sampling=False)
    r = _runner(cfg)
    m = r.run_eval(a.n, warm_start=a.warm_start)
    fig = m.get("figures", {})
    say("  ".join(f"{k}={v:.4g}" for k, v in fig.items() if isinstance(v, (int, float))))
    return 0


def cmd_compare(cfg: Config, a) -> int:
    from pipeline.errors import RunError
    r = existing_run(cfg)
    variants = r.update_variants(a.n)
    if not variants:
        raise RunError(f"epoch {a.n} of run {r.run_dir} has no update yet: run `rlaif epoch {a.n}` first")
    chosen = r.chosen_update(a.n)
    cols = ["update.lr", "update.kl_coef", "loss/total", "loss/policy", "kl/k3", "kl/k1", "optim/grad_norm",
            "policy/entropy", "eval/score", "eval/pass@1"]
    evals, paths = {}, {}
    for _, m in variants:  # each variant's eval: the one this config asks for, else the epoch loop's
        found = r.eval_of(a.n, m["fingerprint"])
        if found:
            paths[m["fingerprint"]], evals[m["fingerprint"]] = found[0], found[1].get("figures", {})
    print(f"{'':2}{'variant':<18}" + "".join(f"{c:>16}" for c in cols))
    for p, m in variants:
        fig, conf = {**m.get("figures", {}), **evals.get(m["fingerprint"], {})}, m.get("config", {}).get("update", {})
        vals = [conf.get("lr"), conf.get("kl_coef")] + [fig.get(c) for c in cols[2:]]
        mark = "*" if chosen and chosen[0] == p else " "
        print(f"{mark} {p.name:<18}" + "".join(f"{v:>16.4g}" if isinstance(v, (int, float)) else f"{'-':>16}" for v in vals))
    print("* = chosen policy (the next epoch starts from it); change with `rlaif promote N VARIANT`")
    from pipeline.noise import variant_lines
    lines = variant_lines(paths.get(chosen[1]["fingerprint"]) if chosen else None,
                          [(p.name, paths[m["fingerprint"]]) for p, m in variants
                           if m["fingerprint"] in paths and not (chosen and chosen[0] == p)])
    if lines:
        print("eval against the chosen variant's, problem by problem (95% interval over problems; `rlaif compare-evals`):")
        print("\n".join(lines))
    return 0


def cmd_compare_evals(cfg: Config, a) -> int:
    from pipeline.errors import RunError
    from pipeline.significance import compare_evals, resolve_eval
    try:
        a_dirs = [resolve_eval(s) for s in a.a.split(",") if s]
        b_dirs = [resolve_eval(s) for s in a.b.split(",") if s]
        print("\n".join(compare_evals(a_dirs, b_dirs, a.confidence)))
    except ValueError as e:
        raise RunError(str(e)) from None
    return 0


def cmd_promote(cfg: Config, a) -> int:
    r = _runner(cfg)
    p = r.promote(a.n, a.variant)
    print(f"epoch {a.n}: chosen policy is now {p.name}; epoch {a.n + 1} will start from it")
    return 0


def cmd_status(cfg: Config, a) -> int:
    from pipeline.report import status_lines
    print("\n".join(status_lines(existing_run(cfg))))
    return 0


def existing_run(cfg: Config):
    """The run a reading command (report, status, samples, compare) reads: it must exist."""
    r = _runner(cfg)
    if not r.run_dir.is_dir():
        from pipeline.errors import RunError
        runs = sorted(p.name for p in Path(cfg.run.dir).glob("*") if p.is_dir() and not p.name.startswith("."))
        raise RunError(f"no run at {r.run_dir} (run.dir={cfg.run.dir}, run.name={cfg.run.name}): start it with "
                       f"`rlaif epoch 1`" + (f", or name one of the runs there: {', '.join(runs)} (run.name=...)"
                                             if runs else ""))
    return r


def cmd_report(cfg: Config, a) -> int:
    from pipeline.report import write_report
    print(f"wrote {write_report(existing_run(cfg))}")
    return 0


def cmd_samples(cfg: Config, a) -> int:
    from pipeline.report import samples
    print(samples(existing_run(cfg), a.n, worst=a.worst, best=a.best, prompt=a.prompt))
    return 0


def cmd_metrics(cfg: Config, a) -> int:
    from pipeline.metrics_doc import metrics_markdown
    print(metrics_markdown())
    return 0


def cmd_judge(cfg: Config, a) -> int:
    from data.loaders import load_source
    from pipeline.judging import Judging
    problems = {p.id: p for src in dict.fromkeys((cfg.data.source, "builtin", "ocaml"))
                for p in load_source(src, (cfg.data.mapping or None) if src == cfg.data.source else None, cfg.data.language)}
    if a.problem not in problems:
        print(f"error: no problem {a.problem!r} in data.source={cfg.data.source} or the builtin sets (Python, OCaml)",
              file=sys.stderr)
        return 2
    completion = Path(a.completion).read_text() if a.completion != "-" else sys.stdin.read()
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
        print(yaml.safe_dump(cfg.model_dump(), sort_keys=False), end="")
    return 0


def cmd_cache(cfg: Config, a) -> int:
    from judges.cache import JudgeCache
    from pipeline.judging import cache_dir
    c = JudgeCache(cache_dir(cfg))
    try:
        if a.what == "stats":
            print(json.dumps({"directory": str(c.directory), "entries": len(c), "bytes": c.volume()}, indent=2))
        elif a.what == "export":
            print(f"exported {c.export(a.file)} judgements from {c.directory} to {a.file}")
        else:
            added, present = c.import_(a.file)
            print(f"imported {added} judgements into {c.directory} ({present} were already there, kept as they were)")
    finally:
        c.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    from importlib.metadata import PackageNotFoundError, version
    try:
        ours = version("rlaif")
    except PackageNotFoundError:
        ours = "unknown (not installed)"
    ap = argparse.ArgumentParser(prog="rlaif", description="RLAIF teacher distillation with cached judging. "
                                 "Every command takes --config FILE and key.sub=value overrides; "
                                 "`rlaif COMMAND --help` for one command.")
    ap.add_argument("--config", default="config.yaml", help=CONFIG_HELP)
    ap.add_argument("--version", action="version", version=f"rlaif {ours}")
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    def with_overrides(p, epoch: bool = False):
        if epoch:
            p.add_argument("n", type=int, help="epoch number (1, 2, ...)")
        p.add_argument("overrides", nargs="*", metavar="key.sub=value", help="config overrides (`rlaif config show --doc` lists every key)")
        # --config after the command too (`rlaif epoch 2 --config my.yaml`); SUPPRESS keeps the global one otherwise
        p.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
        return p

    def with_processes(p):
        p.add_argument("--processes", type=int, default=1, metavar="N",
                       help="run on N processes (one per GPU): launches `accelerate launch --num_processes N` for you")
        p.add_argument("--accelerate-config", metavar="FILE",
                       help="with --processes: accelerate's config file (FSDP, DeepSpeed, several machines)")
        return p

    p = with_overrides(sub.add_parser("epoch", help="bring the run up to epoch N: epochs 1..N, finished stages reused",
                                      description="Run epochs 1 to N: each epoch's stages whose inputs and settings "
                                      "are unchanged are reused from disk, the rest run (a killed run resumes where it "
                                      "stopped). One line per epoch, then the report's flags."), epoch=True)
    from pipeline.stages import STAGES
    p.add_argument("--only", choices=[st.name for st in STAGES], metavar="STAGE",
                   help="run only this stage of epoch N (its inputs must be done): one of "
                        + ", ".join(st.name for st in STAGES))
    p.add_argument("--force", action="store_true", help="recompute even if up to date (judge cache still used)")
    p.add_argument("--dry-run", action="store_true", help="show what would run; run nothing")
    p.add_argument("--ignore-early-stop", action="store_true", help="run even if early stopping says stop")
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("update", help="rerun only epoch N's update into a side-by-side variant"), epoch=True)
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("sweep", help="several update-only variants of epoch N over a grid, in one process"),
                       epoch=True)
    p.add_argument("--grid", action="append", default=[], metavar="update.KEY=V1,V2",
                   help="an axis of the grid (repeat for more; the variants are every combination)")
    with_processes(p)
    p.set_defaults(fn=cmd_sweep)
    p = with_overrides(sub.add_parser("replay", help="run epoch N with judge.mode=replay (cache only, offline)"), epoch=True)
    with_processes(p)
    p.set_defaults(fn=cmd_epoch)
    p = with_overrides(sub.add_parser("eval", help="evaluate epoch N's chosen policy on held-out problems (0 = base model)"), epoch=True)
    p.add_argument("--warm-start", action="store_true",
                   help="with N=0: evaluate the supervised warm-start's adapter (`rlaif epoch 0`) instead of the base model")
    with_processes(p)
    p.set_defaults(fn=cmd_eval)
    p = with_overrides(sub.add_parser("compare", help="show epoch N's update variants side by side"), epoch=True)
    p.set_defaults(fn=cmd_compare)
    p = sub.add_parser("compare-evals", help="is B better than A beyond noise? paired, with a 95%% interval over problems",
                       description="Compare two evals of the same problems (A: e.g. the base model, B: a trained "
                       "policy) problem by problem: the mean paired difference of sampled pass@1, graded score and "
                       "reference NLL with a t interval over problems, the probability of improvement, won/lost/tied. "
                       "Several seeds: comma-separated lists, paired by position (one A against several Bs compares "
                       "each B with it).")
    p.add_argument("a", help="eval directory (runs/x/epoch-000/eval-1a2b3c4d) or RUN_DIR@N (newest eval of epoch N); "
                             "comma-separated for several seeds")
    p.add_argument("b", help="the same, for the other side")
    p.add_argument("--confidence", type=float, default=0.95, help="interval's confidence level (default 0.95)")
    with_overrides(p)
    p.set_defaults(fn=cmd_compare_evals)
    p = sub.add_parser("promote", help="choose the policy epoch N+1 starts from")
    p.add_argument("n", type=int, help="epoch number")
    p.add_argument("variant", help="variant directory name (update-1a2b3c4d) or its fingerprint prefix")
    with_overrides(p)
    p.set_defaults(fn=cmd_promote)
    p = with_overrides(sub.add_parser("judge", help="score one answer and print the JSON"))
    p.add_argument("--problem", required=True, help="problem id (e.g. py-easy-001)")
    p.add_argument("--completion", required=True, help="file holding the answer ('-' = stdin)")
    p.add_argument("--truncated", action="store_true", help="treat the answer as cut off by max_new_tokens")
    p.set_defaults(fn=cmd_judge)
    p = with_overrides(sub.add_parser("status", help="epochs, stages, chosen variants, money spent"))
    p.set_defaults(fn=cmd_status)
    p = with_overrides(sub.add_parser("report", help="write runs/<run>/report.md: metrics table, health flags, plots, samples"))
    p.set_defaults(fn=cmd_report)
    p = with_overrides(sub.add_parser("samples", help="show epoch N's completions with score breakdown and reward"), epoch=True)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--worst", type=int, metavar="K", help="the K lowest-reward completions")
    g.add_argument("--best", type=int, metavar="K", help="the K highest-reward completions")
    g.add_argument("--prompt", metavar="ID", help="every completion of one prompt")
    p.set_defaults(fn=cmd_samples)
    p = with_overrides(sub.add_parser("metrics", help="every metric: meaning and which way is good"))
    p.set_defaults(fn=cmd_metrics)
    p = sub.add_parser("config", help="config commands")
    csub = p.add_subparsers(dest="what", required=True)
    p = with_overrides(csub.add_parser("show", help="print the effective config"))
    p.add_argument("--doc", action="store_true", help="list every key with its default and doc")
    p.set_defaults(fn=cmd_config)
    p = sub.add_parser("cache", help="judge cache commands")
    csub = p.add_subparsers(dest="what", required=True)
    p = with_overrides(csub.add_parser("stats", help="entries and size of the judge cache"))
    p.set_defaults(fn=cmd_cache)
    for what, text in (("export", "write every judgement to FILE (.jsonl or .parquet)"),
                       ("import", "merge FILE into the cache without overwriting")):
        p = csub.add_parser(what, help=text)
        p.add_argument("file")
        with_overrides(p)
        p.set_defaults(fn=cmd_cache)
    return ap


CONFIG_HELP = ("YAML config file (default: ./config.yaml when it exists, else the built-in defaults: the same "
               "recommended values)")


def _quiet_libraries() -> None:
    """Library warnings users cannot act on; progress bars are silenced when a stage runs
    (pipeline.runner.quiet_libraries), so a rerun that reuses everything imports no torch."""
    import warnings
    warnings.filterwarnings("ignore", category=FutureWarning)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main(argv: list[str] | None = None) -> int:
    from data.rows import DataError
    from judges.cache import CacheCorrupted
    from pipeline.errors import RunError
    from pipeline.model import ModelError
    parser = build_parser()
    a, extra = parser.parse_known_args(argv)
    # key=value overrides may stand anywhere (argparse stops filling a positional list at an option)
    stray = [x for x in extra if "=" not in x or x.startswith("-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    a.overrides = list(getattr(a, "overrides", [])) + [x for x in extra if x not in stray]
    if getattr(a, "processes", 1) > 1 and dist.world_size() == 1:
        return dist.launch(a.processes, a.accelerate_config, sys.argv[1:] if argv is None else argv)
    _quiet_libraries()
    overrides = a.overrides
    if a.cmd == "replay":
        overrides.append("judge.mode=replay")
    try:
        cfg = load_config(a.config, overrides)
        logging.basicConfig(level=cfg.run.log_level, format="%(levelname)s %(message)s")
        if dist.world_size() > 1:
            from pipeline.model import resolve_device
            dist.init(resolve_device(cfg.run.device), cfg.run.dist_timeout_s)
        return a.fn(cfg, a)
    except (ConfigError, RunError, ModelError, DataError, CacheCorrupted, dist.RankFailed) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished stages are kept; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
