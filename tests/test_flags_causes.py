"""The flags name the cause the run's own figures show (tiny real runs showed each case): an entropy back
at its level after a divergence is no collapse, truncation that rose as the policy blew up is the
divergence's symptom, equal rewards of cut-off answers are the length limit's, a reference teacher
without references says so, and negative_k1 names only causes a config key can act on."""
from __future__ import annotations

import re

import pytest

from pipeline.config.epoch import ReportConfig
from pipeline.config.schema import Config
from pipeline.metrics.flags import analyse
from tests.test_flags import healthy
from tests.test_flags_advice import _one

CFG = ReportConfig()


def _entropy_flags(values, kl=None):
    ms = healthy(len(values))
    for m, v in zip(ms, values):
        m["policy/entropy"] = v
    for e, figures in (kl or {}).items():
        ms[e - 1].update(figures)
    return [f for f in analyse(ms, CFG) if f.name == "entropy_collapse"]


def test_an_entropy_back_at_its_level_after_a_divergence_is_no_collapse():
    """update.lr=0.5: epoch 1's update diverged (6.61 nats; the policy it made sampled epoch 2 at kl/k3_start 13),
    epoch 3's 2.37 is a healthy run's level (2.05), not a collapse from 6.61; a diverged epoch is left out
    wherever it falls. A fall below the calm epochs' level still is a collapse."""
    assert _entropy_flags([6.61, 4.5, 2.37], {2: {"kl/k3_start": 13.0, "kl/k3": 54.5}, 3: {"kl/k3": 63.1}}) == []
    assert _entropy_flags([2.05, 6.61, 4.0, 2.37], {3: {"kl/k3_start": 13.0}}) == []
    (f,) = _entropy_flags([2.05, 6.61, 1.5, 0.6], {3: {"kl/k3_start": 13.0}})
    assert f.epoch == 4 and "highest earlier 2.0500, epoch 2 left out: diverged" in f.evidence, f.evidence
    (f,) = _entropy_flags([6.61, 1.5, 0.6], {2: {"kl/k3_start": 13.0}})   # the diverged one is epoch 1
    assert f.epoch == 3 and "highest earlier 1.5000, epoch 1 left out" in f.evidence, f.evidence


def _diverged(start=13.03):
    """The update.lr=0.5 run (length judge): epoch 3's answers all cut off as its sampling policy blew up."""
    ms = healthy(3)
    ms[1].update({"completion/truncated_frac": 0.0, "kl/k3": 0.0111})
    ms[2].update({"completion/truncated_frac": 0.9688, "kl/k3": 54.53, "kl/k3_start": start})
    return ms


def test_truncation_that_rose_as_the_policy_blew_up_is_named_its_symptom():
    s = {"update.lr": 0.5, "judge.kind": "length", "sample.max_new_tokens": 32}
    f = _one(_diverged(), "truncation_high", s)
    assert "up from 0.000 at epoch 2 as kl/k3_start reached 13.03 = 130 x report.kl_target 0.1" in f.evidence, f.evidence
    assert f.advice.startswith("likely a symptom of the divergence") and "`rlaif update 2 update.lr=...`" in f.advice
    assert "lower update.lr" in f.advice and "raise sample.max_new_tokens (e.g. 32 -> 64)" in f.advice
    assert "code" not in f.advice, f.advice   # a length judge reads no code block
    ms = _diverged() + [{**healthy(4)[3], "completion/truncated_frac": 0.9844, "kl/k3_start": 28.23}]
    f = [f for f in analyse(ms, CFG, s) if f.name == "truncation_high"][-1]   # still cut off, still blown
    assert f.epoch == 4 and "high since epoch 3 as kl/k3_start reached 28.23" in f.evidence, f.evidence
    assert "`rlaif update 2 update.lr=...`" in f.advice
    ms = _diverged()
    del ms[2]["kl/k3_start"]   # an older run: this epoch's kl/k3 says it
    assert "as kl/k3 reached 54.53" in _one(ms, "truncation_high", s).evidence
    for ms in (_diverged(start=0.05),   # the policy that sampled was near its reference: this update's KL came after
               [dict(m, **{"completion/truncated_frac": 0.9}) for m in _diverged()]):   # cut off before it blew up
        assert "symptom" not in _one(ms, "truncation_high", s).advice


@pytest.mark.parametrize("judge, stop_after_code", [
    ({"judge.kind": "execution"}, True), ({"judge.kind": "anthropic"}, True), ({"judge.kind": "mix"}, True),
    ({"judge.kind": "mix", "judge.mix.execution": 0.65, "judge.mix.python": 0.35}, True),
    ({"judge.kind": "mix", "judge.mix.python": 1.0}, False), ({"judge.kind": "python"}, False),
    ({"judge.kind": "length"}, False)])
def test_truncation_names_the_stop_that_fits_the_judge(judge, stop_after_code):
    ms = healthy(1)
    ms[0]["completion/truncated_frac"] = 0.9
    advice = _one(ms, "truncation_high", judge).advice
    assert "closing code fence" not in advice
    assert ("sample.stop_after_code=true" in advice) == stop_after_code, advice
    assert ("sample.stop (" in advice) != stop_after_code
    if stop_after_code:   # already on: not named again
        assert "stop_after_code" not in _one(ms, "truncation_high", {**judge, "sample.stop_after_code": True}).advice


def test_equal_rewards_of_answers_mostly_cut_off_are_blamed_on_the_length_limit():
    """sample.max_new_tokens=4: 86% of the answers cut off, so they tie on the length reward; the answers
    differ (diversity 0.756), but the judge is not the cause."""
    ms = healthy(1)
    ms[0].update({"reward/frac_zero_std": 0.9, "score/student_mean": 1.08, "completion/diversity": 0.756,
                  "completion/truncated_frac": 0.86})
    s = {"judge.kind": "length", "sample.max_new_tokens": 4}
    advice = _one(ms, "mode_collapse", s).advice
    assert "86% of the answers are cut off (completion/truncated_frac 0.860)" in advice, advice
    assert "raise sample.max_new_tokens (e.g. 4 -> 8)" in advice and "does not tell them apart" not in advice
    ms[0]["completion/truncated_frac"] = 0.2
    assert "does not tell them apart" in _one(ms, "mode_collapse", s).advice


def test_a_reference_teacher_without_references_is_told_so_and_critical_when_none_has_one():
    ms = healthy(2)
    ms[1].update({"reward/no_teacher_score": 16, "teacher/missing": 16, "data/prompts": 16})
    f = _one(ms, "teacher_missing", {"teacher.kind": "reference"})
    assert f.evidence.startswith("16 of 16 prompts without a teacher score (teacher/missing 16)"), f.evidence
    assert f.severity == "critical" and "no teacher at all" in f.evidence
    assert "16 rows have none: add a `reference`" in f.advice and "reward.kind=direct" in f.advice
    assert "teacher.max_tokens" not in f.advice
    ms[1].update({"reward/no_teacher_score": 3, "teacher/missing": 3})
    f = _one(ms, "teacher_missing", {"teacher.kind": "reference"})
    assert f.severity == "warning" and f.evidence.startswith("3 of 16 prompts")
    assert "teacher.max_tokens" in _one(ms, "teacher_missing", {"teacher.kind": "anthropic"}).advice


KEY = re.compile(r"\b((?:sample|student|update|teacher|reward|judge|select|data)(?:\.[a-z_]+)+)")


def test_negative_k1_names_causes_a_config_key_acts_on_and_each_key_exists():
    """kl/k1_start is computed at sample.temperature in eval mode: neither another temperature nor LoRA
    dropout can show in it; the causes named are a truncation, the sampler's dtype and its engine."""
    ms = healthy(2)
    ms[1]["kl/k1_start"] = -0.05
    advice = _one(ms, "negative_k1").advice
    assert "dropout=" not in advice and "temperature other than" not in advice
    for words in ("sample.top_p=1", "sample.top_k=0", "sample.dtype=float32", "sample.engine=hf"):
        assert words in advice
    ms[1]["completion/truncated_frac"] = 0.9
    named = {k for f in analyse(ms, CFG, {"judge.kind": "execution"}) for k in KEY.findall(f.advice)}
    assert {"sample.engine", "sample.stop_after_code"} <= named
    for key in named:
        Config().get(key)   # AttributeError: the advice names a key the config does not have
