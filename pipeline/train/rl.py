"""The RL arithmetic: teacher-relative reward, shaping, group statistics, filtering, advantages,
and the KL estimators (the reward, select, logprobs and update stages call these).

Each piece is a small named function so the one you want to change is easy to find
(TRL's advantage computation is buried in one huge method; ours is `advantages`).
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import TYPE_CHECKING

from pipeline.config.epoch import RewardConfig, SelectConfig

if TYPE_CHECKING:  # kl_terms takes tensors; the reward and select stages never load torch
    import torch


def ratio_reward(student: float, teacher: float | None, rc: RewardConfig) -> float:
    """reward = student / (teacher + eps), clipped to [0, clip_max].

    eps keeps a teacher score of 0 from blowing up the reward; the clip bounds the reward
    when the student beats a weak teacher. A teacher score below 0 (a reward function's) counts
    as 0, so the ratio keeps its sign. No teacher score (no answer, or the judge could not read
    its answer): the ratio against a perfect teacher, student / (1 + eps), which keeps the
    group's ranking; as 0 it would put every answer above eps * clip_max at clip_max.
    """
    t = 1.0 if teacher is None else max(teacher, 0.0)
    return min(max(student / (t + rc.eps), 0.0), rc.clip_max)


def overlong_penalty(length: int, max_new: int, buffer: int, penalty: float) -> float:
    """Soft overlong punishment (DAPO, Yu et al. 2025, eq. 13): 0 until max_new - buffer, then
    linear to `penalty` at max_new."""
    if buffer <= 0:
        return 0.0
    return penalty * min(1.0, max(0.0, (length - (max_new - buffer)) / buffer))


def shaping(score: float, length: int, prev: float | None, rc: RewardConfig, max_new: int) -> dict[str, float]:
    """Each shaping term on its own, so its effect is visible in the metrics."""
    return {"overlong": -overlong_penalty(length, max_new, rc.overlong_buffer, rc.overlong_penalty),
            "length": -rc.length_penalty * length / max_new,
            "improve": rc.improve_bonus * max(0.0, score - prev) if prev is not None else 0.0}


def group_stats(rewards: list[float], std: str = "population") -> tuple[float, float]:
    """(mean, std) of one prompt's rewards: the population std (divide by n), or the sample std
    (n - 1, Bessel's correction, as torch.std and TRL)."""
    if len(rewards) < 2:
        return (statistics.fmean(rewards) if rewards else 0.0), 0.0
    return statistics.fmean(rewards), (statistics.stdev if std == "sample" else statistics.pstdev)(rewards)


def advantages(rewards: list[float], kind: str, eps: float = 1e-4, std: str = "population",
               scale: float | None = None) -> list[float]:
    """Per-completion advantage within one prompt's group.

    grpo: (r - mean) / (std + eps), DeepSeekMath (Shao et al. 2024) eq. 3 (TRL: the same eps 1e-4);
    std the group's (population or sample, `group_stats`) or, given `scale`, that one (the batch's
    std: TRL's scale_rewards=batch);
    mean: r - mean (Dr. GRPO, Liu et al. 2025, drops the std division); raw: r.
    """
    mean, sd = group_stats(rewards, std)
    if kind == "grpo":
        sd = sd if scale is None else scale
        return [(r - mean) / (sd + eps) for r in rewards]
    if kind == "mean":
        return [r - mean for r in rewards]
    return list(rewards)


def select_group(rows: list[dict], sc: SelectConfig) -> list[dict]:
    """Threshold, then best-of-N (top k by reward) within one prompt's group."""
    kept = [r for r in rows if r["reward"] >= sc.min_reward]
    if sc.top_k:
        kept = sorted(kept, key=lambda r: -r["reward"])[: sc.top_k]
    return kept


def by_prompt(rows: list[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[r["problem_id"]].append(r)
    return groups


def kl_terms(logp: torch.Tensor, ref: torch.Tensor, estimator: str) -> dict[str, torch.Tensor]:
    """Per-token estimates of KL(pi || ref) from logp = log pi and ref = log ref of the sampled
    tokens: k1 = -d, k2 = d^2 / 2, k3 = exp(d) - d - 1 with d = ref - logp (k3 is never negative;
    http://joschu.net/blog/kl-approx.html); "loss" is the one update.kl_estimator names."""
    d = ref - logp
    k1, k2, k3 = -d, 0.5 * d**2, d.exp() - d - 1
    return {"k1": k1, "k2": k2, "k3": k3, "loss": {"k1": k1, "k2": k2, "k3": k3}[estimator]}
