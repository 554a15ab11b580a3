"""A held-out set's power: the base student's per-problem pass rates from a sampled eval, and the
smallest paired pass@1 difference the set resolves.

    rlaif eval 0 "eval.sources=[bank:heldout,builtin:heldout]" eval.num_samples=8 eval.temperature=0.6 \
        eval.reference_nll=false run.name=base-rates
    python bench/bank_rates.py runs/base-rates/epoch-000/eval-*/ [--record]

Per source (and per difficulty): problems, mean pass@1, how many the student solves in none of its
n answers, in all of them, and in some (neither 0/n nor n/n: the problems that carry a paired
comparison), and the MDE: the smallest paired difference (trained - base, n answers a side, one
seed) a two-sided t test at alpha 0.05 finds with 80% power, (1.96 + 0.84) x sqrt(mean over
problems of both sides' binomial variance p(1 - p)/n) / sqrt(problems), taking the trained side's
rates equal to the base's. k seeds divide it by sqrt(k). Rows of problems no longer in their source
(moved to training since the eval ran) are left out, and named. A problem at 0/n or n/n has no variance
and resolves nothing until training moves it off its bound, so the MDE is honest only beside the
'some' count.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402

# The eval seeds (run.seed x 1000 + epoch) of the calibration draws that chose the bank's held-out
# problems (bench/RESULTS.md: the basics problems the base solved at least once in 8 answers, run.seed
# 0, epoch 0). An eval at one of them, on those problems, draws the calibration's own streams and
# inherits its selection: bench/learning.py uses none (tests/test_bench_learning.py).
CALIBRATION_EVAL_SEEDS = frozenset({0})
from pipeline.store.tables import load_table  # noqa: E402

Z = 1.96 + 0.84


def mde(rates: list[float], n: int) -> float:
    return Z * math.sqrt(sum(2 * p * (1 - p) / n for p in rates) / len(rates)) / math.sqrt(len(rates))


def line(name: str, rows: list[dict]) -> str:
    n = rows[0]["n"]
    rates = [r["correct"] / r["n"] for r in rows]
    zero, full = sum(r["correct"] == 0 for r in rows), sum(r["correct"] == r["n"] for r in rows)
    some = len(rows) - zero - full
    score = sum(r["score"] for r in rows) / len(rows)
    return (f"| {name} | {len(rows)} | {sum(rates) / len(rates):.3f} | {zero} | {full} | {some} ({some / len(rows):.0%}) "
            f"| {mde(rates, n):.3f} | {score:.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eval_dir", type=Path, help="an eval stage's output folder (epoch-NNN/eval-*)")
    ap.add_argument("--record", action="store_true", help="append the table to bench/RESULTS.md")
    a = ap.parse_args()
    rows = load_table(a.eval_dir)
    if not rows or rows[0]["n"] < 2:
        print(f"{a.eval_dir}: a sampled eval is needed (eval.num_samples=8 eval.temperature=0.6)", file=sys.stderr)
        return 2
    from data.loaders import DataError, load_source
    difficulty = {}
    for src in {r["source"] for r in rows}:
        try:
            difficulty.update({(src, p.id): p.difficulty for p in load_source(src)})
        except DataError:  # a source that no longer loads (a file moved): its rows are kept, difficulty '?'
            difficulty.update({(src, r["problem_id"]): "?" for r in rows if r["source"] == src})
    gone = [r for r in rows if (r["source"], r["problem_id"]) not in difficulty]
    rows = [r for r in rows if (r["source"], r["problem_id"]) in difficulty]
    if gone:  # e.g. moved to the training split since the eval ran
        print(f"left out {len(gone)} rows whose problem is no longer in its source: "
              f"{', '.join(r['problem_id'] for r in gone)}", file=sys.stderr)
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["source"]].append(r)
        groups[f"{r['source']} {difficulty[(r['source'], r['problem_id'])]}"].append(r)
    groups["all"] = rows
    lines = ["| set | problems | mean pass@1 | 0/n | n/n | some | pass@1 MDE, 1 seed | graded score |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [line(k, v) for k, v in sorted(groups.items(), key=lambda kv: (kv[0] == "all", kv[0]))]
    text = "\n".join(lines)
    if a.record:
        record("held-out set: the base student's pass rates and the differences they resolve (bench/bank_rates.py)",
               lines, f"From {a.eval_dir}: {len(rows)} problems x {rows[0]['n']} answers.")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
