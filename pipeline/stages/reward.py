"""reward: each answer's reward from its judged score (reward.kind: teacher-relative ratio or direct) and its shaping."""

from __future__ import annotations

import logging
import statistics

from pipeline.store.history import score_history
from pipeline.train.rl import by_prompt, group_stats, ratio_reward, shaping
from pipeline.stages import Ctx
from pipeline.store.tables import load_table, save_table

log = logging.getLogger("rlaif")


def run(ctx: Ctx) -> None:
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
    clipped = [r["student_score"] for r in rows if rc.kind == "ratio" and (r["student_score"] or 0.0) < 0]
    if clipped:   # ratio_reward clips to [0, clip_max]: the ratio reads scores in [0, 1]
        log.warning("reward.kind=ratio: %d of %d answers scored below 0 (down to %.4g), and their reward is clipped to "
                    "0 with the answers that scored 0, so a penalty teaches nothing; the ratio reads scores in [0, 1]: "
                    "keep the judge's scores there, or train on the score as it is with reward.kind=direct (and "
                    "select.min_reward below its lowest, e.g. -1e9)", len(clipped), len(rows), min(clipped))
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
    # prompts rewarded as against a perfect teacher: no teacher answer, or one the judge could not read
    no_teacher = len({r["problem_id"] for r in rows if r["teacher_score"] is None}) if rc.kind == "ratio" else 0
    teachers = [v for v in teacher.values() if v is not None]
    ctx.figures = {
        # no reward at all (every answer unscored and dropped: reward.none_as=None): no reward figures, rather
        # than zeros that read as a healthy epoch whose groups all have spread
        **({"reward/mean": mean, "reward/std": std, "reward/cv": std / mean if mean else 0.0,
            "reward/best_of_n": statistics.fmean(max(r["reward"] for r in g) for g in groups.values()),
            "reward/frac_zero_std": sum(s[1] == 0 for s in stats.values()) / len(stats)} if rows else {}),
        # no score to average (teacher.kind=none; a judge that scored nothing): no figure, rather than a 0 that
        # reads as a weak teacher or a student that cannot learn (judge/parse_failures says what happened)
        **({"score/student_mean": statistics.fmean(students)} if students else {}),
        **({"score/teacher_mean": statistics.fmean(teachers)} if teachers else {}),
        "score/student_unscored": unscored,
        **({"reward/no_teacher_score": no_teacher} if rc.kind == "ratio" else {}),
        **{f"reward/shaping_{k}": v / max(len(rows), 1) for k, v in shaped_sum.items()},
    }
