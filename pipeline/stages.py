"""The epoch's stages, in order: what each reads (config fields, inputs) and its code version.

The runner wires them; stages never call each other.
"""
from __future__ import annotations

import random

from pipeline import evaluate, rl, sample, scoring, update
from pipeline.runner import POLICY, Ctx, Stage
from pipeline.tables import save_table


def run_prompts(ctx: Ctx) -> None:
    """Draw this epoch's prompts: a seeded permutation of the training set, walked epoch by epoch
    so consecutive epochs see different problems (the curriculum issue replaces this schedule)."""
    from data.loaders import load_source
    dc = ctx.cfg.data
    problems = [p for p in load_source(dc.source, dc.mapping or None) if p.difficulty in dc.difficulties]
    if not problems:
        raise ValueError(f"data.source={dc.source} has no problems with difficulty in {dc.difficulties}")
    order = list(range(len(problems)))
    random.Random(ctx.cfg.run.seed).shuffle(order)
    k = min(dc.prompts_per_epoch, len(problems))
    start = (ctx.epoch - 1) * k
    picked = [problems[order[(start + i) % len(problems)]] for i in range(k)]
    save_table([{"problem_id": p.id, "difficulty": p.difficulty, "problem": p.to_json()} for p in picked],
               ctx.out, json_cols=("problem",))
    ctx.rows = len(picked)
    ctx.figures = {"data/prompts": len(picked), **{f"data/{d}": sum(p.difficulty == d for p in picked)
                                                   for d in ("easy", "medium", "hard")}}


STUDENT = ("student.model", "student.dtype", "student.system_prompt")
SAMPLING = ("sample.num_samples", "sample.temperature", "sample.top_p", "sample.top_k",
            "sample.max_new_tokens", "sample.stop")

STAGES = [
    Stage("prompts", "1", ("data.source", "data.mapping", "data.prompts_per_epoch", "data.difficulties", "run.seed"),
          (), run_prompts),
    Stage("sample", "1", (*STUDENT, *SAMPLING, "run.seed", "data.max_prompt_tokens"), ("prompts", POLICY), sample.run),
    Stage("teacher", "1", ("teacher.kind", "teacher.model"), ("prompts",), scoring.run_teacher),
    Stage("judge", "1", ("judge.kind", "judge.model", "judge.execution"), ("prompts", "sample", "teacher"),
          scoring.run_judge),
    Stage("reward", "1", ("reward", "sample.max_new_tokens"), ("judge", "sample", POLICY), rl.run_reward),
    Stage("select", "1", ("select.min_reward", "select.top_k", "select.drop_zero_std", "select.advantage"),
          ("reward", "sample"), rl.run_select),
    Stage("update", "1", (*STUDENT, "student.lora", "update", "sample.temperature", "run.seed"),
          ("select", POLICY), update.run, variant=True),
    Stage("eval", "1", (*STUDENT, "eval.sources", "eval.max_problems", "eval.max_new_tokens", "judge.execution"),
          ("update",), evaluate.run, variant=True),
]
