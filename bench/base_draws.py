"""Draws of the same weights: does a draw's pass@1 depend on when it ran, how much more do draws
spread than their problems' own noise predicts, and how far up does a draw whose problems were kept
for its own successes sit?

    python bench/base_draws.py runs/bench-learning/base/epoch-000/eval-A,runs/bench-learning/base/epoch-000/eval-B \
        runs/bench-learning/base-draw1/epoch-000/eval-C,... [--selected py-basics-] [--record]

Each argument is one draw of the same weights (each with its own eval seed), in the order the draws
ran: its sampled eval folder, or the folders of its evals of several sets joined by commas. Over the problems every draw has, it prints:
- each draw's pass@1, and the trend over run order: Kendall's tau between run order and pass@1 with
  its exact permutation p (every order of the draws equally likely when the order does not matter);
- the SD of the draws' means against the SD each problem's own sampling noise predicts (the mean over
  problems of the binomial variance p(1 - p)/n at each problem's pooled rate, over P), their ratio and
  the chi-square p of that ratio (D - 1 degrees of freedom), and the draw-level variance the learning
  bench adds to its intervals (pipeline.metrics.significance.draw_variance);
- the selection's lift: a calibration draw that kept a problem only if one of its n answers passed
  (the bank's basics problems were kept so, on run.seed 0's eval: --selected names them by id prefix)
  reads higher on those problems by E[k/n | k >= 1] - p = p / (1 - (1 - p)^n) - p each, at the pooled
  rate p of the draws given (which never reused that draw's streams); the lift on the whole set is
  their sum over all problems.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402
from pipeline.metrics.evals import load_eval  # noqa: E402
from pipeline.metrics.significance import draw_variance  # noqa: E402


def kendall(x: list[float]) -> tuple[float, float]:
    """Kendall's tau of x against its order (0, 1, 2, ...), and the two-sided exact permutation p of
    |tau| at least as large (every order of the values equally likely)."""
    def tau(v):
        pairs = list(itertools.combinations(range(len(v)), 2))
        return sum((v[j] > v[i]) - (v[j] < v[i]) for i, j in pairs) / len(pairs)
    t = tau(x)
    perms = list(itertools.permutations(x)) if len(x) <= 8 else None
    if perms is None:
        return t, float("nan")
    return t, sum(abs(tau(p)) >= abs(t) - 1e-12 for p in perms) / len(perms)


def chi2_sf(x: float, k: int) -> float:
    """P(chi-square with k degrees of freedom > x)."""
    from scipy.stats import chi2
    return float(chi2.sf(x, k))


def analyse(draws: list[list[dict]], selected: str) -> tuple[list[str], list[str]]:
    keys = sorted(set.intersection(*({f"{r['source']}:{r['problem_id']}" for r in rows if r.get("correct") is not None}
                                     for rows in draws)))   # (a problem without tests has no pass/fail)
    by = [{f"{r['source']}:{r['problem_id']}": r for r in rows} for rows in draws]
    n = min(int(d[k]["n"]) for d in by for k in keys)
    means = [sum(float(d[k]["pass@1"]) for k in keys) / len(keys) for d in by]
    pooled = {k: sum(int(d[k]["correct"]) for d in by) / sum(int(d[k]["n"]) for d in by) for k in keys}
    predicted = math.sqrt(sum(p * (1 - p) / n for p in pooled.values()) / len(keys) ** 2)
    D = len(draws)
    mean = sum(means) / D
    sd = math.sqrt(sum((m - mean) ** 2 for m in means) / (D - 1)) if D > 1 else float("nan")
    tau, p_tau = kendall(means)
    lines = ["| draw (run order) | pass@1 |", "|---|---|"] + [f"| {i} | {m:.4f} |" for i, m in enumerate(means)]
    said = [f"{D} draws of the same weights on {len(keys)} problems, {n} answers each."]
    said.append(f"Run order: Kendall's tau {tau:+.2f}, exact permutation p = {p_tau:.3f} (a fall in run order "
                "has tau -1).")
    if D > 1:
        ratio = sd / predicted
        chi = (D - 1) * ratio ** 2
        effect = draw_variance([{k: float(d[k]["pass@1"]) for k in keys} for d in by])
        said.append(f"Spread: SD of the draws' means {sd:.4f} against {predicted:.4f} from the problems' own "
                    f"noise ({ratio:.2f}x; chi-square {chi:.1f} on {D - 1} degrees of freedom, p = "
                    f"{chi2_sf(chi, D - 1):.3f}); the draw-level SD the bench adds: {math.sqrt(effect.variance):.4f} "
                    f"({effect.df:.1f} degrees of freedom).")
    chosen = [k for k in keys if k.split(":")[-1].startswith(selected)] if selected else []
    if chosen:
        # E[k/n | k >= 1] - p; at p = 0 (never passed in the draws given) its limit, 1/n
        lift = sum(pooled[k] / (1 - (1 - pooled[k]) ** n) - pooled[k] if pooled[k] else 1 / n
                   for k in chosen) / len(keys)
        said.append(f"Selection: {len(chosen)} problems ({selected}*) kept for passing once or more in "
                    f"{n} answers of a calibration draw lift that draw's pass@1 on these {len(keys)} problems "
                    f"by {lift:+.4f} in expectation (at the pooled rates above).")
    return lines, said


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("evals", nargs="+", help="sampled eval folders of the same weights, in run order; one draw's "
                                             "evals of several sets joined by commas (its heldout and bank evals)")
    ap.add_argument("--selected", default="py-basics-", help="id prefix of the problems a calibration draw "
                                                               "kept for its own successes ('' for none)")
    ap.add_argument("--record", action="store_true", help="append to bench/RESULTS.md")
    a = ap.parse_args()
    lines, said = analyse([[r for d in draw.split(",") for r in load_eval(d)] for draw in a.evals], a.selected)
    said.append("From " + ", ".join(str(d) for d in a.evals) + ".")
    if a.record:
        record("base draws: run order, spread and the calibration draw's lift (bench/base_draws.py)", lines, *said)
    else:
        print("\n".join(lines + [""] + said))
    return 0


if __name__ == "__main__":
    sys.exit(main())
