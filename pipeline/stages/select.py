"""select: the rows the update trains on: filtering, best-of-N, group advantages, and teacher rows (update.teacher_sft_coef)."""

from __future__ import annotations

import logging
from typing import Any

from pipeline.train.rl import advantages, by_prompt, group_stats, select_group
from pipeline.stages import Ctx
from pipeline.store.tables import load_table, save_table

log = logging.getLogger("rlaif")


def run(ctx: Ctx) -> None:
    sc = ctx.cfg.select
    rewards = load_table(ctx.inputs["reward"])
    samples = {(s["problem_id"], s["sample_idx"]): s for s in load_table(ctx.inputs["sample"])}
    batch: list[dict[str, Any]] = []
    dropped_zero_std = 0
    groups = {pid: select_group(group, sc) for pid, group in by_prompt(rewards).items()}
    # scale_rewards=batch: one std over every kept reward of the batch, zero-spread groups included (TRL's)
    every = [r["reward"] for kept in groups.values() for r in kept]
    scale = group_stats(every, sc.std)[1] if sc.scale_rewards == "batch" else None
    for pid, kept in groups.items():
        rs = [r["reward"] for r in kept]
        if not kept or (sc.drop_zero_std and group_stats(rs)[1] == 0):
            dropped_zero_std += bool(kept)
            continue
        for r, a in zip(kept, advantages(rs, sc.advantage, std=sc.std, scale=scale)):
            s = samples[(pid, r["sample_idx"])]
            batch.append({"problem_id": pid, "sample_idx": r["sample_idx"], "reward": r["reward"], "advantage": a,
                          "prompt_ids": s["prompt_ids"], "completion_ids": s["completion_ids"], "sft": False,
                          # update.mask_truncated_completions reads it (an answer cut at max_new_tokens)
                          "finish_reason": s.get("finish_reason"),
                          # the sampling engine's own logprobs (sample.engine=vllm), for logprobs/sampler_gap
                          **({"sampler_logprobs": s["sampler_logprobs"]} if s.get("sampler_logprobs") is not None else {})})
    below = [r["reward"] for r in rewards if r["reward"] is not None and r["reward"] < sc.min_reward]
    if below and min(below) < 0 <= sc.min_reward:   # a penalty (or a score centred on 0) removed, not trained against
        log.warning("select: %d of %d answers rewarded below select.min_reward=%g (down to %.4g) were dropped before "
                    "the advantages, so their negative rewards teach nothing (TRL trains on every answer); set "
                    "select.min_reward below every reward your judge gives (select.min_reward=-1e9 keeps all) to "
                    "train against them", len(below), len(rewards), sc.min_reward, min(below))
    n_pg = len(batch)
    if ctx.cfg.update.teacher_sft_coef > 0:
        batch += teacher_rows(ctx, rewards, samples)
    save_table(batch, ctx.out)
    ctx.rows = len(batch)
    ctx.figures = {"select/kept_frac": n_pg / max(len(rewards), 1),
                   "select/groups_dropped_zero_std": dropped_zero_std, "select/teacher_rows": len(batch) - n_pg}


def teacher_rows(ctx: Ctx, rewards: list[dict], samples: dict) -> list[dict[str, Any]]:
    """Teacher answers to imitate (update.teacher_sft_coef): prompts whose best student sample
    scores below the teacher's answer."""
    from pipeline.engines.model import load_tokenizer
    tok = load_tokenizer(ctx.cfg.student)
    teacher = {t["problem_id"]: t["text"] for t in load_table(ctx.inputs["teacher"]) if t["text"]}
    out = []
    for pid, group in by_prompt(rewards).items():
        best = max((r["student_score"] or 0.0) for r in group)
        t_score = group[0]["teacher_score"]
        if pid in teacher and t_score is not None and best < t_score:
            prompt_ids = samples[(pid, group[0]["sample_idx"])]["prompt_ids"]
            ids = tok.encode(teacher[pid], add_special_tokens=False) + [tok.eos_token_id]
            out.append({"problem_id": pid, "sample_idx": -1, "reward": t_score, "advantage": 0.0,
                        "prompt_ids": prompt_ids, "completion_ids": ids, "sft": True, "finish_reason": None})
    return out
