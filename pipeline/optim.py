"""The update's optimizer across steps, kills and epochs: the resume checkpoint of a running update
(`save_checkpoint`, `restore`), the AdamW state one epoch leaves to the next (`carried_optimizer`,
`load_carried`: update.optimizer_state=carry, as TRL keeps one optimizer for the whole run), and the
LR schedule over the run's planned epochs (`lr_schedule`)."""
from __future__ import annotations

import os
from pathlib import Path

import torch

from pipeline.config import UpdateConfig
from pipeline.errors import RunError


def save_checkpoint(path: Path, st: dict, old: dict, ref: dict, model, optimizer, scheduler) -> None:
    """Everything a resumed update needs, written atomically (temp file + rename). The running
    figures live on the device; they come to the host here (the one sync a checkpoint costs)."""
    from peft import get_peft_model_state_dict
    tmp = path.with_suffix(".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    host = {**st, "coef": float(st["coef"]), "trained_tokens": int(st["trained_tokens"]),
            "grad_norms": [float(g) for g in st["grad_norms"]],
            "sums": {k: [float(n), float(d)] for k, (n, d) in st["sums"].items()}}
    torch.save({"state": host, "old": old, "ref": ref, "adapter": get_peft_model_state_dict(model, adapter_name=model.active_adapter),
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state()}, tmp)
    os.replace(tmp, path)


def restore(path: Path, model, optimizer, scheduler) -> tuple[dict, dict, dict]:
    from peft import set_peft_model_state_dict
    ck = torch.load(path, weights_only=False)  # our own file, written by save_checkpoint
    set_peft_model_state_dict(model, ck["adapter"], adapter_name=model.active_adapter)
    optimizer.load_state_dict(ck["optimizer"])
    scheduler.load_state_dict(ck["scheduler"])
    torch.set_rng_state(ck["rng"])
    return ck["state"], ck["old"], ck["ref"]


OPTIMIZER = "optimizer.pt"  # beside an RL update's adapter: the AdamW state the next epoch continues


def lr_schedule(optimizer, uc: UpdateConfig, steps: int, epoch: int | None):
    """The LR multiplier for this update's `steps` optimizer steps (a LambdaLR on `optimizer`).

    carry (epoch given): the run's schedule spans planned_epochs x steps and this update runs its
    part from (epoch - 1) x steps, so epoch 2's first step continues where epoch 1's last left off
    (past the planned end it stays at the end). reset (epoch None): the whole schedule in `steps`.
    The shape is transformers.get_scheduler's (linear warmup from 0 over warmup_steps, or
    warmup_ratio x the schedule's steps, then cosine / linear / constant / cosine_with_restarts)."""
    from torch.optim.lr_scheduler import LambdaLR
    from transformers import get_scheduler
    carry = epoch is not None
    span = uc.planned_epochs * steps if carry else steps
    start = (epoch - 1) * steps if carry else 0
    warm = uc.warmup_steps if uc.warmup_steps is not None else int(uc.warmup_ratio * span)
    dummy = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)  # only its lambda is used
    shape = get_scheduler(uc.scheduler, dummy, num_warmup_steps=warm, num_training_steps=span).lr_lambdas[0]
    return LambdaLR(optimizer, lambda k: shape(min(start + k, span)))


def carried_optimizer(policy: Path | None, uc: UpdateConfig) -> dict | None:
    """The AdamW state the update that made `policy` left (update.optimizer_state=carry), else None
    (reset, the base model, the supervised warm-start, or a policy written before optimizers were
    carried: the update then starts a fresh AdamW, at its place in the schedule)."""
    if uc.optimizer_state != "carry" or policy is None or not (policy.parent / OPTIMIZER).exists():
        return None
    return torch.load(policy.parent / OPTIMIZER, weights_only=True)


def load_carried(optimizer, state: dict, params: list, uc: UpdateConfig, source: str) -> None:
    """Load the carried Adam moments; this update's lr and weight decay (a variant's own) replace
    the saved ones."""
    saved = state["state"]
    shapes = [tuple(saved[i]["exp_avg"].shape) if i in saved else None for i in range(len(params))]
    if len(state["param_groups"]) != 1 or len(state["param_groups"][0]["params"]) != len(params) or any(
            s is not None and s != tuple(p.shape) for s, p in zip(shapes, params)):
        raise RunError(f"{source}: the carried optimizer state does not fit this update's trainable parameters "
                       "(another student.lora?); set update.optimizer_state=reset to start a fresh AdamW")
    optimizer.load_state_dict(state)
    for g in optimizer.param_groups:
        g.update(lr=uc.lr, weight_decay=uc.weight_decay)
        g.pop("initial_lr", None)
