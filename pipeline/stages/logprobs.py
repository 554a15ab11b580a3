"""logprobs: per-token log pi(y_t) of the selected completions under the old policy and the KL
reference, computed once per epoch (pipeline/engines/forward.py) and read by every update variant."""

from __future__ import annotations

import math

import torch

from pipeline.store import dist
from pipeline.config.errors import RunError
from pipeline.engines.forward import rollout_logprobs, save_logprobs
from pipeline.train.rl import kl_terms
from pipeline.stages import POLICY, REFERENCE, Ctx
from pipeline.store.tables import load_table


def run(ctx: Ctx) -> None:
    """logprobs: each selected completion's per-token logp under the sampling policy and under the
    reference, computed once per epoch and read by every update variant (a sweep over lr or
    kl_coef pays for these no-grad forward passes once, not once per variant)."""
    from pipeline.engines.model import load_tokenizer, student_model
    cfg = ctx.cfg
    rows = load_table(ctx.inputs["select"])
    tok = load_tokenizer(cfg.student)
    old, ref = {}, {}
    policy, reference = ctx.inputs[POLICY], ctx.inputs.get(REFERENCE)
    if any(not r.get("sft") for r in rows):
        extra = {}
        if reference is not None and reference != policy:
            if policy is None:
                raise RunError(f"update.kl_reference=start names {reference} as the reference, but epoch "
                               f"{ctx.epoch - 1}'s policy is the base model; use update.kl_reference=base")
            extra = {"reference": reference}
        model = student_model(cfg, adapter=policy, extra=extra)
        mine = dist.shard(rows)  # this rank's rows (all of them with one process)
        old, ref = rollout_logprobs(model, [rows[i] for i in mine], cfg.sample.temperature, tok.pad_token_id,
                                    policy_is_reference=policy == reference, batch_size=cfg.update.micro_batch_size,
                                    share_prompt=cfg.update.share_prompt, reference="reference" if extra else None,
                                    max_tokens=cfg.update.max_batch_tokens)
        parts = dist.gather(({mine[i]: v for i, v in old.items()}, {mine[i]: v for i, v in ref.items()}))
        if not dist.is_main():
            return
        old, ref = {}, {}
        for o, r in parts:
            old.update(o)
            ref.update(r)
        old, ref = dict(sorted(old.items())), dict(sorted(ref.items()))
    elif not dist.is_main():
        return
    save_logprobs(ctx.out, len(rows), old, ref)
    ctx.rows = len(old)
    ctx.figures = {"logprobs/tokens": sum(len(v) for v in old.values()), **start_kl(old, ref), **sampler_gap(rows, old)}


def start_kl(old: dict, ref: dict) -> dict[str, float]:
    """KL(policy that sampled the epoch || reference), k1 and k3 per token, mean over sequences:
    where the epoch starts, before any update step (the update's kl/k3 also counts its own steps)."""
    if not old:
        return {}
    kls = [kl_terms(old[i], ref[i], "k3") for i in old]
    return {f"kl/{k}_start": sum(float(kl[k].mean()) for kl in kls) / len(kls) for k in ("k1", "k3")}


def sampler_gap(rows: list[dict], old: dict[int, torch.Tensor]) -> dict[str, float]:
    """Mean and largest |sampler's logprob - this stage's logprob| over the sampled tokens, and the
    share of tokens whose ratio exp(delta) lies outside [0.5, 2], for rows that carry the sampler's own
    (`sampler_logprobs`: every engine records them, hf, generate and vllm). Both are of the policy
    that sampled, at the sampling temperature, so the gap is numerics (kernels, sample.dtype, merged
    weights) plus any difference of distribution (top-p/top-k truncation, a processor the update
    does not apply): the second shows up here before it shows up as a negative KL. Only the metrics
    read them: the update's ratio uses this stage's values."""
    diffs = [(torch.tensor(r["sampler_logprobs"]) - old[i]).abs() for i, r in enumerate(rows)
             if r.get("sampler_logprobs") is not None and i in old and len(r["sampler_logprobs"]) == len(old[i])]
    if not diffs or not sum(len(d) for d in diffs):
        return {}
    d = torch.cat(diffs)
    return {"logprobs/sampler_gap": float(d.mean()), "logprobs/sampler_gap_max": float(d.max()),
            "logprobs/sampler_outside": float((d > math.log(2)).float().mean())}
