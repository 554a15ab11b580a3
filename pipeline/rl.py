"""reward and select: teacher-relative reward, group statistics, filtering, advantages.

Each piece is a small named function so the one you want to change is easy to find
(TRL's advantage computation is buried in one huge method; ours is `advantages`).
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from pipeline.config import RewardConfig, SelectConfig
from pipeline.runner import Ctx
from pipeline.tables import load_table, save_table


def ratio_reward(student: float, teacher: float | None, rc: RewardConfig) -> float:
    """reward = student / (teacher + eps), clipped to [0, clip_max].

    eps keeps a teacher score of 0 from blowing up the reward; the clip bounds the reward
    when the student beats a weak teacher.
    """
    return min(max(student / ((teacher or 0.0) + rc.eps), 0.0), rc.clip_max)


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


def group_stats(rewards: list[float]) -> tuple[float, float]:
    """(mean, population std) of one prompt's rewards."""
    return statistics.fmean(rewards), statistics.pstdev(rewards) if len(rewards) > 1 else 0.0


def advantages(rewards: list[float], kind: str, eps: float = 1e-4) -> list[float]:
    """Per-completion advantage within one prompt's group.

    grpo: (r - mean) / (std + eps), DeepSeekMath (Shao et al. 2024) eq. 3;
    mean: r - mean (Dr. GRPO, Liu et al. 2025, drops the std division); raw: r.
    """
    mean, std = group_stats(rewards)
    if kind == "grpo":
        return [(r - mean) / (std + eps) for r in rewards]
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


def run_reward(ctx: Ctx) -> None:
    from pipeline.history import score_history
    rc = ctx.cfg.reward
    scores = load_table(ctx.inputs["judge"], json_cols=("breakdown",))
    lengths = {(s["problem_id"], s["sample_idx"]): s["length"] for s in load_table(ctx.inputs["sample"])}
    history = score_history(ctx.run_dir, ctx.epoch)[0] if rc.improve_bonus else {}
    shaped_sum = {"overlong": 0.0, "length": 0.0, "improve": 0.0}
    teacher = {s["problem_id"]: s["value"] for s in scores if s["role"] == "teacher"}
    rows, unscored = [], 0
    for s in (s for s in scores if s["role"] == "student"):
        if s["value"] is None:
            unscored += 1
            if rc.none_as is None:
                continue
            reward = rc.none_as
        else:
            reward = (ratio_reward(s["value"], teacher.get(s["problem_id"]), rc) if rc.kind == "ratio"
                      else s["value"])
            prev = history.get(s["problem_id"], [None])[-1]
            terms = shaping(s["value"], lengths[(s["problem_id"], s["sample_idx"])], prev, rc,
                            ctx.cfg.sample.max_new_tokens)
            for k, v in terms.items():
                shaped_sum[k] += v
            reward += sum(terms.values())
        rows.append({"problem_id": s["problem_id"], "sample_idx": s["sample_idx"], "student_score": s["value"],
                     "teacher_score": teacher.get(s["problem_id"]), "reward": reward})
    groups = by_prompt(rows)
    stats = {pid: group_stats([r["reward"] for r in g]) for pid, g in groups.items()}
    for r in rows:
        r["group_mean"], r["group_std"] = stats[r["problem_id"]]
    save_table(rows, ctx.out)
    ctx.rows = len(rows)
    rewards = [r["reward"] for r in rows]
    mean = statistics.fmean(rewards) if rewards else 0.0
    std = statistics.pstdev(rewards) if len(rewards) > 1 else 0.0
    students = [r["student_score"] for r in rows if r["student_score"] is not None]
    teachers = [v for v in teacher.values() if v is not None]
    ctx.figures = {
        "reward/mean": mean, "reward/std": std, "reward/cv": std / mean if mean else 0.0,
        "reward/best_of_n": statistics.fmean(max(r["reward"] for r in g) for g in groups.values()) if groups else 0.0,
        "reward/frac_zero_std": sum(s[1] == 0 for s in stats.values()) / max(len(stats), 1),
        "score/student_mean": statistics.fmean(students) if students else 0.0,
        "score/teacher_mean": statistics.fmean(teachers) if teachers else 0.0,
        "score/student_unscored": unscored,
        **{f"reward/shaping_{k}": v / max(len(rows), 1) for k, v in shaped_sum.items()},
    }


def run_select(ctx: Ctx) -> None:
    sc = ctx.cfg.select
    rewards = load_table(ctx.inputs["reward"])
    samples = {(s["problem_id"], s["sample_idx"]): s for s in load_table(ctx.inputs["sample"])}
    batch: list[dict[str, Any]] = []
    dropped_zero_std = 0
    for pid, group in by_prompt(rewards).items():
        kept = select_group(group, sc)
        rs = [r["reward"] for r in kept]
        if not kept or (sc.drop_zero_std and group_stats(rs)[1] == 0):
            dropped_zero_std += bool(kept)
            continue
        for r, a in zip(kept, advantages(rs, sc.advantage)):
            s = samples[(pid, r["sample_idx"])]
            batch.append({"problem_id": pid, "sample_idx": r["sample_idx"], "reward": r["reward"], "advantage": a,
                          "prompt_ids": s["prompt_ids"], "completion_ids": s["completion_ids"], "sft": False,
                          # the sampling engine's own logprobs (sample.engine=vllm), for logprobs/sampler_gap
                          **({"sampler_logprobs": s["sampler_logprobs"]} if s.get("sampler_logprobs") is not None else {})})
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
    from pipeline.model import load_tokenizer
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
                        "prompt_ids": prompt_ids, "completion_ids": ids, "sft": True})
    return out
