"""The statistics that say whether an eval changed: known cases and simulated coverage."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pipeline.metrics.evals import per_problem
from pipeline.metrics.significance import (compare, draw_variance, ks_for, mean_interval, pass_at_k, problems_needed,
                                           resolution_advice, with_draws, Effect, NO_EFFECT)


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(8, 2, 1) == pytest.approx(2 / 8)
    assert pass_at_k(8, 2, 4) == pytest.approx(1 - math.comb(6, 4) / math.comb(8, 4))
    assert pass_at_k(8, 0, 8) == 0.0 and pass_at_k(8, 1, 8) == 1.0
    assert ks_for(8) == [1, 2, 4, 8] and ks_for(5) == [1, 2, 4, 5] and ks_for(1) == [1]


def test_identical_runs_hold_zero_exactly():
    rng = np.random.default_rng(0)
    a = {f"p{i}": float(v) for i, v in enumerate(rng.integers(0, 9, 30) / 8)}
    p = compare([a], [dict(a)])
    assert p.diff == 0 and p.ci == (0.0, 0.0) and p.sign == 0 and p.words() == "within noise"
    assert (p.won, p.lost, p.tied) == (0, 0, 30) and p.prob_improvement == 0.5


def _draw(rng, rates, n):
    """Per-problem sampled pass@1: c/n with c ~ Binomial(n, rate)."""
    return rng.binomial(n, rates) / n


# the per-problem pass rates of the embedded student on the 29 held-out problems: the 24 answers of
# three sampled evals (n=8, T=0.6) of identical weights pooled (bench/RESULTS.md); 17 are 0 under every draw
HELDOUT_RATES = np.array([21, 12, 5, 13, 3, 10, 7, 23, 0, 12, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0,
                          13, 0]) / 24


@pytest.mark.parametrize("profile,n", [("smooth", 8), ("tie-heavy", 8), ("tie-heavy", 1)])
def test_noise_only_intervals_exclude_zero_at_their_level(profile, n):
    """Two independent sampled evals of the same policy: the 95% interval excludes 0 in about 5% of
    1,000 repetitions, also when most problems tie at 0 (the real held-out set, where scipy's BCa
    bootstrap excluded it in 11.7%). n=1: a greedy-like eval, each problem solved or not. Student's t
    over its -1/0/1 differences keeps its level (4.3% over 2,000 repetitions) though, given 4
    problems that differ, 4-0 excludes 0 (McNemar's exact p 0.125): McNemar's exact interval, tried
    as a guard beside it, excluded 0 in 0.2%, a power lost for no coverage gained."""
    rng = np.random.default_rng(1)
    rates = rng.beta(0.6, 1.4, 40) if profile == "smooth" else HELDOUT_RATES
    excluded = 0
    for _ in range(1000):
        d = _draw(rng, rates, n) - _draw(rng, rates, n)
        _, lo, hi = mean_interval([d])
        excluded += not lo <= 0 <= hi
    assert 0.025 <= excluded / 1000 <= 0.075, excluded


def test_a_shift_is_found_and_covered():
    """A true improvement of 0.15 on every problem: the interval excludes 0 and covers 0.15 in most
    of 200 simulated repetitions (nominal 95%)."""
    rng = np.random.default_rng(2)
    rates = rng.uniform(0.1, 0.7, 40)
    excluded = covered = 0
    for rep in range(200):
        d = _draw(rng, rates + 0.15, 8) - _draw(rng, rates, 8)
        _, lo, hi = mean_interval([d])
        excluded += lo > 0
        covered += lo <= 0.15 <= hi
    assert excluded / 200 >= 0.9, excluded
    assert covered / 200 >= 0.88, covered


def _shifted_draws(rng, rates, shift_sd, draws):
    """Draws of the same policy, each shifted on every problem by one N(0, shift_sd) (on the logit
    scale, so rates stay in (0, 1)): the draw-level effect the paired t over problems cannot see."""
    logit = np.log(rates / (1 - rates))
    out = []
    for _ in range(draws):
        r = 1 / (1 + np.exp(-(logit + rng.normal(0, shift_sd))))
        out.append({f"p{i}": v for i, v in enumerate(_draw(rng, r, 8))})
    return out


def test_draw_variance_measures_a_shift_shared_by_a_draws_problems():
    rng = np.random.default_rng(5)
    rates = rng.uniform(0.05, 0.6, 150)
    none = draw_variance(_shifted_draws(rng, rates, 0.0, 40)).variance
    shared, df, *_ = draw_variance(_shifted_draws(rng, rates, 0.3, 40))
    assert 10 < df < 39                                                   # Satterthwaite's: fewer than D - 1
    means = [np.mean(list(d.values())) for d in _shifted_draws(rng, rates, 0.3, 400)]
    assert none < 0.2 * shared                                            # binomial noise alone: ~0
    assert 0.5 < shared / np.var(means) < 1.5                             # the draw means' spread, noise removed
    assert draw_variance(_shifted_draws(rng, rates, 0.3, 1)) == NO_EFFECT  # one draw measures nothing
    same = [{f"p{i}": v for i, v in enumerate(rng.uniform(0, 1, 7) / 3)}] * 3
    assert draw_variance(same) == NO_EFFECT                                # identical draws (ref NLL)
    agree = [{"p0": 0.5, "p1": 0.0, "p2": 1.0}, {"p0": 0.0, "p1": 0.5, "p2": 1.0}, {"p0": 0.5, "p1": 0.5, "p2": 0.6}]
    cut = draw_variance(agree)       # means closer than the problems' noise predicts: no variance, the spread kept
    assert cut.variance == 0 and cut.df == 0 and cut.spread > 0 and cut.evals == 3


def test_with_draws_restores_the_null_coverage_under_a_shared_shift():
    """One run against the mean of 5 draws of the same policy, every draw shifted on all its
    problems: the paired t over problems excludes 0 far more often than 5%; with the draw variance
    measured on the 5 draws added, about 5% again (and never less than half as often)."""
    rng = np.random.default_rng(6)
    rates = rng.uniform(0.05, 0.6, 150)
    plain = widened = 0
    reps = 300
    for _ in range(reps):
        base = _shifted_draws(rng, rates, 0.3, 5)
        run = _shifted_draws(rng, rates, 0.3, 1)
        mean = {k: np.mean([d[k] for d in base]) for k in base[0]}
        p = compare([mean], run)
        w = with_draws(p, draw_variance(base), 5, 1)
        assert w.ci[0] <= p.ci[0] and w.ci[1] >= p.ci[1] and w.diff == p.diff
        plain += p.sign != 0
        widened += w.sign != 0
    assert plain / reps > 0.15, plain
    assert 0.01 <= widened / reps <= 0.09, widened
    p = compare([mean], run)
    assert with_draws(p, NO_EFFECT, 5, 1) is p                            # no draw measured: unchanged


def test_a_draw_variance_barely_above_zero_keeps_the_interval_bounded():
    """Five draws whose means spread about as the problems' noise predicts: the estimate is barely
    above 0 and Satterthwaite's degrees of freedom a small fraction of one; at least 1 keeps the
    interval a finite width of a pass rate (unfloored, a t quantile in the thousands)."""
    rng = np.random.default_rng(11)
    rates = np.r_[np.full(34, 1e-6), rng.uniform(0.05, 0.3, 6)]                # HumanEval-like: mostly 0/8
    for seed in range(40):
        base = _shifted_draws(np.random.default_rng(seed), rates, 0.0, 5)
        variance, df, *_ = draw_variance(base)
        x = np.array([list(d.values()) for d in base])
        spread = x.mean(axis=1).var(ddof=1)
        if variance > 0.05 * spread and 4 * (variance / spread) ** 2 < 0.2:
            break
    else:
        pytest.fail("no draw set with an estimate barely above 0 among 40 seeds")
    run = _shifted_draws(rng, rates, 0.0, 1)
    mean = {k: np.mean([d[k] for d in base]) for k in base[0]}
    p = compare([mean], run, confidence=0.99375)
    w = with_draws(p, Effect(variance, df, spread, 5), 5, 1)
    assert w.ci[1] - w.ci[0] < 0.2, w.ci                                  # unfloored: +-38
    assert w.ci[0] < p.ci[0] and w.ci[1] > p.ci[1] and df == 1.0


def test_several_seeds_paired_and_stratified():
    rng = np.random.default_rng(3)
    base = {f"p{i}": float(v) for i, v in enumerate(rng.uniform(0, 0.5, 30))}
    seeds = [{k: v + 0.2 + rng.normal(0, 0.05) for k, v in base.items()} for _ in range(3)]
    p = compare([base], seeds)  # one base against three seeds
    assert p.runs == 3 and p.problems == 30 and p.sign == 1 and p.ci[0] > 0.15
    assert p.prob_improvement == pytest.approx(1.0) and p.won == 30
    # seeds over different problems: one stratum per seed, same answer
    split = [{k: v for k, v in s.items() if int(k[1:]) % 3 != j} for j, s in enumerate(seeds)]
    q = compare([base] * 3, split)
    assert q.sign == 1 and q.problems == 30 and q.ci[0] > 0.15 and q.won == 60
    with pytest.raises(ValueError, match="2 runs against 3"):
        compare([base, base], seeds)
    with pytest.raises(ValueError, match="same problems"):
        compare([{"x": 1.0}], [{"y": 1.0}])


def test_too_few_problems_get_no_verdict():
    p = compare([{"a": 0.0}], [{"a": 1.0}])
    assert p.ci == (-math.inf, math.inf) and p.sign == 0
    p = compare([{"a": 0.0, "b": 0.0}], [{"a": 1.0, "b": 1.0}])
    assert p.sign == 0
    # the problems are the clusters: one problem over five seeds that disagree had a zero-width interval
    p = compare([{"a": 0.0}] * 5, [{"a": v} for v in (0.1, 0.3, 0.0, 0.2, 0.4)])
    assert p.ci == (-math.inf, math.inf) and p.sign == 0


def test_lower_is_better_and_worse():
    a = {f"p{i}": 1.0 + 0.01 * i for i in range(30)}
    b = {k: v - 0.3 for k, v in a.items()}
    p = compare([a], [b], "ref_nll", higher_is_better=False)
    assert p.diff == pytest.approx(-0.3) and p.sign == 1 and p.words() == "better" and p.won == 30
    q = compare([a], [b], "pass@1")
    assert q.sign == -1 and q.words() == "worse" and q.lost == 30


def test_resolution_advice_says_how_many_problems():
    rng = np.random.default_rng(4)
    a = {f"p{i}": float(v) for i, v in enumerate(rng.integers(0, 9, 29) / 8)}
    b = {k: min(1.0, max(0.0, v + rng.choice([-0.125, 0.0, 0.125, 0.25]))) for k, v in a.items()}
    p = compare([a], [b])
    keys = sorted(a)
    diffs = [b[k] - a[k] for k in keys]
    small = problems_needed(0.02, diffs)
    big = problems_needed(0.2, diffs)
    assert problems_needed(0.05, diffs, within=0.01, more_samples=4) < problems_needed(0.05, diffs, within=0.01)
    assert small > big >= 2
    if p.sign == 0:
        text = resolution_advice(p, diffs, 8, [a[k] for k in keys], [b[k] for k in keys])
        assert "problems at 8 sample(s)" in text and "at 32 samples" in text


def test_per_problem_reads_eval_rows():
    rows = [{"source": "s", "problem_id": "a", "pass@1": 0.5, "score": 0.7, "ref_nll": None},
            {"source": "t", "problem_id": "a", "pass@1": 1.0, "score": 1.0, "ref_nll": 0.3},
            {"source": "t", "problem_id": "b", "pass@1": 0.0, "score": 0.2, "ref_nll": float("nan")}]
    assert per_problem(rows, "pass@1") == {"s:a": 0.5, "t:a": 1.0, "t:b": 0.0}
    assert per_problem(rows, "ref_nll") == {"t:a": 0.3}                  # None and NaN leave their problem out
    assert per_problem(rows, "score", "s") == {"s:a": 0.7}


def test_compare_evals_adds_ocamls_well_formed_and_type_checking_shares(tmp_path):
    """An OCaml eval (its rows carry typecheck_ok) is also compared on structure_ok and typecheck_ok;
    a Python eval only on pass@1, score and ref_nll."""
    from pipeline.metrics.evals import compare_evals
    from pipeline.store.tables import save_table

    def table(name: str, source: str, tc: list[float]) -> str:
        rows = [{"source": source, "problem_id": f"p{i}", "n": 8, "correct": 0, "pass@1": 0.0, "score": 0.1 * v,
                 "ref_nll": 1.0 - v / 2, "structure_ok": 0.5, **({"typecheck_ok": v} if source == "ocaml" else {})}
                for i, v in enumerate(tc)]
        save_table(rows, tmp_path / name)
        return str(tmp_path / name)

    zeros, some = [0.0] * 6, [0.0, 0.125, 0.25, 0.125, 0.375, 0.25]
    ocaml = "\n".join(compare_evals([table("a", "ocaml", zeros)], [table("b", "ocaml", some)]))
    assert "typecheck_ok 0.0000 -> 0.1875" in ocaml and "structure_ok 0.5000 -> 0.5000" in ocaml
    python = "\n".join(compare_evals([table("c", "py", zeros)], [table("d", "py", some)]))
    assert "pass@1" in python and "typecheck_ok" not in python and "structure_ok" not in python


def _seeded(rng, rates, draw_sd, seed_shifts):
    """One eval per trained seed: each seed's training shift (on the logit scale) plus its eval draw's."""
    logit = np.log(rates / (1 - rates))
    out = []
    for s in seed_shifts:
        r = 1 / (1 + np.exp(-(logit + s + rng.normal(0, draw_sd))))
        out.append({f"p{i}": v for i, v in enumerate(_draw(rng, r, 8))})
    return out


def _paired_seeds(rng, rates, draw_sd, luck_sd, inc_sd, seeds=3):
    """Each seed's warm-start (its luck) and its RL (the same luck plus the RL's own), one eval each."""
    luck = rng.normal(0, luck_sd, seeds)
    return _seeded(rng, rates, draw_sd, luck), _seeded(rng, rates, draw_sd, luck + rng.normal(0, inc_sd, seeds))


def test_the_recipes_interval_holds_its_coverage_when_seeds_differ():
    """Three trained seeds of a recipe that changes nothing on average, each shifted by its own training
    luck (SD 0.6 on the logit scale) and its draw's, against 5 base draws: the base draws' variance
    alone (with_draws) excludes 0 too often; with the seeds' own variance (recipe_interval) about 5%.
    Paired by seed (a warm-start and its RL from the same seed, the RL adding only seed luck): the
    paired t excludes 0 most of the time, recipe_interval about 5%."""
    from pipeline.metrics.significance import recipe_interval
    rng = np.random.default_rng(21)
    rates = rng.uniform(0.05, 0.6, 150)
    reps, today, recipe = 300, 0, 0
    for _ in range(reps):
        base = _seeded(rng, rates, 0.3, [0.0] * 5)
        seeds = _seeded(rng, rates, 0.3, rng.normal(0, 0.6, 3))
        mean = {k: np.mean([d[k] for d in base]) for k in base[0]}
        p = compare([mean], seeds)
        today += with_draws(p, draw_variance(base), 5, 3).sign != 0
        r = recipe_interval(p, base, [mean], seeds)
        assert r.diff == p.diff
        recipe += r.sign != 0
    assert today / reps > 0.12, today
    assert 0.01 <= recipe / reps <= 0.09, recipe
    paired, covered = 0, 0
    for _ in range(reps):
        warm, rl = _paired_seeds(rng, rates, 0.3, 0.3, 0.3)
        p = compare(warm, rl)
        paired += p.sign != 0
        covered += recipe_interval(p, warm, warm, rl, paired=True).sign != 0
    assert paired / reps > 0.3, paired
    assert 0.01 <= covered / reps <= 0.09, covered
    with pytest.raises(ValueError, match="paired by seed: 1 A runs against 3 B runs"):
        recipe_interval(p, warm, warm[:1], rl, paired=True)
    two = compare(warm[:2], rl[:2])                                       # 2 seeds measure no seed variance:
    assert recipe_interval(two, warm, warm[:2], rl[:2], paired=True) == with_draws(two, draw_variance(warm), 2, 2)


@pytest.mark.parametrize("draw_sd, luck, lift, unbounded_at_most", [(0.15, 0.3, 0.5, 0), (0.3, 0.01, 1.0, 90)])
def test_the_share_of_the_positive_controls_gain_holds_its_coverage(draw_sd, luck, lift, unbounded_at_most):
    """The default's gain as a share of the positive control's: 3 seeds with a lift (logit `lift`) and
    their own training luck (SD `luck`), 1 positive-control run with a larger one (+1.5 / +1.2), 5 base
    draws, every eval shifted by its draw (SD `draw_sd`): Fieller's interval covers the true share (the
    ratio of the expected gains) about 95% of the time (284 and 292 of 300 when written): where the seeds'
    luck dominates, and where the base draws' shift does (the share near 1, the control's one run then
    not always clear of 0: its interval unbounded, 47 of 300). With no noise at all it is the point;
    over a positive control that did not rise beyond noise it is unbounded."""
    from pipeline.metrics.ratio import share_interval
    rng = np.random.default_rng(31)
    rates = rng.uniform(0.05, 0.6, 150)
    logit = np.log(rates / (1 - rates))
    expected = lambda lift, luck: float(np.mean([np.mean(1 / (1 + np.exp(-(logit + lift + s))))  # noqa: E731
                                                for s in rng.normal(0, luck, 4000)]))
    top = 1.5 if lift < 1 else 1.2
    base_rate = expected(0.0, draw_sd)
    truth = (expected(lift, math.hypot(luck, draw_sd)) - base_rate) / (expected(top, draw_sd) - base_rate)
    reps, covered, widths, unbounded = 300, 0, [], 0
    for _ in range(reps):
        base = _seeded(rng, rates, draw_sd, [0.0] * 5)
        seeds = _seeded(rng, rates, draw_sd, lift + rng.normal(0, luck, 3))
        pos = _seeded(rng, rates, draw_sd, [top])
        share, lo, hi = share_interval(base, seeds, pos)
        assert lo < share < hi
        covered += lo <= truth <= hi
        if math.isfinite(hi - lo):
            widths.append(hi - lo)
        else:
            unbounded += 1
    assert 0.90 <= covered / reps <= 0.99, (covered, truth)
    assert unbounded <= unbounded_at_most, unbounded
    assert 0.1 < np.median(widths) < 2.5, np.median(widths)  # one positive-control run: wide (0.89, 1.51)
    same = {f"p{i}": 0.25 * (i % 4) for i in range(20)}
    lifted = {k: v + 0.1 for k, v in same.items()}
    assert share_interval([same, same], [lifted], [{k: v + 0.2 for k, v in same.items()}]) == (0.5, 0.5, 0.5)
    flat = _seeded(rng, rates, draw_sd, [0.0])
    assert share_interval(base, seeds, flat)[1:] == (-math.inf, math.inf)
    one = share_interval(base[:1], seeds, pos)   # one base draw: no spread to stand in for the control's, no floor
    assert one[1] < one[0] < one[2] and all(map(math.isfinite, one))


def test_three_seeds_that_agree_by_chance_keep_their_coverage():
    """The RL increment of 3 seeds, paired by seed, on 188 problems 45% of which are never solved, each
    seed's RL adding its own luck (SD 0.2 on the logit scale): the seed variance estimated on 3 seeds
    is often cut to 0, and the random effects alone then excluded the truth in about 10% of
    simulated repetitions (bench/coverage.py); the interval is never narrower than Student's t over the seeds' means
    (2 degrees of freedom), and excludes the truth about 5% of the time or less."""
    from scipy import stats

    from pipeline.metrics.significance import recipe_interval
    rng = np.random.default_rng(45)
    rates = np.r_[np.full(84, 1e-4), rng.uniform(0.05, 0.7, 104)]
    logit = np.log(rates / (1 - rates))
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    luck, inc = rng.normal(0, 0.3, (4000, 1)), rng.normal(0, 0.2, (4000, 1))
    truth = float((sig(logit + luck + inc) - sig(logit + luck)).mean())
    reps, missed = 400, 0
    for _ in range(reps):
        warm, rl = _paired_seeds(rng, rates, 0.0, 0.3, 0.2)
        p = compare(warm, rl)
        r = recipe_interval(p, warm, warm, rl, paired=True)
        means = np.array([np.mean([b[k] - a[k] for k in a]) for a, b in zip(warm, rl)])
        student = stats.t.ppf(0.975, 2) * means.std(ddof=1) / math.sqrt(3)
        assert r.ci[1] - r.ci[0] >= 2 * student * (1 - 1e-9) and r.ci[0] <= p.ci[0] and r.ci[1] >= p.ci[1]
        missed += not r.ci[0] <= truth <= r.ci[1]
    assert 0.01 <= missed / reps <= 0.07, missed


def test_compare_evals_with_three_seeds_carries_their_own_variance(tmp_path):
    """`rlaif compare-evals` with 3 seeds a side (paired by seed) or one A against 3 Bs: the interval is
    recipe_interval's (the seeds' own variance, never narrower than their t), said in its header; the
    plain paired t over problems is narrower. Two seeds keep the plain interval."""
    from pipeline.metrics.evals import compare_evals
    from pipeline.store.tables import save_table
    rng = np.random.default_rng(8)
    rates = rng.uniform(0.05, 0.6, 60)

    def save(name: str, ev: dict[str, float]) -> str:
        save_table([{"source": "s", "problem_id": k, "n": 8, "correct": round(8 * v), "pass@1": v, "score": v,
                     "ref_nll": 1 - v} for k, v in ev.items()], tmp_path / name)
        return str(tmp_path / name)

    warm = [save(f"w{i}", e) for i, e in enumerate(_seeded(rng, rates, 0.0, [0.0, 0.1, -0.1]))]
    rl = [save(f"r{i}", e) for i, e in enumerate(_seeded(rng, rates, 0.0, [0.5, -0.3, 0.2]))]

    def interval(lines: list[str]) -> float:
        line = next(x for x in lines if x.startswith("pass@1"))
        lo, hi = line.split("[")[1].split("]")[0].split(", ")
        return float(hi) - float(lo)

    paired, plain = compare_evals(warm, rl), compare_evals(warm[:2], rl[:2])
    assert "seeds' own variance" in paired[2] and "seeds' own variance" not in plain[2]
    from pipeline.metrics.evals import load_eval, per_problem
    rows = lambda ds: [per_problem(load_eval(d), "pass@1") for d in ds]  # noqa: E731
    assert interval(paired) > compare(rows(warm), rows(rl)).ci[1] - compare(rows(warm), rows(rl)).ci[0] + 1e-4
    five = compare_evals([*warm, *rl[:2]], rl)                          # 5 A evals: draws of one model
    assert "A's 5 evals are draws of one model" in five[2] and "seeds' own variance" in five[2] and interval(five) > 0
    one = compare_evals(warm[:1], rl)                                   # one A (a base eval) against 3 seeds
    assert "seeds' own variance" in one[2]
    assert interval(one) > compare(rows(warm[:1]), rows(rl)).ci[1] - compare(rows(warm[:1]), rows(rl)).ci[0] + 1e-4
    three, mean = compare_evals(warm, rl[:1]), [{k: np.mean([w[k] for w in rows(warm)]) for k in rows(warm)[0]}]  # 3 draws, 1 B
    assert "A's 3 evals are draws of one model" in three[2] and interval(three) > np.diff(compare(mean, rows(rl[:1])).ci)[0]
    with pytest.raises(ValueError, match="names .* more than once: several runs of a side are seeds"):
        compare_evals(warm, [rl[0]] * 3)


def test_prob_improvement_against_draws_pairs_each_draw():
    """Three seeds of the base policy itself against its 5 draws, on rates like the held-out set's (45%
    never solved): pair by pair, P(improve) is 0.5 on average; against the draws' per-problem mean it
    sits below (a mean of draws above a single draw's 0, ties rarer)."""
    from pipeline.metrics.significance import prob_improvement
    rng = np.random.default_rng(12)
    rates = np.r_[np.full(84, 1e-4), rng.uniform(0.05, 0.7, 104)]
    pairs, means = [], []
    for _ in range(100):
        draws, seeds = _seeded(rng, rates, 0.0, [0.0] * 5), _seeded(rng, rates, 0.0, [0.0] * 3)
        pairs.append(prob_improvement(draws, seeds))
        means.append(compare([{k: np.mean([d[k] for d in draws]) for k in draws[0]}], seeds).prob_improvement)
    assert abs(np.mean(pairs) - 0.5) < 0.003 and np.mean(means) < 0.497, (np.mean(pairs), np.mean(means))
    assert prob_improvement([{"a": 0.0}], [{"a": 1.0}]) == 1.0 and prob_improvement([{"a": 0.0}], [{"a": 1.0}], False) == 0.0

