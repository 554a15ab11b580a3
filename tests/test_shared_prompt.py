"""update.share_prompt: each prompt of a micro-batch run once for all of its completions, and a
micro-batch with no prompt to share run as one padded batch; values, entropy and LoRA gradients
those of the padded batch either way."""
from __future__ import annotations

import torch

from pipeline.engines import forward
from pipeline.config.file import load_config
from pipeline.engines.model import load_student
from tests.tolerance import assert_close, gradient_tolerance, logits_tolerance


def assert_same_forward(model, got: tuple, want: tuple, batch: dict, temperature: float) -> None:
    """Log-probabilities, entropies and LoRA gradients of two float32 paths through one batch: each
    within its derived bound (the logits' magnitude for the log-softmax and the entropy's sums)."""
    keys, tokens = batch["input_ids"].shape[-1], int(batch["completion_mask"].sum())
    with torch.no_grad():
        scale = float(model(input_ids=batch["input_ids"]).logits.abs().max()) / temperature
    for a, b, what in ((got[0], want[0], "logprobs"), (got[1], want[1], "entropy")):
        assert_close(a, b, logits_tolerance(model, keys, scale, b.numel(), logprobs=True), what)
    bound = gradient_tolerance(model, keys, tokens)
    for n, g in want[2].items():
        assert g.norm() > 0, n
        assert (got[2][n] - g).norm() / g.norm() <= bound, n  # float32 summation order differs, no more


def test_shared_prompt_forward_gives_the_same_logprobs_and_gradients(tiny_model):
    """update.share_prompt: each prompt of a micro-batch runs once and its keys/values serve all of
    its completions. Values, entropy and LoRA gradients must equal the padded batch's."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=8", "student.lora.alpha=16"])
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True)
    for name, p in model.named_parameters():
        if "lora_B" in name:
            p.data.normal_(0, 0.05)  # a trained-looking adapter, so the LoRA path carries gradient everywhere
    gen = torch.Generator().manual_seed(1)
    prompts = [torch.randint(5, 4000, (n,), generator=gen).tolist() for n in (11, 17)]
    rows = [{"prompt_ids": prompts[i % 2], "completion_ids": torch.randint(5, 4000, (3 + 4 * i,), generator=gen).tolist(),
             "advantage": 1.0, "index": i} for i in range(6)]  # two prompts interleaved, ragged completions
    got = {}
    for shared in (False, True):
        model.zero_grad()
        batch = forward.collate(rows, 0, share_prompt=shared)
        assert ("groups" in batch) == shared
        logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
        (logp * batch["completion_mask"]).sum().backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
        got[shared] = (logp.detach() * batch["completion_mask"], ent * batch["completion_mask"], grads)
    assert_same_forward(model, got[True], got[False], forward.collate(rows, 0, share_prompt=False), 0.7)


def test_rows_of_distinct_prompts_run_as_one_padded_batch(tiny_model):
    """A micro-batch whose rows all have prompts of their own (the warm-start's, the teacher's) has no
    prompt to share: with update.share_prompt on it runs as the padded batch, in one call (the
    per-prompt loop would make two a row), with the per-prompt loop's values and gradients."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=8", "student.lora.alpha=16"])
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True)
    for name, p in model.named_parameters():
        if "lora_B" in name:
            p.data.normal_(0, 0.05)
    gen = torch.Generator().manual_seed(2)
    rows = [{"prompt_ids": torch.randint(5, 4000, (n,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (c,), generator=gen).tolist(), "advantage": 1.0, "index": i}
            for i, (n, c) in enumerate([(11, 3), (17, 9), (5, 1), (23, 6)])]   # ragged prompts and completions
    calls = []
    hook = model.register_forward_pre_hook(lambda m, a, kw: calls.append(kw["input_ids"].shape), with_kwargs=True)
    got = {}
    for path in ("shared", "per prompt"):
        model.zero_grad()
        calls.clear()
        batch = forward.collate(rows, 0, share_prompt=True)
        if path == "per prompt":
            logp, ent = forward._shared_prompt_logprobs(model, batch, 0.7, True)
        else:
            logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
        (logp * batch["completion_mask"]).sum().backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
        got[path] = (logp.detach() * batch["completion_mask"], ent * batch["completion_mask"], grads, list(calls))
    hook.remove()
    assert got["shared"][3] == [torch.Size([4, 23 + 6])] and len(got["per prompt"][3]) == 8
    assert_same_forward(model, got["shared"], got["per prompt"], forward.collate(rows, 0, share_prompt=False), 0.7)


def test_an_update_with_activation_checkpointing_runs_and_trains_alike(tiny_model):
    """A checkpointed model trains without its key/value cache: the shared-prompt path (on by default on the
    CPU) got no prompt keys/values and the update stopped with an AttributeError. It runs the padded batch
    there, to the adapter the padded batch trains without checkpointing (the same operations, recomputed)."""
    from pipeline.stages.update_loop import train
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
                             "update.micro_batch_size=4", "update.grad_accum=1"])
    gen = torch.Generator().manual_seed(3)
    prompt = torch.randint(5, 4000, (9,), generator=gen).tolist()
    rows = [{"prompt_ids": prompt, "completion_ids": torch.randint(5, 4000, (4,), generator=gen).tolist() + [2],
             "advantage": a, "finish_reason": "eos"} for a in (1.0, -1.0, 0.5, -0.5)]
    adapters = {}
    for checkpointing in (False, True):
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        if checkpointing:   # (transformers before 5.20, the vllm extras', has only the older name)
            base = model.base_model.model
            on = getattr(base, "activation_checkpointing_enable", None)
            on(activation_checkpointing_kwargs={"use_reentrant": False}) if on else base.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": False})
        uc = cfg.update.model_copy(update={"activation_checkpointing": checkpointing,
                                           "share_prompt": "auto" if checkpointing else False})
        train(model, rows, uc, 0.7, 0, show_progress=False, fresh_adapter=True)
        adapters[checkpointing] = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
    assert all(p.abs().max() > 0 for n, p in adapters[True].items() if "lora_B" in n)   # trained from zero
    for n, p in adapters[False].items():
        assert torch.equal(adapters[True][n], p), n
