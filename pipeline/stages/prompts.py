"""prompts: the epoch's training prompts, chosen by the curriculum over the training problems.

Epoch 0 (the supervised warm-start) takes every training problem instead (`run_sft`)."""
from __future__ import annotations

from pipeline.stages.problems import choose_prompts, require_compilers, warm_start_problems
from pipeline.stages import Ctx
from pipeline.store.tables import save_table


def run(ctx: Ctx) -> None:
    ids, by_id, figures, info = choose_prompts(ctx.cfg, ctx.run_dir, ctx.epoch)
    save_table([{"problem_id": i, "difficulty": by_id[i].difficulty, "bucket": info[i]["bucket"],
                 "estimate": info[i]["difficulty"], "problem": by_id[i].to_json()} for i in ids],
               ctx.out, json_cols=("problem",))
    ctx.rows = len(ids)
    ctx.figures = {"data/prompts": len(ids), **figures}


def run_sft(ctx: Ctx) -> None:
    """Epoch 0 (supervised warm-start): every training problem of the allowed difficulties, and
    those of data.warm_start_sources."""
    problems = warm_start_problems(ctx.cfg)
    require_compilers(ctx.cfg, problems)
    save_table([{"problem_id": p.id, "difficulty": p.difficulty, "bucket": p.difficulty, "estimate": 0.0,
                 "problem": p.to_json()} for p in problems], ctx.out, json_cols=("problem",))
    ctx.rows = len(problems)
    ctx.figures = {"data/prompts": len(problems)}
