"""Reward, shaping, selection and advantages: small named functions, checked one by one."""
from __future__ import annotations

import pytest
import torch

from pipeline.train import rl
from pipeline.train.loss import LossSettings, policy_loss
from pipeline.config.file import load_config


def test_ratio_reward_is_bounded_when_teacher_scores_zero():
    rc = load_config(None).reward
    assert rl.ratio_reward(0.5, 1.0, rc) == pytest.approx(0.5 / 1.1)
    assert rl.ratio_reward(1.0, 0.0, rc) == rc.clip_max  # 1 / eps = 10, clipped
    assert rl.ratio_reward(0.0, 0.0, rc) == 0.0


def test_ratio_reward_without_a_teacher_score_keeps_the_group_ranking():
    rc = load_config(None).reward
    # no teacher score: as against a perfect teacher, not as against 0 (which clipped 0.3 and 0.9 alike)
    got = [rl.ratio_reward(s, None, rc) for s in (0.3, 0.6, 0.9)]
    assert got == pytest.approx([s / (1 + rc.eps) for s in (0.3, 0.6, 0.9)]) and got[0] < got[1] < got[2]
    # a negative teacher score (a reward function's) counts as 0: a better answer never gets less reward,
    # and a teacher score of -eps no longer divides by zero
    assert rl.ratio_reward(0.9, -1.0, rc) >= rl.ratio_reward(-0.9, -1.0, rc) == 0.0
    assert rl.ratio_reward(0.05, -rc.eps, rc) == pytest.approx(0.05 / rc.eps)


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


@pytest.mark.parametrize("scale,std", [("group", "population"), ("group", "sample"), ("batch", "sample"),
                                       ("batch", "population")])
def test_select_advantages_are_trls_arithmetic(tmp_path, scale, std):
    """The select stage's advantages against TRL 1.16's expression (grpo_trainer.py,
    _generate_and_score_completions: nanstd is the sample std; scale_rewards group / batch), run on the
    same rewards; the population std is TRL's times sqrt(n / (n - 1))."""
    import torch
    from trl.trainer.utils import nanstd

    from pipeline.stages import Ctx, select
    from pipeline.store.tables import load_table, save_table
    G = 4
    rewards = torch.tensor([0.0, 1.0, 0.5, 0.5, 2.0, 2.0, 2.0, 2.0, 0.1, 0.9, 0.9, 0.3])
    # TRL: mean per group; std per group (group) or over the batch (batch); (r - mean) / (std + 1e-4)
    mean = rewards.view(-1, G).mean(dim=1).repeat_interleave(G)
    sd = nanstd(rewards.view(-1, G), dim=1).repeat_interleave(G) if scale == "group" else nanstd(rewards).expand_as(rewards)
    if std == "population":
        n = G if scale == "group" else len(rewards)
        sd = sd * ((n - 1) / n) ** 0.5
    expected = (rewards - mean) / (sd + 1e-4)

    rows = [{"problem_id": f"p{i // G}", "sample_idx": i % G, "reward": float(r), "student_score": float(r),
             "teacher_score": 1.0} for i, r in enumerate(rewards)]
    samples = [{"problem_id": r["problem_id"], "sample_idx": r["sample_idx"], "prompt_ids": [1], "completion_ids": [2]}
               for r in rows]
    for name, table in (("sample", samples), ("reward", rows)):
        (tmp_path / name).mkdir()
        save_table(table, tmp_path / name)
    cfg = load_config(None, [f"select.scale_rewards={scale}", f"select.std={std}", "select.drop_zero_std=false",
                       "update.teacher_sft_coef=0"])
    (tmp_path / "out").mkdir()
    select.run(Ctx(cfg=cfg, epoch=1, out=tmp_path / "out", inputs={"sample": tmp_path / "sample",
                                                                     "reward": tmp_path / "reward"}, run_dir=tmp_path))
    got = {(r["problem_id"], r["sample_idx"]): r["advantage"] for r in load_table(tmp_path / "out")}
    ours = torch.tensor([got[(r["problem_id"], r["sample_idx"])] for r in rows], dtype=torch.float64)
    # TRL's float32 means and standard deviations over at most the batch's rewards, at the advantages' size
    from tests.tolerance import assert_close, tolerance
    assert_close(ours, expected.double(), tolerance(torch.float32, float(expected.abs().max()), [len(rewards)] * 2,
                                                    elements=len(rewards)))


def test_batch_scaling_needs_grpo_advantages():
    with pytest.raises(Exception, match="select.scale_rewards=batch .* select.advantage=grpo"):
        load_config(None, ["select.scale_rewards=batch", "select.advantage=mean"])
    with pytest.raises(Exception, match="needs a bound"):
        load_config(None, ["update.sampler_correction=token_truncate", "update.sampler_correction_max=null"])
    with pytest.raises(Exception, match="must be below"):
        load_config(None, ["update.sampler_correction=token_mask", "update.sampler_correction_min=3",
                           "update.sampler_correction_max=2"])


def test_clip_settings_are_checked():
    """clip_eps_high below clip_eps is rejected; sequence-level ratios (GSPO) with reinforce are rejected,
    and with the token-scale clip_eps 0.2 warned about (GSPO's range is ~3e-4), each saying what to set."""
    import warnings
    with pytest.raises(Exception, match=r"update.clip_eps_high=0.1 is below update.clip_eps=0.2.*at least 0.2"):
        load_config(None, ["update.clip_eps_high=0.1"])
    assert load_config(None, ["update.clip_eps_high=0.28"]).update.clip_eps_high == 0.28
    with pytest.raises(Exception, match="update.algorithm=reinforce has none of; set update.algorithm=grpo"):
        load_config(None, ["update.importance_sampling_level=sequence", "update.algorithm=reinforce",
                           "update.clip_eps=3e-4"])
    with pytest.warns(UserWarning, match=r"clip_eps=0.2: a token-level range.*update.clip_eps=3e-4 update.clip_eps_high=4e-4"):
        load_config(None, ["update.importance_sampling_level=sequence"])
    with pytest.warns(UserWarning, match="clip_eps_high=0.28"):
        load_config(None, ["update.importance_sampling_level=sequence", "update.clip_eps=3e-4", "update.clip_eps_high=0.28"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # GSPO's own range, and token level with 0.2: no warning
        load_config(None, ["update.importance_sampling_level=sequence", "update.clip_eps=3e-4", "update.clip_eps_high=4e-4"])
        load_config(None, ["update.clip_eps=0.2"])


def test_clipping_is_counted_by_the_advantages_sign():
    """By hand: the same ratios (0.5 and 1.5 at e = 0.2) clip at the floor only for a negative
    advantage and at the ceiling only for a positive one; a ratio inside [0.8, 1.2] never counts."""
    old = torch.zeros(3, 3)
    logp = torch.log(torch.tensor([[0.5, 1.5, 1.0]])).expand(3, 3)
    _, terms = policy_loss(logp, old, old, torch.tensor([1.0, -1.0, 0.0]), torch.ones(3, 3), torch.ones(3), 0.0,
                           LossSettings(clip_low=0.2, clip_high=0.2))
    assert terms["clip_low"].tolist() == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    assert terms["clip_high"].tolist() == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]


def test_the_sampler_corrections_arithmetic():
    """TRL's formulas by hand: the difference counts 0 outside the mask, a sequence's weight is the
    product of its tokens' ratios, truncation clamps, masking zeroes what lies outside [c_min, c_max]."""
    from pipeline.train.loss import sampler_correction
    old = torch.tensor([[-1.0, -1.0, -1.0]])
    sampler = torch.tensor([[-2.0, -1.0, -0.9]])   # ratios e, 1, e^-0.1
    mask = torch.tensor([[1.0, 1.0, 0.0]])           # the last token is not the completion's
    e = torch.e
    torch.testing.assert_close(sampler_correction(old, sampler, mask, "token_truncate", None, 2.0),
                               torch.tensor([[2.0, 1.0, 1.0]]))
    torch.testing.assert_close(sampler_correction(old, sampler, mask, "token_mask", None, 2.0),
                               torch.tensor([[0.0, 1.0, 1.0]]))
    torch.testing.assert_close(sampler_correction(old, sampler, mask, "sequence_truncate", None, 3.0),
                               torch.tensor([[e]]))
    torch.testing.assert_close(sampler_correction(old, sampler, mask, "sequence_mask", 0.5, 2.0), torch.tensor([[0.0]]))


def test_reward_stage_counts_prompts_without_a_teacher_score(tmp_path):
    """A teacher answer the judge could not read (value None) leaves its prompt's students ranked as
    against a perfect teacher, and the epoch counts it (reward/no_teacher_score, read by teacher_missing)."""
    from pipeline.stages import Ctx, reward
    from pipeline.store.tables import load_table, save_table
    judged = [{"role": "student", "problem_id": p, "sample_idx": i, "value": v, "breakdown": {}}
              for p in ("a", "b") for i, v in enumerate((0.3, 0.9))]
    judged += [{"role": "teacher", "problem_id": "a", "sample_idx": -1, "value": 0.8, "breakdown": {}},
               {"role": "teacher", "problem_id": "b", "sample_idx": -1, "value": None, "breakdown": {}}]
    samples = [{"problem_id": r["problem_id"], "sample_idx": r["sample_idx"], "length": 10}
               for r in judged if r["role"] == "student"]
    for name, table in (("judge", judged), ("sample", samples), ("out", None)):
        (tmp_path / name).mkdir()
        if table:
            save_table(table, tmp_path / name, json_cols=("breakdown",) if name == "judge" else ())
    ctx = Ctx(cfg=load_config(None), epoch=1, out=tmp_path / "out", run_dir=tmp_path,
              inputs={"judge": tmp_path / "judge", "sample": tmp_path / "sample"})
    reward.run(ctx)
    got = {(r["problem_id"], r["sample_idx"]): r["reward"] for r in load_table(tmp_path / "out")}
    assert got[("b", 0)] == pytest.approx(0.3 / 1.1) and got[("b", 1)] == pytest.approx(0.9 / 1.1)
    assert got[("a", 1)] == pytest.approx(0.9 / 0.9)
    assert ctx.figures["reward/no_teacher_score"] == 1 and ctx.figures["score/teacher_mean"] == 0.8
