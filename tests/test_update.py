"""The update's pieces: logprob alignment under left padding, KL estimators, the KL controller."""
from __future__ import annotations

import copy

import pytest
import torch

from pipeline.engines import forward, head

from pipeline.train import rl
from pipeline.stages import update, update_loop
from pipeline.train import optim
from pipeline.config.file import load_config
from pipeline.config.errors import RunError
from pipeline.engines.model import load_student, load_tokenizer
from tests.tolerance import assert_close, assert_same_parameters, logits_tolerance, tolerance


def test_logprobs_match_unpadded_forward(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7, 8], "completion_ids": [9, 10, 11], "advantage": 1.0, "index": 0},
            {"prompt_ids": [12, 13], "completion_ids": [14, 15, 16, 17, 18], "advantage": -1.0, "index": 1}]
    batch = forward.collate(rows, tok.pad_token_id)
    with torch.no_grad():
        logp, _ = forward.token_logprobs(model, batch, temperature=0.7)
        for i, r in enumerate(rows):
            ids = torch.tensor([r["prompt_ids"] + r["completion_ids"]])
            logits = model(input_ids=ids).logits[0, :-1] / 0.7
            want = logits.log_softmax(-1).gather(-1, ids[0, 1:, None])[:, 0][-len(r["completion_ids"]):]
            got = logp[i][batch["completion_mask"][i].bool()]
            scale = float(logits.abs().max())        # the log-softmax's sums at the tempered logits' size
            assert_close(got, want, logits_tolerance(model, batch["input_ids"].shape[-1], scale, len(want),
                                                     logprobs=True))


def test_prompt_ordered_keeps_groups_together():
    rows = [{"prompt_ids": [p], "completion_ids": [i]} for i, p in enumerate([1, 2, 1, 3, 2, 1])]
    for seed in (None, 0, 1):
        out = forward.prompt_ordered(rows, seed)
        prompts = [r["prompt_ids"][0] for r in out]
        assert sorted(out, key=lambda r: r["completion_ids"]) == rows  # a permutation
        assert all(prompts.index(p) + prompts.count(p) - 1 == len(prompts) - 1 - prompts[::-1].index(p)
                   for p in set(prompts))  # each prompt's rows are contiguous


def test_k3_is_never_negative_and_k1_can_be():
    logp = torch.randn(1000)
    ref = logp + torch.randn(1000)
    kl = rl.kl_terms(logp, ref, "k3")
    assert (kl["k3"] >= 0).all() and (kl["k1"] < 0).any()
    assert torch.allclose(kl["loss"], kl["k3"])


def test_kl_controller_moves_toward_target():
    assert update_loop.adapt_kl_coef(1.0, kl=0.5, target=0.1, horizon=4) > 1.0  # KL too high: stronger penalty
    assert update_loop.adapt_kl_coef(1.0, kl=0.01, target=0.1, horizon=4) < 1.0
    assert update_loop.adapt_kl_coef(1.0, kl=100.0, target=0.1, horizon=1) == 1.2  # error clipped at 0.2


def test_adaptive_kl_coef_recorded(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.kl_mode=adaptive",
                             "update.kl_target=1e-9", "update.micro_batch_size=1", "update.grad_accum=1",
                             "update.lr=1e-2"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student, trainable=True)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10, 11 + i], "advantage": a}
            for i, a in enumerate([1.0, -1.0, 1.0, -1.0])]
    fig = update_loop.train(model, rows, cfg.update, 1.0, tok.pad_token_id, show_progress=False, fresh_adapter=True)
    assert fig["optim/steps"] == 4 and fig["kl/coef"] > cfg.update.kl_coef  # KL above a ~0 target raised it


def test_update_resumes_from_checkpoint_to_the_same_adapter(tiny_model, tmp_path, monkeypatch):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                             "update.grad_accum=1", "update.epochs=2", "update.lr=1e-2"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10 + i, 11], "advantage": (-1.0) ** i} for i in range(6)]

    def fresh():
        torch.manual_seed(0)
        return load_student(cfg.student, trainable=True)

    def lora(m):
        return {n: p.detach().clone() for n, p in m.named_parameters() if "lora_" in n}

    a = fresh()
    fig_a = update_loop.train(a, rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False)

    calls = {"n": 0}
    real = update_loop.policy_loss

    def crash_on_fifth(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt  # killed in the middle of pass 2
        return real(*args, **kw)

    monkeypatch.setattr(update_loop, "policy_loss", crash_on_fifth)
    ckpt = tmp_path / "ckpt"
    try:
        update_loop.train(fresh(), rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False,
                     checkpoint=ckpt, checkpoint_every=1)
    except KeyboardInterrupt:
        pass
    assert (ckpt / "state.pt").exists()
    monkeypatch.setattr(update_loop, "policy_loss", real)
    c = fresh()
    fig_c = update_loop.train(c, rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False,
                         checkpoint=ckpt, checkpoint_every=1)
    assert fig_c["optim/steps"] == fig_a["optim/steps"] == 6
    assert_same_parameters(lora(c), lora(a), lora(fresh()), a, 6, 18)


def test_loss_norms_per_loss_type():
    """What each row's token sum is divided by, for a window of two micro-batches [2, 6] and [3 (teacher),
    5], and for a partial window of one: grpo its own length x rows x micro-batches; bnpo the micro-batch's
    mean policy-gradient length x rows x micro-batches; dapo the window's policy-gradient token mean x
    its rows (teacher rows out of the token counts); dr_grpo a constant x rows x micro-batches."""
    from pipeline.train.loss import loss_norms
    rows = [{"trained_len": n, "sft": s} for n, s in [(2, False), (6, False), (3, True), (5, False)]]
    window = [rows[:2], rows[2:]]
    assert loss_norms(window, "grpo", 160) == [[8, 24], [12, 20]]
    assert loss_norms(window, "bnpo", 160) == [[16.0, 16.0], [20.0, 20.0]]
    assert loss_norms(window, "dapo", 160) == [[13 / 3 * 4] * 2] * 2
    assert loss_norms(window, "dr_grpo", 160) == [[640.0] * 2] * 2
    assert loss_norms([rows[:2]], "grpo", 160) == [[4, 12]]          # a partial window: its own size
    masked = [{"trained_len": 0}, {"trained_len": 4}]                    # mask_truncated_completions
    assert loss_norms([masked], "dapo", 160) == [[4.0, 4.0]] and loss_norms([masked], "grpo", 160) == [[2, 8]]


def test_loss_type_reaches_the_loss(tiny_model):
    """With completions of one length every loss type divides by it (dr_grpo's constant set to it), so
    they train the same adapter; with ragged lengths dapo trains another one than grpo."""
    def lora_after(loss_type, lengths):
        cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                                 "update.grad_accum=2", "update.lr=1e-2", f"update.loss_type={loss_type}"])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        rows = [{"prompt_ids": [5, 6, 7], "completion_ids": list(range(20, 20 + n)), "advantage": (-1.0) ** i}
                for i, n in enumerate(lengths)]
        start = torch.cat([p.detach().flatten() for n, p in model.named_parameters() if "lora_" in n])
        update_loop.train(model, rows, cfg.update, 1.0, 0, seed=3, show_progress=False, max_len=max(lengths))
        return torch.cat([p.detach().flatten() for n, p in model.named_parameters() if "lora_" in n]), start, model

    same = [4, 4, 4, 4, 4, 4]
    base, start, model = lora_after("grpo", same)
    for lt in ("dapo", "dr_grpo"):
        assert_same_parameters({"lora": lora_after(lt, same)[0]}, {"lora": base}, {"lora": start}, model, 7, 24)
    ragged = [2, 9, 3, 7, 4, 6]
    assert (lora_after("dapo", ragged)[0] - lora_after("grpo", ragged)[0]).abs().max() > 1e-4


def test_epoch_2_continues_epoch_1s_adam_state_and_schedule(tiny_model, tmp_path):
    """update.optimizer_state=carry: epoch 1's update (2 passes) then epoch 2's (2 passes, from the
    optimizer.pt epoch 1 left beside its adapter) train exactly what one update of 4 passes over one
    4-step schedule trains (each pass is one micro-batch, so the pass order cannot differ). A fresh
    AdamW at epoch 2, or a schedule restarted inside it (reset), trains something else."""
    base = ["student.lora.r=4", "update.micro_batch_size=8", "update.grad_accum=1", "update.lr=3e-2",
            "update.warmup_steps=1", "update.scheduler=cosine", "update.kl_coef=0.1"]
    carry = load_config(None, [f"student.model={tiny_model}", *base, "update.epochs=2", "update.planned_epochs=2"]).update
    whole = carry.model_copy(update={"epochs": 4})
    tok = load_tokenizer(load_config(None, [f"student.model={tiny_model}"]).student)
    rows = [{"prompt_ids": [5, 6, 7 + i % 2], "completion_ids": [9, 10 + i, 11, 12 + i], "advantage": (-1.0) ** i}
            for i in range(6)]

    def fresh():
        torch.manual_seed(0)
        return load_student(load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"]).student,
                            trainable=True)

    def lora(m):
        return {n: p.detach().clone() for n, p in m.named_parameters() if "lora_" in n}

    lp = forward.rollout_logprobs(fresh(), rows, 1.0, tok.pad_token_id, True)
    kw = dict(temperature=1.0, pad_id=tok.pad_token_id, show_progress=False, logprobs=lp)
    one = fresh()
    update_loop.train(one, rows, whole, **kw)                                   # one schedule of 4 steps
    a = fresh()
    fig1 = update_loop.train(a, rows, carry, epoch=1, save_to=tmp_path / "e1" / "adapter", **kw)
    state = optim.carried_optimizer(tmp_path / "e1" / "adapter", carry)
    assert state is not None and all(int(s["step"]) == 2 for s in state["state"].values())
    fig2 = update_loop.train(a, rows, carry, epoch=2, optimizer_state=state, **kw)
    # float summation order only: the wrong schedules below differ by > 1e-4
    assert_same_parameters(lora(a), lora(one), lora(fresh()), one, 6, 24)
    assert fig1["optim/lr_last"] > fig2["optim/lr_last"]                    # the cosine fell across both

    # the same epoch 1, then epoch 2 with a fresh AdamW, or with the schedule restarted (reset)
    for epoch2 in (dict(epoch=2), dict(epoch=None, optimizer_state=state)):
        b = fresh()
        update_loop.train(b, rows, carry, epoch=1, **kw)
        update_loop.train(b, rows, carry, **epoch2, **kw)
        assert max(float((lora(b)[n] - p).abs().max()) for n, p in lora(one).items()) > 1e-4, epoch2

    # reset, or a policy without optimizer.pt (the warm-start's, the base model): nothing carried
    assert optim.carried_optimizer(tmp_path / "e1" / "adapter", carry.model_copy(update={"optimizer_state": "reset"})) is None
    assert optim.carried_optimizer(None, carry) is None


def test_a_carried_optimizer_that_does_not_fit_says_so(tiny_model, tmp_path):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=8"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6], "completion_ids": [9, 10 + i], "advantage": (-1.0) ** i} for i in range(2)]
    torch.manual_seed(0)
    update_loop.train(load_student(cfg.student, trainable=True), rows, cfg.update, 1.0, tok.pad_token_id,
                 show_progress=False, fresh_adapter=True, epoch=1, save_to=tmp_path / "adapter")
    state = optim.carried_optimizer(tmp_path / "adapter", cfg.update)
    wider = load_config(None, [f"student.model={tiny_model}", "student.lora.r=8"])
    with pytest.raises(RunError, match="optimizer_state=reset"):
        update_loop.train(load_student(wider.student, trainable=True), rows, cfg.update, 1.0, tok.pad_token_id,
                     show_progress=False, fresh_adapter=True, epoch=2, optimizer_state=state)


def test_a_bf16_students_logprobs_come_from_a_float32_head(tiny_model):
    """student.dtype=bfloat16 (a GPU's default): the logprobs stage and the update compute the LM
    head in float32 (head.fp32_head) from the bf16 hidden states, so the logprobs are the float32
    softmax of those, not of bf16-rounded logits; the head's own forward is back afterwards."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.dtype=bfloat16"])
    model = load_student(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10, 11, 12], "index": 0}]
    batch = forward.collate(rows, 0, False)
    lp, _ = forward.token_logprobs(model, batch, 0.7)
    shared, _ = forward.token_logprobs(model, forward.collate(rows, 0, True), 0.7)  # the shared-prompt path too
    with torch.no_grad():
        h = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                  output_hidden_states=True).hidden_states[-1][:, -5:-1]                       # (1, 4, H) bf16
        z32 = h.float() @ model.get_output_embeddings().weight.float().T
        z16 = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, -5:-1]
    target = torch.tensor([[9, 10, 11, 12]])
    want = torch.log_softmax(z32 / 0.7, -1).gather(-1, target[..., None])[..., 0]
    rounded = torch.log_softmax(z16.float() / 0.7, -1).gather(-1, target[..., None])[..., 0]
    scale = float(z32.abs().max()) / 0.7
    # the same bf16 hidden states, a float32 head and log-softmax: the head's and the vocabulary's sums
    head_tol = tolerance(torch.float32, scale, [model.config.hidden_size, model.config.vocab_size], elements=4)
    assert_close(lp, want, head_tol)
    # the shared-prompt path: other bf16 layers' roundings; no less accurate against float64 than the
    # padded batch's path (twice its error, another rounding order) plus the float32 head's bound
    exact = forward.token_logprobs(copy.deepcopy(model).double(), batch, 0.7)[0].double()
    assert float((shared - exact).abs().max()) <= 2 * float((lp - exact).abs().max()) + head_tol
    assert float((rounded - want).abs().max()) > head_tol                    # the bf16 head would differ
    assert z16.dtype == torch.bfloat16 and "forward" not in vars(model.get_output_embeddings())


def test_the_cuda_heads_tf32_function_is_the_float32_linear_on_the_cpu():
    """head.ExactTF32Linear (fp32_head's on CUDA): on the CPU, where the TF32 switch reaches no
    kernel, the same logits and the same gradient with respect to the hidden states as the float32
    linear, bit for bit, over (B, K, H) hidden states; the switch is back as it was after the forward,
    the backward, and a failing call. On CUDA: tests_gpu/test_cuda.py."""
    g = torch.Generator().manual_seed(0)
    h = torch.randn(2, 5, 16, generator=g).bfloat16().requires_grad_(True)
    w = torch.randn(40, 16, generator=g).bfloat16().float()
    b = torch.randn(40, generator=g).bfloat16().float()
    up = torch.randn(2, 5, 40, generator=g)
    before = torch.backends.cuda.matmul.allow_tf32
    y = head.ExactTF32Linear.apply(h.float(), w, b)
    (y * up).sum().backward()
    got, h.grad = h.grad, None
    want = torch.nn.functional.linear(h.float(), w, b)
    (want * up).sum().backward()
    assert torch.equal(y, want) and torch.equal(got, h.grad) and got.dtype == torch.bfloat16
    with pytest.raises(RuntimeError):
        head.ExactTF32Linear.apply(h.float(), w[:, :3], None)   # mismatched shapes
    assert torch.backends.cuda.matmul.allow_tf32 == before


def lrs_of_each_step(monkeypatch) -> list[float]:
    """The learning rate of every optimizer step the updates below take, in order."""
    seen: list[float] = []
    real = update_loop.lr_schedule

    def recording(optimizer, *a, **kw):
        optimizer.register_step_pre_hook(lambda opt, args, kwargs: seen.append(opt.param_groups[0]["lr"]))
        return real(optimizer, *a, **kw)
    monkeypatch.setattr(update_loop, "lr_schedule", recording)
    return seen


def test_an_epoch_of_other_step_count_continues_the_schedule(tiny_model, tmp_path, monkeypatch):
    """update.optimizer_state=carry, warmup_steps=4: epoch 1 takes 5 steps, epoch 2 only 3. Epoch 2's
    first step continues from step 5, where epoch 1's update left the schedule (schedule.pt beside its
    adapter), not from (2 - 1) x 3 = 3, back inside the warmup (lr x 0.75). A policy written before the
    position was kept (no schedule.pt) falls back to that estimate."""
    from transformers import get_scheduler
    uc = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=1",
                            "update.grad_accum=1", "update.lr=1e-3", "update.warmup_steps=4",
                            "update.planned_epochs=4", "update.scheduler=cosine"]).update
    tok = load_tokenizer(load_config(None, [f"student.model={tiny_model}"]).student)
    rows = [{"prompt_ids": [5, 6, 7 + i], "completion_ids": [9, 10 + i], "advantage": (-1.0) ** i} for i in range(5)]
    torch.manual_seed(0)
    model = load_student(load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"]).student, trainable=True)
    kw = dict(temperature=1.0, pad_id=tok.pad_token_id, show_progress=False)
    lrs = lrs_of_each_step(monkeypatch)

    def shape(span):
        dummy = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        return get_scheduler("cosine", dummy, num_warmup_steps=4, num_training_steps=span).lr_lambdas[0]

    update_loop.train(model, rows, uc, epoch=1, fresh_adapter=True, save_to=tmp_path / "e1" / "adapter", **kw)
    one = list(lrs)
    assert len(one) == 5 and one == pytest.approx([1e-3 * shape(20)(k) for k in range(5)])
    start = optim.carried_schedule(tmp_path / "e1" / "adapter", uc)
    assert start == 5
    state = optim.carried_optimizer(tmp_path / "e1" / "adapter", uc)
    update_loop.train(model, rows[:3], uc, epoch=2, optimizer_state=state, schedule_start=start,
                 save_to=tmp_path / "e2" / "adapter", **kw)
    two = lrs[5:]
    assert two == pytest.approx([1e-3 * shape(12)(k) for k in range(5, 8)])     # this epoch's span: 4 x 3 steps
    assert two[0] > 0.9 * one[-1] and one[-1] > 0.99e-3                          # no second warmup
    assert optim.carried_schedule(tmp_path / "e2" / "adapter", uc) == 8
    # without schedule.pt: today's estimate, (epoch - 1) x this epoch's steps
    (tmp_path / "e1" / "schedule.pt").unlink()
    assert optim.carried_schedule(tmp_path / "e1" / "adapter", uc) is None
    update_loop.train(model, rows[:3], uc, epoch=2, optimizer_state=state, **kw)
    assert lrs[8] == pytest.approx(1e-3 * 3 / 4)


def test_a_schedule_position_past_its_end_holds_the_end_value(caplog):
    """A run that has taken more steps than the schedule spans (epochs that shrank) holds at the
    schedule's end: cosine at 0 (its formula would climb back up past the end), cosine_with_restarts
    at 0 (no new cycle), constant at the peak; a warning says so and what to raise."""
    for name, end in (("cosine", 0.0), ("cosine_with_restarts", 0.0), ("linear", 0.0), ("constant", 1.0)):
        uc = load_config(None, ["update.planned_epochs=2", "update.warmup_steps=0", f"update.scheduler={name}"]).update
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        caplog.clear()
        sched = optim.lr_schedule(opt, uc, 4, epoch=2, start=7)                   # span 8: steps 7..10
        got = []
        for _ in range(4):
            got.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
        assert got[1:] == [end] * 3, name
        assert ("hold at the schedule's end" in caplog.text) == (name != "constant"), name


def test_a_policy_without_optimizer_state_still_trains(tiny_model, tmp_path, caplog):
    """A policy directory from before optimizer.pt existed (an adapter alone) is loaded by the update
    stage, which starts a fresh AdamW, says so, and leaves optimizer.pt and schedule.pt for the next."""
    import logging

    from pipeline.stages import POLICY, Ctx
    from pipeline.store.tables import save_table
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                             "update.grad_accum=1", "update.teacher_sft_coef=0", f"run.dir={tmp_path / 'runs'}"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10 + i], "advantage": (-1.0) ** i} for i in range(4)]
    torch.manual_seed(0)
    old = tmp_path / "update-old" / "adapter"
    update_loop.train(load_student(cfg.student, trainable=True), rows, cfg.update, 1.0, tok.pad_token_id,
                 show_progress=False, fresh_adapter=True, save_to=old)       # epoch None: the adapter alone
    assert (old / "adapter_config.json").exists() and not (old.parent / "optimizer.pt").exists()
    (tmp_path / "select").mkdir()
    save_table(rows, tmp_path / "select")
    (tmp_path / "out").mkdir()
    ctx = Ctx(cfg=cfg, epoch=2, out=tmp_path / "out", inputs={"select": tmp_path / "select", POLICY: old},
              run_dir=tmp_path / "runs", fingerprint="0123abcd")
    with caplog.at_level(logging.INFO, logger="rlaif"):
        update.run(ctx)
    assert "no optimizer.pt beside" in caplog.text and "a fresh AdamW" in caplog.text
    assert ctx.figures["optim/steps"] == 2
    # epoch 2 of 2 steps, without a stored position: from the estimate (2 - 1) x 2, to step 4
    assert (ctx.out / "optimizer.pt").exists() and optim.carried_schedule(ctx.out / "adapter", cfg.update) == 4


def test_the_teacher_term_fits_the_teachers_answers_at_t1(tiny_model):
    """update.teacher_sft_coef: the teacher's rows are fitted at T = 1 (their loss/sft is the mean token
    NLL of log softmax(z)), the student's at the sampling temperature, in one update. lr 0 keeps the
    model as it was, so the figure can be recomputed."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=4",
                             "update.grad_accum=1", "update.lr=0"])
    tok = load_tokenizer(cfg.student)
    teacher = {"prompt_ids": [5, 6, 7], "completion_ids": [40, 41, 42, 43, 44], "advantage": 0.0, "sft": True}
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10 + i, 11], "advantage": (-1.0) ** i} for i in range(3)]
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True)
    fig = update_loop.train(model, [*rows, teacher], cfg.update, 0.7, tok.pad_token_id, show_progress=False,
                       fresh_adapter=True, sft_coef=2.0)
    batch = forward.collate([{**teacher, "index": 0}], tok.pad_token_id)
    with torch.no_grad():
        nll = {t: float(-forward.token_logprobs(model, batch, t)[0][batch["completion_mask"].bool()].mean())
               for t in (1.0, 0.7)}
    # the update's forward and this one: the derived bound at the NLL's size (the log-softmax's terms)
    bound = logits_tolerance(model, batch["input_ids"].shape[-1], nll[1.0], 1, logprobs=True)
    assert abs(fig["loss/sft"] - nll[1.0]) <= bound
    assert abs(nll[0.7] - nll[1.0]) > 10 * bound
