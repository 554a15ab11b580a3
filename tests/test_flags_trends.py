"""The health flags read across epochs and their advice (pipeline/metrics/trends.py, flags.py): the loss
rules on the parts of the loss that have a level, advice that always changes something, and an eval that
falls from the run's first eval, or on its graded score alone."""
from __future__ import annotations

import pytest

from pipeline.metrics.flags import analyse
from tests.test_flags import CFG, healthy
from tests.test_report import build_fake_run


@pytest.fixture
def fake_run(tmp_path):
    return build_fake_run(tmp_path)


def test_the_loss_rules_read_the_parts_with_a_level_not_the_policy_terms_noise():
    """loss/policy sits near 0 by construction (group-normalised advantages): -0.012 -> -0.020 -> -0.004 is
    a +70% "rise" of noise, smaller than the term's own spread: no flag. An epoch trained on teacher rows
    alone (no RL part, loss/total = the teacher NLL x update.teacher_sft_coef) with loss/sft falling: no flag
    either."""
    ms = [{"epoch": e, "loss/total": p + 0.0005, "loss/policy": p, "loss/kl": 0.0005}
          for e, p in ((1, -0.012), (2, -0.020), (3, -0.004))]
    assert "loss_rising" not in {f.name for f in analyse(ms, CFG)}
    ms[2]["loss/kl"], ms[2]["loss/total"] = 0.05, 0.046   # a rise well past the policy term's wobble is one
    assert "loss_rising" in {f.name for f in analyse(ms, CFG)}
    # teacher rows growing 3 -> 5 -> 8 carry loss/total; loss/sft falls; the KL term drifts up as healthy
    # training's does, inside the policy term's wobble: no flag
    ms = [{"epoch": e, "loss/total": t, "loss/policy": p, "loss/kl": q, "loss/sft": f, "select/teacher_rows": n}
          for e, t, p, q, f, n in ((1, .17, .004, .001, .60, 3), (2, .20, -.006, .0018, .58, 5), (3, .30, .002, .0025, .55, 8))]
    assert "loss_rising" not in {f.name for f in analyse(ms, CFG)}
    ms = [{"epoch": 1, "loss/total": 0.17, "loss/policy": 0.01, "loss/kl": 0.001, "loss/sft": 0.60, "select/teacher_rows": 3},
          {"epoch": 2, "loss/total": 0.16, "loss/policy": 0.01, "loss/kl": 0.001, "loss/sft": 0.58, "select/teacher_rows": 3},
          {"epoch": 3, "loss/total": 2.2, "loss/sft": 0.55, "select/teacher_rows": 8, "select/kept_frac": 0.0}]
    assert "loss_rising" not in {f.name for f in analyse(ms, CFG)}
    ms[2].update({"loss/sft": 0.70, "loss/policy": 0.01, "loss/kl": 0.001})   # the rise is the teacher rows' NLL alone: said
    f = next(f for f in analyse(ms, CFG) if f.name == "loss_rising")
    assert "the rise is in loss/sft alone" in f.advice and "raise update.teacher_sft_coef" in f.advice, f.advice
    assert "loss/policy + loss/kl or" not in f.advice


def test_advice_never_suggests_a_value_that_changes_nothing():
    ms = healthy(4)
    ms[2].update({"reward/mean": 0.25, "reward/best_of_n": 0.65})

    def bon(**s):
        return next(f for f in analyse(ms, CFG, s) if f.name == "best_of_n_vs_mean").advice
    assert "select.top_k" not in bon(**{"sample.num_samples": 2})                     # 2 of 2 keeps every answer
    assert "select.top_k (e.g. 4 -> 2" in bon(**{"sample.num_samples": 8, "select.top_k": 4})
    assert "select.top_k (e.g. 0 -> 4" in bon(**{"sample.num_samples": 8})
    cost = healthy(4)
    cost[2]["judge/cost_usd"] = 12.0
    (f,) = analyse(cost, CFG, {"sample.num_samples": 1, "data.prompts_per_epoch": 8})
    assert "sample.num_samples (at 1, its least)" in f.advice and "1 -> 1" not in f.advice
    cv = healthy(4)
    cv[2]["reward/cv"] = 2.5
    (f,) = analyse(cv, CFG, {"select.advantage": "raw", "reward.kind": "direct"})   # no ratio: no clip or eps
    assert "select.advantage=grpo" in f.advice and "reward.clip_max" not in f.advice and "reward.eps" not in f.advice


def test_an_eval_that_falls_from_the_first_or_on_its_score_alone_is_a_regression():
    first = {"metric": "pass@1", "from": 0, "a": 0.30, "b": 0.25, "ci": [-0.073, -0.027], "problems": 30}
    step = {"metric": "pass@1", "from": 3, "a": 0.26, "b": 0.25, "ci": [-0.03, 0.01], "problems": 30}
    score = {"metric": "score", "from": 3, "a": 0.51, "b": 0.32, "ci": [-0.197, -0.182], "problems": 20}
    for changes, said in (([step, first], "at epoch 0"), ([step, score], "eval/score 0.5100")):
        ms = healthy(4)
        ms[3]["_eval/change"] = changes
        (f,) = analyse(ms, CFG)
        assert f.name == "eval_regression" and said in f.evidence and "eval/pass@1 0.2600" not in f.evidence
    ms = healthy(4)
    ms[3]["_eval/change"] = [step]
    assert analyse(ms, CFG) == []


def test_a_slow_eval_decline_is_flagged_against_the_first_eval_in_the_report(fake_run):
    """Evals at epochs 0-4 on 30 problems, each a step of 3 more problems down by 1/8 (every step inside its
    interval): the fall from epoch 0 is not, from the second step on, and the report says so."""
    from pipeline.report.report import write_report
    from pipeline.run.runner import Runner
    from tests.test_report import STAGES, Stage, _eval_dir, _noop
    run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    base = [0.5] * 30
    for e in range(5):
        fp = run.base_policy_fp() if e == 0 else run.chosen_update(e)[1]["fingerprint"]
        _eval_dir(run, e, fp, [p - 0.125 if 3 * (e - 1) <= i < 3 * e else p - 0.125 * (i < 3 * (e - 1)) for i, p in
                               enumerate(base)] if e else base)
    health = write_report(run).read_text().split("## Health")[1].split("## ")[0]
    lines = [s for s in health.splitlines() if "`eval_regression`" in s]
    flagged = {int(s.split("epoch ")[1].split(",")[0]) for s in lines}
    assert 4 in flagged and 1 not in flagged, health      # three problems down at a step: noise
    assert all("at epoch 0 ->" in s and not any(f"at epoch {e} ->" in s for e in (1, 2, 3)) for s in lines), health


def test_a_nan_reward_at_the_first_epoch_leaves_the_decline_check_on(fake_run):
    """reward/mean factors 0.5, 1.0, 0.9, 0.8 of one set of prompt rewards: epoch 4 declines from epoch 2,
    its best. With epoch 1's reward/mean NaN in metrics.json (its reward table as it was), the NaN epoch
    is no "best": the decline is still flagged, beside non_finite at epoch 1."""
    import json
    import random

    from pipeline.report.report import write_report
    from tests.test_report import _rewards
    rng = random.Random(3)
    base = [[rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for _ in range(24)]
    for e, f in zip((1, 2, 3, 4), (0.5, 1.0, 0.9, 0.75)):
        rows = {f"e{e}p{i}": [r * f for r in rs] for i, rs in enumerate(base)}
        _rewards(fake_run, e, rows)
        mp = fake_run.epoch_dir(e) / "metrics.json"
        m = json.loads(mp.read_text())
        m["reward/mean"] = float("nan") if e == 1 else sum(map(sum, rows.values())) / sum(map(len, rows.values()))
        mp.write_text(json.dumps(m))
    health = write_report(fake_run).read_text().split("## Health")[1].split("## Metrics per epoch")[0]
    assert "`reward_decline`" in health and "at epoch 2, its best" in health, health


def test_a_teacher_only_epochs_entropy_is_not_the_policys():
    """An epoch whose update trained the teacher's rows alone (select/kept_frac 0) records their entropy at
    T = 1: it is neither a peak the policy fell from nor a collapse."""
    ms = [{"epoch": e, "policy/entropy": v, "select/kept_frac": k}
          for e, v, k in ((1, 0.15, 0.9), (2, 0.14, 0.9), (3, 0.60, 0.0), (4, 0.15, 0.9), (5, 0.13, 0.9))]
    assert "entropy_collapse" not in {f.name for f in analyse(ms, CFG)}
    ms[2]["select/kept_frac"] = 0.9   # the same figure from the policy's own rows: a peak it fell from
    assert "entropy_collapse" in {f.name for f in analyse(ms, CFG)}


def test_a_fall_a_later_epoch_undid_is_flagged_recovered_and_counted_apart():
    """A real 8-epoch run over bank:train (48 new prompts an epoch): reward/mean 0.4363 -> 0.3784 at epoch 5
    (Welch's interval just below 0, one of 7 steps), then 0.47 from epoch 6 on; the loss rose over epochs 3..5
    and fell below its start at 6. Both keep their flags, as "recovered" (never critical), saying where
    the run came back; the glance counts them apart from the flags that still stand."""
    rewards = [0.4109, 0.4172, 0.4038, 0.4363, 0.3784, 0.47, 0.4704, 0.4715]
    losses = [0.2181, 0.1715, 0.1756, 0.198, 0.2137, 0.1485, 0.1490, 0.1480]
    ms = healthy(8)
    for m, r, lo in zip(ms, rewards, losses):
        m.update({"reward/mean": r, "reward/best_of_n": 0.6, "loss/total": lo})
        del m["loss/policy"], m["loss/kl"]   # (the run's parts are not known: the total alone)
    flags = {f.name: f for f in analyse(ms, CFG) if f.epoch == 5}   # (epoch 3's dip of 0.013 came back at 4 too)
    assert set(flags) == {"reward_regression", "loss_rising"}, flags
    for f in flags.values():
        assert f.epoch == 5 and f.severity == "recovered", f
        assert "back to" in f.evidence and "it came back by epoch 6" in f.advice and "unless it recurs" in f.advice
    ms[5]["reward/mean"], ms[6]["reward/mean"], ms[7]["reward/mean"] = 0.40, 0.41, 0.42   # never back to 0.4263
    f = next(f for f in analyse(ms, CFG) if f.name == "reward_regression" and f.epoch == 5)
    assert f.severity == "critical" and "back to" not in f.evidence


def test_the_glance_counts_recovered_flags_apart(fake_run):
    from pipeline.metrics.flag_kinds import Flag
    from pipeline.report.report import glance
    fl = [Flag("reward_regression", 5, "recovered", "e", "a"), Flag("kl_high", 7, "warning", "e", "a")]
    assert glance(fake_run, fl, {}, 4)[0] == "health: 1 flag(s): kl_high (epoch 7); 1 recovered since: reward_regression (epoch 5)"
    assert glance(fake_run, fl[:1], {}, 4)[0] == "health: no flags; 1 recovered since: reward_regression (epoch 5)"


def test_a_recovered_dip_does_not_hide_a_decline_after_it():
    """0.50 at epoch 2, a dip to 0.40 that came back (0.495), then a slow slide below the best beyond its
    interval: the dip is 'recovered', the slide a standing reward_decline."""
    ms = healthy(7)
    for m, r in zip(ms, [0.40, 0.50, 0.40, 0.495, 0.488, 0.482, 0.476]):
        m["reward/mean"] = r
        if m["epoch"] >= 3:
            m["_reward/from_best"] = {"from": 2, "ci": [-0.1, -0.01]}
    got = {(f.name, f.epoch, f.severity) for f in analyse(ms, CFG)}
    assert ("reward_regression", 3, "recovered") in got
    assert {(n, e) for n, e, s in got if n == "reward_decline" and s == "warning"} >= {("reward_decline", 7)}, got


def test_a_kl_spike_inside_one_update_that_left_the_policy_near_its_reference_is_recovered():
    """A real 8-epoch run: epoch 3's update averaged kl/k3 2.126 (21x the target), yet the policy it made
    sampled epoch 4 at kl/k3_start 0.054; the run was fine. Critical, with 'promote an earlier variant',
    it stood at the top of a report a user could not act on."""
    ms = healthy(5)
    ms[2].update({"kl/k3": 2.126, "kl/k3_start": 0.035})
    ms[3]["kl/k3_start"] = 0.054
    f = next(f for f in analyse(ms, CFG) if f.name == "kl_exploding")
    assert (f.epoch, f.severity) == (3, "recovered"), f
    assert "back at kl/k3_start 0.054 at epoch 4" in f.evidence and "unless it recurs" in f.advice
    assert "promoting" not in f.advice
    ms[3]["kl/k3_start"] = 0.9   # the policy it made sampled far from the reference: it stands
    f = next(f for f in analyse(ms, CFG) if f.name == "kl_exploding")
    assert f.severity == "critical" and "promoting an earlier variant" in f.advice and "back at" not in f.evidence
    ms[3].update({"kl/k3": 1.8, "kl/k3_start": 0.054})
    ms[4]["kl/k3_start"] = 0.05   # a spike each epoch, each time back: it recurs, and stands
    assert {(f.epoch, f.severity) for f in analyse(ms, CFG) if f.name == "kl_exploding"} == {(3, "recovered"),
                                                                                          (4, "critical")}
    ms[3].update({"kl/k3": 0.1, "kl/k3_start": 0.054})   # against the previous policy, the next start is near 0 by construction
    f = next(f for f in analyse(ms, CFG, {"update.kl_reference": "previous"}) if f.name == "kl_exploding")
    assert f.severity == "critical"


def test_a_regression_is_critical_only_when_its_whole_interval_is_far_below_and_says_its_interval():
    """A real run's epoch 8: -0.0666 over 48 new prompts, Welch's interval [-0.129, -0.004]: beyond
    noise, but not surely beyond 5 thresholds (it was critical by its point alone). Harder prompts
    drawn are said, with what to do about them."""
    ms = healthy(4)
    for m, r in zip(ms, [0.40, 0.45, 0.3834, 0.39]):
        m["reward/mean"], m["curriculum/difficulty_mean"] = r, 1.0
    ms[2]["_reward/change_ci"] = [-0.129, -0.004]
    f = next(f for f in analyse(ms, CFG) if f.name == "reward_regression")
    assert (f.epoch, f.severity) == (3, "warning") and "95% [-0.1290, -0.0040]" in f.evidence, f
    assert "difficulty" not in f.evidence + f.advice
    ms[2]["_reward/change_ci"] = [-0.12, -0.06]
    ms[2]["curriculum/difficulty_mean"] = 1.4
    f = next(f for f in analyse(ms, CFG) if f.name == "reward_regression")
    assert f.severity == "critical" and "curriculum/difficulty_mean 1 -> 1.4" in f.evidence
    assert "drew harder prompts" in f.advice and "data.pool_size" in f.advice


def test_loss_kl_rising_toward_its_target_is_no_rising_loss():
    """The shipped length preset, learning (reward 1.04 -> 1.38): loss/total -0.0015 -> 0.0007 -> 0.0029, all of
    the rise loss/kl's as the policy moves from its reference, kl/k3 under 0.01 (the target 0.1). No flag; the
    same rise with KL past report.kl_high x its target, or carried by loss/policy, is flagged."""
    ms = healthy(3)
    for m, total, kl, r in zip(ms, (-0.0015, 0.0007, 0.0029), (0.000226, 0.005144, 0.008229), (1.04, 1.2, 1.38)):
        m.update({"loss/total": total, "loss/kl": kl, "loss/policy": total - kl, "kl/k3": 0.0095, "reward/mean": r})
    assert "loss_rising" not in [f.name for f in analyse(ms, CFG, {"update.kl_mode": "adaptive", "update.kl_target": 0.1})]
    assert "loss_rising" not in [f.name for f in analyse(ms, CFG, {})]
    ms[-1]["kl/k3"] = 0.2   # past 1.5 x report.kl_target: the drift is the fault
    f = next(f for f in analyse(ms, CFG, {"update.kl_coef": 0.05}) if f.name == "loss_rising")
    assert "raise update.kl_coef (e.g. 0.05 -> 0.1)" in f.advice
    f = next(f for f in analyse(ms, CFG, {"update.kl_mode": "adaptive", "update.kl_target": 0.1}) if f.name == "loss_rising")
    assert "lower update.kl_target (e.g. 0.1 -> 0.05)" in f.advice and "update.kl_coef" not in f.advice   # its lever
    for m, kl in zip(ms, (0.00001, 0.005, 0.009)):   # no kl/k3 recorded: the budget unknown, the rise flagged
        m.update({"loss/kl": kl, "loss/policy": 0.0, "loss/total": kl})
        del m["kl/k3"]
    f = next(f for f in analyse(ms, CFG, {}) if f.name == "loss_rising")
    assert "0.0000 -> 0.0050 -> 0.0090 (+0.0090) (loss/policy" in f.evidence, f.evidence   # no percentage of ~0


def test_best_of_n_barely_up_beside_a_large_fall_is_no_divergence():
    """reward/mean 1.5986 -> 1.4697 while best_of_n 1.8516 -> 1.8633 (+0.0117): the best did not pull away."""
    ms = healthy(2)
    ms[0].update({"reward/mean": 1.5986, "reward/best_of_n": 1.8516})
    ms[1].update({"reward/mean": 1.4697, "reward/best_of_n": 1.8633})
    names = [f.name for f in analyse(ms, CFG, {})]
    assert "reward_regression" in names and "best_of_n_vs_mean" not in names
    ms[1]["reward/best_of_n"] = 1.8516 + 0.05   # up by more than a quarter of the fall: flagged
    assert "best_of_n_vs_mean" in [f.name for f in analyse(ms, CFG, {})]


def test_under_adaptive_kl_every_flag_names_its_target_not_the_coefficient():
    """Adaptive KL steers update.kl_coef itself: kl_high, loss_rising and a regression all say to lower
    update.kl_target, none to raise the coefficient the controller overrides."""
    ms = healthy(3)
    ms[2].update({"kl/k3": 0.2, "reward/mean": 0.1})
    settings = {"update.kl_mode": "adaptive", "update.kl_target": 0.1, "update.kl_coef": 1.0}
    flags = [f for f in analyse(ms, CFG, settings) if f.name in ("kl_high", "reward_regression")]
    assert {f.name for f in flags} == {"kl_high", "reward_regression"}, flags
    for f in flags:
        assert "lower update.kl_target (e.g. 0.1 -> 0.05)" in f.advice and "raise update.kl_coef" not in f.advice, f
