"""Curriculum: difficulty estimates, buckets, and the three schedules.

The headline check is on a scripted world: 60 problems whose true per-sample success p is known,
history = observed means of K=4 Bernoulli(p) draws. Adaptive must pick mostly learnable prompts
and lower the expected share of zero-variance groups, p^K + (1-p)^K, well below uniform sampling.
"""
from __future__ import annotations

import random
import statistics

import pytest

from curriculum.buckets import assign, counts
from curriculum.difficulty import TIER_PRIOR, estimate, success
from curriculum.schedule import figures, linear_shares, quotas, rows, schedule
from data.schema import Problem
from curriculum.config import CurriculumConfig

K = 4  # group size (sample.num_samples)


def problem(pid: str, tier: str = "medium") -> Problem:
    return Problem(id=pid, prompt=f"write {pid}", entry_point="f", difficulty=tier)


def zero_std_prob(p: float) -> float:
    """Chance that a group of K samples is all-fail or all-pass: no reward spread, no signal."""
    return p ** K + (1 - p) ** K


def observe(p: float, rng: random.Random) -> float:
    """One epoch's student mean score on a prompt: mean of K Bernoulli(p) samples."""
    return sum(rng.random() < p for _ in range(K)) / K


@pytest.fixture
def world():
    """60 problems: 20 the student never solves, 20 it always solves, 20 learnable (p in [0.25, 0.75]).
    Tiers roughly follow p, as a dataset's labels would."""
    rng = random.Random(7)
    true_p, problems = {}, []
    for i in range(60):
        pid = f"p{i:02d}"
        if i < 20:
            p, tier = rng.uniform(0.0, 0.04), "hard"
        elif i < 40:
            p, tier = rng.uniform(0.96, 1.0), "easy"
        else:
            p, tier = rng.uniform(0.25, 0.75), "medium"
        true_p[pid] = p
        problems.append(problem(pid, tier))
    return problems, true_p


# ---- difficulty ---------------------------------------------------------------------------------

def test_prior_follows_tier_and_failing_teacher_makes_harder():
    assert [estimate(t, None, [], 3) for t in ("easy", "medium", "hard")] == [0.25, 0.5, 0.75]
    assert estimate("medium", 1.0, [], 3) == 0.5          # a teacher that succeeds is the normal case
    assert estimate("medium", 0.0, [], 3) > estimate("medium", 0.5, [], 3) > 0.5
    assert estimate("hard", 0.0, [], 3) <= 1.0


def test_student_history_dominates_and_window_is_recent():
    # a 'hard' prompt the student solves every time is easy for this student, and vice versa
    assert estimate("hard", 1.0, [1.0, 1.0, 1.0], 3) < 0.35
    assert estimate("easy", 1.0, [0.0, 0.0], 3) > 0.65
    assert estimate("medium", None, [0.0], 3) > 0.75       # one epoch already outweighs the prior
    # only the last `window` epochs count
    assert success([0.0, 0.0, 1.0, 1.0], window=2) == 1.0
    assert success([], 3) is None
    assert success([None, 0.5], 3) == 0.5                  # unscored epochs are skipped, not zeros
    assert estimate("medium", None, [None], 3) == TIER_PRIOR["medium"]
    for tier in TIER_PRIOR:
        for h in ([], [0.0], [1.0, 0.5]):
            assert 0.0 <= estimate(tier, 0.3, h, 3) <= 1.0


def test_unknown_tier_is_an_actionable_error():
    with pytest.raises(ValueError, match="data.mapping"):
        estimate("trivial", None, [], 3)


# ---- buckets ------------------------------------------------------------------------------------

def test_thresholds_vs_quantiles():
    d = {"a": 0.40, "b": 0.45, "c": 0.50, "d": 0.55, "e": 0.58, "f": 0.60}
    by_threshold = assign(d, CurriculumConfig(buckets="thresholds"))
    assert set(by_threshold.values()) == {"medium"}        # all between 0.35 and 0.65
    by_quantile = assign(d, CurriculumConfig(buckets="quantiles"))
    assert counts(by_quantile) == {"easy": 2, "medium": 2, "hard": 2}
    assert by_quantile["a"] == "easy" and by_quantile["f"] == "hard"

    edges = assign({"x": 0.1, "y": 0.35, "z": 0.65, "w": 0.9}, CurriculumConfig())
    assert edges == {"x": "easy", "y": "medium", "z": "medium", "w": "hard"}


def test_quantiles_keep_ties_together():
    assert set(assign({str(i): 0.5 for i in range(9)}, CurriculumConfig(buckets="quantiles")).values()) == {"medium"}
    tiers = {f"{t}{i}": TIER_PRIOR[t] for t in TIER_PRIOR for i in range(5)}
    assert counts(assign(tiers, CurriculumConfig(buckets="quantiles"))) == {"easy": 5, "medium": 5, "hard": 5}
    assert assign({"only": 0.9}, CurriculumConfig(buckets="quantiles")) == {"only": "medium"}
    # the shipped set's tiers, as their priors put them (no history yet): a third and more of the pool tied at the
    # easy prior, which is then the lower tertile itself, is the easy bucket (it was all medium: no easy bucket)
    from data.loaders import load_builtin
    pool = {p.id: TIER_PRIOR[p.difficulty] for p in load_builtin("train")}
    by_tier = {t: sum(v == TIER_PRIOR[t] for v in pool.values()) for t in ("easy", "medium", "hard")}
    got = counts(assign(pool, CurriculumConfig(buckets="quantiles")))
    assert got == by_tier and got["easy"] > 0, (got, by_tier)
    assert counts({"a": "easy", "b": "hard"}, ids=["b"]) == {"easy": 0, "medium": 0, "hard": 1}


def test_inconsistent_thresholds_are_rejected():
    with pytest.raises(ValueError, match="easy_below"):
        CurriculumConfig(easy_below=0.8, hard_above=0.2)


# ---- none ---------------------------------------------------------------------------------------

def test_none_is_the_old_permutation_walk():
    problems = [problem(f"q{i}") for i in range(13)]
    seed, k = 5, 4
    for epoch in range(1, 6):
        # the formula the prompts stage used before curricula existed
        order = list(range(len(problems)))
        random.Random(seed).shuffle(order)
        old = [problems[order[((epoch - 1) * k + i) % len(problems)]].id for i in range(k)]
        assert schedule(problems, {}, {}, epoch, k, CurriculumConfig(), seed) == old


# ---- adaptive on a scripted history -------------------------------------------------------------

def test_adaptive_picks_the_band_and_lowers_frac_zero_std(world):
    problems, true_p = world
    rng = random.Random(11)
    history = {pid: [observe(p, rng) for _ in range(3)] for pid, p in true_p.items()}  # 3 past epochs
    cfg = CurriculumConfig(strategy="adaptive")
    k = 16

    chosen = schedule(problems, history, {}, 4, k, cfg, seed=0)
    assert len(chosen) == k == len(set(chosen))
    learnable = [pid for pid in chosen if 0.2 <= true_p[pid] <= 0.8]
    assert len(learnable) >= 0.7 * k                     # 1 - explore_frac of them come from the band
    fig = figures(chosen, problems, history, {}, cfg)
    assert fig["curriculum/in_band"] == k - round(cfg.explore_frac * k)

    adaptive = statistics.fmean(zero_std_prob(true_p[pid]) for pid in chosen)
    uniform_pool = statistics.fmean(zero_std_prob(p) for p in true_p.values())
    none_cfg = CurriculumConfig(strategy="none")
    walked = [pid for e in range(1, 4) for pid in schedule(problems, history, {}, e, k, none_cfg, seed=0)]
    none = statistics.fmean(zero_std_prob(true_p[pid]) for pid in walked)
    assert adaptive < uniform_pool - 0.25, (adaptive, uniform_pool)
    assert adaptive < none - 0.25, (adaptive, none)


def test_adaptive_closed_loop_simulation(world):
    """Ten epochs where the history is only what was actually sampled: adaptive finds the band
    by exploring, then the simulated share of zero-variance groups falls well below `none`."""
    problems, true_p = world

    def run(strategy: str) -> float:
        cfg, rng, history = CurriculumConfig(strategy=strategy), random.Random(3), {}
        zero_std = []
        for epoch in range(1, 11):
            for pid in schedule(problems, history, {}, epoch, 12, cfg, seed=1):
                group = [rng.random() < true_p[pid] for _ in range(K)]
                history.setdefault(pid, []).append(sum(group) / K)
                if epoch > 5:
                    zero_std.append(len(set(group)) == 1)
        return statistics.fmean(zero_std)

    adaptive, none = run("adaptive"), run("none")
    assert adaptive < none - 0.2, (adaptive, none)


def test_adaptive_explores_unseen_and_fills_when_band_is_short():
    problems = [problem(f"q{i}") for i in range(10)]
    history = {"q0": [0.5], "q1": [1.0], "q2": [0.0]}    # one in band, two out, seven unseen
    cfg = CurriculumConfig(strategy="adaptive", explore_frac=0.25)
    chosen = schedule(problems, history, {}, 2, 4, cfg, seed=0)
    assert "q0" in chosen and len(chosen) == 4
    assert not {"q1", "q2"} & set(chosen)                # unseen prompts are explored before out-of-band
    fig = figures(chosen, problems, history, {}, cfg)
    assert (fig["curriculum/in_band"], fig["curriculum/unseen"], fig["curriculum/out_of_band"]) == (1, 3, 0)


# ---- linear -------------------------------------------------------------------------------------

def tiered(n_easy: int, n_medium: int, n_hard: int) -> list[Problem]:
    return ([problem(f"e{i}", "easy") for i in range(n_easy)] + [problem(f"m{i}", "medium") for i in range(n_medium)]
            + [problem(f"h{i}", "hard") for i in range(n_hard)])


def test_linear_hard_share_grows_epoch_over_epoch():
    problems, cfg = tiered(20, 20, 20), CurriculumConfig(strategy="linear")
    hard = []
    for epoch in range(1, 8):
        chosen = schedule(problems, {}, {}, epoch, 20, cfg, seed=0)
        hard.append(figures(chosen, problems, {}, {}, cfg)["curriculum/hard"])
    assert hard[:5] == sorted(set(hard[:5])), hard       # strictly increasing up to linear_epochs
    assert hard[0] == 2 and hard[4:] == [8, 8, 8]        # 10% -> 40% of 20, then held
    assert linear_shares(1, cfg) == pytest.approx({"easy": 0.6, "medium": 0.3, "hard": 0.1})
    assert linear_shares(99, cfg) == pytest.approx({"easy": 0.2, "medium": 0.4, "hard": 0.4})


def test_quotas_sum_to_k():
    for k in range(1, 30):
        for epoch in range(1, 7):
            q = quotas(linear_shares(epoch, CurriculumConfig()), k)
            assert sum(q.values()) == k and min(q.values()) >= 0


def test_linear_fills_a_short_bucket_from_its_neighbour():
    problems, cfg = tiered(10, 10, 2), CurriculumConfig(strategy="linear")
    chosen = schedule(problems, {}, {}, 5, 10, cfg, seed=0)   # wants 2 easy, 4 medium, 4 hard
    c = figures(chosen, problems, {}, {}, cfg)
    assert (c["curriculum/easy"], c["curriculum/medium"], c["curriculum/hard"]) == (2, 6, 2)
    assert len(set(chosen)) == 10


def test_linear_prefers_prompts_not_seen_recently():
    problems, cfg = tiered(10, 10, 10), CurriculumConfig(strategy="linear")
    # half the easy prompts were drawn three times already (and stayed easy for the student)
    history = {f"e{i}": [0.75, 0.75, 0.75] for i in range(5)}
    chosen = schedule(problems, history, {}, 1, 8, cfg, seed=0)   # 60% of 8 -> 5 easy
    easy = [pid for pid in chosen if pid.startswith("e")]
    assert len(easy) == 5 and not set(easy) & set(history)


# ---- every strategy -----------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["none", "linear", "adaptive"])
def test_deterministic_no_duplicates_and_k_above_pool(strategy, world):
    problems, true_p = world
    rng = random.Random(0)
    history = {pid: [observe(p, rng)] for pid, p in list(true_p.items())[::2]}
    cfg = CurriculumConfig(strategy=strategy)
    a = schedule(problems, history, {}, 3, 10, cfg, seed=4)
    assert a == schedule(problems, history, {}, 3, 10, cfg, seed=4)
    assert a != schedule(problems, history, {}, 3, 10, cfg, seed=5)
    assert len(a) == 10 == len(set(a))
    everything = schedule(problems, history, {}, 3, 500, cfg, seed=4)
    assert sorted(everything) == sorted(p.id for p in problems)
    fig = figures(a, problems, history, {}, cfg)
    assert fig["curriculum/easy"] + fig["curriculum/medium"] + fig["curriculum/hard"] == 10
    assert fig["curriculum/in_band"] + fig["curriculum/unseen"] + fig["curriculum/out_of_band"] == 10
    assert [r["problem_id"] for r in rows(a, problems, history, {}, cfg)] == a


@pytest.mark.parametrize("strategy", ["linear", "adaptive"])
def test_independent_of_loader_order(strategy, world):
    problems, _ = world
    cfg = CurriculumConfig(strategy=strategy)
    assert (sorted(schedule(problems, {}, {}, 2, 9, cfg, seed=0))
            == sorted(schedule(problems[::-1], {}, {}, 2, 9, cfg, seed=0)))


def test_bad_inputs_are_actionable():
    # said when the config is read (they were said by the prompts stage, after the run began)
    with pytest.raises(ValueError, match="band_low=0.9 is above curriculum.band_high=0.1"):
        CurriculumConfig(strategy="adaptive", band_low=0.9, band_high=0.1)
    with pytest.raises(ValueError, match="must be three non-negative"):
        CurriculumConfig(strategy="linear", linear_start=[1.0, 0.0])
    # what the strategy in use does not read is not checked (these configs validated before)
    CurriculumConfig(strategy="none", band_low=0.9, band_high=0.1, linear_start=[1.0, 0.0])
    CurriculumConfig(buckets="quantiles", easy_below=0.8, hard_above=0.2)
    with pytest.raises(ValueError, match="unique"):
        schedule([problem("a"), problem("a")], {}, {}, 1, 1, CurriculumConfig(), seed=0)
    with pytest.raises(ValueError, match="no problems"):
        schedule([], {}, {}, 1, 1, CurriculumConfig(), seed=0)


def test_pool_size_fixes_the_training_subset(tmp_path):
    """data.pool_size: a seeded subset, the same for every epoch and whatever order the loader
    gives; pool_size = prompts_per_epoch makes every epoch revisit the same prompts."""
    from pipeline.config.file import load_config
    from pipeline.stages.problems import choose_prompts
    from pipeline.stages.problems import pool
    probs = [Problem(id=f"p{i:03d}", prompt=f"q{i}", entry_point="f", difficulty="easy") for i in range(40)]
    a = pool(probs, 10, seed=0)
    assert len(a) == 10 and {p.id for p in a} == {p.id for p in pool(list(reversed(probs)), 10, seed=0)}
    assert {p.id for p in a} != {p.id for p in pool(probs, 10, seed=1)}
    assert pool(probs, 0, seed=0) == probs and pool(probs, 99, seed=0) == probs
    cfg = load_config(None, [f"run.dir={tmp_path}", "data.pool_size=8", "data.prompts_per_epoch=8",
                             "data.difficulties=[easy,medium]"])
    chosen = [set(choose_prompts(cfg, tmp_path / "run", n)[0]) for n in (1, 2, 3)]
    assert len(chosen[0]) == 8 and chosen[0] == chosen[1] == chosen[2]
    wide = load_config(None, [f"run.dir={tmp_path}", "data.pool_size=12", "data.prompts_per_epoch=4",
                              "data.difficulties=[easy,medium]"])
    seen = set().union(*(choose_prompts(wide, tmp_path / "run", n)[0] for n in (1, 2, 3, 4, 5, 6)))
    assert len(seen) == 12  # the walk covers the pool, and never leaves it


def test_validation_split_is_carved_out_of_training(tmp_path):
    """data.validation_size: a stratified, fixed set of training problems that no training stage sees
    and the eval source `validation` evaluates; the same for every run.seed and difficulty filter,
    and a config without one keeps the fingerprints every earlier run has."""
    from collections import Counter

    from data.loaders import split_validation
    from data.rows import DataError
    from pipeline.config.file import load_config
    from pipeline.stages.eval import eval_problems
    from pipeline.run.runner import Runner
    from pipeline.stages.problems import choose_prompts
    from pipeline.stages.problems import training_problems
    probs = [Problem(id=f"{d}{i:02d}", prompt="q", entry_point="f", difficulty=d)
             for d, n in (("easy", 20), ("medium", 15), ("hard", 5)) for i in range(n)]
    train, val = split_validation(probs, 8)
    assert len(val) == 8 and Counter(p.difficulty for p in val) == {"easy": 4, "medium": 3, "hard": 1}
    assert {p.id for p in train} | {p.id for p in val} == {p.id for p in probs}
    assert not {p.id for p in train} & {p.id for p in val}
    assert {p.id for p in split_validation(list(reversed(probs)), 8)[1]} == {p.id for p in val}
    assert split_validation(probs, 0) == (probs, [])
    with pytest.raises(DataError, match="data.validation_size=40 leaves no training problem"):
        split_validation(probs, 40)

    over = [f"run.dir={tmp_path}", "data.validation_size=20", "data.difficulties=[easy,medium]"]
    cfgs = [load_config(None, [*over, f"run.seed={s}", "eval.sources=[validation]"]) for s in (0, 1)]
    held = [{p.id for _, p in eval_problems(c)} for c in cfgs]
    assert len(held[0]) == 20 and held[0] == held[1]  # run.seed does not move it
    trained = {p.id for p in training_problems(cfgs[0])}
    assert len(trained) == 90 - len([i for i in held[0] if "hard" not in i]) and not trained & held[0]
    walk = load_config(None, [*over, "data.prompts_per_epoch=200"])
    assert not set(choose_prompts(walk, tmp_path / "run", 1)[0]) & held[0]
    hard_too = load_config(None, [f"run.dir={tmp_path}", "data.validation_size=20", "eval.sources=[validation]"])
    assert {p.id for _, p in eval_problems(hard_too)} == held[0]  # nor does data.difficulties

    with pytest.raises(Exception, match="eval.sources names validation but data.validation_size is 0"):
        load_config(None, ["eval.sources=[validation]"])
    # fingerprints: the default config's, as pinned before data.validation_size existed (the select's and
    # all after it moved with select.std=sample and update.kl_ratio=true, TRL's defaults; the rest did not;
    # logprobs v6 and update v6 moved those two and eval; reward v2 moved it and all after it), with the pool of 8
    r = Runner(load_config("config.yaml", [f"run.dir={tmp_path}", "data.pool_size=8", "data.prompts_per_epoch=8"]))
    assert [x[1][:8] for x in r.plan(1)] == [
        "64cbf429", "65decba7", "9ba61350", "b613dfe7", "a36e8a8e", "855df6e1", "1576cc53", "98bbf9e5", "7df71542"]
    assert [x[1][:8] for x in r.plan(0)] == ["be555660", "d3a1c013", "6b5e33a3"]
    split = Runner(load_config("config.yaml", [f"run.dir={tmp_path}", "data.pool_size=8", "data.prompts_per_epoch=8",
                                               "data.validation_size=20"]))
    assert all(x[1] != y[1] for x, y in zip(r.plan(1), split.plan(1)))  # prompts (and all after) change
