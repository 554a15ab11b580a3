"""The flags' evidence and advice read the run as it is (tiny real runs showed each case): a KL far past
its target printed readably, a reward fall of a policy that has not moved said as the prompts drawn, the
cause of equal rewards read from the answers' diversity, unscored answers named as what the update lost,
a value far off its default pointed at the default, the sampler mismatch's cause in the run's settings
first, and a truncation factor named only where the judge has one."""
from __future__ import annotations

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.advice import key_change
from pipeline.metrics.flags import analyse
from tests.test_flags import healthy

CFG = ReportConfig()


def _one(ms, name, settings=None):
    found = [f for f in analyse(ms, CFG, settings or {}) if f.name == name]
    assert found, [f.name for f in analyse(ms, CFG, settings or {})]
    return found[-1]


def test_an_exploding_kl_reads_in_three_digits_and_names_the_epoch():
    ms = healthy(2)
    ms[1].update({"kl/k3": 3.5e21, "kl/k3_start": 25.1})
    f = _one(ms, "kl_exploding", {"update.lr": 0.5})
    assert "kl/k3 3.5e+21 = 3.5e+22 x" in f.evidence and "kl/k3_start 25.1" in f.evidence, f.evidence
    assert "`rlaif compare 2`" in f.advice and "compare N" not in f.advice
    assert "lower update.lr (e.g. 0.5 -> 0.0002, the default)" in f.advice   # not 0.5 -> 0.25


def test_a_reward_fall_of_a_policy_that_has_not_moved_is_a_warning_about_the_prompts():
    ms = healthy(3)
    ms[2].update({"reward/mean": 0.10, "kl/k3_start": 0.0})
    f = _one(ms, "reward_regression")
    assert f.severity == "warning" and "hardly moved" in f.advice and "data.pool_size" in f.advice
    ms[2]["kl/k3_start"] = 0.05   # it moved: the update may be the cause, as before
    f = _one(ms, "reward_regression")
    assert f.severity == "critical" and "hardly moved" not in f.advice


def test_equal_rewards_are_read_by_the_answers_diversity():
    ms = healthy(1)
    ms[0].update({"reward/frac_zero_std": 0.9, "score/student_mean": 1.08, "completion/diversity": 0.0})
    assert "nearly) the same text" in _one(ms, "mode_collapse", {"judge.kind": "length"}).advice
    ms[0]["completion/diversity"] = 0.97
    f = _one(ms, "mode_collapse", {"judge.kind": "python"})
    assert "the judge does not tell them apart" in f.advice and "solved" not in f.advice
    ms[0].update({"completion/diversity": 0.6, "score/student_mean": 0.95})   # a 0-1 judge: solved groups
    assert "solved by every sample" in _one(ms, "mode_collapse", {"judge.kind": "execution"}).advice


def test_nothing_trained_names_the_unscored_answers_none_as_drops():
    ms = healthy(1)
    ms[0].update({"update/trained_tokens": 0, "select/kept_frac": 0.0, "score/student_unscored": 16})
    assert "16 answers were unscored, and reward.none_as=None drops them" in _one(
        ms, "nothing_trained", {"reward.none_as": None}).advice


def test_advice_steps_from_a_value_near_its_default_and_points_far_ones_at_it():
    assert key_change("update.lr", "lower", {"update.lr": 4e-4}) == "lower update.lr (e.g. 0.0004 -> 0.0002)"
    assert key_change("sample.temperature", "raise", {"sample.temperature": 0.01}, factor=1.2) == \
        "raise sample.temperature (e.g. 0.01 -> 0.7, the default)"


def test_the_sampler_mismatch_names_this_runs_own_cause_first():
    ms = healthy(1)
    ms[0]["logprobs/sampler_gap"] = 0.25
    f = _one(ms, "sampler_mismatch", {"sample.top_p": 0.3, "sample.top_k": 0})
    assert "This run samples with sample.top_p=0.3: set sample.top_p=1" in f.advice
    f = _one(ms, "sampler_mismatch", {"sample.top_p": 1.0, "sample.top_k": 0, "sample.dtype": "bfloat16",
                                      "student.dtype": "float32"})
    assert "This run samples with sample.dtype=bfloat16" in f.advice and "sample.dtype=float32" in f.advice
    f = _one(ms, "sampler_mismatch", {"sample.dtype": "auto", "student.dtype": "auto"})   # (bf16 both, on a GPU)
    assert "This run samples with" not in f.advice
    f = _one(ms, "sampler_mismatch", {"sample.top_p": 1.0, "sample.top_k": 0, "sample.dtype": "float32"})
    assert "This run samples with" not in f.advice and "negative kl/k1_start" not in f.advice


def test_a_truncation_factor_is_named_only_for_a_judge_that_has_one():
    ms = healthy(1)
    ms[0]["completion/truncated_frac"] = 0.9
    assert "truncation_factor" in _one(ms, "truncation_high", {"judge.kind": "execution"}).advice
    assert "truncation_factor" not in _one(ms, "truncation_high", {"judge.kind": "length"}).advice


def test_the_review_cases_stay_quiet_where_the_reading_does_not_hold():
    """kl_reference=previous (the sampler is its own reference: kl/k3_start 0 always) keeps a fall critical;
    a budget key far over its default is stepped, not sent to the demo's default; unscored answers are named
    only where reward.none_as drops them; a mix with a reward function is no 0-1 judge."""
    ms = healthy(3)
    ms[2].update({"reward/mean": 0.10, "kl/k3_start": 0.0})
    assert _one(ms, "reward_regression", {"update.kl_reference": "previous"}).severity == "critical"
    assert key_change("data.prompts_per_epoch", "lower", {"data.prompts_per_epoch": 256}) == \
        "lower data.prompts_per_epoch (e.g. 256 -> 128)"
    ms = healthy(1)
    ms[0].update({"update/trained_tokens": 0, "select/kept_frac": 0.0, "score/student_unscored": 16})
    assert "unscored" not in _one(ms, "nothing_trained", {"reward.none_as": 0.0}).advice
    ms = healthy(1)
    ms[0].update({"reward/frac_zero_std": 0.9, "score/student_mean": 0.95, "completion/diversity": 0.6})
    assert "solved" not in _one(ms, "mode_collapse", {"judge.kind": "mix", "judge.mix.python": 0.5}).advice


def test_a_truncated_sampler_is_flagged_where_its_gap_stays_under_the_threshold():
    """sample.top_p=0.9 (configs/length_reward.yaml, the usual 0.9-0.95): the sampler's logprob is the
    renormalised nucleus's, so its gap is at most -ln(0.9) = 0.105 nats, measured 0.086-0.089 against
    report.max_sampler_gap 0.1, and kl/k1_start is 0 at epoch 1 (the policy is its reference). The
    settings show the mismatch the figures cannot: flagged every RL epoch, the warm-start not."""
    ms = healthy(2)
    for m in ms:
        m.update({"logprobs/sampler_gap": 0.087, "logprobs/sampler_outside": 0.0, "kl/k1_start": 0.0})
    assert "sampler_mismatch" not in {f.name for f in analyse(ms, ReportConfig(), {"sample.top_p": 1.0})}
    flags = [f for f in analyse([{"epoch": 0, "loss/sft": 0.5}] + ms, ReportConfig(), {"sample.top_p": 0.9})
             if f.name == "sampler_mismatch"]
    assert [f.epoch for f in flags] == [1, 2]
    assert "this run samples with sample.top_p=0.9" in flags[0].evidence and "0.0870 nats" in flags[0].evidence
    assert "set sample.top_p=1" in flags[0].advice
    flags = [f for f in analyse(ms, ReportConfig(), {"sample.top_k": 20}) if f.name == "sampler_mismatch"]
    assert len(flags) == 2 and "sample.top_k=20" in flags[0].evidence


def test_the_truncation_flag_reads_each_epochs_own_sampling():
    """A run that sampled epoch 1 at top_p 0.9 and epoch 2 at 1.0 (the run's settings now): epoch 1 is
    flagged, epoch 2 is not; the other way round, only epoch 2."""
    ms = healthy(2)
    ms[0]["_sample/settings"], ms[1]["_sample/settings"] = {"sample.top_p": 0.9}, {"sample.top_p": 1.0}
    assert [f.epoch for f in analyse(ms, ReportConfig(), {"sample.top_p": 1.0}) if f.name == "sampler_mismatch"] == [1]
    ms[0]["_sample/settings"], ms[1]["_sample/settings"] = {"sample.top_p": 1.0}, {"sample.top_p": 0.9}
    assert [f.epoch for f in analyse(ms, ReportConfig(), {"sample.top_p": 0.9}) if f.name == "sampler_mismatch"] == [2]


def test_a_reward_functions_low_mean_is_not_no_signal():
    """A Python reward function gives any number (a length penalty is all negative): its mean below
    report.min_student_score says nothing; a 0-1 judge's does."""
    ms = healthy(2)
    ms[1].update({"score/student_mean": -0.4, "reward/mean": -0.4})
    assert "no_signal" not in [f.name for f in analyse(ms, CFG, {"judge.kind": "python"})]
    assert "no_signal" not in [f.name for f in analyse(ms, CFG, {"judge.kind": "mix", "judge.mix.python": 0.5})]
    ms[1].update({"score/student_mean": 0.01, "reward/mean": 0.01})
    assert "< report.min_student_score" in _one(ms, "no_signal", {"judge.kind": "execution"}).evidence


def test_a_run_without_a_teacher_is_not_told_to_learn_its_answers():
    """teacher.kind=none (a TRL-style run on reward functions): no answers for the warm-start or
    update.teacher_sft_coef to learn, so no_signal offers a teacher, not those two alone."""
    ms = healthy(2)
    ms[0].update({"reward/frac_zero_std": 1.0, "score/student_mean": 0.0, "reward/mean": 0.0})
    advice = _one(ms, "no_signal", {"judge.kind": "python", "teacher.kind": "none"}).advice
    assert "a teacher (teacher.kind=reference where your rows have a reference, or anthropic/openai)" in advice
    assert "update.warm_start=true: a supervised" not in advice and "update.teacher_sft_coef=4.0: each" not in advice
    advice = _one(ms, "no_signal", {"judge.kind": "python", "teacher.kind": "reference"}).advice
    assert "update.warm_start=true: a supervised" in advice and "a teacher (" not in advice
