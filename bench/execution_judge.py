"""The execution judge's throughput: answers judged per second by judges.execution.ExecutionJudge,
its sandboxed Python started without `site` (ours: python -S -P, the site-packages put on the path
as plain directories) against with it (python -s -P, as before: `site` reads every .pth file of the
environment, and an editable install's runs its import finder), side by side on the same answers
in alternating rounds; and the floor at the same parallelism: bare interpreter starts (python -S -c
pass: no judge can start a fresh Python faster) and sandboxed ones (bwrap, the bootstrap, `pass`).

The answers are the reference solutions of the problem bank's held-out problems (every test runs,
every answer passes). An eval judges 8 answers of each of its problems: on the 2-core machine of
the learning bench, judging took half of a sampled eval's time (the base model on bank:heldout: 198
of 388 s, 6.4 answers/s).

    python bench/execution_judge.py [--answers 159] [--rounds 3] [--workers N] [--record]
"""
from __future__ import annotations

import argparse
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


def rate(fn, n: int, workers: int) -> float:
    """fn() n times over `workers` threads: calls per second."""
    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda _: fn(), range(n)))
    return n / (time.perf_counter() - t)


def judge_rate(items: list, workers: int, flags: list[str]) -> float:
    sandbox._PY_FLAGS[:] = flags
    try:
        t = time.perf_counter()
        scores = ExecutionJudge().score_many(items, workers=workers)
        took = time.perf_counter() - t
    finally:
        sandbox._PY_FLAGS[:] = OURS
    failed = [p.id for (p, _), s in zip(items, scores) if not (s.breakdown or {}).get("total")
              or s.breakdown["passed"] != s.breakdown["total"]]
    if failed:
        raise SystemExit(f"a reference failed its own tests ({flags}): {failed[:5]}")
    return len(items) / took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=159, help="answers judged a round (the bank's held-out references, "
                                                            "repeated past 159)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of each start; the best of each reported")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="judging threads (judge.workers' default: the cores)")
    ap.add_argument("--record", action="store_true", help="append the table to bench/RESULTS.md")
    a = ap.parse_args()
    probs = [p for p in load_source("bank:heldout") if p.reference]
    items = [(p, f"```python\n{p.reference}\n```") for p in (probs * (a.answers // len(probs) + 1))[:a.answers]]
    best = {"with site": 0.0, "without site (ours)": 0.0}
    for _ in range(a.rounds):
        best["with site"] = max(best["with site"], judge_rate(items, a.workers, WITH_SITE))
        best["without site (ours)"] = max(best["without site (ours)"], judge_rate(items, a.workers, OURS))
    py = [sys.executable, "-S", "-c", "pass"]
    floor = max(rate(lambda: subprocess.run(py, check=True), a.answers, a.workers) for _ in range(a.rounds))
    boxed = max(rate(lambda: sandbox.run_python("pass"), a.answers, a.workers) for _ in range(a.rounds))
    ours = best["without site (ours)"]
    lines = [f"| what ({a.answers} answers a round, {a.workers} threads, best of {a.rounds}) | per second | "
             "against ours |", "|---|---|---|"]
    for what, v in [*best.items(), (f"floor: sandboxed starts ({sandbox.active_backend()}, the bootstrap, pass)", boxed),
                    ("floor: bare interpreter starts (python -S -c pass)", floor)]:
        lines.append(f"| {what} | {v:.1f} | {v / ours:.2f}x |")
    said = (f"Without `site` the judge answers {ours / best['with site']:.2f}x as fast as with it; it runs at "
            f"{ours / boxed:.0%} of the rate of sandboxed starts that do nothing and {ours / floor:.0%} of bare "
            f"interpreter starts. Load average at the start: {os.getloadavg()[0]:.2f}.")
    if a.record:
        record("execution judge: answers judged per second (bench/execution_judge.py)", lines, said)
    else:
        print("\n".join(lines) + "\n\n" + said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
