"""update.top_entropy_quantile (TRL's top_entropy_quantile; Wang et al. 2025's forking tokens) against
TRL 1.16: the mask (`pipeline.train.loss.high_entropy_mask`) against GRPOTrainer.get_high_entropy_mask,
and the masked loss and its gradient against GRPOTrainer._compute_loss fed the same logprobs and
entropies (tests/test_loss_trl.py's harness, its model forward returning our entropies too); then a
short update on the tiny model that the mask changes."""
from __future__ import annotations

import pytest
import torch

from pipeline.train.loss import LossSettings, high_entropy_mask, loss_norms, policy_loss, trained_len
from tests.test_loss_trl import T, assert_trls, trainer, trl, window  # noqa: F401 (trainer: the fixture)


def with_entropies(mbs, seed: int):
    """Each micro-batch's entropies: on a grid of 0.25 (so some tie at the threshold: `>=` decides),
    and far above the rest outside the mask (a padding token must neither train nor move the threshold)."""
    g = torch.Generator().manual_seed(seed)
    for mb in mbs:
        ent = torch.randint(0, 12, mb["logp"].shape, generator=g).double() * 0.25
        mb["ent"] = torch.where(mb["mask"].bool(), ent, 50.0)
    return mbs


def ours_masked(mbs, loss_type, s: LossSettings, beta: float, truncated: bool, q: float):
    """tests/test_loss_trl.py's `ours` with the entropy mask (as update_loop builds it: over the trained tokens)."""
    rows = [[{"completion_ids": [0] * n, "finish_reason": f} for n, f in zip(mb["lengths"], mb["finish"])] for mb in mbs]
    for mb in rows:
        for r in mb:
            r["trained_len"] = trained_len(r, truncated)
    total, grads, kept = 0.0, [], []
    for mb, rs, nm in zip(mbs, rows, loss_norms(rows, loss_type, T)):
        logp = mb["logp"].clone().requires_grad_(True)
        mask = mb["mask"] * torch.tensor([float(r["trained_len"] > 0) for r in rs], dtype=torch.float64)[:, None]
        keep = high_entropy_mask(mb["ent"], mask, q) if q < 1 else None
        loss, _ = policy_loss(logp, mb["old"], mb["ref"], mb["adv"], mask, torch.tensor(nm, dtype=torch.float64),
                              beta, s, token_mask=keep)
        loss.sum().backward()
        total += float(loss.sum().detach())
        grads.append(logp.grad)
        kept.append(None if keep is None else (float(keep.sum()), float(mask.sum())))
    return total, grads, kept


def trl_masked(tr, mbs, loss_type, s: LossSettings, beta: float, truncated: bool, q: float):
    """TRL's loss with top_entropy_quantile = q, its forward (already replaced by the given logprobs)
    returning each micro-batch's entropies."""
    real, seen = tr._compute_loss, iter(mbs)

    def fed(model, inputs):
        forward, ent = tr._get_per_token_logps_and_entropies, next(seen)["ent"]
        tr._get_per_token_logps_and_entropies = lambda *a, **k: (forward(*a, **k)[0], ent, None)
        return real(model, inputs)
    tr.top_entropy_quantile, tr._compute_loss = q, fed
    try:
        return trl(tr, mbs, loss_type, s, beta, truncated)
    finally:
        tr.top_entropy_quantile, tr._compute_loss = 1.0, real


CASES = [("grpo", "token", 0.2, 0.0, False), ("grpo", "token", 0.5, 0.04, True), ("grpo", "sequence", 0.2, 0.04, False),
         ("dapo", "token", 0.2, 0.04, False), ("dapo", "token", 0.5, 0.0, True), ("dapo", "sequence", 0.5, 0.04, False),
         ("bnpo", "token", 0.2, 0.04, False), ("dr_grpo", "token", 0.5, 0.04, True)]


@pytest.mark.parametrize("case", CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_the_masked_loss_and_its_gradient_are_trls(trainer, case):  # noqa: F811
    """Loss types, token- and sequence-level ratios, KL off and on, truncated completions masked or not,
    two quantiles: the loss and its gradient equal TRL's with top_entropy_quantile set. The mask binds
    (keeps some of the trained tokens, not all) and changes the loss."""
    lt, level, q, beta, truncated = case
    s = LossSettings(clip_low=0.2, clip_high=0.28, level=level, kl_estimator="k3", kl_ratio=beta > 0)
    mbs = with_entropies(window(40 + CASES.index(case), [4, 4, 3], truncated), CASES.index(case))
    a, ga, kept = ours_masked(mbs, lt, s, beta, truncated, q)
    b, gb = trl_masked(trainer, mbs, lt, s, beta, truncated, q)
    assert torch.isfinite(torch.tensor(a))
    assert_trls(mbs, beta, a, ga, b, gb, case)
    assert all(0 < k < n for k, n in kept), kept
    plain, _, _ = ours_masked(mbs, lt, s, beta, truncated, 1.0)
    assert abs(plain - a) > 1e-6, "the mask changed nothing"


def test_the_mask_is_trls_get_high_entropy_mask(trainer):  # noqa: F811
    """The same mask as TRL's get_high_entropy_mask (threshold 1 - q) on the same float32 entropies and
    masks, ties and padding included, for quantiles from 0 (only the largest) to 1 (every token), through
    the single process's gather too; an empty mask keeps nothing."""
    g = torch.Generator().manual_seed(3)
    for trial in range(4):
        ent = torch.randint(0, 9, (5, 11), generator=g).float() * 0.3 if trial % 2 else torch.rand(5, 11, generator=g) * 4
        mask = (torch.rand(5, 11, generator=g) < 0.7).float()
        for q in (0.0, 0.1, 0.2, 0.5, 0.8, 1.0):
            want = trainer.get_high_entropy_mask(ent, mask, 1 - q)
            got = high_entropy_mask(ent, mask, q)
            assert got.dtype == torch.bool and torch.equal(got, want), (trial, q)
            assert torch.equal(high_entropy_mask(ent, mask, q, trainer.accelerator), want), (trial, q)
            assert not (got & ~mask.bool()).any()
    empty = torch.zeros(5, 11)
    assert torch.equal(high_entropy_mask(ent, empty, 0.2), trainer.get_high_entropy_mask(ent, empty, 0.8))
    assert not high_entropy_mask(ent, empty, 0.2).any()


class TwoRanks:
    """accelerate's pad_across_processes and gather as rank 0 of two sees them, the other's tokens given."""
    def __init__(self, other: torch.Tensor):
        self.other = other

    def pad_across_processes(self, x, dim, pad_index):
        n = max(len(x), len(self.other))
        return torch.cat([x, torch.full((n - len(x),), float(pad_index))])

    def gather(self, x):
        n = len(x)
        return torch.cat([x, torch.cat([self.other, torch.full((n - len(self.other),), -1e9)])])


def test_the_threshold_is_over_every_ranks_tokens():
    """With two processes each rank's mask is its rows' share of the mask over both ranks' tokens (rank 1
    holding more tokens than rank 0: the padding is dropped)."""
    g = torch.Generator().manual_seed(5)
    ent, mask = torch.rand(6, 9, generator=g) * 3, (torch.rand(6, 9, generator=g) < 0.8).float()
    mask[:2, :3] = 0                                          # rank 0 (rows 0-1) holds fewer tokens
    ent[2:] += 1.0                                            # and lower entropies: its own quantile is lower
    for q in (0.2, 0.5):
        whole = high_entropy_mask(ent, mask, q)
        got = high_entropy_mask(ent[:2], mask[:2], q, TwoRanks(ent[2:][mask[2:].bool()]))
        assert torch.equal(got, whole[:2]), q
        assert not torch.equal(high_entropy_mask(ent[:2], mask[:2], q), whole[:2]), "the other rank mattered"


def test_the_update_trains_another_adapter_with_the_mask(tiny_model):
    """A short update on the tiny model with update.top_entropy_quantile=0.2 moves the adapter, and to
    another place than the same update without the mask (1.0)."""
    from pipeline.config.file import load_config
    from pipeline.engines.model import load_student
    from pipeline.stages import update_loop

    def lora_after(*extra):
        cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                                 "update.grad_accum=2", "update.lr=1e-2", *extra])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        rows = [{"prompt_ids": [5, 6, 7], "completion_ids": list(range(20 + i, 26 + i)), "advantage": (-1.0) ** i}
                for i in range(4)]
        lora = lambda: torch.cat([p.detach().flatten() for n, p in model.named_parameters() if "lora_" in n])  # noqa: E731
        start = lora()
        update_loop.train(model, rows, cfg.update, 1.0, 0, seed=3, show_progress=False)
        return lora(), start

    masked, start = lora_after("update.top_entropy_quantile=0.2")
    full, _ = lora_after("update.top_entropy_quantile=1.0")
    assert (masked - start).abs().max() > 1e-4, "the masked update trained nothing"
    assert (masked - full).abs().max() > 1e-4, "the mask changed nothing"
