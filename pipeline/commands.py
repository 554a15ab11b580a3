"""What each `rlaif` command does (pipeline.cli parses the command line and calls these)."""
from __future__ import annotations

import functools
import json
import logging
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import yaml

from pipeline import dist
from pipeline.config import Config
from pipeline.config_base import ConfigError
from pipeline.config_file import describe, load_config
from pipeline.errors import RunError
from pipeline.preflight import check_data, check_engines

log = logging.getLogger("rlaif")


def _runner(cfg: Config):
    from pipeline.runner import Runner
    return Runner(cfg)


def config_file_line(path: str | None) -> str:
    """Which config file a command read: --config FILE, else ./config.yaml when it exists."""
    p = Path(path) if path else None
    return f"config file: {p.absolute()}" if p is not None and p.exists() else "no config file: built-in defaults"


def cmd_epoch(cfg: Config, a) -> int:
    """`rlaif epoch N`: epochs 1..N, each one's finished stages reused (an epoch done earlier costs a
    line); `rlaif update N`, `rlaif replay N`, `--only`, `--force`: epoch N alone."""
    check_engines(cfg, sampling=a.cmd != "update")
    check_data(cfg)
    r = _runner(cfg)
    if a.cmd == "update" and not any(r.epoch_dir(a.n).glob("*/manifest.json")):
        raise RunError(f"epoch {a.n} of run {r.run_dir} has not run: `rlaif update {a.n}` reruns the update of an "
                       f"epoch whose samples, judgements and logprobs are on disk; run `rlaif epoch {a.n}` first "
                       "(with these settings), then `rlaif update` for other update settings")
    ranks = f" on {dist.world_size()} processes" if dist.world_size() > 1 else ""
    dry_run = getattr(a, "dry_run", False)
    single = a.cmd != "epoch" or a.n <= 1 or getattr(a, "only", None) is not None or getattr(a, "force", False)
    say(config_file_line(a.config))
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
        verbose = dry_run or getattr(a, "verbose", False) or cfg.run.log_level.upper() == "DEBUG"
        done = []
        with transient_bars(not verbose):
            for n in range(1, a.n + 1):
                if dry_run and n > 1 and r.chosen_update(n - 1) is None:
                    say(f"epochs {n} to {a.n}: to run after epoch {n - 1} (their stages depend on its policy)")
                    break
                progress = EpochProgress(r, n, verbose, dry_run)
                try:
                    res = r.run_epoch(n, dry_run=dry_run, echo=progress,
                                      ignore_early_stop=getattr(a, "ignore_early_stop", False))
                finally:
                    status("")  # an error's message starts on a clean line
                progress.finish()
                done.append(n)
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
    print(f"done in {duration(time.time() - t)}")
    return 0


class EpochProgress:
    """The runner's stage lines of one epoch of `rlaif epoch N` (N > 1), told as one line per epoch:

        epoch 2 done in 1m52s (9 stages ran, 0 reused): reward/mean=0.55  ...

    and, while a stage runs, one line on the terminal that the next stage (or its progress bar)
    overwrites. verbose (--verbose, run.log_level=DEBUG, --dry-run): every stage's lines too."""

    def __init__(self, runner, n: int, verbose: bool, dry_run: bool):
        self.r, self.verbose, self.dry_run = runner, verbose, dry_run
        self._start(n)

    def _start(self, n: int, header: str | None = None) -> None:
        self.n, self.ran, self.reused, self.t = n, 0, 0, time.time()
        self.header = header  # the runner's own, for the warm-start's epoch 0 and the epoch 1 after it
        self.said_header = False

    def __call__(self, line: str) -> None:
        words = line.split()
        if words[0] == "epoch":  # the runner brings in the warm-start (epoch 0) before epoch 1
            if self.ran or self.reused:
                self.finish()
            self._start(int(words[1]), line)
            return
        stage, what = words[0], words[1]
        self.ran += what == "done"
        self.reused += what == "reused"
        if self.verbose:
            if not self.said_header:
                say(self.header or f"epoch {self.n}")
                self.said_header = True
            if what != "reused" or not self.dry_run:
                say(line)
        elif what == "running":
            status(f"epoch {self.n}: {stage} ...")

    def finish(self) -> None:
        """The epoch's line (not in a dry run: nothing ran)."""
        status("")
        if self.dry_run or not dist.is_main():
            return
        name = "epoch 0 (the supervised warm-start)" if self.n == 0 else None
        say(epoch_line(self.r, self.n, self.reused, self.ran, time.time() - self.t, name))


def status(text: str) -> None:
    """A line on the terminal that the next one replaces (stderr, where the progress bars are);
    nothing when stderr is not a terminal."""
    if dist.is_main() and sys.stderr.isatty():
        sys.stderr.write(f"\r\x1b[K{text}")
        sys.stderr.flush()


@contextmanager
def transient_bars(on: bool = True):
    """Every progress bar a stage makes clears its line when done (tqdm's leave=False), so a run of
    several epochs shows one line per epoch, and during a stage its bar."""
    if not on:
        yield
        return
    from tqdm import std
    init = std.tqdm.__dict__["__init__"]
    std.tqdm.__init__ = functools.partialmethod(init, leave=False)
    try:
        yield
    finally:
        std.tqdm.__init__ = init


def duration(secs: float) -> str:
    """4.2s, 27s, 1m52s, 2h05m."""
    if secs < 10:
        return f"{secs:.1f}s"
    m, s = divmod(round(secs), 60)
    if not m:
        return f"{s}s"
    return f"{m}m{s:02d}s" if m < 60 else f"{m // 60}h{m % 60:02d}m"


def epoch_line(r, n: int, reused: int | None = None, ran: int = 0, secs: float | None = None,
               name: str | None = None) -> str:
    """One epoch's line: its headline metrics (and, looping over epochs, what ran, in how long)."""
    path = r.epoch_dir(n) / "metrics.json"
    m = json.loads(path.read_text()) if path.exists() else {}
    keys = ["reward/mean", "reward/best_of_n", "reward/frac_zero_std", "score/student_mean", "score/teacher_mean",
            "loss/total", "kl/k3", "eval/pass@1", "judge/api_calls", "judge/cache_hits"]
    figures = "  ".join(f"{k}={m[k]:.4g}" for k in keys if isinstance(m.get(k), (int, float)))
    if reused is None:
        return figures
    how = "(every stage reused)" if not ran else f"in {duration(secs or 0)} ({ran} stages ran, {reused} reused)"
    return f"{name or f'epoch {n}'} done {how}: {figures}"


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
    check_data(cfg)
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
    check_data(cfg)
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
    from pipeline.errors import RunError
    from pipeline.judging import Judging
    if a.completion == "-":
        completion = sys.stdin.read()
    else:
        try:
            completion = Path(a.completion).expanduser().read_text()
        except (OSError, UnicodeDecodeError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise RunError(f"--completion {a.completion}: cannot read it ({why}); give the file holding the "
                           "answer to score, or - to read it from stdin") from None
    problems = {p.id: p for src in dict.fromkeys((cfg.data.source, "builtin", "ocaml"))
                for p in load_source(src, (cfg.data.mapping or None) if src == cfg.data.source else None, cfg.data.language)}
    if a.problem not in problems:
        print(f"error: no problem {a.problem!r} in data.source={cfg.data.source} or the builtin sets (Python, OCaml)",
              file=sys.stderr)
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
    from pipeline.errors import RunError
    from pipeline.judging import cache_dir
    if a.what == "import" and not Path(a.file).expanduser().is_file():
        raise RunError(f"cache import {a.file}: no such file; give a file written by `rlaif cache export` "
                       "(.jsonl or .parquet)")
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
