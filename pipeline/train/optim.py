"""The update's optimizer across steps, kills and epochs: the resume checkpoint of a running update
(`save_checkpoint`, `restore`), the AdamW state one epoch leaves to the next (`carried_optimizer`,
`load_carried`: update.optimizer_state=carry, as TRL keeps one optimizer for the whole run), and the
LR schedule over the run's planned epochs and the position in it each epoch leaves to the next
(`lr_schedule`, `carried_schedule`, `save_schedule`)."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import torch

from pipeline.config.update import UpdateConfig
from pipeline.config.errors import RunError

log = logging.getLogger("rlaif")


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
                "rng": torch.get_rng_state(),
                # a GPU's own generators (dropout on CUDA draws from them): a resumed update draws as the run would have
                "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None}, tmp)
    with open(tmp, "rb") as f:   # on the disk before it takes the name: a power loss leaves the old one or this
        os.fsync(f.fileno())
    os.replace(tmp, path)


def readable_checkpoint(path: Path) -> bool:
    """Whether the resume checkpoint at path is a whole file: one that is not (cut short, overwritten) is
    left where it is, with a warning, and the update starts over (its first checkpoint replaces it) instead of
    failing on it at every rerun. Only the file's own damage counts: an error reading it (memory, the
    filesystem) is raised, never taken for damage."""
    import pickle
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:   # torch.save's format: a zip whose central directory comes last
            bad = z.testzip()
    except (zipfile.BadZipFile, EOFError, pickle.UnpicklingError) as e:
        bad = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    if bad is None:
        return True
    log.warning("update: the resume checkpoint %s is damaged (%s); the update starts over", path, bad)
    return False


def restore(path: Path, model, optimizer, scheduler) -> tuple[dict, dict, dict]:
    from peft import set_peft_model_state_dict
    ck = torch.load(path, weights_only=False)  # our own file, written by save_checkpoint
    set_peft_model_state_dict(model, ck["adapter"], adapter_name=model.active_adapter)
    optimizer.load_state_dict(ck["optimizer"])
    scheduler.load_state_dict(ck["scheduler"])
    torch.set_rng_state(ck["rng"])
    # (one process: with several, each rank restores rank 0's view of the generators; dropout masks on
    # other ranks then differ from an uninterrupted run's)
    if ck.get("cuda_rng") is not None and torch.cuda.is_available() and len(ck["cuda_rng"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(ck["cuda_rng"])
    return ck["state"], ck["old"], ck["ref"]


OPTIMIZER = "optimizer.pt"  # beside an RL update's adapter: the AdamW state the next epoch continues
SCHEDULE = "schedule.pt"    # beside it: the run's LR schedule position after that update (`save_schedule`)


def lr_schedule(optimizer, uc: UpdateConfig, steps: int, epoch: int | None, start: int | None = None):
    """The LR multiplier for this update's `steps` optimizer steps (a LambdaLR on `optimizer`).

    carry (epoch given): the run's schedule spans planned_epochs x steps (this epoch's estimate of an
    epoch's steps) and this update runs its part from `start`, the optimizer steps the run has taken
    (`carried_schedule`: the position the previous epoch's update left), so epoch 2's first step
    continues where epoch 1's last left off even when the two epochs take different step counts.
    start None (a policy written before the position was kept): (epoch - 1) x steps, right only when
    every epoch takes as many steps as this one. A position past the schedule's length holds its end
    value (cosine, linear, cosine_with_restarts: 0; constant: 1): it never wraps into another cycle
    nor fails. reset (epoch None): the whole schedule in `steps`.
    The shape is transformers.get_scheduler's (linear warmup from 0 over warmup_steps, or
    warmup_ratio x the schedule's steps, then cosine / linear / constant / cosine_with_restarts)."""
    from torch.optim.lr_scheduler import LambdaLR
    from transformers import get_scheduler
    carry = epoch is not None
    span = uc.planned_epochs * steps if carry else steps
    start = ((epoch - 1) * steps if start is None else start) if carry else 0
    warm = uc.warmup_steps if uc.warmup_steps is not None else int(uc.warmup_ratio * span)
    if carry and epoch <= uc.planned_epochs and start + steps > span and uc.scheduler != "constant":
        # (an epoch past planned_epochs is warned about by the update stage)
        log.warning("update: the run has taken %d optimizer steps and this epoch takes %d, past the LR schedule's %d "
                    "(update.planned_epochs=%d x this epoch's %d): its last %d steps hold at the schedule's end "
                    "(%s: lr 0, nothing learned), as earlier epochs took more steps than this one; raise "
                    "update.planned_epochs to spread the schedule further", start, steps, span, uc.planned_epochs,
                    steps, min(start + steps - span, steps), uc.scheduler)
    dummy = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)  # only its lambda is used
    shape = get_scheduler(uc.scheduler, dummy, num_warmup_steps=warm, num_training_steps=span).lr_lambdas[0]
    scheduler = LambdaLR(optimizer, lambda k: shape(min(start + k, span)))
    scheduler.run_start = start  # kept in its state_dict (a resumed update restores it), read by save_schedule
    return scheduler


def last_step_lr(scheduler) -> float:
    """The learning rate the update's last optimizer step ran at (get_last_lr() is the next step's, where the
    schedule stands after it); with no step taken, the first step's."""
    k = scheduler.last_epoch   # optimizer steps taken (a resumed update's restored with its state)
    return scheduler.base_lrs[0] * scheduler.lr_lambdas[0](k - 1) if k > 0 else scheduler.get_last_lr()[0]


def save_schedule(path: Path, scheduler) -> None:
    """The run's schedule position after this update (optimizer steps taken in the run, `step`) and the
    scheduler's state, for the next epoch's update (`carried_schedule`)."""
    torch.save({"step": scheduler.run_start + scheduler.last_epoch, "scheduler": scheduler.state_dict()}, path)


def carried_schedule(policy: Path | None, uc: UpdateConfig) -> int | None:
    """Where the update that made `policy` left the run's LR schedule (the optimizer steps the run has
    taken), for update.optimizer_state=carry; None without it (reset, the base model, the warm-start,
    or a policy written before the position was kept: `lr_schedule` then estimates it)."""
    if uc.optimizer_state != "carry" or policy is None or not (policy.parent / SCHEDULE).exists():
        return None
    return int(torch.load(policy.parent / SCHEDULE, weights_only=True)["step"])


def carried_optimizer(policy: Path | None, uc: UpdateConfig) -> dict | None:
    """The AdamW state the update that made `policy` left (update.optimizer_state=carry), else None
    (reset, the base model, the supervised warm-start, or a policy written before optimizers were
    carried: the update then starts a fresh AdamW, at its place in the schedule)."""
    if uc.optimizer_state != "carry" or policy is None:
        return None
    if not (policy.parent / OPTIMIZER).exists():
        log.info("update: no %s beside %s (the warm-start's policy, or one written before the optimizer state "
                 "was carried): a fresh AdamW, at its place in the LR schedule", OPTIMIZER, policy)
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
