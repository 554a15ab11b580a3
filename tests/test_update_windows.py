"""The update's accumulation windows: every micro-batch reaches an optimizer step when grad_accum does
not divide them, and the last, partial window is scaled by its own size; a diverged update writes nothing."""
from __future__ import annotations

import pytest
import torch

from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.engines.model import load_student, load_tokenizer
from pipeline.stages import update_loop


def test_every_micro_batch_reaches_a_step_when_grad_accum_does_not_divide_them(tiny_model):
    """3 micro-batches, grad_accum=2: a step after the 2nd and one at the end of each pass (the 3rd
    micro-batch's gradient is not dropped, nor carried into the next pass). Only one prompt group
    has an advantage; wherever the seeded order puts it, LoRA B moves."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                             "update.grad_accum=2", "update.lr=1e-2", "update.kl_coef=0"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7 + g], "completion_ids": [9, 10 + i, 11], "advantage": (1.0 - 2 * i) * (g == 2)}
            for g in range(3) for i in range(2)]
    for seed in range(4):
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        fig = update_loop.train(model, rows, cfg.update, 1.0, tok.pad_token_id, seed=seed, show_progress=False,
                           fresh_adapter=True)
        assert fig["optim/steps"] == 2
        moved = max(float(p.abs().max()) for n, p in model.named_parameters() if "lora_B" in n)
        assert moved > 0, seed
    two = update_loop.train(load_student(cfg.student, trainable=True), rows,
                       cfg.update.model_copy(update={"epochs": 2}), 1.0, tok.pad_token_id, show_progress=False,
                       fresh_adapter=True)
    assert two["optim/steps"] == 4


def test_the_last_partial_window_is_scaled_by_its_own_size(tiny_model):
    """3 micro-batches (one prompt group each, only one with an advantage), grad_accum=2, lr=0 (the
    weights stay, so every step's gradient is taken at the same point) and no clipping in the way
    (max_grad_norm 1e9): the group's gradient norm is its alone-norm m (grad_accum=1: m/3 averaged over
    3 steps) halved in the full window (m/4 averaged over 2 steps) and whole in the partial one (m/2).
    A partial window divided by grad_accum instead of its own size would give m/4 wherever it lies."""
    base = [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2", "update.lr=0",
            "update.kl_coef=0", "update.max_grad_norm=1e9"]
    tok = load_tokenizer(load_config(None, base).student)
    rows = [{"prompt_ids": [5, 6, 7 + g], "completion_ids": [9, 10 + i, 11], "advantage": (1.0 - 2 * i) * (g == 2)}
            for g in range(3) for i in range(2)]

    def grad_norm(accum: int, seed: int) -> float:
        cfg = load_config(None, [*base, f"update.grad_accum={accum}"])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        with torch.no_grad():                                   # a LoRA B away from 0: A's gradient is not 0
            for n, p in model.named_parameters():
                if "lora_B" in n:
                    p.normal_(0, 0.05)
        return update_loop.train(model, rows, cfg.update, 1.0, tok.pad_token_id, seed=seed, show_progress=False)["optim/grad_norm"]

    from transformers import AutoConfig

    from tests.tolerance import gradient_tolerance
    bound = gradient_tolerance(AutoConfig.from_pretrained(tiny_model), 6, 6)
    shares = set()
    for seed in range(4):
        alone = 3 * grad_norm(1, seed)
        assert alone > 0
        share = grad_norm(2, seed) / alone
        # two float32 gradient norms: each within the derived relative bound, their ratio within twice it
        assert min(abs(share - 0.25), abs(share - 0.5)) <= 2 * bound * share, (seed, share)
        shares.add(round(share, 2))
    assert shares == {0.25, 0.5}, shares          # the seeds put the group in either window


def test_a_diverged_update_writes_nothing_and_says_what_to_lower(tiny_model, tmp_path):
    """A NaN in the loss (here one row's advantage) reaches every weight through the step: the update
    stops with an error naming the step and the key to lower, before any adapter is written."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                             "update.grad_accum=1"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10, 11 + i], "advantage": a}
            for i, a in enumerate([1.0, -1.0, float("nan"), 1.0])]
    model = load_student(cfg.student, trainable=True)
    with pytest.raises(RunError, match=r"diverged \(the gradient norm of optimizer step 2 of 2 was nan\).*update.lr"):
        update_loop.train(model, rows, cfg.update, 1.0, tok.pad_token_id, show_progress=False, fresh_adapter=True,
                          epoch=3, save_to=tmp_path / "adapter")
    assert not (tmp_path / "adapter").exists()
    with pytest.raises(RunError, match="optimizer step 2 of 2"):   # a checkpoint every step: the last one kept is finite
        update_loop.train(load_student(cfg.student, trainable=True), rows, cfg.update, 1.0, tok.pad_token_id,
                          show_progress=False, fresh_adapter=True, checkpoint=tmp_path / "ckpt", checkpoint_every=1)
    assert len(torch.load(tmp_path / "ckpt" / "state.pt", weights_only=False)["state"]["grad_norms"]) == 1
    rows[2]["advantage"] = 0.5   # the same rows, finite: trains and writes
    update_loop.train(load_student(cfg.student, trainable=True), rows, cfg.update, 1.0, tok.pad_token_id,
                      show_progress=False, fresh_adapter=True, epoch=3, save_to=tmp_path / "adapter")
    assert (tmp_path / "adapter").exists()
