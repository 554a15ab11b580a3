"""pipeline/train/loss.py against the field's reference: TRL 1.16's own GRPOTrainer._compute_loss, fed the
same token logprobs, old and reference logprobs, advantages and masks, over an accumulation window of
several micro-batches (and a partial one), for every option both offer. The loss and its gradient
with respect to the token logprobs agree to 1e-6.

TRL's conventions aligned: its model forward is replaced by the given logprobs (so both sides see
the same numbers), its generation batch is the window (steps_per_generation = the window's
micro-batches, num_items_in_batch = the window's trained tokens, as TRL counts them for dapo), and
current_gradient_accumulation_steps = the window's micro-batches (what transformers' Trainer sets
for the last, partial window). Also: the clip figures against TRL's clip_ratio/* metrics, and each KL
estimator's expected gradient against the table in pipeline/train/loss.py."""
from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch

from pipeline.train.loss import LossSettings, loss_norms, policy_loss, trained_len
from tests.tolerance import assert_close, tolerance

T = 7


@pytest.fixture(scope="module")
def trainer(tiny_model, tmp_path_factory):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from pipeline.engines.model import load_tokenizer
    from pipeline.config.student import StudentConfig
    args = GRPOConfig(output_dir=str(tmp_path_factory.mktemp("trl")), use_cpu=True, bf16=False, report_to="none",
                      save_strategy="no", per_device_train_batch_size=4, num_generations=4, generation_batch_size=4,
                      max_completion_length=T, beta=0.0, disable_tqdm=True)
    tr = GRPOTrainer(model=tiny_model, reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=args,
                     train_dataset=Dataset.from_list([{"prompt": "hi"}] * 4),
                     processing_class=load_tokenizer(StudentConfig(model=tiny_model)))
    tr.model.train()
    return tr


def window(seed: int, sizes: list[int], truncated: bool):
    """Micro-batches of rows: logprobs (with a few far below -88.7 at masked positions, where exp
    overflows), old and ref near them, advantages of both signs, ragged right-aligned masks."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for b in sizes:
        lengths = torch.randint(1, T + 1, (b,), generator=g)
        mask = (torch.arange(T)[None, :] >= T - lengths[:, None]).double()            # right-aligned, as collate
        logp = -torch.rand(b, T, generator=g, dtype=torch.float64) * 3
        logp = torch.where(mask.bool(), logp, torch.full_like(logp, -100.0))           # masked: a prompt/pad target
        old = torch.where(mask.bool(), logp + 0.3 * torch.randn(b, T, generator=g, dtype=torch.float64), 0.0)
        ref = torch.where(mask.bool(), logp + 0.5 * torch.randn(b, T, generator=g, dtype=torch.float64), 0.0)
        adv = torch.randn(b, generator=g, dtype=torch.float64)
        finish = ["length" if truncated and i % 3 == 0 else "stop" for i in range(b)]
        out.append({"logp": logp, "old": old, "ref": ref, "adv": adv, "mask": mask, "finish": finish,
                    "lengths": lengths.tolist()})
    return out


def term_size(mbs, beta: float) -> float:
    """The largest per-token term the loss adds up: |A| times the ratio, and beta times k3."""
    size = 0.0
    for mb in mbs:
        m = mb["mask"].bool()
        ratio = float((mb["logp"] - mb["old"])[m].abs().max().exp())
        k3 = float((mb["ref"] - mb["logp"])[m].abs().max().exp())
        size = max(size, float(mb["adv"].abs().max()) * ratio + beta * k3)
    return size


def assert_trls(mbs, beta: float, a: float, ga, b: float, gb, case=None) -> None:
    """Our float64 loss and gradient against TRL's on the same float64 inputs: the derived bound for
    sums over the window's tokens at the terms' size (a loss), and over a row's tokens (a gradient)."""
    tokens = sum(mb["mask"].numel() for mb in mbs)
    assert abs(a - b) <= tolerance(torch.float64, term_size(mbs, beta), [tokens]), (case, a, b)
    for x, y in zip(ga, gb):
        assert_close(x, y, tolerance(torch.float64, float(y.abs().max()), [T], elements=y.numel()), str(case))


def ours(mbs, loss_type, s: LossSettings, beta: float, truncated: bool):
    rows = [[{"completion_ids": [0] * n, "finish_reason": f} for n, f in zip(mb["lengths"], mb["finish"])] for mb in mbs]
    for mb in rows:
        for r in mb:
            r["trained_len"] = trained_len(r, truncated)
    norms = loss_norms(rows, loss_type, T)
    total, grads = 0.0, []
    for mb, rs, nm in zip(mbs, rows, norms):
        logp = mb["logp"].clone().requires_grad_(True)
        mask = mb["mask"] * torch.tensor([float(r["trained_len"] > 0) for r in rs], dtype=torch.float64)[:, None]
        loss, _ = policy_loss(logp, mb["old"], mb["ref"], mb["adv"], mask, torch.tensor(nm, dtype=torch.float64),
                              beta, s)
        loss.sum().backward()
        total += float(loss.sum().detach())
        grads.append(logp.grad)
    return total, grads


def trl(tr, mbs, loss_type, s: LossSettings, beta: float, truncated: bool, generation: list | None = None):
    """TRL's loss over the window mbs; generation: the micro-batches of the generation batch the
    window belongs to (default: the window is the whole generation batch)."""
    tr.loss_type, tr.beta = loss_type, beta
    tr.epsilon_low, tr.epsilon_high = s.clip_low, s.clip_high
    tr.importance_sampling_level = s.level
    tr.args.use_bias_correction_kl = s.kl_ratio
    tr.args.delta = s.delta
    tr.args.sapo_temperature_pos, tr.args.sapo_temperature_neg = s.sapo_temperature_pos, s.sapo_temperature_neg
    tr.max_completion_length = T
    tr.current_gradient_accumulation_steps = len(mbs)
    tr.args.steps_per_generation = len(generation or mbs)
    eos = tr.processing_class.eos_token_id
    masks = []
    for mb in mbs:
        # TRL masks a truncated completion in _generate_and_score_completions (grpo_trainer.py), by its
        # last id: the same expression, on ids that end in EOS exactly where the row ended by stopping
        ids = [[1] * (n - 1) + [eos if f == "stop" else 1] for n, f in zip(mb["lengths"], mb["finish"])]
        mask = mb["mask"]
        if truncated:
            is_truncated = torch.tensor([i[-1] not in [eos, tr.processing_class.pad_token_id] for i in ids])
            mask = mask * (~is_truncated).unsqueeze(1).int()
        masks.append(mask)
    items = sum(m.sum() for m in masks) if generation is None else sum(mb["mask"].sum() for mb in generation)
    total, grads = 0.0, []
    for mb, mask in zip(mbs, masks):
        logp = mb["logp"].clone().requires_grad_(True)
        b = len(mb["adv"])
        tr._get_per_token_logps_and_entropies = lambda *a, **k: (logp, torch.zeros_like(logp), None)
        inputs = {"prompt_ids": torch.ones(b, 1, dtype=torch.long), "prompt_mask": torch.ones(b, 1, dtype=torch.long),
                  "completion_ids": torch.ones(b, T, dtype=torch.long), "completion_mask": mask,
                  "advantages": mb["adv"], "old_per_token_logps": mb["old"],
                  # TRL's logprobs are 0 outside the completion mask
                  "ref_per_token_logps": mb["ref"] * mb["mask"], "num_items_in_batch": items}
        loss = tr._compute_loss(tr.model, inputs)
        loss.backward()
        total += float(loss.detach())
        grads.append(logp.grad)
    return total, grads


CASES = [(lt, level, high, beta, kl_ratio, truncated)
         for lt, level, high, beta, kl_ratio, truncated in itertools.product(
             ("grpo", "bnpo", "dr_grpo", "dapo"), ("token", "sequence"), (0.2, 0.28), (0.0, 0.04), (False, True),
             (False, True))
         if not (beta == 0.0 and kl_ratio)]


OTHER = [(lt, level, high, delta, beta)
         for lt, level, high, delta, beta in itertools.product(
             ("cispo", "sapo", "luspo", "grpo", "dapo"), ("token", "sequence"), (0.28, 5.0), (None, 4.0), (0.0, 0.04))
         if (delta is None or lt in ("grpo", "dapo", "luspo")) and (high == 0.28 or lt == "cispo")]


def test_trls_other_loss_types_and_two_sided_clipping(trainer):
    """TRL 1.16's loss types beyond the four (cispo: the clipped, detached weight on logp, aggregated as
    dapo; sapo: the soft gate, aggregated as grpo; luspo: sequence sums) and delta (the unclipped ratio's
    ceiling), token- and sequence-level, KL off and on: loss and gradient equal to TRL's own. The
    settings reach the loss: each changes it on these inputs."""
    from pipeline.train.loss import SURROGATE
    checked = 0
    for k, (lt, level, high, delta, beta) in enumerate(OTHER):
        s = LossSettings(clip_low=0.2, clip_high=high, level=level, surrogate=SURROGATE.get(lt, "clip"), delta=delta,
                         sapo_temperature_pos=1.0, sapo_temperature_neg=1.05)
        mbs = window(100 + k, [4, 4, 3], False)
        for mb in mbs:                                    # ratios far from 1, so delta's cap and the clips bind
            mb["old"] = torch.where(mb["mask"].bool(), mb["logp"] + 2.0 * torch.randn_like(mb["logp"]), 0.0)
        a, ga = ours(mbs, lt, s, beta, False)
        b, gb = trl(trainer, mbs, lt, s, beta, False)
        assert torch.isfinite(torch.tensor(a))
        assert_trls(mbs, beta, a, ga, b, gb, (lt, level, high, delta, beta))
        if delta is not None and level == "token":
            plain, _ = ours(mbs, lt, dataclasses.replace(s, delta=None), beta, False)
            assert abs(plain - a) > 1e-6, (lt, "delta changed nothing")
        checked += 1
    trainer.args.delta = None
    assert checked >= 24


@pytest.mark.parametrize("sizes", [[4, 4, 3], [4]], ids=["window", "partial"])
def test_the_loss_and_its_gradient_are_trls(trainer, sizes):
    """Every combination: loss aggregation grpo/bnpo/dr_grpo/dapo, token- and sequence-level ratios,
    clip-higher, KL off/on, with and without the ratio weight (use_bias_correction_kl), truncated
    completions masked or not; a window of three micro-batches (the last smaller) and a partial one."""
    checked = 0
    for k, (lt, level, high, beta, kl_ratio, truncated) in enumerate(CASES):
        if lt == "dapo" and len(sizes) == 1:
            # TRL's dapo divides by the generation batch's tokens; here the window would be the whole
            # generation batch, not a partial last window of one: the next test has that case
            continue
        s = LossSettings(clip_low=0.2, clip_high=high, level=level, kl_estimator="k3", kl_ratio=kl_ratio)
        mbs = window(k, sizes, truncated)
        a, ga = ours(mbs, lt, s, beta, truncated)
        b, gb = trl(trainer, mbs, lt, s, beta, truncated)
        case = (lt, level, high, beta, kl_ratio, truncated)
        assert torch.isfinite(torch.tensor(a)), case
        assert_trls(mbs, beta, a, ga, b, gb, case)
        checked += 1
    assert checked >= 48


def test_a_masked_logprob_far_below_minus_88_leaves_the_loss_finite():
    """exp(ref - logp) at a masked position with logp = -100 and ref = 0 (right_aligned's filler) is
    inf; inf * 0 would be NaN in the loss and the gradient. policy_loss never computes it."""
    logp = torch.tensor([[-100.0, -1.0, -2.0]], requires_grad=True)
    mask = torch.tensor([[0.0, 1.0, 1.0]])
    zeros = torch.zeros(1, 3)
    old = torch.tensor([[0.0, -1.1, -2.1]])
    loss, terms = policy_loss(logp, old, zeros, torch.tensor([1.0]), mask, torch.tensor([2.0]), 0.05)
    loss.sum().backward()
    assert torch.isfinite(loss).all() and torch.isfinite(logp.grad).all()
    assert logp.grad[0, 0] == 0


@pytest.mark.parametrize("mode", ["token_truncate", "token_mask", "sequence_truncate", "sequence_mask"])
def test_the_sampler_correction_is_trls(trainer, mode):
    """update.sampler_correction: the weights pi_old / pi_sampler (TRL's vllm_importance_sampling_mode
    arithmetic) and the loss they weigh, against TRL's _compute_loss with use_vllm and
    vllm_importance_sampling_correction on (it multiplies the surrogate, before the KL term)."""
    from pipeline.train.loss import sampler_correction
    mbs = window(7, [4, 4, 3], False)
    g = torch.Generator().manual_seed(1)
    for mb in mbs:
        mb["sampler"] = torch.where(mb["mask"].bool(), mb["old"] + 0.8 * torch.randn(mb["old"].shape, generator=g,
                                                                                      dtype=torch.float64), 0.0)
        mb["is"] = sampler_correction(mb["old"], mb["sampler"], mb["mask"], mode, 0.5, 3.0)
    w = torch.cat([mb["is"].expand(-1, T)[mb["mask"].bool()] if mode.startswith("token") else mb["is"][:, 0]
                   for mb in mbs])
    if mode.endswith("truncate"):
        assert float(w.min()) >= 0.5 and float(w.max()) <= 3.0 and ((w == 0.5) | (w == 3.0)).any()
    else:
        assert ((w == 0) | ((w >= 0.5) & (w <= 3.0))).all() and (w == 0).any() and (w > 0).any()
    s = LossSettings(clip_low=0.2, clip_high=0.28, kl_ratio=True)

    def ours_is():
        rows = [[{"completion_ids": [0] * n, "trained_len": n} for n in mb["lengths"]] for mb in mbs]
        total, grads = 0.0, []
        for mb, nm in zip(mbs, loss_norms(rows, "dapo", T)):
            logp = mb["logp"].clone().requires_grad_(True)
            loss, _ = policy_loss(logp, mb["old"], mb["ref"], mb["adv"], mb["mask"], torch.tensor(nm, dtype=torch.float64),
                                  0.04, s, mb["is"])
            loss.sum().backward()
            total, grads = total + float(loss.sum().detach()), grads + [logp.grad]
        return total, grads

    def trl_is():
        trainer.use_vllm, trainer.vllm_importance_sampling_correction = True, True
        real = trainer._compute_loss
        try:
            seen = iter(mbs)

            def with_ratio(model, inputs):
                return real(model, {**inputs, "importance_sampling_ratio": next(seen)["is"]})
            trainer._compute_loss = with_ratio
            return trl(trainer, mbs, "dapo", s, 0.04, False)
        finally:
            trainer._compute_loss = real
            trainer.use_vllm, trainer.vllm_importance_sampling_correction = False, False

    a, ga = ours_is()
    b, gb = trl_is()
    assert_trls(mbs, 0.04, a, ga, b, gb)
    plain, _ = ours(mbs, "dapo", s, 0.04, False)
    assert abs(plain - a) > 1e-4  # the weights changed the loss


@pytest.mark.parametrize("level", ["token", "sequence"])
def test_the_clip_figures_are_trls(trainer, level):
    """policy_loss's clip_low / clip_high indicators (a ratio below 1 - e_low counts only with a negative
    advantage, above 1 + e_high only with a positive one: where the clip binds), averaged as TRL averages
    them, equal TRL's clip_ratio/low_mean, high_mean and region_mean on the same micro-batches, with
    advantages of both signs. (The update reports each completion's share, averaged over completions.)"""
    for high in (0.2, 0.28):
        s = LossSettings(clip_low=0.2, clip_high=high, level=level, kl_estimator="k3", kl_ratio=True)
        mbs = window(9, [4, 4, 3], True)
        assert any((mb["adv"] > 0).any() and (mb["adv"] < 0).any() for mb in mbs)
        rows = [[{"completion_ids": [0] * n, "finish_reason": f} for n, f in zip(mb["lengths"], mb["finish"])] for mb in mbs]
        for mb in rows:
            for r in mb:
                r["trained_len"] = trained_len(r, True)
        want = {"low": [], "high": [], "region": []}
        for mb, rs, nm in zip(mbs, rows, loss_norms(rows, "grpo", T)):
            mask = mb["mask"] * torch.tensor([float(r["trained_len"] > 0) for r in rs], dtype=torch.float64)[:, None]
            _, terms = policy_loss(mb["logp"], mb["old"], mb["ref"], mb["adv"], mask,
                                   torch.tensor(nm, dtype=torch.float64), 0.04, s)
            for k, x in (("low", terms["clip_low"]), ("high", terms["clip_high"]),
                         ("region", terms["clip_low"] + terms["clip_high"])):
                # TRL: over the micro-batch's tokens; sequence level: over its rows (one ratio each)
                want[k].append(float(x[:, -1].mean()) if level == "sequence" else float((x * mask).sum() / mask.sum()))
        trainer._metrics["train"].clear()
        trl(trainer, mbs, "grpo", s, 0.04, True)
        for k in want:
            assert trainer._metrics["train"][f"clip_ratio/{k}_mean"] == pytest.approx(want[k], abs=1e-12), (k, high)
        assert sum(want["low"]) > 0 and sum(want["high"]) > 0, "the inputs clip at both ends"


def test_cispos_clip_figure_is_trls_and_the_unclipped_losses_clip_nothing(trainer):
    """loss_type=cispo caps each token's weight at clip_high and keeps its gradient: its clip figure is
    TRL's cispo_clip_ratio (a ratio above e_max with a positive advantage), not the clip surrogate's
    (which would compare against 1 + e_max); reinforce and sapo clip nothing."""
    s = LossSettings(clip_low=0.2, clip_high=1.05, level="token", surrogate="cispo", kl_estimator="k3", kl_ratio=True)
    mbs = window(9, [4, 4, 3], True)
    rows = [[{"completion_ids": [0] * n, "finish_reason": f} for n, f in zip(mb["lengths"], mb["finish"])] for mb in mbs]
    for mb in rows:
        for r in mb:
            r["trained_len"] = trained_len(r, True)
    want = []
    for mb, rs, nm in zip(mbs, rows, loss_norms(rows, "cispo", T)):
        mask = mb["mask"] * torch.tensor([float(r["trained_len"] > 0) for r in rs], dtype=torch.float64)[:, None]
        _, terms = policy_loss(mb["logp"], mb["old"], mb["ref"], mb["adv"], mask,
                               torch.tensor(nm, dtype=torch.float64), 0.04, s)
        assert float((terms["clip_low"] * mask).sum()) == 0
        want.append(float((terms["clip_high"] * mask).sum() / mask.sum()))
    trainer._metrics["train"].clear()
    trl(trainer, mbs, "cispo", s, 0.04, True)
    assert trainer._metrics["train"]["cispo_clip_ratio"] == pytest.approx(want, abs=1e-12)
    assert sum(want) > 0, "the inputs reach the cap"
    for other in (LossSettings(algorithm="reinforce"), LossSettings(surrogate="sapo")):
        mb = mbs[0]
        _, terms = policy_loss(mb["logp"], mb["old"], mb["ref"], mb["adv"], mb["mask"], torch.ones(len(mb["adv"]),
                               dtype=torch.float64), 0.04, other)
        assert float(terms["clip_low"].sum() + terms["clip_high"].sum()) == 0, other


@pytest.mark.parametrize("estimator,kl_ratio,follows", [
    ("k1", False, "zero"), ("k2", False, "reverse"), ("k3", False, "forward"),
    ("k1", True, "reverse"), ("k2", True, "k2_mean"), ("k3", True, "reverse")])
def test_each_kl_estimators_expected_gradient_is_the_documented_one(estimator, kl_ratio, follows):
    """The table in pipeline/train/loss.py (and update.kl_estimator's doc), on a categorical distribution of 6
    tokens: the expected gradient on-policy, sum_x pi(x) grad(kl term at x) with pi_old = pi detached,
    is grad KL(pi || ref) (reverse), grad KL(ref || pi) (forward), 0, or for k2 x ratio the gradient of
    E_pi[(log pi - log ref)^2 / 2], which is none of the others. policy_loss computes it: each token is a
    position of one row, weighed by its probability through the mask, with advantage 0."""
    g = torch.Generator().manual_seed(0)
    theta = torch.randn(6, generator=g, dtype=torch.float64, requires_grad=True)
    ref = torch.log_softmax(torch.randn(6, generator=g, dtype=torch.float64), -1)

    def grad(f):
        return torch.autograd.grad(f(torch.log_softmax(theta, -1)), theta)[0]

    want = {"reverse": grad(lambda lp: (lp.exp() * (lp - ref)).sum()),
            "forward": grad(lambda lp: (ref.exp() * (ref - lp)).sum()),
            "k2_mean": grad(lambda lp: (lp.exp() * (lp - ref) ** 2 / 2).sum()),
            "zero": torch.zeros(6, dtype=torch.float64)}

    def expected_kl_loss(lp):
        pi = lp.detach().exp()[None]                      # (1, 6): the on-policy weight of each token
        loss, _ = policy_loss(lp[None], lp.detach()[None], ref[None], torch.zeros(1, dtype=torch.float64), pi,
                              torch.ones(1, dtype=torch.float64), 1.0,
                              LossSettings(kl_estimator=estimator, kl_ratio=kl_ratio))
        return loss.sum()

    got = grad(expected_kl_loss)
    # float64, a sum over the 6 tokens at the size of the terms that cancel (the table's largest gradient:
    # k1's expected gradient is 0, a sum of terms of that size)
    size = max(float(v.abs().max()) for v in want.values())
    assert_close(got, want[follows], tolerance(torch.float64, size, [6], elements=6))
    for other, v in want.items():  # and not another one of the table's (they differ by > 0.04 here)
        if other != follows:
            assert float((got - v).abs().max()) > 1e-2, other


def test_dapo_over_a_generation_batch_of_several_windows(trainer):
    """Where ours and TRL's dapo part on purpose. One generation batch of 3 micro-batches in two windows
    (grad_accum 2: [4, 4] and the partial [3]): TRL divides each window's token sum by the generation
    batch's tokens x the window's micro-batches / the batch's (num_items_in_batch x
    current_gradient_accumulation_steps / steps_per_generation: the average window's token count);
    ours by the window's own token count (pipeline/train/loss.py, loss_norms). So TRL's loss is ours x own / average,
    and the two agree only where a window holds the average (docs/guides/from-trl.md)."""
    s = LossSettings(clip_low=0.2, clip_high=0.28, kl_ratio=True)
    gen = window(5, [4, 4, 3], False)
    total_tokens = float(sum(mb["mask"].sum() for mb in gen))
    parted = False
    for win in (gen[:2], gen[2:]):
        a, ga = ours(win, "dapo", s, 0.04, False)
        b, gb = trl(trainer, win, "dapo", s, 0.04, False, generation=gen)
        own = float(sum(mb["mask"].sum() for mb in win))
        average = total_tokens * len(win) / len(gen)
        assert_trls(win, 0.04, a * own / average, [x * own / average for x in ga], b, gb)
        parted |= abs(own - average) > 0.5
    assert parted  # the windows' token counts differ from the average, so the losses do
