"""A gain as a share of another's (the default's held-out gain as a share of the positive control's),
with Fieller's interval for the ratio of two means, the random effects of `significance.recipe_interval`
in both gains."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from pipeline.metrics.significance import CONFIDENCE, MIN_VALUES, draw_variance


def share_interval(base_draws: Sequence[dict[str, float]], a_runs: Sequence[dict[str, float]],
                   b_runs: Sequence[dict[str, float]], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(share, low, high): A's gain over the base as a share of B's (the default's of the positive
    control's, say), each run a {problem: value} and the base's draws averaged per problem, with
    Fieller's interval for a ratio of two means (Fieller 1954): the shares R for which A's gain - R x
    B's holds 0 at `confidence`. Both gains are means over the same problems of per-problem
    differences from the same base, so they covary: over problems (the sample covariance of the two
    differences / P) and through the base draws' shared shift (its variance / draws, in both). Each
    side's gain carries the random effects of `recipe_interval`: the base draws' shift, and its own
    seeds' variance with 3 or more seeds, else the base draws' variance standing in for a seed's.
    Degrees of freedom: Welch-Satterthwaite's for a - R b at the point estimate (its independent
    estimates: the problems', the base draws', each side's seeds' with 3 or more). The
    interval is unbounded (-inf, inf) where B's gain is not itself clear of 0 at that level (a ratio
    over a denominator that may be 0 has no finite bound); low and high are the roots otherwise. With
    3 or more seeds on a side it is never narrower than Fieller's over the runs' means alone (each
    gain's variance from the spread of its runs' means and the base draws', a side of fewer runs
    taking the base draws' spread where there are 3 draws or more, else no floor), as the seeds' own
    t floors `significance.recipe_interval`. tests/test_significance.py simulates its coverage."""
    keys = sorted(set(base_draws[0]).intersection(*base_draws[1:], *a_runs, *b_runs))
    n = len(keys)
    base = np.array([[d[k] for k in keys] for d in base_draws], dtype=float).mean(axis=0)
    da = np.array([[r[k] for k in keys] for r in a_runs], dtype=float).mean(axis=0) - base
    db = np.array([[r[k] for k in keys] for r in b_runs], dtype=float).mean(axis=0) - base
    a, b = float(da.mean()), float(db.mean())
    share = a / b if b else math.nan
    if n < MIN_VALUES:
        return share, -math.inf, math.inf
    base = draw_variance(base_draws)
    shared = base.variance / len(base_draws)
    own = [draw_variance(runs) if len(runs) >= 3 else None for runs in (a_runs, b_runs)]  # each side's seeds
    va, vb = (float(d.var(ddof=1)) / n + shared + (o.variance if o else base.variance) / len(runs)
              for d, o, runs in ((da, own[0], a_runs), (db, own[1], b_runs)))
    cov = float(np.cov(da, db, ddof=1)[0, 1]) / n + shared
    if vb == 0 and va == 0:
        return share, share, share
    # degrees of freedom of Fieller's statistic at R = the share, a - R b (Welch-Satterthwaite over its
    # independent estimates): the problems' part; the base draws' variance wherever it enters (the shared
    # shift, which a - R b holds (1 - R) times, and a side with fewer than 3 runs, whose seeds' variance it
    # stands for: one estimate, one term); and each side's seeds' own with 3 or more runs
    r = share if math.isfinite(share) else 0.0
    weight = (1 - r) ** 2 / len(base_draws) + (0 if own[0] else 1 / len(a_runs)) + (0 if own[1] else r * r / len(b_runs))
    parts = [(float((da - r * db).var(ddof=1)) / n, n - 1), (base.variance * weight, base.df)]
    parts += [(o.variance * w / len(runs), o.df) for o, w, runs in ((own[0], 1.0, a_runs), (own[1], r * r, b_runs)) if o]
    parts = [(v, df) for v, df in parts if v > 0 and df > 0]
    total = sum(v for v, _ in parts)
    dof = total ** 2 / sum(v ** 2 / df for v, df in parts) if total > 0 else math.inf
    from scipy import stats
    q2 = lambda dof: float(stats.t.ppf(0.5 + confidence / 2, max(dof, 1.0))) ** 2  # noqa: E731
    lo, hi = _fieller(a, b, va, vb, cov, q2(dof))
    # with 3 or more seeds on a side, never narrower than the runs' means alone say (as
    # significance.with_effects(seeds=True)): each gain's variance from the spread of its runs' means over
    # the problems (a side with fewer than 3 runs: the base draws' spread stands in, with 3 draws or more)
    # and the base draws' mean's; Welch-Satterthwaite degrees of freedom for a - R b
    stand_in = (base.spread, base.evals - 1) if base.evals >= 3 else None
    sides = [(o.spread, len(runs) - 1) if o else stand_in for o, runs in zip(own, (a_runs, b_runs))]
    if any(own) and all(sides) and math.isfinite(lo):
        spread_a, spread_b = (sp / len(runs) for (sp, _), runs in zip(sides, (a_runs, b_runs)))
        shared_m = base.spread / len(base_draws) if stand_in else 0.0
        parts = [(spread_a, sides[0][1]), (r * r * spread_b, sides[1][1])]
        parts += [((1 - r) ** 2 * shared_m, stand_in[1])] if stand_in else []
        parts = [(v, df) for v, df in parts if v > 0]
        total = sum(v for v, _ in parts)
        df = total ** 2 / sum(v ** 2 / df for v, df in parts) if total > 0 else math.inf
        alone = _fieller(a, b, spread_a + shared_m, spread_b + shared_m, shared_m, q2(df))
        lo, hi = min(lo, alone[0]), max(hi, alone[1])
    return share, lo, hi


def _fieller(a: float, b: float, va: float, vb: float, cov: float, t2: float) -> tuple[float, float]:
    """The R for which (a - R b)^2 <= t2 (va - 2 R cov + R^2 vb): a quadratic in R, bounded where
    b^2 > t2 vb; (-inf, inf) otherwise."""
    qa, qb, qc = b * b - t2 * vb, a * b - t2 * cov, a * a - t2 * va
    disc = qb * qb - qa * qc
    if qa <= 0 or disc < 0:
        return -math.inf, math.inf
    root = math.sqrt(disc)
    return (qb - root) / qa, (qb + root) / qa
