"""The update's loss: one pure function from token logprobs to each row's share of the loss.

Read top to bottom, as CleanRL's ppo.py. Every formula names its source; tests/test_loss_trl.py
feeds the same inputs to this and to TRL 1.16's own `GRPOTrainer._compute_loss` and finds the loss
and its gradient equal, for every option both offer.

Shapes: B rows (completions) of a micro-batch, T completion tokens (right-aligned, padded).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from pipeline.train.rl import kl_terms


@dataclass(frozen=True)
class LossSettings:
    """The knobs of `policy_loss` (from UpdateConfig: `settings`)."""
    algorithm: str = "grpo"        # grpo: the clipped surrogate; reinforce: -logp * A
    clip_low: float = 0.2          # epsilon: ratio floor 1 - clip_low
    clip_high: float = 0.2         # epsilon_high: ratio ceiling 1 + clip_high (DAPO's clip-higher when > clip_low)
    level: str = "token"           # token: one ratio per token (GRPO); sequence: one per completion (GSPO)
    kl_estimator: str = "k3"       # k1 | k2 | k3 (kl_terms)
    kl_ratio: bool = True          # weight the KL term by the ratio (TRL's use_bias_correction_kl; update.kl_ratio's default)
    surrogate: str = "clip"        # clip: PPO's clipped surrogate; cispo; sapo (update.loss_type names the last two)
    delta: float | None = None     # clip: the unclipped ratio's ceiling too (two-sided clipping; TRL's delta)
    sapo_temperature_pos: float = 1.0   # sapo: the gate's temperature where A > 0 (TRL's sapo_temperature_pos)
    sapo_temperature_neg: float = 1.05  # sapo: where A <= 0 (TRL's sapo_temperature_neg)


SURROGATE = {"cispo": "cispo", "sapo": "sapo"}   # loss types that name the surrogate too (the rest: clip)


def settings(uc) -> LossSettings:
    return LossSettings(algorithm=uc.algorithm, clip_low=uc.clip_eps,
                        clip_high=uc.clip_eps if uc.clip_eps_high is None else uc.clip_eps_high,
                        level=uc.importance_sampling_level, kl_estimator=uc.kl_estimator, kl_ratio=uc.kl_ratio,
                        surrogate=SURROGATE.get(uc.loss_type, "clip"), delta=uc.delta,
                        sapo_temperature_pos=uc.sapo_temperature_pos, sapo_temperature_neg=uc.sapo_temperature_neg)


def sampler_correction(old: torch.Tensor, sampler: torch.Tensor, mask: torch.Tensor, mode: str,
                       c_min: float | None, c_max: float | None) -> torch.Tensor:
    """The truncated importance-sampling weight for tokens drawn by a sampler that is not the trainer
    (vLLM's kernels, a bf16 sampling copy): pi_old / pi_sampler, per token (B, T) or per completion
    (B, 1), truncated to [c_min, c_max] (`*_truncate`: Yao et al. 2025, "Your efficient RL framework
    secretly brings you off-policy RL training") or zero outside it (`*_mask`: the completion or token
    is left out). TRL 1.16's vllm_importance_sampling_mode and _clip_min / _clip_max, the same
    arithmetic (grpo_trainer.py, _generate_and_score_completions). old, sampler (B, T): the trainer's
    and the sampler's logprobs of the sampled tokens; outside the mask the difference counts 0."""
    diff = ((old - sampler) * mask).nan_to_num(0.0)
    if mode.startswith("sequence"):
        diff = diff.sum(-1, keepdim=True)
    w = torch.exp(diff)
    if mode.endswith("truncate"):
        return w.clamp(min=c_min, max=c_max)
    lo = -math.inf if c_min is None else c_min
    hi = math.inf if c_max is None else c_max
    return w.masked_fill((w < lo) | (w > hi), 0.0)


def policy_loss(logp: torch.Tensor, old: torch.Tensor, ref: torch.Tensor, advantages: torch.Tensor,
                mask: torch.Tensor, norm: torch.Tensor, kl_coef: torch.Tensor | float,
                s: LossSettings = LossSettings(),
                is_weight: torch.Tensor | None = None,
                token_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Each row's share of the optimizer step's loss, (B,), and the per-token terms behind it.

    logp (B, T): log pi(y_t | ...) at the sampling temperature, with its graph; old (B, T): the same
    under the policy that sampled (before this update's steps); ref (B, T): under the KL reference;
    advantages (B,); mask (B, T): 1 on the completion tokens that train; norm (B,): what each row's
    token sum is divided by (`loss_norms`: the loss aggregation and the accumulation window in one
    number). Summing the result over every row of an accumulation window gives the step's loss.
    is_weight (B, T) or (B, 1): `sampler_correction`'s weight on the surrogate (not on the KL term,
    as TRL), for tokens a different sampler drew; None: the sampler was the trainer.
    token_mask (B, T): the tokens that keep the surrogate (`high_entropy_mask`); the KL term and norm
    still count every token of mask. None: all of them.
    """
    on = mask.bool()
    mask = mask.to(logp.dtype)
    # Outside the mask old and ref are placeholders (0): give them logp's value, so that exp(ref - logp)
    # cannot reach inf there and turn inf * 0 into a NaN (TRL zeroes logprobs outside the mask).
    old = torch.where(on, old, logp.detach())
    ref = torch.where(on, ref, logp.detach())
    adv = advantages[:, None]                                                     # (B, 1)

    # Importance ratio pi / pi_old: per token (PPO, Schulman et al. 2017, eq. 6; GRPO, Shao et al. 2024,
    # eq. 3), or per sequence as the length-normalised product of its tokens' ratios (GSPO, Zheng et al.
    # 2025, eq. 7), one (B, 1) ratio broadcast over the row's tokens. TRL: importance_sampling_level.
    log_ratio = logp - old
    if s.level == "sequence":
        log_ratio = ((log_ratio * mask).sum(-1) / mask.sum(-1).clamp(min=1))[:, None]
    ratio = torch.exp(log_ratio)

    # The surrogate: -min(r A, clip(r, 1 - e_low, 1 + e_high) A) (PPO eq. 7; DAPO's clip-higher, Yu et al.
    # 2025, eq. 10, decouples the two ends), with delta also capping the unclipped r (two-sided clipping,
    # INTELLECT-2, Prime Intellect 2025: a negative A's loss cannot grow without bound); or REINFORCE's
    # -logp A (Williams 1992). CISPO (MiniMax-M1, 2025, eq. 4): -sg(min(r, e_max)) A logp, the weight
    # clipped and detached, so every token keeps a gradient (e_max: clip_high, TRL's epsilon_high there).
    # SAPO (Soft Adaptive Policy Optimization, Gao et al. 2025): a soft gate -sigmoid(tau (r - 1)) 4 / tau A
    # in place of the hard clip, tau sapo_temperature_pos where A > 0, _neg elsewhere.
    if s.algorithm == "grpo" and s.surrogate == "cispo":
        pg = -ratio.clamp(max=s.clip_high).detach() * adv * logp
    elif s.algorithm == "grpo" and s.surrogate == "sapo":
        tau = torch.where(adv > 0, s.sapo_temperature_pos, s.sapo_temperature_neg).to(ratio.dtype)
        pg = -torch.sigmoid(tau * (ratio - 1)) * 4 / tau * adv
    elif s.algorithm == "grpo":
        clipped = ratio.clamp(1 - s.clip_low, 1 + s.clip_high)
        unclipped = ratio if s.delta is None else ratio.clamp(max=s.delta)
        pg = -torch.min(unclipped * adv, clipped * adv)
    else:
        pg = -logp * adv
    # Forking tokens (Wang et al. 2025, "Beyond the 80/20 rule"): the surrogate on the high-entropy tokens
    # alone (TRL's top_entropy_quantile: its entropy_mask multiplies the surrogate before the sampler weight)
    if token_mask is not None:
        pg = pg * token_mask.to(pg.dtype)
    if is_weight is not None:  # the sampler-mismatch correction weighs the surrogate only (TRL: the same)
        pg = pg * is_weight

    # KL penalty to the reference, per token: k1 = -d, k2 = d^2 / 2, k3 = e^d - d - 1 with d = ref - logp
    # (Schulman, "Approximating KL divergence", 2020). Their expected gradients on-policy (tokens drawn
    # from pi_old = pi, token-level ratio; tests/test_loss_trl.py checks each on a small distribution):
    #
    #   estimator   kl_ratio=false           kl_ratio=true (x ratio; TRL's use_bias_correction_kl)
    #   k1          0                        grad KL(pi || ref)   reverse KL
    #   k2          grad KL(pi || ref)       grad E_pi[k2] = grad E_pi[(log pi - log ref)^2] / 2: no KL's
    #                                        (the reverse KL's only to first order, near ref)
    #   k3          grad KL(ref || pi)       grad KL(pi || ref)   reverse KL (the default)
    #
    # Why: the ratio's value is 1 and its gradient is grad logp, so grad(ratio x k) = grad k + k grad logp,
    # whose expectation is the gradient of E_pi[k] itself (the score-function term the sampled tokens
    # miss); E_pi[k1] = E_pi[k3] = KL(pi || ref). Without it, E_pi[grad k] = E_pi[k'(logp) grad logp]:
    # k1' = 1 gives E_pi[grad logp] = 0, k2' = log pi - log ref gives the reverse KL's gradient, and
    # k3' = 1 - ref / pi gives -sum_x ref(x) grad log pi(x), the forward KL's.
    kl = kl_terms(logp, ref, s.kl_estimator)
    kl_loss = kl["loss"] * ratio if s.kl_ratio else kl["loss"]

    per_token = pg + kl_coef * kl_loss
    loss = (per_token * mask).sum(-1) / norm                                      # (B,)
    if s.algorithm == "grpo" and s.surrogate == "clip":
        low = (ratio < 1 - s.clip_low) & (adv < 0)       # clipped where the clip binds (TRL's clip_ratio/*)
        high = (ratio > 1 + s.clip_high) & (adv > 0)
    else:   # reinforce and sapo clip nothing; cispo caps the weight at clip_high (TRL's cispo_clip_ratio), the
        # token keeps its gradient
        low = torch.zeros(torch.broadcast_shapes(ratio.shape, adv.shape), dtype=torch.bool, device=ratio.device)
        high = (ratio > s.clip_high) & (adv > 0) if s.algorithm == "grpo" and s.surrogate == "cispo" else low
    return loss, {"policy": pg.expand_as(logp), "kl": kl_loss.expand_as(logp), "k1": kl["k1"], "k3": kl["k3"],
                  "clip_low": low.expand_as(logp).float(), "clip_high": high.expand_as(logp).float()}


def high_entropy_mask(entropy: torch.Tensor, mask: torch.Tensor, quantile: float, accelerator=None) -> torch.Tensor:
    """update.top_entropy_quantile's mask, (B, T) bool: the tokens of mask whose entropy is at or above the
    (1 - quantile) quantile of mask's tokens' entropies, on every process of `accelerator` (None: this
    one's). Forking tokens: Wang et al. 2025, "Beyond the 80/20 rule: high-entropy minority tokens drive
    effective reinforcement learning for LLM reasoning" (arXiv:2506.01939): the top 20%. TRL
    1.16's get_high_entropy_mask, the same arithmetic: torch.quantile (linear interpolation) of the
    float32 entropies gathered across processes (padded with -1e9, then dropped: entropies are never
    negative), compared with >=; no token anywhere: none. accelerator.gather is a collective: every
    process must call this together."""
    local = entropy[mask.bool()].float()
    if accelerator is not None:
        gathered = accelerator.gather(accelerator.pad_across_processes(local, dim=0, pad_index=-1e9))
        local = gathered[gathered != -1e9]
    if local.numel() == 0:
        return torch.zeros_like(entropy, dtype=torch.bool)
    return (entropy >= torch.quantile(local, 1 - quantile)) & mask.bool()


def trained_len(row: dict, mask_truncated: bool) -> int:
    """The completion tokens of a row that train: all of them, or none for a completion cut at
    max_new_tokens under mask_truncated_completions (DAPO's overlong filtering). TRL calls a completion
    truncated when its last id is neither EOS nor pad; ours, when the sampler ended it at the length
    limit (finish_reason "length"), so an answer ended by a stop string or at its code block's end
    still trains."""
    if mask_truncated and not row.get("sft") and row.get("finish_reason") == "length":
        return 0
    return len(row["completion_ids"])


def loss_norms(window: list[list[dict]], loss_type: str, max_len: int) -> list[list[float]]:
    """For one accumulation window (its micro-batches, each a list of rows), what each row's token sum
    is divided by, so that the window's rows add up to the step's loss:

    grpo     each row's mean token loss, averaged over the micro-batch, over the window's micro-batches
             (GRPO eq. 3; TRL: sum(-1) / mask.sum(-1), .mean(), / current_gradient_accumulation_steps)
    bnpo     each micro-batch's token mean, averaged over the window (TRL's bnpo)
    dr_grpo  token sums over max_len, averaged over rows and micro-batches (Dr. GRPO, Liu et al. 2025)
    dapo     the window's token mean: every token of the step weighs the same (DAPO eq. 8; TRL divides
             by the window's token count); cispo the same (TRL aggregates cispo as dapo)
    sapo     as grpo (TRL aggregates sapo as grpo)
    luspo    each row's token sum, averaged over the micro-batch and the window's micro-batches (LUSPO:
             TRL's (loss * mask).sum(-1).mean() / current_gradient_accumulation_steps)

    A row's tokens: `trained_len` (0 for a completion masked out, e.g. mask_truncated_completions).
    Teacher rows (`sft`) take their place in the row counts but no part in the token counts (their
    loss is the mean token NLL, weighted as one row of the micro-batch). Equal to TRL's where TRL has
    no teacher rows; the last window of a pass may hold fewer micro-batches (TRL: the same)."""
    k = len(window)

    def pg_mean(rows: list[dict]) -> float:
        n = [r["trained_len"] for r in rows if not r.get("sft")]
        return max(sum(n) / len(n), 1e-9) if n and sum(n) else 1.0

    win_rows = sum(len(mb) for mb in window)
    win_mean = pg_mean([r for mb in window for r in mb])
    out = []
    for mb in window:
        b = len(mb)
        if loss_type in ("grpo", "sapo"):
            out.append([max(r["trained_len"], 1) * b * k for r in mb])
        elif loss_type == "luspo":
            out.append([float(b * k)] * b)
        elif loss_type == "bnpo":
            out.append([pg_mean(mb) * b * k] * b)
        elif loss_type == "dr_grpo":
            out.append([float(max_len) * b * k] * b)
        elif loss_type in ("dapo", "cispo"):
            out.append([win_mean * win_rows] * b)
        else:
            raise ValueError(f"unknown loss_type {loss_type!r}")
    return out
