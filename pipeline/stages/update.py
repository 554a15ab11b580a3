"""update: policy-gradient steps with a KL penalty on a LoRA adapter -> the policy of epoch N.

The loop is update_loop.py's `train`. Each micro-batch: the completion tokens' logprobs under the
policy (a forward pass at the *sampling temperature*, since mismatched generation settings are the
classic source of "negative KL"), then `pipeline.train.loss.policy_loss` (the clipped surrogate and
the KL term, TRL's sums; its docstring has every formula and its source; tests/test_loss_trl.py
checks it against TRL's own loss) for the student's completions, and sft_coef x the mean token NLL
for the teacher's answers (update.teacher_sft_coef) at T = 1 in passes of their own (as the
warm-start fits them), each weighed as one row of the micro-batch. What differs from TRL on purpose
(teacher rows, zero-spread groups dropped) and why: docs/guides/from-trl.md.

One AdamW and one LR schedule over the whole run, as TRL trains (update.optimizer_state=carry):
the Adam moments travel with each epoch's policy (optimizer.pt beside its adapter), and the
schedule (warmup in steps, then transformers' cosine / linear / constant / restarts) spans
update.planned_epochs x the epoch's steps, each update continuing from the optimizer steps the run
has taken (schedule.pt beside the adapter; `lr_schedule`).
update.optimizer_state=reset: a fresh AdamW and a whole schedule inside each epoch. Gradient
clipping and accumulation, `update.epochs` passes, all on `accelerate` (`accelerate launch` shards
it). Left out on purpose: value heads, reward models, loss variants we have no user for.

`run_sft` is epoch 0's update (the supervised warm-start): the same loop on the teacher's
answers alone, cross-entropy only, `update.sft_epochs` passes at `update.sft_lr`.
"""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

import torch

from pipeline.config.errors import RunError
from pipeline.engines.forward import load_logprobs
from pipeline.engines.hf import chat_prompt
from pipeline.engines.model import save_adapter, student_model
from pipeline.stages import POLICY, Ctx, checkpoint_dir
from pipeline.stages.update_loop import train
from pipeline.store import dist
from pipeline.store.artifacts import read_manifest
from pipeline.store.tables import load_table
from pipeline.train.optim import OPTIMIZER, SCHEDULE, carried_optimizer, carried_schedule

log = logging.getLogger("rlaif")


def previous_kl_coef(policy: Path | None) -> float | None:
    """The adaptive KL coefficient where the previous epoch's update left it."""
    if policy is None:
        return None
    m = read_manifest(policy.parent)
    return (m or {}).get("figures", {}).get("kl/coef")


def _checkpoint(ctx: Ctx) -> Path:
    """This update's checkpoint; one its fingerprint left over other inputs is removed (nothing can resume it)."""
    ckpt = checkpoint_dir(ctx.run_dir / f"epoch-{ctx.epoch:03d}", ctx.fingerprint, ctx.inputs)
    for stale in ckpt.parent.glob(f".ckpt-update-{ctx.fingerprint[:8]}*"):
        if stale != ckpt and dist.is_main():
            log.warning("update: %s was left by a killed update over other inputs (remade since at the same "
                        "fingerprint): removed, not resumed; this update starts over", stale)
            shutil.rmtree(stale, ignore_errors=True)
    return ckpt


def run(ctx: Ctx) -> None:
    from pipeline.engines.model import load_tokenizer
    cfg = ctx.cfg
    rows = load_table(ctx.inputs["select"])
    tok = load_tokenizer(cfg.student)
    torch.manual_seed(cfg.run.seed)  # a fresh adapter's LoRA A init draws from the global RNG
    model = student_model(cfg, adapter=ctx.inputs[POLICY], trainable=True)
    coef = previous_kl_coef(ctx.inputs[POLICY]) if cfg.update.kl_mode == "adaptive" else None
    ckpt = _checkpoint(ctx)
    carry = cfg.update.optimizer_state == "carry"
    carried = carried_optimizer(ctx.inputs[POLICY], cfg.update)
    start = carried_schedule(ctx.inputs[POLICY], cfg.update)
    if carry and ctx.epoch > cfg.update.planned_epochs and cfg.update.scheduler != "constant":
        # (info: `rlaif epoch` and `rlaif update` warned before any work)
        log.info("update: epoch %d is past update.planned_epochs=%d: the LR schedule has ended (%s: lr 0, "
                 "nothing is learned); set update.planned_epochs to the epochs you mean to run",
                    ctx.epoch, cfg.update.planned_epochs, cfg.update.scheduler)
    if rows:
        logprobs = load_logprobs(ctx.inputs["logprobs"], len(rows)) if ctx.inputs.get("logprobs") else None
        ctx.figures = train(model, rows, cfg.update, cfg.sample.temperature, tok.pad_token_id, max_len=cfg.sample.max_new_tokens,
                            seed=cfg.run.seed * 1000 + ctx.epoch, fresh_adapter=ctx.inputs[POLICY] is None,
                            kl_coef=coef, checkpoint=ckpt, checkpoint_every=cfg.run.checkpoint_every,
                            logprobs=logprobs, save_to=ctx.out / "adapter", epoch=ctx.epoch if carry else None,
                            optimizer_state=carried, schedule_start=start)
    else:
        log.warning("update: the selected batch is empty (every group had zero reward spread or was filtered); "
                    "the policy is carried over unchanged. Consider more samples per prompt "
                    "(sample.num_samples) or select.drop_zero_std=false")
        ctx.figures = {"update/trained_tokens": 0, "optim/steps": 0, "kl/coef": coef or cfg.update.kl_coef}
        if dist.is_main():
            save_adapter(model, ctx.out / "adapter")
            if carried is not None:  # the moments and the schedule stay where they were, for the next epoch
                shutil.copyfile(ctx.inputs[POLICY].parent / OPTIMIZER, ctx.out / OPTIMIZER)
            if start is not None:
                shutil.copyfile(ctx.inputs[POLICY].parent / SCHEDULE, ctx.out / SCHEDULE)
    ctx.rows = len(rows)
    ctx.on_success.append(lambda: shutil.rmtree(ckpt, ignore_errors=True))


def run_sft(ctx: Ctx) -> None:
    """Supervised warm-start (epoch 0): a fresh adapter learns the teacher's answers (token NLL)."""
    from pipeline.engines.model import load_tokenizer
    cfg = ctx.cfg
    tok = load_tokenizer(cfg.student)
    prompts = {p["problem_id"]: p["problem"] for p in load_table(ctx.inputs["prompts"], json_cols=("problem",))}
    rows = [{"prompt_ids": chat_prompt(tok, cfg, prompts[t["problem_id"]]["prompt"]),
             "completion_ids": tok.encode(t["text"], add_special_tokens=False) + [tok.eos_token_id],
             "advantage": 0.0, "sft": True} for t in load_table(ctx.inputs["teacher"]) if t["text"]]
    if not rows:
        raise RunError("epoch 0 (supervised warm-start) found no teacher answers; "
                       "it needs references in the data or a teacher model (teacher.kind)")
    torch.manual_seed(cfg.run.seed)
    model = student_model(cfg, trainable=True)
    # its own schedule (warmup_ratio of its steps), and no optimizer state for RL to carry: the
    # warm-start's moments belong to another objective, and epoch 1 starts a fresh AdamW
    uc = cfg.update.model_copy(update={"lr": cfg.update.sft_lr, "epochs": cfg.update.sft_epochs, "warmup_steps": None})
    ckpt = _checkpoint(ctx)   # a killed warm-start resumes
    ctx.figures = train(model, rows, uc, 1.0, tok.pad_token_id, seed=cfg.run.seed, fresh_adapter=True, sft_coef=1.0,
                        save_to=ctx.out / "adapter", checkpoint=ckpt, checkpoint_every=cfg.run.checkpoint_every)
    ctx.rows = len(rows)
    ctx.on_success.append(lambda: shutil.rmtree(ckpt, ignore_errors=True))
