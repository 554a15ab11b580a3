"""A reward fall read against what each epoch drew and ran with: the settings an epoch sampled, judged and
rewarded with (from its own stages' manifests, not the run's last), and the prompts it drew (a fall between
epochs of other prompts, where the same prompts did not fall since an earlier epoch drew them)."""
from __future__ import annotations

import json

from pipeline.config.epoch import ReportConfig
from pipeline.config.file import load_config
from pipeline.metrics.flags import analyse
from pipeline.report.noise import change_intervals, reward_trend
from pipeline.run.runner import Runner
from pipeline.store.tables import save_table
from tests.test_flags import healthy
from tests.test_report import STAGES, _stage_dir


def _run(tmp_path, epochs: list[tuple[dict, dict[str, list[float]]]]) -> tuple[Runner, list[dict]]:
    """Epochs on disk: each (its sample stage's settings, {prompt: its answers' rewards}); their metrics."""
    runner = Runner(load_config(None, [f"run.dir={tmp_path}", "run.name=demo"]), stages=STAGES)
    ms = healthy(len(epochs))
    for m, (sampled, rewards) in zip(ms, epochs):
        e = m["epoch"]
        fps = {st.name: (fp, d) for st, fp, d, _ in runner.plan(e)}
        _stage_dir(fps["sample"][1], fps["sample"][0], config=sampled, stage="sample")
        _stage_dir(fps["update"][1], fps["update"][0], config={"update.lr": 2e-5}, stage="update")   # (the next plans on it)
        _stage_dir(fps["reward"][1], fps["reward"][0], config={"reward": {"kind": "direct", "eps": 0.01}}, stage="reward")
        save_table([{"problem_id": p, "sample_idx": i, "reward": r} for p, rs in rewards.items()
                    for i, r in enumerate(rs)], fps["reward"][1])
        flat = [r for rs in rewards.values() for r in rs]
        m.update({"reward/mean": sum(flat) / len(flat), "reward/best_of_n": max(flat),
                  "completion/truncated_frac": 0.9 if sampled["sample.max_new_tokens"] == 4 else 0.0})
        (runner.epoch_dir(e) / "metrics.json").write_text(json.dumps(m))
    change_intervals(runner, ms)
    return runner, ms


def _prompts(tag: str, base: float, n: int = 8) -> dict[str, list[float]]:
    """n prompts of three answers each around `base` (each prompt its own offset, the epoch its own wobble)."""
    wobble = [0.004 * ((3 * i + round(base * 100)) % 7) for i in range(n)]
    return {f"{tag}{i}": [base + 0.01 * i + w, base + 0.02 + 0.01 * i, base - 0.02 + 0.01 * i] for i, w in
            enumerate(wobble)}


def test_a_fall_after_a_change_of_settings_is_said_the_settings_not_the_update(tmp_path):
    """The length reward at sample.max_new_tokens=4, then 8 as the truncation flag advised: the reward falls
    (longer answers score less). The fall names the setting and is no critical fault of the update; epoch 1's
    truncation advice starts from the 4 it ran with, not the 8 the run has now."""
    runner, ms = _run(tmp_path, [({"sample.max_new_tokens": 4, "sample.temperature": 0.7}, _prompts("p", 1.8)),
                                 ({"sample.max_new_tokens": 8, "sample.temperature": 0.7}, _prompts("p", 1.6))])
    assert ms[1]["_sample/settings"]["reward.kind"] == "direct"   # the reward stage's, flattened
    lines, words = reward_trend(runner, ms)   # the metrics table's verdict says so too
    assert words["reward/mean"] == "worse (other settings)" and "other settings than epoch 1 (sample.max_new_tokens " \
        "4 -> 8): part of the change, or all of it, is theirs" in lines[0], (words, lines)
    flags = analyse(ms, ReportConfig(), {"sample.max_new_tokens": 8})
    f = next(f for f in flags if f.name == "reward_regression")
    assert "settings changed since epoch 1: sample.max_new_tokens 4 -> 8" in f.evidence, f.evidence
    assert f.severity == "warning" and f.advice.startswith("epoch 2 sampled, judged or rewarded with other settings")
    t = next(f for f in flags if f.name == "truncation_high" and f.epoch == 1)
    assert "sample.max_new_tokens (e.g. 4 -> 8)" in t.advice, t.advice
    # the same fall under the same settings: the update's, critical (its whole interval beyond 5 thresholds)
    _, ms = _run(tmp_path / "same", [({"sample.max_new_tokens": 8, "sample.temperature": 0.7}, _prompts("p", 1.8)),
                                     ({"sample.max_new_tokens": 8, "sample.temperature": 0.7}, _prompts("p", 1.6))])
    f = next(f for f in analyse(ms, ReportConfig(), {}) if f.name == "reward_regression")
    assert "settings changed" not in f.evidence and f.severity == "critical", f


def test_a_fall_between_other_prompts_reads_the_same_prompts_earlier(tmp_path):
    """Epochs 1-3 walk two sets of prompts (a, b, a): epoch 3's mean is below epoch 2's, but its prompts (a) score
    more than at epoch 1. The fall is the prompts drawn: said with epoch 1's figure, a warning at most."""
    same = {"sample.max_new_tokens": 8}
    _, ms = _run(tmp_path, [(same, _prompts("a", 1.3)), (same, _prompts("b", 1.8)), (same, _prompts("a", 1.35))])
    f = next(f for f in analyse(ms, ReportConfig(), {}) if f.name == "reward_regression")
    assert f.epoch == 3 and "other prompts than epoch 2's (these prompts at epoch 1: 1.3392, now 1.3888, 95% [+0.0461, +0.0533])" in f.evidence, f
    assert f.advice.startswith("these prompts scored no worse than at epoch 1, so the fall is the prompts this epoch "
                               "drew, not the update") and f.severity == "warning", f
    # the same prompts fell too: the update may be the cause, and the advice says the update's levers first
    _, ms = _run(tmp_path / "fell", [(same, _prompts("a", 1.6)), (same, _prompts("b", 1.8)), (same, _prompts("a", 1.3))])
    f = next(f for f in analyse(ms, ReportConfig(), {}) if f.name == "reward_regression")
    assert "(these prompts at epoch 1: 1.6395, now 1.3392" in f.evidence and not f.advice.startswith("these prompts")
    assert f.severity == "critical"


def test_a_fall_into_an_epoch_of_the_former_line_says_to_remake_it():
    """Epoch 1's choice changed after epoch 2 ran (`rlaif update 1 update.lr=...`): epoch 2's
    answers are of the former variant. A fall from 1 to 2 is no fault of the chosen line: said, a warning."""
    ms = healthy(2)
    ms[1].update({"reward/mean": 0.05, "_lineage/former": "update-1234abcd", "_reward/change_ci": [-0.3, -0.2]})
    f = next(f for f in analyse(ms, ReportConfig(), {}) if f.name == "reward_regression")
    assert "epoch 2 was sampled from epoch 1's update-1234abcd, not its chosen policy" in f.evidence
    assert f.advice.startswith("epoch 2 continues the line epoch 1's choice left") and "`rlaif epoch 2` remakes it" \
        in f.advice and f.severity == "warning", f
    del ms[1]["_lineage/former"]
    assert next(f for f in analyse(ms, ReportConfig(), {}) if f.name == "reward_regression").severity == "critical"
