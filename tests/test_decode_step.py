"""The decode loop's own one-token step (pipeline/engines/decode_step.py) against transformers' forward: the
same logits on tiny random Llama and Qwen2 models (float32 to rounding, bf16 to bf16's), merged LoRA
included; the loop's tokens the same either way; models it does not compute exactly are left to
transformers' forward."""
from __future__ import annotations

import copy

import pytest
import torch

from pipeline.engines.decode import SlotCache, decode, model_shape, slot_attention_on
from pipeline.engines.decode_step import make_step
from tests.test_decode import student  # noqa: F401 (the tiny Llama and Qwen2 fixture)
from tests.tolerance import assert_close, logits_tolerance, tolerance, model_chain


def filled_cache(model, prompts: list[list[int]], extra: list[int]) -> tuple[SlotCache, torch.Tensor, torch.Tensor]:
    """A SlotCache whose row i holds prompt i and extra[i] further tokens, written by transformers'
    forward one token a step (rows at different lengths), and the next token of each row and its
    position."""
    layers, kv_heads, head_dim = model_shape(model)
    p = next(model.parameters())
    cache = SlotCache(layers, len(prompts) + 2, kv_heads, head_dim, p.dtype, p.device)
    torch.manual_seed(0)
    seqs = [list(pr) + torch.randint(0, 1000, (e,)).tolist() for pr, e in zip(prompts, extra)]
    with slot_attention_on(model), torch.no_grad():
        for slot, s in enumerate(seqs):
            cache.prefilling = []
            n = len(s)
            causal = torch.full((n, n), float("-inf")).triu(1)[None, None].to(p.dtype)
            model(input_ids=torch.tensor([s]), attention_mask=causal, position_ids=torch.arange(n)[None],
                  past_key_values=cache, use_cache=True, logits_to_keep=1)
            kv = cache.prefilling
            cache.prefilling = None
            cache.fit(max(len(x) for x in seqs) + 1, slot)
            cache.put(slot, kv)
    pos = torch.tensor([len(s) for s in seqs])
    nxt = torch.randint(0, 1000, (len(seqs),))
    return cache, nxt, pos


def transformers_step(model, cache: SlotCache, ids: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
    n = len(ids)
    cache.fit(int(pos.max()) + 1, n)
    cache.n, cache.rows, cache.pos = n, torch.arange(n), pos
    mask = torch.where(torch.arange(cache.span)[None, :] <= pos[:, None], 0.0, float("-inf"))
    with slot_attention_on(model), torch.no_grad():
        return model(input_ids=ids[:, None], attention_mask=mask[:, None, None, :], position_ids=pos[:, None],
                     past_key_values=cache, use_cache=True).logits[:, -1]


def in_float64(model, cache: SlotCache) -> tuple[torch.nn.Module, SlotCache]:
    """The model and the cache's contents in float64: the exact computation on the same inputs, against
    which a bf16 step's rounding is measured."""
    exact = copy.deepcopy(cache)
    exact.k = [k.double() for k in cache.k]
    exact.v = [v.double() for v in cache.v]
    exact.dtype = torch.float64
    return copy.deepcopy(model).double(), exact


def assert_no_less_accurate(ours: torch.Tensor, ref: torch.Tensor, exact: torch.Tensor, what: str) -> None:
    """bf16: our result's error against the float64 computation at most twice transformers' own bf16
    error there (another rounding order of the same length: an error of the same size; 2x the larger of
    two such maxima), plus one bf16 rounding of the largest value (a tie that rounds the other way)."""
    err_ref = float((ref.double() - exact).abs().max())
    err_ours = float((ours.double() - exact).abs().max())
    one = torch.finfo(torch.bfloat16).eps / 2 * float(exact.abs().max())
    assert err_ours <= 2 * err_ref + one, f"{what}: bf16 error {err_ours:.3g} against transformers' {err_ref:.3g}"


def both_steps(model, prompts):
    cache, ids, pos = filled_cache(model, prompts, [0, 3, 7, 1][: len(prompts)])
    other = copy.deepcopy(cache)
    low = next(model.parameters()).dtype == torch.bfloat16
    if low:
        model64, cache64 = in_float64(model, cache)
    step = make_step(model, 200)
    assert step is not None, "the step must take this model"
    cache.fit(int(pos.max()) + 1, len(ids))
    ours = step(ids, pos, cache)
    ref = transformers_step(model, other, ids, pos)
    n, keys = len(ids), int(pos.max()) + 1
    if low:
        exact = transformers_step(model64, cache64, ids, pos)
        assert_no_less_accurate(ours, ref, exact, "logits")
    for layer in range(len(cache.k)):                     # the step wrote the same keys and values
        for name, a, b in (("k", cache.k[layer][:n], other.k[layer][:n]), ("v", cache.v[layer][:n], other.v[layer][:n])):
            if low:
                assert_no_less_accurate(a, b, (cache64.k if name == "k" else cache64.v)[layer][:n], f"{name}{layer}")
            else:   # the reductions up to layer `layer`'s k/v projection, at the values' magnitude
                atol = tolerance(a.dtype, float(b.abs().max()), model_chain(model, keys)[: 9 * layer + 2],
                                 elements=b.numel())
                assert_close(a, b, atol, f"{name}{layer}")
    return ours, ref


def logit_scale(model, prompts) -> float:
    """The largest |logit| the model gives over the prompts: the magnitude the log-softmax's sums add up."""
    with torch.no_grad():
        return max(float(model(input_ids=torch.tensor([p])).logits.abs().max()) for p in prompts)


def assert_logps_close(model, prompts, got: list[float], want: list[float], new: int, temperature: float) -> None:
    """float32 logprobs of one completion from two decode paths: the derived bound for log-softmax(z / T)
    at the logits' magnitude, over the longest prompt and the completion's keys."""
    keys = max(len(p) for p in prompts) + new
    assert_close(torch.tensor(got), torch.tensor(want),
                 logits_tolerance(model, keys, logit_scale(model, prompts) / temperature, max(1, len(want)),
                                  logprobs=True), "logprobs")


def assert_logits_close(model, ours, ref, keys: int = 16) -> None:
    """float32 logits of our step and transformers': the derived bound at their magnitude."""
    assert_close(ours, ref, logits_tolerance(model, keys, float(ref.abs().max()), ref.numel()), "logits")


def test_the_step_gives_transformers_logits(student):  # noqa: F811
    cfg, tok, model, prompts = student
    ours, ref = both_steps(model, prompts)
    assert_logits_close(model, ours, ref)
    assert float(ref.std()) > 0.1                         # logits that differ between tokens: not a blank test


def test_the_step_in_bf16_and_with_a_merged_lora(student):  # noqa: F811
    cfg, tok, model, prompts = student
    from peft import get_peft_model

    from pipeline.engines.model import lora_config
    peft = get_peft_model(copy.deepcopy(model), lora_config(cfg.student))
    torch.manual_seed(2)
    with torch.no_grad():
        for name, p in peft.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.3)
    assert make_step(peft, 200) is None                   # an unmerged LoRA adds its own term: transformers steps
    peft.merge_adapter()
    ours, ref = both_steps(peft, prompts)
    assert_logits_close(peft, ours, ref)
    plain_ours, _ = both_steps(model, prompts)
    assert float((ours - plain_ours).abs().max()) > 1e-3  # the merged LoRA moved the logits
    half = copy.deepcopy(model).to(torch.bfloat16)
    ours, ref = both_steps(half, prompts)                 # bf16: no less accurate than transformers' (both_steps)
    assert ours.dtype == ref.dtype == torch.bfloat16


@pytest.mark.parametrize("other", ["transformers", "ours-sdpa"])
def test_the_loop_is_the_same_with_either_step(student, other):  # noqa: F811
    """Our step (its attention the CPU kernel) against transformers' forward, and against our step
    with SDPA's attention (sample.decode_step=ours-sdpa): the same tokens, the same logprobs."""
    cfg, tok, model, prompts = student
    seeds = [[11 * g + j for j in range(3)] for g in range(len(prompts))]
    warp = lambda z: z / 0.9  # noqa: E731
    fast_stats, slow_stats = {}, {}
    fast = decode(model, tok, prompts, 3, 16, 5, seeds=seeds, warp=warp, stats=fast_stats)
    slow = decode(model, tok, prompts, 3, 16, 5, seeds=seeds, warp=warp, decode_step=other, stats=slow_stats)
    assert fast_stats["attention"] == "kernel"
    assert (slow_stats["step"], slow_stats["attention"]) == (("transformers",) * 2 if other == "transformers"
                                                             else ("decode_step", "sdpa"))
    same = sum(a["ids"] == b["ids"] for fa, sl in zip(fast, slow) for a, b in zip(fa, sl))
    assert same >= len(prompts) * 3 - 1                   # at most a rounding tie apart
    for fa, sl in zip(fast, slow):
        for a, b in zip(fa, sl):
            k = next((i for i, (x, y) in enumerate(zip(a["ids"], b["ids"])) if x != y), len(a["ids"]))
            assert_logps_close(model, prompts, a["logps"][:k], b["logps"][:k], 16, 0.9)
    greedy_fast = decode(model, tok, prompts, 1, 16, 3)
    greedy_slow = decode(model, tok, prompts, 1, 16, 3, decode_step=other)
    assert [r[0]["ids"] for r in greedy_fast] == [r[0]["ids"] for r in greedy_slow]


def test_models_the_step_does_not_compute_go_through_transformers(student):  # noqa: F811
    cfg, tok, model, prompts = student
    other = copy.deepcopy(model)
    other.config.model_type = "gpt_neox"                  # another rotary convention
    assert make_step(other, 200) is None
    windowed = copy.deepcopy(model)
    windowed.config.sliding_window, windowed.config.use_sliding_window = 64, True
    assert make_step(windowed, 200) is None and make_step(windowed, 50) is not None
    assert make_step(copy.deepcopy(model).to("meta"), 200) is None  # off the CPU: transformers' forward
    odd = copy.deepcopy(model)
    odd.model.layers[1].mlp.up_proj = torch.nn.Sequential(odd.model.layers[1].mlp.up_proj)
    assert make_step(odd, 200) is None


@pytest.mark.parametrize("attention", ["kernel", "sdpa"])
def test_a_step_reads_no_key_past_the_longest_live_row(student, attention):  # noqa: F811
    """SDPA reads positions [0, span), span the live rows' longest rounded up to SlotCache.SPAN, not
    the whole room: NaN written past the span (where a longer, finished row left its keys) changes
    nothing, on either step; with the span widened to the room, it poisons the logits. The kernel
    (pipeline.engines.cpu_attention) reads each row's own positions [0, pos] only: NaN past them, inside the
    span too, changes nothing."""
    cfg, tok, model, prompts = student
    cache, ids, pos = filled_cache(model, prompts, [0, 3, 7, 1][: len(prompts)])
    n, longest = len(ids), int(pos.max()) + 1
    cache.fit(4 * SlotCache.CHUNK, n)                     # a room far past every live row
    span = -(-longest // SlotCache.SPAN) * SlotCache.SPAN
    assert span < cache.room
    clean = copy.deepcopy(cache)
    for k, v in zip(cache.k, cache.v):
        k[:, :, span:], v[:, :, span:] = float("nan"), float("nan")
    step = make_step(model, 200, attention=attention)
    assert step.attention == attention
    results = []
    for c in (clean, copy.deepcopy(cache), copy.deepcopy(cache)):
        c.reach(longest)
        assert c.span == span
        results.append((step(ids, pos, c), transformers_step(model, c, ids, pos)))
    for ours, ref in results[1:]:
        assert torch.equal(ours, results[0][0]) and torch.equal(ref, results[0][1])
    poisoned = copy.deepcopy(cache)
    poisoned.span = poisoned.room                         # what reading the whole room would do
    if attention == "sdpa":
        assert torch.isnan(step(ids, pos, poisoned)).all()
        return
    assert torch.equal(step(ids, pos, poisoned), results[0][0])
    for k, v in zip(poisoned.k, poisoned.v):              # each row's keys past its own position
        for r in range(n):
            k[r, :, int(pos[r]) + 1:], v[r, :, int(pos[r]) + 1:] = float("nan"), float("nan")
    # the kernel reads each row's keys [0, pos] however far the span reaches, but a wider span may block
    # its sums otherwise: one more attention's rounding, the attention's reductions at the logits' size
    clean_logits = results[0][0]
    assert_close(step(ids, pos, poisoned), clean_logits,
                 tolerance(torch.float32, float(clean_logits.abs().max()), model_chain(model, longest),
                           elements=clean_logits.numel()), "logits")


@pytest.mark.parametrize("n", [1, 3])
def test_the_step_of_one_row_and_of_several(student, n):  # noqa: F811
    cfg, tok, model, prompts = student
    ours, ref = both_steps(model, prompts[:n])
    assert_logits_close(model, ours, ref)


def transformers_prefill(model, ids: list[int]) -> tuple[list, torch.Tensor]:
    """One prompt through transformers' forward: per layer its keys and values, and the last logits."""
    layers, kv_heads, head_dim = model_shape(model)
    p = next(model.parameters())
    cache = SlotCache(layers, 1, kv_heads, head_dim, p.dtype, p.device)
    cache.prefilling = []
    n = len(ids)
    causal = torch.full((n, n), float("-inf")).triu(1)[None, None].to(p.dtype)
    with slot_attention_on(model), torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), attention_mask=causal, position_ids=torch.arange(n)[None],
                    past_key_values=cache, use_cache=True, logits_to_keep=1)
    return cache.prefilling, out.logits[:, -1]


def test_the_prefill_gives_transformers_keys_and_logits(student):  # noqa: F811
    """A prompt prefilled by the step, whole or continuing from the keys and values of its first
    tokens (the template's opening, prefilled once): transformers' keys, values and last logits."""
    cfg, tok, model, prompts = student
    step = make_step(model, 200)
    for ids in prompts:
        ref_kv, ref_logits = transformers_prefill(model, ids)
        head, _ = step.prefill(torch.tensor(ids[:7]))
        for kv, logits in (step.prefill(torch.tensor(ids)), step.prefill(torch.tensor(ids[7:]), 7, head)):
            assert_logits_close(model, logits, ref_logits, len(ids))
            chain = model_chain(model, len(ids))
            for layer, ((k, v), (rk, rv)) in enumerate(zip(kv, ref_kv)):
                assert k.shape == rk.shape == (1, model_shape(model)[1], len(ids), model_shape(model)[2])
                for a, b in ((k, rk), (v, rv)):
                    assert_close(a, b, tolerance(b.dtype, float(b.abs().max()), chain[: 9 * layer + 2],
                                                 elements=b.numel()), f"layer {layer}")
    assert float(ref_logits.std()) > 0.1


def test_the_padded_step_of_cuda_graphs_keeps_the_live_rows(student, monkeypatch):  # noqa: F811
    """sample.decode_step=graphs pads the live rows to a bucket (8, 16, ... up to the slots) with rows
    in the free slots; run eagerly on the CPU (what a CUDA graph replays), the loop draws what the
    plain step draws: the padding rows' writes land in slots no live row holds."""
    import pipeline.engines.decode as dec
    from pipeline.engines.graphed_step import GraphedStep
    cfg, tok, model, prompts = student
    seeds = [[7 * g + j for j in range(4)] for g in range(len(prompts))]
    warp = lambda z: z / 0.8  # noqa: E731
    plain = decode(model, tok, prompts, 4, 20, 11, seeds=seeds, warp=warp)
    seen = []

    def graphed(*args, **kw):
        step = GraphedStep(make_step(*args, **kw), args[2], capture=False)
        seen.append(step)
        return step

    monkeypatch.setattr(dec, "make_step", graphed)
    padded = decode(model, tok, prompts, 4, 20, 11, seeds=seeds, warp=warp)
    assert {k[0] for k in seen[0].graphs} == {8, 11}       # a bucket of 8 rows and one of the 11 slots
    assert seen[0].replays == 0                             # run eagerly: no graph was replayed
    assert all(span % GraphedStep.SPAN == 0 or span == seen[0].cache_key[1] for _, span in seen[0].graphs)
    pairs = [(a, b) for pa, pb in zip(plain, padded) for a, b in zip(pa, pb)]
    assert sum(a["ids"] == b["ids"] for a, b in pairs) >= len(pairs) - 1   # at most a rounding tie apart
    for a, b in pairs:
        k = next((i for i, (x, y) in enumerate(zip(a["ids"], b["ids"])) if x != y), len(a["ids"]))
        assert_logps_close(model, prompts, a["logps"][:k], b["logps"][:k], 20, 0.8)
    greedy = decode(model, tok, prompts, 1, 20, 3)
    monkeypatch.undo()
    stats: dict = {}
    assert [r[0]["ids"] for r in greedy] == [r[0]["ids"] for r in decode(model, tok, prompts, 1, 20, 3,
                                                                          decode_step="graphs", stats=stats)]
    assert stats["step"] == "decode_step"                  # on the CPU, graphs is the plain step


def test_the_loop_frees_its_cache_and_step_on_return(student, monkeypatch):  # noqa: F811
    """decode's KV cache and step (its fused weights) go when it returns, at once: no reference cycle
    through the loop's closures keeps them for a full garbage collection (gc off meanwhile)."""
    import gc
    import weakref

    import pipeline.engines.decode as dec
    cfg, tok, model, prompts = student
    made, make = [], dec.make_step

    class Watched(dec.SlotCache):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            made.append(weakref.ref(self))

    def watched_step(*args, **kw):
        step = make(*args, **kw)
        made.append(weakref.ref(step))
        return step

    monkeypatch.setattr(dec, "SlotCache", Watched)
    monkeypatch.setattr(dec, "make_step", watched_step)
    gc.disable()
    try:
        decode(model, tok, prompts[:1], 2, 4, 4, decode_step="ours")
        assert len(made) == 2 and [r() for r in made] == [None, None]
    finally:
        gc.enable()


def test_the_step_copies_only_what_it_fuses_and_the_slots_leave_room_for_it(student, monkeypatch):  # noqa: F811
    """o_proj, down_proj and the LM head are read in place (the step held a second copy of them);
    only the stacked q/k/v and gate/up are the step's own, and on CUDA the slots are counted from the
    free memory less those (`fused_bytes`: the cache is sized before the step is made)."""
    from pipeline.engines import hf as engine_hf
    from pipeline.engines.decode_step import fused_bytes
    cfg, tok, model, prompts = student
    step = make_step(model, 64, 8, ("cpu",), "sdpa")
    own = {p.data_ptr() for p in model.parameters()}
    single = [f for layer in step.layers for f in (layer[3], layer[7])] + [step.head]
    fused = [f for layer in step.layers for f in (layer[2], layer[6])]
    assert all(f.weight.data_ptr() in own and (f.bias is None or f.bias.data_ptr() in own) for f in single)
    assert not any(f.weight.data_ptr() in own for f in fused)
    copied = sum(t.numel() * t.element_size() for f in fused for t in (f.weight, f.bias) if t is not None)
    assert fused_bytes(model, 64) == copied > 0
    # on CUDA (faked: the device and its free memory), the cache's share of what is free once they are made
    layers, kv_heads, head_dim = model_shape(model)
    per_seq = 2 * layers * kv_heads * head_dim * 4 * 64 + 3 * 4 * model.config.vocab_size
    free = 100 * per_seq
    monkeypatch.setattr(engine_hf, "_device", lambda m: torch.device("cuda"))
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (free, 2 * free))
    whole = engine_hf.slots(model, "auto", 40, 24, "transformers")
    assert whole == int(0.6 * free / per_seq) > engine_hf.slots(model, "auto", 40, 24, "auto") \
        == int(0.6 * (free - copied) / per_seq)
