"""The execution judge's throughput: answers judged per second by judges.execution.ExecutionJudge,
ours against the two costs it shed, side by side on the same answers in alternating rounds, from a
small process and from one holding gigabytes of tensors in 4 KiB pages (a loaded model's: the eval
and judge stages judge from the process that sampled):

- `site`: the sandboxed Python started with it (python -s -P) reads every .pth file of the
  environment, and an editable install's runs its import finder; ours starts with -S, the
  site-packages put on the path as plain directories;
- fork: a Popen with a preexec_fn (where the rlimits were set) forks, copying the page tables of the
  whole parent, which grow with the tensors it holds; ours sets them in the sandbox's bootstrap and
  Popen uses vfork.

And the floor at the same parallelism: sandboxed starts that run `pass`, and bare interpreter
starts (python -S -c pass: no judge starts a fresh Python faster).

The answers are the reference solutions of the problem bank's held-out problems (every test runs,
every answer passes). On the learning bench's machine the eval of the base model on bank:heldout
judged at 6.4 answers/s before (198 of its 388 s).

    python bench/execution_judge.py [--answers 159] [--rounds 3] [--workers N] [--hold-gb 3] [--record]
"""
from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from data.loaders import load_source  # noqa: E402
from judges import sandbox  # noqa: E402
from judges.execution import ExecutionJudge  # noqa: E402

OURS = list(sandbox._PY_FLAGS)
WITH_SITE = ["-s", "-P"] if sys.version_info >= (3, 11) else ["-s"]
WAYS = {"ours (no site, vfork)": (OURS, False), "with site": (WITH_SITE, False),
        "with fork (a preexec_fn)": (OURS, True), "before: site and fork": (WITH_SITE, True)}


def rate(fn, n: int, workers: int) -> float:
    """fn() n times over `workers` threads: calls per second."""
    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda _: fn(), range(n)))
    return n / (time.perf_counter() - t)


def judge_rate(items: list, workers: int, flags: list[str], fork: bool) -> float:
    """Answers judged per second, the sandbox's Python started with `flags`, through a Popen that
    forks (a no-op preexec_fn) when `fork`."""
    popen = subprocess.Popen
    sandbox._PY_FLAGS[:] = flags
    if fork:
        subprocess.Popen = functools.partial(popen, preexec_fn=lambda: None)
    try:
        t = time.perf_counter()
        scores = ExecutionJudge().score_many(items, workers=workers)
        took = time.perf_counter() - t
    finally:
        sandbox._PY_FLAGS[:] = OURS
        subprocess.Popen = popen
    failed = [p.id for (p, _), s in zip(items, scores) if not (s.breakdown or {}).get("total")
              or s.breakdown["passed"] != s.breakdown["total"]]
    if failed:
        raise SystemExit(f"a reference failed its own tests ({flags}, fork {fork}): {failed[:5]}")
    return len(items) / took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=159, help="answers judged a round (the bank's held-out references, "
                                                            "repeated past 159)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of each way; the best of each reported")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="judging threads (judge.workers' default: the cores)")
    ap.add_argument("--hold-gb", type=float, default=3.0, help="the second column's process holds this many GB of "
                                                                "tensors (1 MB each: a loaded model's 4 KiB pages)")
    ap.add_argument("--record", action="store_true", help="append the table to bench/RESULTS.md")
    a = ap.parse_args()
    probs = [p for p in load_source("bank:heldout") if p.reference]
    items = [(p, f"```python\n{p.reference}\n```") for p in (probs * (a.answers // len(probs) + 1))[:a.answers]]
    cols = {}
    held = []
    for col in ("small process", f"holding {a.hold_gb:g} GB"):
        if held == [] and col != "small process":
            import torch
            held = [torch.ones(1 << 18) for _ in range(int(a.hold_gb * 1000))]
        best = dict.fromkeys(WAYS, 0.0)
        for _ in range(a.rounds):
            for way, (flags, fork) in WAYS.items():
                best[way] = max(best[way], judge_rate(items, a.workers, flags, fork))
        py = [sys.executable, "-S", "-c", "pass"]
        best["floor: sandboxed starts of `pass`"] = max(rate(lambda: sandbox.run_python("pass"), a.answers, a.workers)
                                                       for _ in range(a.rounds))
        best["floor: bare interpreter starts"] = max(rate(lambda: subprocess.run(py, check=True), a.answers, a.workers)
                                                    for _ in range(a.rounds))
        cols[col] = best
    ours = [c[next(iter(WAYS))] for c in cols.values()]
    lines = [f"| answers/s ({a.answers} a round, {a.workers} threads, best of {a.rounds}; {sandbox.active_backend()}) | "
             + " | ".join(f"{c} | against ours" for c in cols) + " |", "|---" * (1 + 2 * len(cols)) + "|"]
    for way in next(iter(cols.values())):
        lines.append(f"| {way} | " + " | ".join(f"{c[way]:.1f} | {c[way] / o:.2f}x" for c, o in zip(cols.values(), ours))
                     + " |")
    small, big = cols.values()
    before = next(reversed(WAYS))
    said = (f"Ours judges {ours[0] / small[before]:.2f}x as fast as before from a small process and "
            f"{ours[1] / big[before]:.2f}x from one holding {a.hold_gb:g} GB (fork alone: "
            f"{ours[1] / big['with fork (a preexec_fn)']:.2f}x there; site alone: "
            f"{ours[0] / small['with site']:.2f}x in the small one); it runs at "
            f"{ours[0] / small['floor: sandboxed starts of `pass`']:.0%} of the rate of sandboxed starts that do nothing "
            f"and {ours[0] / small['floor: bare interpreter starts']:.0%} of bare interpreter starts. "
            f"Load average at the end: {os.getloadavg()[0]:.2f}.")
    if a.record:
        record("execution judge: answers judged per second (bench/execution_judge.py)", lines, said)
    else:
        print("\n".join(lines) + "\n\n" + said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
