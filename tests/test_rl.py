"""Reward, shaping, selection and advantages: small named functions, checked one by one."""
from __future__ import annotations

import pytest

from pipeline import rl
from pipeline.config_file import load_config


def test_ratio_reward_is_bounded_when_teacher_scores_zero():
    rc = load_config(None).reward
    assert rl.ratio_reward(0.5, 1.0, rc) == pytest.approx(0.5 / 1.1)
    assert rl.ratio_reward(1.0, 0.0, rc) == rc.clip_max  # 1 / eps = 10, clipped
    assert rl.ratio_reward(1.0, None, rc) == rc.clip_max
    assert rl.ratio_reward(0.0, 0.0, rc) == 0.0


def test_advantages():
    assert rl.advantages([1.0, 1.0, 1.0], "grpo") == [0.0, 0.0, 0.0]
    a = rl.advantages([0.0, 1.0], "grpo")
    assert a[0] == pytest.approx(-1.0, abs=1e-3) and a[1] == pytest.approx(1.0, abs=1e-3)
    assert rl.advantages([0.0, 2.0], "mean") == [-1.0, 1.0]
    assert rl.advantages([0.0, 2.0], "raw") == [0.0, 2.0]


def test_select_threshold_and_best_of_n():
    sc = load_config(None, ["select.min_reward=0.2", "select.top_k=2"]).select
    rows = [{"reward": r, "sample_idx": i} for i, r in enumerate([0.1, 0.9, 0.5, 0.3])]
    assert [r["reward"] for r in rl.select_group(rows, sc)] == [0.9, 0.5]


def test_shaping_terms():
    rc = load_config(None, ["reward.overlong_buffer=20", "reward.overlong_penalty=0.5", "reward.length_penalty=0.1",
                            "reward.improve_bonus=1.0"]).reward
    assert rl.overlong_penalty(80, 100, 20, 0.5) == 0.0
    assert rl.overlong_penalty(90, 100, 20, 0.5) == pytest.approx(0.25)
    assert rl.overlong_penalty(100, 100, 20, 0.5) == pytest.approx(0.5)
    t = rl.shaping(0.8, 100, prev=0.5, rc=rc, max_new=100)
    assert t == pytest.approx({"overlong": -0.5, "length": -0.1, "improve": 0.3})
    assert rl.shaping(0.4, 10, prev=0.5, rc=rc, max_new=100)["improve"] == 0.0
