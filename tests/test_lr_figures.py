"""optim/lr_last is the learning rate the update's last optimizer step ran at, and optim/lr_next where the
carried schedule stands for the next epoch; an epoch that ran at lr 0 (past update.planned_epochs) is told
so by schedule_ended, not told to lower a learning rate it did not have."""
from __future__ import annotations

import pytest
import torch

from pipeline.config.file import load_config
from pipeline.metrics.flags import analyse
from pipeline.train import optim
from tests.test_flags import CFG, recorded


def test_lr_last_is_the_rate_the_last_step_ran_at_across_a_carried_schedule():
    uc = load_config(None, ["update.planned_epochs=4", "update.warmup_steps=0", "update.scheduler=cosine"]).update
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=2e-4)
    ran, last, following = [], [], []
    for epoch in range(1, 6):   # one optimizer step an epoch, each epoch continuing the run's schedule
        for g in opt.param_groups:
            g["lr"] = 2e-4
        sched = optim.lr_schedule(opt, uc, 1, epoch=epoch, start=epoch - 1)
        assert optim.last_step_lr(sched) == pytest.approx(opt.param_groups[0]["lr"])   # no step yet: the first's
        ran.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
        last.append(optim.last_step_lr(sched))
        following.append(sched.get_last_lr()[0])
    assert last == pytest.approx(ran) and following[:-1] == pytest.approx(ran[1:])
    assert last[3] == pytest.approx(2e-4 * (1 + torch.cos(torch.tensor(3 / 4 * torch.pi)).item()) / 2)   # epoch 4 learned
    assert last[3] > 0 and last[4] == 0.0                                                       # epoch 5 did not


def test_an_epoch_at_lr_0_is_not_told_to_lower_its_learning_rate():
    ms = recorded()   # loss rising over epochs 2..4
    assert "loss_rising" in {f.name for f in analyse(ms, CFG)}
    ms[3]["optim/lr_last"] = 0.0   # an older record: the next step's rate, 0 at a schedule's end: no evidence
    assert "loss_rising" in {f.name for f in analyse(ms, CFG)}
    ms[3]["optim/lr_next"] = 0.0
    assert "loss_rising" not in {f.name for f in analyse(ms, CFG)}
