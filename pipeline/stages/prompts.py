"""prompts: the epoch's training prompts, chosen by the curriculum over the training problems.

Epoch 0 (the supervised warm-start) takes every training problem instead (`run_sft`)."""

from __future__ import annotations

from pipeline.errors import RunError

# student.dtype is runtime only (DESIGN.md, "Devices and scale"): bf16 on a GPU and fp32 on a CPU make the same artifacts
from pipeline.problems import pool, require_compilers, training_problems
from pipeline.stages import Ctx
from pipeline.tables import save_table


def choose_prompts(cfg, run_dir, epoch: int):
    """(chosen ids, problems by id, figures, schedule rows) for the epoch: the curriculum
    schedule (curriculum.strategy) over the training set, from each prompt's tier, teacher
    score and the student's score history of earlier epochs."""
    from curriculum import schedule as cur
    from pipeline.history import score_history
    dc = cfg.data
    problems = training_problems(cfg)
    require_compilers(cfg, problems)
    if not problems:
        raise RunError(f"data.source={dc.source} has no problems with difficulty in {dc.difficulties}"
                       + (f" outside its validation split (data.validation_size={dc.validation_size})"
                          if dc.validation_size else ""))
    problems = pool(problems, dc.pool_size, cfg.run.seed)
    history, teacher = score_history(run_dir, epoch)
    ids = cur.schedule(problems, history, teacher, epoch, dc.prompts_per_epoch, cfg.curriculum, cfg.run.seed)
    rows = {r["problem_id"]: r for r in cur.rows(ids, problems, history, teacher, cfg.curriculum)}
    return ids, {p.id: p for p in problems}, cur.figures(ids, problems, history, teacher, cfg.curriculum), rows


def run(ctx: Ctx) -> None:
    ids, by_id, figures, info = choose_prompts(ctx.cfg, ctx.run_dir, ctx.epoch)
    save_table([{"problem_id": i, "difficulty": by_id[i].difficulty, "bucket": info[i]["bucket"],
                 "estimate": info[i]["difficulty"], "problem": by_id[i].to_json()} for i in ids],
               ctx.out, json_cols=("problem",))
    ctx.rows = len(ids)
    ctx.figures = {"data/prompts": len(ids), **figures}


def run_sft(ctx: Ctx) -> None:
    """Epoch 0 (supervised warm-start): every training problem of the allowed difficulties."""
    problems = training_problems(ctx.cfg)
    require_compilers(ctx.cfg, problems)
    save_table([{"problem_id": p.id, "difficulty": p.difficulty, "bucket": p.difficulty, "estimate": 0.0,
                 "problem": p.to_json()} for p in problems], ctx.out, json_cols=("problem",))
    ctx.rows = len(problems)
    ctx.figures = {"data/prompts": len(problems)}
