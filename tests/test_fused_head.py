"""The fused LM head (pipeline/engines/head.py `fused_head`, forward.py FUSED_HEAD): the padded forward
applies the head itself a chunk of rows at a time, so a micro-batch's float32 logits never exist at
once. The same log-probabilities, entropies and gradients as the whole-batch head; a lower peak."""
from __future__ import annotations

import torch

from bench.update_profile import peak_bytes   # the profiler's memory events: the bench's measure
from pipeline.config.file import load_config
from pipeline.engines import forward, head
from pipeline.engines.model import load_student
from tests.test_device import _lora_with_signal
from tests.test_shared_prompt import assert_same_forward


def _rows(n: int, prompt: int = 7, seed: int = 2) -> list[dict]:
    gen = torch.Generator().manual_seed(seed)
    return [{"prompt_ids": torch.randint(5, 4000, (prompt,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (3 + 2 * i,), generator=gen).tolist(), "index": i}
            for i in range(n)]


def _pass(model, rows, temperature=0.7):
    model.zero_grad()
    batch = forward.collate(rows, 0)
    logp, ent = forward.token_logprobs(model, batch, temperature, with_entropy=True)
    (logp * batch["completion_mask"]).sum().backward()
    return logp.detach(), ent, {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}


def test_the_fused_head_gives_the_whole_heads_values_and_gradients(tiny_model, monkeypatch):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    model = _lora_with_signal(cfg).train()
    rows = _rows(5)
    assert head.fused_head(model) is not None   # a Llama, its head frozen: fusable
    monkeypatch.setattr(forward, "FUSED_HEAD", False)
    whole = _pass(model, rows)
    monkeypatch.setattr(forward, "FUSED_HEAD", True)
    for chunk in (forward.FUSED_CHUNK_ELEMS, 1):   # all rows in one chunk, then one row a chunk
        monkeypatch.setattr(forward, "FUSED_CHUNK_ELEMS", chunk)
        assert_same_forward(model, _pass(model, rows), whole, forward.collate(rows, 0), 0.7)
    with torch.no_grad():   # no grad (the logprobs stage, the eval): the same, without the recompute
        lp, ent = forward.token_logprobs(model, forward.collate(rows, 0), 0.7, with_entropy=True)
    assert torch.equal(lp, _pass(model, rows)[0]) and ent is not None


def test_the_head_is_fused_only_where_the_model_computes_nothing_after_it(tiny_model, monkeypatch):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    model = load_student(cfg.student, trainable=True)
    w, b = head.fused_head(model)
    assert w.dtype == torch.float32 and not w.requires_grad and b is None
    lm = model.get_output_embeddings()
    lm.weight.requires_grad_(True)      # a head that trains: its own forward, its own gradient
    assert head.fused_head(model) is None
    lm.weight.requires_grad_(False)
    monkeypatch.setattr(model.config, "model_type", "gemma2")   # logits softcapped after the head
    assert head.fused_head(model) is None
    monkeypatch.setattr(model.config, "model_type", "llama")
    bf16 = load_student(load_config(None, [f"student.model={tiny_model}", "student.dtype=bfloat16"]).student)
    assert head.fused_head(bf16) is None   # not a PEFT model: every weight requires grad
    with torch.no_grad():   # ... which no forward without grad trains
        w16, _ = head.fused_head(bf16)   # a bf16 head: the float32 copy fp32_head computes with
    assert w16.dtype == torch.float32 and torch.equal(w16, bf16.get_output_embeddings().weight.float())
    with head.hidden_states_out(bf16):
        h = bf16(input_ids=torch.tensor([[5, 6, 7]])).logits
    assert h.shape[-1] == bf16.config.hidden_size
    with torch.no_grad(), head.fp32_head(bf16):
        want = bf16(input_ids=torch.tensor([[5, 6, 7]])).logits
    assert torch.equal(head.head_linear(h, w16, None), want)   # the head applied outside: the same logits


def test_the_fused_head_lowers_the_peak_by_the_logits_copies(tiny_model, monkeypatch):
    """A micro-batch of 8 completions of 64 tokens on a 49k vocabulary: 16 MB of float32 logits a copy,
    the tiny model's activations a tenth of that. The whole head holds several copies at once (the
    logits, their tempered copy, the log-softmax's exp, their gradients); the fused head one chunk's."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    model = _lora_with_signal(cfg).train()
    gen = torch.Generator().manual_seed(3)
    rows = [{"prompt_ids": torch.randint(5, 4000, (8,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (64,), generator=gen).tolist(), "index": i} for i in range(8)]
    copy = 8 * 65 * model.config.vocab_size * 4
    peaks = {}
    for fused in (False, True):
        monkeypatch.setattr(forward, "FUSED_HEAD", fused)
        monkeypatch.setattr(forward, "FUSED_CHUNK_ELEMS", 65 * model.config.vocab_size)   # a row a chunk
        _pass(model, rows)   # warm-up
        peaks[fused] = peak_bytes(lambda: _pass(model, rows), cuda=False)
    # measured on an AMD EPYC: 4.98 copies, fused 0.66 (one chunk is an eighth of a copy)
    assert peaks[False] >= 4 * copy, peaks                 # the whole head: four copies or more at once
    assert peaks[True] <= peaks[False] - 3 * copy, peaks   # fused: at least three copies fewer
