"""The epoch's stages, in order: what each reads (config fields, inputs), its code version, and
where its code is: one module per stage beside this table (prompts.py, sample.py, teacher.py,
judge.py, reward.py, select.py, logprobs.py, update.py, eval.py), each with a `run(ctx)`; the
warm-start's (WARM_START) are prompts.py's and update.py's `run_sft`. Beside them, what the stages
share: judges and teachers behind the cache (judging.py) and which problems a run trains on and
holds out (problems.py). This layer may import engines, train, metrics, config, store.

The runner (pipeline/run/runner.py) wires them; stages never call each other. Stage code is named
as "module:function" and imported only when the stage runs, so a rerun that reuses everything
never loads torch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from judges.hashing import canonical, sha256_text
from pipeline.config.schema import JUDGE_FIELDS, Config
from pipeline.store.artifacts import input_digests

POLICY = "policy"  # the input name for the previous epoch's chosen policy
REFERENCE = "reference"  # the input name for the KL reference policy (update.kl_reference)


@dataclass
class Ctx:
    """What a stage function gets: config, epoch, its temp output dir and its inputs' dirs."""
    cfg: Config
    epoch: int
    out: Path
    inputs: dict[str, Path | None]
    run_dir: Path
    figures: dict[str, Any] = field(default_factory=dict)
    rows: int = 0
    fingerprint: str = ""
    on_success: list[Callable[[], None]] = field(default_factory=list)
    """Run after the output is in place (e.g. drop the update's resume checkpoint)."""


@dataclass(frozen=True)
class Stage:
    name: str
    version: str
    """Bump when the code changes behaviour in a way the config hash cannot see."""
    fields: tuple[str, ...]
    """Config paths the stage reads (only these invalidate it)."""
    inputs: tuple[str, ...]
    """Stages of the same epoch it reads, and/or POLICY (epoch N-1's chosen policy)."""
    fn: Callable[[Ctx], None] | str
    """The stage code, or "module:function" imported when the stage runs."""
    variant: bool = False
    """Outputs sit side by side as `<name>-<fp8>/` (update reruns) instead of replacing each other."""
    derived: bool = False
    """Computed from earlier artifacts alone (no sampling, no judging), so `rlaif update` may run it."""
    code: str | None = None
    """"module:function" giving, for a config, the versions of the code its output depends on beyond
    `version` (a judge's harness, rubric, parser): recorded in the manifest and compared when the
    output is reused, never hashed (a new harness does not make a finished run retrain)."""
    every_rank: bool = False
    """With several processes, every rank runs it (its share of the work; rank 0 gathers and writes):
    sample, logprobs, update, eval. Otherwise rank 0 alone runs it and the others read its output."""


# student.dtype is runtime only (DESIGN.md, "Devices and scale"): bf16 on a GPU and fp32 on a CPU make the same artifacts
STUDENT = ("student.model", "student.system_prompt", "student.chat_template_kwargs", "student.prompt_format")
# what changes a teacher answer or a judgement (runtime knobs such as judge.max_in_flight are left out)
TEACHER = ("teacher.kind", "teacher.model", "teacher.base_url", "teacher_endpoint", "teacher.max_tokens",
           "teacher.temperature")
JUDGE = JUDGE_FIELDS
SAMPLING = ("sample.num_samples", "sample.temperature", "sample.top_p", "sample.top_k",
            "sample.max_new_tokens", "sample.stop", "sample.share_prompt", "sample.seed_per_epoch", "sample.stop_after_code")

STAGES = [
    Stage("prompts", "2", ("data.source", "data.mapping", "data.language", "data.prompts_per_epoch", "data.pool_size", "data.difficulties", "run.seed",
                           "curriculum", "data.validation_size", "data.rl_sources"), (POLICY,), "pipeline.stages.prompts:run"),
    # v3: each completion samples from a random stream of its own (seeded by the prompt and its index),
    # so the samples do not depend on the batch or the process count
    Stage("sample", "3", (*STUDENT, *SAMPLING, "run.seed", "data.max_prompt_tokens"), ("prompts", POLICY), "pipeline.stages.sample:run",
          every_rank=True),
    Stage("teacher", "1", TEACHER, ("prompts",), "pipeline.stages.teacher:run", code="pipeline.stages.judging:teacher_code"),
    Stage("judge", "1", JUDGE, ("prompts", "sample", "teacher"), "pipeline.stages.judge:run",
          code="pipeline.stages.judging:judge_code"),
    # v2: a prompt without a teacher score is rewarded as against a perfect teacher, a negative teacher score
    # counts as 0 (pipeline/train/rl.py ratio_reward); reward/no_teacher_score
    Stage("reward", "2", ("reward", "sample.max_new_tokens"), ("judge", "sample", POLICY), "pipeline.stages.reward:run"),
    Stage("select", "2", ("select.min_reward", "select.top_k", "select.drop_zero_std", "select.advantage",
                      "select.scale_rewards", "select.std",
                          "update.teacher_sft_coef", *STUDENT), ("reward", "sample", "teacher"), "pipeline.stages.select:run",
          derived=True),   # from the artifacts on disk alone: `rlaif update N update.teacher_sft_coef=...` recomputes it
    # batch layout (update.micro_batch_size, update.share_prompt) is runtime only: it moves logprobs by
    # float32 summation order, no more (tests/test_update.py), so update variants never recompute them
    # the reference is the policy KL is measured against (update.kl_reference): the warm-start or the base
    # v6: a bf16/fp16 student's LM head computes in float32 (head.fp32_head)
    Stage("logprobs", "6", (*STUDENT, "sample.temperature"), ("select", POLICY, REFERENCE), "pipeline.stages.logprobs:run",
          derived=True, every_rank=True),
    # v5: the loss of pipeline/train/loss.py (TRL's sums; the last, partial accumulation window weighed by its
    # own size; no NaN from masked positions). v6: the teacher's answers fitted at T = 1; the LR schedule
    # continues from the position the previous epoch's update left (schedule.pt); the bf16 float32 head
    Stage("update", "6", (*STUDENT, "student.lora", "update", "sample.temperature", "run.seed"),
          ("select", "logprobs", POLICY), "pipeline.stages.update:run", variant=True,
          every_rank=True),
    # v2: one row per problem (n answers, c correct, pass@1, mean score, the reference's NLL)
    Stage("eval", "2", (*STUDENT, "eval.sources", "eval.max_problems", "eval.max_new_tokens", "eval.num_samples",
                        "eval.temperature", "eval.seed_per_epoch", "eval.reference_nll", "run.seed",
                        "judge.execution", "judge.ocaml", "data.validation", "eval_reading", "eval_judge"),
          ("update",), "pipeline.stages.eval:run", variant=True, every_rank=True, code="pipeline.stages.judging:eval_code"),
]

# `rlaif epoch 0`: fine-tune the adapter on the teacher's answers before any RL (optional).
WARM_START = [
    Stage("prompts", "1", ("data.source", "data.mapping", "data.language", "data.difficulties", "data.validation_size",
                           "data.warm_start_sources"), (), "pipeline.stages.prompts:run_sft"),
    Stage("teacher", "1", TEACHER, ("prompts",), "pipeline.stages.teacher:run"),
    # v2: the last, partial accumulation window weighed by its own size (as the RL update's v5)
    Stage("update", "2", (*STUDENT, "student.lora", "update.sft_epochs", "update.sft_lr", "update.micro_batch_size",
                          "update.grad_accum", "update.max_grad_norm", "update.warmup_ratio", "update.scheduler",
                          "update.weight_decay", "run.seed"), ("prompts", "teacher"), "pipeline.stages.update:run_sft", variant=True,
          every_rank=True),
]


def checkpoint_dir(epoch_dir: Path, fp: str, inputs: dict[str, Path | None]) -> Path:
    """An update's resume checkpoint, `.ckpt-update-<fp8>-<in8>`: named by its fingerprint and by its inputs'
    contents (the selected rows, their logprobs and the policy it starts from; the warm-start's prompts and
    teacher answers). An input remade at the same fingerprint (a runtime-only setting such as sample.dtype
    changed, or `--force`) holds other rows, so a checkpoint of the old ones has another name and is never
    resumed over the new: its old/ref logprobs and adapter belong to the rows it was trained on."""
    return epoch_dir / f".ckpt-update-{fp[:8]}-{sha256_text(canonical(input_digests(inputs)))[:8]}"
