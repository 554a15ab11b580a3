"""The CPU decode step's fused calls (pipeline/engines/csrc/cpu_step.cpp: add_rms_norm, rope_write, silu_mul,
sample_pick) against the operations they replace, transformers' own: LlamaRMSNorm,
apply_rotary_pos_emb and SiLU x up, and the sampler's softmax and streams.pick. In bf16 they round where those round, so the results are the same numbers; in float32
the RMSNorm's sum runs in another order (a last-place difference). The real model's shapes (the
vector loop) and odd ones (the scalar tail), and the step that uses them against transformers'
forward with norm weights that differ layer by layer."""
from __future__ import annotations

import copy

import pytest
import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm, apply_rotary_pos_emb

from pipeline.engines import cpu_attention
from pipeline.engines.decode_step import make_step
from tests.test_decode import student  # noqa: F401 (the tiny Llama and Qwen2 fixture)
from tests.test_decode_step import (assert_logits_close, assert_no_less_accurate, filled_cache, in_float64,
                                    transformers_prefill, transformers_step)
from tests.tolerance import assert_close, tolerance


@pytest.fixture(scope="module")
def fused():
    f = cpu_attention.module()
    assert f is not None, "the kernels must build where the tests run (a C++ compiler and ninja)"
    return f


def same(got: torch.Tensor, want: torch.Tensor, roundings: int) -> None:
    """bf16: the same numbers; float32: within the derived bound of `roundings` roundings at the values'
    magnitude (a sum of `roundings` terms: the RMSNorm's width; the rotary's two products and their
    sum; SiLU's exp, add, divide and multiply)."""
    if got.dtype == torch.bfloat16:
        assert torch.equal(got, want), float((got.float() - want.float()).abs().max())
    else:
        assert_close(got, want, tolerance(got.dtype, float(want.abs().max()), [roundings], elements=want.numel()))


DTYPES = [torch.float32, torch.bfloat16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,width", [(1, 576), (13, 576), (3, 40), (9, 1536)])
def test_add_rms_norm_is_the_residual_add_and_transformers_norm(fused, dtype, n, width):
    gen = torch.Generator().manual_seed(n * width)
    x, y = (torch.randn(n, width, generator=gen).to(dtype) for _ in range(2))
    norm = LlamaRMSNorm(width, eps=1e-5).to(dtype)
    with torch.no_grad():
        norm.weight.copy_(torch.rand(width, generator=gen) + 0.5)
        want_x = x + y
        want = norm(want_x)
        got_x = x.clone()
        got = fused.add_rms_norm(got_x, y, norm.weight.detach(), 1e-5)
        assert torch.equal(got_x, want_x)                            # the residual, added in place
        same(got, want, width)
        alone = x.clone()
        same(fused.add_rms_norm(alone, None, norm.weight.detach(), 1e-5), norm(x), width)
        assert torch.equal(alone, x)                                 # no y: x untouched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,heads,kv_heads,dim", [(3, 9, 3, 64), (2, 4, 2, 16), (5, 14, 2, 128), (1, 2, 1, 6)])
def test_rope_write_rotates_like_transformers_and_writes_the_cache_at_pos(fused, dtype, n, heads, kv_heads, dim):
    gen = torch.Generator().manual_seed(dim + n)
    h = torch.randn(n, (heads + 2 * kv_heads) * dim, generator=gen).to(dtype)
    cos, sin = (torch.randn(n, dim, generator=gen).to(dtype) for _ in range(2))
    signed = torch.cat((-sin[:, : dim // 2], sin[:, dim // 2:]), -1)    # the step's sine: first half negated
    room = 12
    kc = torch.full((n + 2, kv_heads, room, dim), 7.0, dtype=dtype)
    vc = kc.clone()
    pos = torch.tensor([3, 0, room - 1, 5, 8][:n])
    q = fused.rope_write(h, cos, signed, kc, vc, pos, heads)
    q_in = h[:, : heads * dim].view(n, heads, dim).transpose(0, 1)[None]
    k_in = h[:, heads * dim: (heads + kv_heads) * dim].view(n, kv_heads, dim).transpose(0, 1)[None]
    want_q, want_k = (t[0].transpose(0, 1) for t in apply_rotary_pos_emb(q_in, k_in, cos[None], sin[None]))
    same(q, want_q, 3)
    rows = torch.arange(n)
    same(kc[rows, :, pos], want_k, 3)
    assert torch.equal(vc[rows, :, pos], h[:, (heads + kv_heads) * dim:].view(n, kv_heads, dim))
    kc[rows, :, pos] = 7.0
    vc[rows, :, pos] = 7.0
    assert bool((kc == 7.0).all()) and bool((vc == 7.0).all())        # nothing else written


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,inner", [(1, 1536), (7, 1536), (3, 40)])
def test_silu_mul_is_silu_of_gate_times_up(fused, dtype, n, inner):
    h = torch.randn(n, 2 * inner, generator=torch.Generator().manual_seed(inner)).to(dtype) * 4
    same(fused.silu_mul(h), torch.nn.functional.silu(h[:, :inner]) * h[:, inner:], 4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("vocab", [49152, 1000, 37])
def test_sample_pick_draws_streams_pick_from_the_tempered_softmax(fused, dtype, vocab):
    """The same token as pipeline.engines.streams.pick on softmax(logits / T) at the same uniforms (a
    rounding tie apart: the target within a float32 rounding of a cumulative boundary), and the log
    of its probability."""
    from pipeline.engines.streams import pick
    gen = torch.Generator().manual_seed(vocab)
    n = 256
    logits = (torch.randn(n, vocab, generator=gen) * torch.rand(n, 1, generator=gen) * 8).to(dtype)
    logits[0, 5:] = float("-inf")                                        # a row with 5 tokens possible
    u = torch.rand(n, generator=gen)
    u[0] = 0.9999999
    ids, logp = fused.sample_pick(logits, 0.7, u)
    probs = torch.softmax(logits.float() / 0.7, -1)
    want = pick(probs, u)
    assert int((ids == want).sum()) >= n - 2 and int(ids[0]) < 5
    same_ids = ids == want
    # log softmax(z / T): the vocabulary's sum at the tempered logits' magnitude
    finite = logits.float()[logits.float().isfinite()]
    atol = tolerance(torch.float32, float(finite.abs().max()) / 0.7, [vocab], elements=n)
    assert_close(logp[same_ids], probs.gather(1, want[:, None])[:, 0].log()[same_ids], atol)


def test_a_row_of_nan_logits_leaves_the_other_rows_draws_alone(fused):
    """The rows share a buffer padded past the vocabulary (1000 is no multiple of 256): a row whose
    logits hold a NaN must not leave NaN there for the next rows."""
    from pipeline.engines.streams import pick
    logits = torch.randn(4, 1000, generator=torch.Generator().manual_seed(4))
    u = torch.rand(4, generator=torch.Generator().manual_seed(5))
    alone = fused.sample_pick(logits[1:].contiguous(), 0.7, u[1:].contiguous())[0]
    logits[0, 3] = float("nan")
    with_nan = fused.sample_pick(logits, 0.7, u)[0]
    assert torch.equal(with_nan[1:], alone)
    assert torch.equal(alone, pick(torch.softmax(logits[1:] / 0.7, -1), u[1:]))


def test_a_float16_student_samples_through_torchs_pick(student):  # noqa: F811
    """sample_pick takes float32 and bf16: a float16 student on the CPU draws with torch's softmax
    and streams.pick, and the fused pick with float32, the same tokens."""
    from pipeline.engines.decode import decode
    cfg, tok, model, prompts = student
    seeds = [[7 * g + j for j in range(2)] for g in range(len(prompts))]
    stats: dict = {}
    half = decode(copy.deepcopy(model).to(torch.float16), tok, prompts, 2, 8, 4, seeds=seeds, temperature=0.8,
                  stats=stats)
    assert stats["pick"] == "torch" and all(len(r["ids"]) for rows in half for r in rows)
    fast, slow = {}, {}
    a = decode(model, tok, prompts, 2, 8, 4, seeds=seeds, temperature=0.8, stats=fast)
    b = decode(model, tok, prompts, 2, 8, 4, seeds=seeds, warp=lambda z: z / 0.8, stats=slow)
    assert (fast["pick"], slow["pick"]) == ("kernel", "torch")
    assert [r["ids"] for rows in a for r in rows] == [r["ids"] for rows in b for r in rows]


def test_bad_input_is_refused_by_name(fused):
    h = torch.randn(2, (4 + 2 * 2) * 16)
    kc = torch.zeros(3, 2, 8, 16)
    cs = torch.randn(2, 16)
    with pytest.raises(RuntimeError, match="row 1 at position 8 outside the cache's 8"):
        fused.rope_write(h, cs, cs, kc, kc.clone(), torch.tensor([0, 8]), 4)
    with pytest.raises(RuntimeError, match="float32 or bfloat16"):
        fused.silu_mul(torch.zeros(2, 8, dtype=torch.float16))
    with pytest.raises(RuntimeError, match="u float32"):
        fused.sample_pick(torch.zeros(2, 8), 1.0, torch.zeros(3))
    with pytest.raises(RuntimeError, match="weight"):
        fused.add_rms_norm(torch.zeros(2, 8), None, torch.ones(9), 1e-5)


def norms_that_differ(model, dtype):
    """A copy of the model in dtype whose every RMSNorm weight is its own random numbers (a fresh
    model's are all ones, which would hide a norm applied in the wrong place)."""
    model = copy.deepcopy(model).to(dtype)
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(torch.rand(p.shape, generator=gen) + 0.5)
    return model


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_fused_step_gives_transformers_logits_with_norms_that_differ(student, dtype):  # noqa: F811
    """Every RMSNorm weight its own random numbers (a fresh model's are all ones, which would hide a
    norm applied in the wrong place): the step with the fused calls against transformers' forward."""
    cfg, tok, model, prompts = student
    model = norms_that_differ(model, dtype)
    cache, ids, pos = filled_cache(model, prompts, [0, 3, 7, 1])
    other = copy.deepcopy(cache)
    model64, cache64 = in_float64(model, cache)
    step = make_step(model, 200)
    assert step.fused is not None, "the fused calls must run for this model"
    cache.fit(int(pos.max()) + 1, len(ids))
    ours, ref = step(ids, pos, cache), transformers_step(model, other, ids, pos)
    if dtype == torch.float32:
        assert_logits_close(model, ours, ref)
    else:   # bf16 rounds in another order: no less accurate than transformers' against float64
        assert_no_less_accurate(ours, ref, transformers_step(model64, cache64, ids, pos), "logits")
    assert float(ref.float().std()) > 0.1


def test_the_bf16_prefill_through_the_fused_norms_is_no_less_accurate_than_transformers(student):  # noqa: F811
    """The bf16 prefill adds each residual and norms it in one fused call (`_add_norm`): its keys,
    values and last logits, whole and continuing from a prefix, no further from the float64
    computation than transformers' bf16 forward is."""
    cfg, tok, model, prompts = student
    model = norms_that_differ(model, torch.bfloat16)
    model64 = copy.deepcopy(model).double()
    step = make_step(model, 200)
    assert step.fused is not None, "the fused calls must run for this model"
    calls = []
    real = step.fused
    step.fused = type("Counting", (), {"__getattr__": lambda _, n: getattr(real, n),
                                       "add_rms_norm": lambda _, *a: calls.append(1) or real.add_rms_norm(*a)})()
    for ids in prompts:
        ref_kv, ref_logits = transformers_prefill(model, ids)
        exact_kv, exact_logits = transformers_prefill(model64, ids)
        head, _ = step.prefill(torch.tensor(ids[:7]))
        for kv, logits in (step.prefill(torch.tensor(ids)), step.prefill(torch.tensor(ids[7:]), 7, head)):
            assert logits.dtype == torch.bfloat16
            assert_no_less_accurate(logits, ref_logits, exact_logits, "logits")
            for layer, ((k, v), (rk, rv), (ek, ev)) in enumerate(zip(kv, ref_kv, exact_kv)):
                assert_no_less_accurate(k, rk, ek, f"k{layer}")
                assert_no_less_accurate(v, rv, ev, f"v{layer}")
    assert len(calls) >= 2 * len(step.layers) + 1    # every norm of a prefill went through the fused call
    assert float(ref_logits.float().std()) > 0.1
