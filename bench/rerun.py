"""Unchanged rerun over cold epoch: what `rlaif epoch 1` costs when nothing changed.

A fresh run directory (and so a cold judge cache), then `rlaif epoch 1` on the small config in
a subprocess (cold), then the very same command again, three times (every stage is reused).
Both wall clock, process start-up included; the epoch's own time as the CLI prints it ("done
in Xs") is shown too, so start-up and reuse checks can be told apart. Goal: rerun (median) under
2% of the cold epoch.

    python bench/rerun.py [--reruns 3] [key.sub=value ...]
"""
from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import PY, RLAIF, ROOT, SMALL, busy, run_timed  # noqa: E402


def inner_s(stdout: str) -> float:
    """The epoch's own seconds, from the CLI's last line `done in X.Ys`."""
    return float(re.findall(r"done in ([0-9.]+)s", stdout)[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reruns", type=int, default=3)
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    run_dir = ROOT / "runs" / "bench-rerun"
    shutil.rmtree(run_dir, ignore_errors=True)
    cmd = [RLAIF, "--config", "config.yaml", "epoch", "1", *SMALL, f"run.dir={run_dir}", "run.name=rerun",
           *a.overrides]
    cold, out = run_timed(cmd)
    cold_inner = inner_s(out)
    print(f"cold epoch: {cold:.1f}s wall ({cold_inner:.1f}s in the epoch)")
    reruns = []
    for _ in range(a.reruns):
        wall, out = run_timed(cmd)
        ran = [line.split()[0] for line in out.splitlines() if " running " in line]
        if ran:
            raise RuntimeError(f"the unchanged rerun ran stages {ran}; it should reuse all of them:\n{out}")
        reruns.append((wall, inner_s(out)))
        print(f"unchanged rerun: {wall:.2f}s wall ({reruns[-1][1]:.2f}s in the epoch), every stage reused")
    med = statistics.median(w for w, _ in reruns)
    ratio = med / cold
    # where a rerun's time goes: bare start-up, the CLI's imports, and what running a stage would import
    imports = {what: statistics.median(run_timed([PY, "-c", what])[0] for _ in range(3))
               for what in ("pass", "import pipeline.cli.main", "import pipeline.stages.update")}
    lines = ["| | wall s | in the epoch s (CLI `done in`) |", "|---|---|---|",
             f"| cold `rlaif epoch 1` (fresh run dir, cold judge cache) | {cold:.1f} | {cold_inner:.1f} |"]
    lines += [f"| unchanged rerun {i + 1} (every stage reused) | {w:.2f} | {e:.2f} |"
              for i, (w, e) in enumerate(reruns)]
    verdict = (f"Unchanged rerun / cold epoch = **{100 * ratio:.2f}%** (median of {len(reruns)} reruns; goal < 2%: "
               f"{'met' if ratio < 0.02 else 'NOT met'}). Inside the rerun the epoch itself took "
               f"{statistics.median(e for _, e in reruns):.2f}s; the rest is start-up. For scale (medians of 3): "
               + ", ".join(f"`python -c '{w}'` {s:.2f}s" for w, s in imports.items())
               + " (the last: torch, transformers, trl, which a stage that runs needs).")
    setup = (f"Config: config.yaml + {' '.join(SMALL)}{' ' + ' '.join(a.overrides) if a.overrides else ''}; each run a "
             f"subprocess, wall clock. Note: {busy()}.")
    record("rerun: unchanged rerun vs cold epoch (bench/rerun.py)", lines, verdict, setup)
    return 0

if __name__ == "__main__":
    sys.exit(main())
