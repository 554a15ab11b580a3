"""What the commands share: the run a command acts on, the lines it prints (rank 0 alone; a
status line that the next replaces; progress bars that clear their line), and the arguments' types."""

import argparse
import functools
import logging
import sys
from contextlib import contextmanager
from pathlib import Path


from pipeline.store import dist
from pipeline.config.schema import Config


log = logging.getLogger("rlaif")


def setup_logging(log_level: str, rank_filter=None) -> None:
    """The root logger prints `LEVEL message` from log_level on. The API SDKs' HTTP client (by either of its
    package names) logs a line per request at INFO, hundreds an epoch, and torch its internals: from DEBUG on. rank_filter: a
    rank other than 0's (module loggers such as pipeline.store.dist and judges.* pass the root's handlers)."""
    logging.basicConfig(level=log_level, format="%(levelname)s %(message)s")
    # torch's own INFO lines (FakeTensor cache stats, printed at exit after a compile or an interrupt) likewise
    for name in ("httpx", "httpx2", "torch"):
        logging.getLogger(name).setLevel(logging.NOTSET if log_level == "DEBUG" else logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.addFilter(not_printed_below)
        if rank_filter is not None:
            handler.addFilter(rank_filter)


def not_printed_below(record: logging.LogRecord) -> bool:
    """False for a record that a handler of its own logger's printed already: datasets and huggingface_hub
    give their loggers a stream handler and leave them propagating, so the root printed each of their
    warnings a second time. (A NullHandler prints nothing.)"""
    logger = logging.getLogger(record.name)
    while logger.parent is not None:   # up to the root, which has none
        if any(not isinstance(h, logging.NullHandler) for h in logger.handlers):
            return False
        if not logger.propagate:
            break
        logger = logger.parent
    return True


def open_runner(cfg: Config):
    from pipeline.run.runner import Runner
    return Runner(cfg)


def config_file_line(path: str | None) -> str:
    """Which config file a command read: --config FILE, else ./config.yaml when it exists."""
    p = Path(path) if path else None
    return f"config file: {p.absolute()}" if p is not None and p.exists() else "no config file: built-in defaults"


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


def say(text: str) -> None:
    """print, from rank 0 alone when several processes run the command."""
    if dist.is_main():
        print(text, flush=True)


def existing_run(cfg: Config, a: argparse.Namespace | None = None):
    """The run a reading command (report, status, samples, compare) reads: it must exist. a: the command's
    arguments, whose --config and overrides the command that starts the run is given too."""
    r = open_runner(cfg)
    if not r.run_dir.is_dir():
        import shlex
        from pipeline.config.errors import RunError
        runs = sorted(p.name for p in Path(cfg.run.dir).glob("*") if p.is_dir() and not p.name.startswith("."))
        where = "" if Path(cfg.run.dir).expanduser().is_absolute() else f", read from the working directory {Path.cwd()}"
        given = ([f"--config={a.config}"] if a is not None and a.config != "config.yaml" else []) + \
            list(getattr(a, "overrides", None) or [])
        raise RunError(f"no run at {r.run_dir} (run.dir={cfg.run.dir}{where}; run.name={cfg.run.name}): start it with "
                       f"`{shlex.join(['rlaif', 'epoch', '1', *given])}`"
                       + (f", or name one of the runs there: {', '.join(runs)} (run.name=...)" if runs else ""))
    return r


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def count(text: str) -> int:
    """A non-negative whole number (an epoch: 0 is the warm-start)."""
    if (v := _whole(text)) < 0:
        raise argparse.ArgumentTypeError(f"{v} is negative: epochs and counts start at 0 (epoch 0 is the warm-start)")
    return v


def positive(text: str) -> int:
    """A whole number of 1 or more (completions shown, processes): 0 would do nothing, silently."""
    if (v := _whole(text)) < 1:
        raise argparse.ArgumentTypeError(f"{v} is less than 1: give 1 or more")
    return v


def level(text: str) -> float:
    """A confidence level strictly between 0 and 1."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"{v} is not between 0 and 1 (0.95 for a 95% interval)")
    return v


def config_twice(args: list[str]) -> str | None:
    """The error for a command line that gives --config more than once (argparse keeps the last, silently)."""
    files = [x.removeprefix("--config=") for x, y in zip(args, ["", *args]) if x.startswith("--config=") or y == "--config"]
    return (f"--config given {len(files)} times ({', '.join(files)}): give one file; key=value overrides change "
            "its settings") if len(files) > 1 else None


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of command `name` (its usage is the one an error of that command's line shows)."""
    return next(x for x in parser._actions if isinstance(x, argparse._SubParsersAction)).choices[name]


def path_error(e: OSError) -> str:
    """An OSError on a path, as one line: what failed, on which path, and what to check."""
    paths = f"{e.filename}" + (f" -> {e.filename2}" if e.filename2 else "")
    return (f"{e.strerror or type(e).__name__}: {paths} (a path from run.dir, judge.cache_dir or the command's "
            "own arguments: choose one that can be made and written, or free the disk; finished stages are kept)")


def launch_refusal(a: argparse.Namespace) -> str | None:
    """`--processes N`: what refuses the command before its N processes start (the config, an engine that does not
    run on several, the run's lock held by another command), as the error each rank would give; None if nothing."""
    import os
    from data.rows import DataError
    from pipeline.config.base import ConfigError
    from pipeline.config.errors import RunError
    from pipeline.config.file import load_config
    from pipeline.run.preflight import check_engines
    from pipeline.run.run_lock import busy, lock_holder
    try:
        cfg = load_config(os.path.expanduser(a.config), [*a.overrides, *(["judge.mode=replay"] if a.cmd == "replay" else [])])
        check_engines(cfg, sampling=a.cmd not in ("update", "sweep", "eval"), updating=a.cmd != "eval",
                      processes=a.processes)   # (as each command checks it)
        if not getattr(a, "dry_run", False) and (pid := lock_holder(run := Path(cfg.run.dir) / cfg.run.name)):
            raise busy(run, pid)
    except (ConfigError, RunError, DataError) as e:
        return str(e)
    return None
