"""The epoch's stages, in order: what each reads (config fields, inputs) and its code version.

The runner wires them; stages never call each other. Stage code is named as "module:function"
and imported only when the stage runs, so a rerun that reuses everything never loads torch.
"""
from __future__ import annotations

import random

from pipeline.runner import POLICY, REFERENCE, Ctx, RunError, Stage
from pipeline.tables import save_table


def choose_prompts(cfg, run_dir, epoch: int):
    """(chosen ids, problems by id, figures, schedule rows) for the epoch: the curriculum
    schedule (curriculum.strategy) over the training set, from each prompt's tier, teacher
    score and the student's score history of earlier epochs."""
    from curriculum import schedule as cur
    from data.loaders import load_source
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


def training_problems(cfg) -> list:
    """data.source's problems of data.difficulties, less the validation split (data.validation_size)."""
    from data.loaders import load_source, split_validation
    dc = cfg.data
    try:
        train, _ = split_validation(load_source(dc.source, dc.mapping or None, dc.language), dc.validation_size)
    except ValueError as e:
        raise RunError(str(e)) from None
    return [p for p in train if p.difficulty in dc.difficulties]


def validation_problems(cfg) -> list:
    """The problems data.validation_size carves out of data.source (the eval source `validation`)."""
    from data.loaders import load_source, split_validation
    dc = cfg.data
    return split_validation(load_source(dc.source, dc.mapping or None, dc.language), dc.validation_size)[1]


def require_compilers(cfg, problems: list) -> None:
    """Fail before any work when OCaml problems are to be judged and the compiler is missing."""
    if any(p.language == "ocaml" for p in problems):
        from judges.ocaml import CompilerMissing, compiler_path
        try:
            compiler_path(cfg.judge.ocaml.compiler)
        except CompilerMissing as e:
            raise RunError(str(e)) from None


def pool(problems: list, size: int, seed: int) -> list:
    """The fixed training subset of data.pool_size problems (all when 0 or not fewer): seeded,
    independent of the order the loader returned them in, the same for every epoch."""
    if not size or size >= len(problems):
        return problems
    ordered = sorted(problems, key=lambda p: p.id)
    keep = set(random.Random(f"pool:{seed}").sample(range(len(ordered)), size))
    return [p for i, p in enumerate(ordered) if i in keep]


def run_prompts(ctx: Ctx) -> None:
    ids, by_id, figures, info = choose_prompts(ctx.cfg, ctx.run_dir, ctx.epoch)
    save_table([{"problem_id": i, "difficulty": by_id[i].difficulty, "bucket": info[i]["bucket"],
                 "estimate": info[i]["difficulty"], "problem": by_id[i].to_json()} for i in ids],
               ctx.out, json_cols=("problem",))
    ctx.rows = len(ids)
    ctx.figures = {"data/prompts": len(ids), **figures}


def run_sft_prompts(ctx: Ctx) -> None:
    """Epoch 0 (supervised warm-start): every training problem of the allowed difficulties."""
    problems = training_problems(ctx.cfg)
    require_compilers(ctx.cfg, problems)
    save_table([{"problem_id": p.id, "difficulty": p.difficulty, "bucket": p.difficulty, "estimate": 0.0,
                 "problem": p.to_json()} for p in problems], ctx.out, json_cols=("problem",))
    ctx.rows = len(problems)
    ctx.figures = {"data/prompts": len(problems)}


# student.dtype is runtime only (DESIGN.md, "Devices and scale"): bf16 on a GPU and fp32 on a CPU make the same artifacts
STUDENT = ("student.model", "student.system_prompt")
# what changes a teacher answer or a judgement (runtime knobs such as judge.max_in_flight are left out)
TEACHER = ("teacher.kind", "teacher.model", "teacher.base_url", "teacher.max_tokens", "teacher.temperature")
JUDGE = ("judge.kind", "judge.model", "judge.base_url", "judge.max_tokens", "judge.temperature", "judge.show_teacher",
         "judge.mix", "judge.execution", "judge.ocaml")
SAMPLING = ("sample.num_samples", "sample.temperature", "sample.top_p", "sample.top_k",
            "sample.max_new_tokens", "sample.stop", "sample.share_prompt", "sample.seed_per_epoch", "sample.stop_after_code")

STAGES = [
    Stage("prompts", "2", ("data.source", "data.mapping", "data.language", "data.prompts_per_epoch", "data.pool_size", "data.difficulties", "run.seed",
                           "curriculum", "data.validation_size"), (POLICY,), run_prompts),
    # v3: each completion samples from a random stream of its own (seeded by the prompt and its index),
    # so the samples do not depend on the batch or the process count
    Stage("sample", "3", (*STUDENT, *SAMPLING, "run.seed", "data.max_prompt_tokens"), ("prompts", POLICY), "pipeline.sample:run",
          every_rank=True),
    Stage("teacher", "1", TEACHER, ("prompts",), "pipeline.scoring:run_teacher"),
    Stage("judge", "1", JUDGE, ("prompts", "sample", "teacher"), "pipeline.scoring:run_judge"),
    Stage("reward", "1", ("reward", "sample.max_new_tokens"), ("judge", "sample", POLICY), "pipeline.rl:run_reward"),
    Stage("select", "2", ("select.min_reward", "select.top_k", "select.drop_zero_std", "select.advantage",
                          "update.teacher_sft_coef", *STUDENT), ("reward", "sample", "teacher"), "pipeline.rl:run_select"),
    # batch layout (update.micro_batch_size, update.share_prompt) is runtime only: it moves logprobs by
    # float32 summation order, no more (tests/test_update.py), so update variants never recompute them
    # the reference is the policy KL is measured against (update.kl_reference): the warm-start or the base
    Stage("logprobs", "5", (*STUDENT, "sample.temperature"), ("select", POLICY, REFERENCE), "pipeline.logprobs:run",
          derived=True, every_rank=True),
    Stage("update", "4", (*STUDENT, "student.lora", "update", "sample.temperature", "run.seed"),
          ("select", "logprobs", POLICY), "pipeline.update:run", variant=True,
          every_rank=True),
    # v2: one row per problem (n answers, c correct, pass@1, mean score, the reference's NLL)
    Stage("eval", "2", (*STUDENT, "eval.sources", "eval.max_problems", "eval.max_new_tokens", "eval.num_samples",
                        "eval.temperature", "eval.seed_per_epoch", "eval.reference_nll", "run.seed",
                        "judge.execution", "judge.ocaml", "data.validation"),
          ("update",), "pipeline.evaluate:run", variant=True, every_rank=True),
]

# `rlaif epoch 0`: fine-tune the adapter on the teacher's answers before any RL (optional).
WARM_START = [
    Stage("prompts", "1", ("data.source", "data.mapping", "data.language", "data.difficulties", "data.validation_size"), (),
          run_sft_prompts),
    Stage("teacher", "1", TEACHER, ("prompts",), "pipeline.scoring:run_teacher"),
    Stage("update", "1", (*STUDENT, "student.lora", "update.sft_epochs", "update.sft_lr", "update.micro_batch_size",
                          "update.grad_accum", "update.max_grad_norm", "update.warmup_ratio", "update.scheduler",
                          "run.seed"), ("prompts", "teacher"), "pipeline.update:run_sft", variant=True,
          every_rank=True),
]
