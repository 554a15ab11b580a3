"""The decode loop (pipeline/engines/decode.py) against transformers' generate (engine_hf.reference_*): the same
tokens from the same streams, whatever the slot count; the sampler's logprobs are the policy's; the
bf16 sampling copy; one row contract for every engine."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from pipeline.engines import hf as engine_hf
from pipeline.config.file import load_config
from pipeline.engines.streams import pick
from pipeline.engines.model import load_student, load_tokenizer
from tests.tolerance import assert_close, logits_tolerance, tolerance

QUESTIONS = ("Add two numbers.", "Hi", "Reverse a string, please.", "Sort a list")


def build_tiny_qwen2(out: Path) -> Path:
    """A 2-layer Qwen2 (biased q/k/v projections, 4 query heads over 2 KV heads), the SmolLM2 tokenizer."""
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from pipeline.engines.model import embedded_tokenizer_dir
    if (out / "config.json").exists():
        return out
    tok = AutoTokenizer.from_pretrained(embedded_tokenizer_dir())
    cfg = Qwen2Config(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=True, initializer_range=0.6)
    torch.manual_seed(1)
    from tests.conftest import _save
    return _save(Qwen2ForCausalLM(cfg), tok, out)


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def student(request, tiny_model):
    from pipeline.store.paths import cache_root
    path = tiny_model if request.param == "llama" else str(build_tiny_qwen2(cache_root() / "models" / "tiny-qwen2-v1"))
    cfg = load_config(None, [f"student.model={path}", "sample.num_samples=4", "sample.max_new_tokens=20",
                             "sample.temperature=1.0", "sample.dtype=float32"])
    tok = load_tokenizer(cfg.student)
    return cfg, tok, load_student(cfg.student), [engine_hf.chat_prompt(tok, cfg, q) for q in QUESTIONS]


@pytest.fixture
def lora_adapter_for(tmp_path):
    """A PEFT adapter for cfg's student with B drawn at random (a fresh LoRA has B = 0)."""
    def make(cfg) -> Path:
        from peft import get_peft_model

        from pipeline.engines.model import lora_config
        model = get_peft_model(load_student(cfg.student), lora_config(cfg.student))
        torch.manual_seed(1)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:
                    p.normal_(0, 0.3)
        model.save_pretrained(tmp_path / "adapter")
        return tmp_path / "adapter"
    return make


def with_sample(cfg, **kw):
    return cfg.model_copy(update={"sample": cfg.sample.model_copy(update=kw)})


def rows_of(gens):
    return [(g["completion_ids"], g["text"], g["finish_reason"], g["group"], g["sample_idx"]) for g in gens]


def assert_same_up_to_ties(model, cfg, prompts, ours, ref, seed, keys=None):
    """Row for row the same, except where float rounding moved a pick across a CDF boundary: at the
    first token where two rows part, the stream's target lies within the two engines' rounding of the
    boundary between the two tokens under the float32 policy (a tie). The tiny random models spread their probability
    over 49k tokens (about 2e-5 each), so a tie there is common; on the embedded student it is rare
    (bench/sampler.py counts them); at most half the rows may part."""
    keys = keys or [str(i) for i in range(len(prompts))]
    parted = 0
    for a, b in zip(ours, ref):
        assert (a["group"], a["sample_idx"]) == (b["group"], b["sample_idx"])
        if rows_of([a]) == rows_of([b]):
            continue
        x, y = a["completion_ids"], b["completion_ids"]
        t = next(i for i in range(min(len(x), len(y)) + 1) if i == min(len(x), len(y)) or x[i] != y[i])
        assert t < min(len(x), len(y)), "rows part where one stops, not at a pick"
        ids = prompts[a["group"]] + x[:t]
        with torch.no_grad():
            z = model(input_ids=torch.tensor([ids])).logits[0, -1:].float()
        cdf = torch.softmax(engine_hf.warpers(cfg.sample)(None, z), -1)[0].cumsum(-1)
        u = float(engine_hf.uniforms([engine_hf.row_seed(seed, keys[a["group"]], a["sample_idx"])], t + 1)[0, t])
        target = u * float(cdf[-1])
        # a tie: the two engines' cumulative sums at the boundary differ by their logits' rounding (a
        # probability moves by p * dz, the cdf by at most 2 max|dz|) and the sum's own over the vocabulary
        band = (2 * logits_tolerance(model, len(ids), float(z.abs().max()), 1)
                + tolerance(torch.float32, 1.0, [len(cdf)]))
        assert abs(float(cdf[min(x[t], y[t])]) - target) <= band, f"row {a['group']}/{a['sample_idx']} parts at {t}"
        parted += 1
    assert parted <= len(ours) // 2, f"{parted} of {len(ours)} rows parted"


@pytest.mark.parametrize("warp", [{}, {"top_k": 5}, {"top_p": 0.7, "temperature": 0.7}])
def test_the_loop_samples_generates_tokens(student, warp):
    """float32: every completion of the loop is transformers' generate's, token for token, under the
    same per-completion streams (temperature, top-k and top-p through transformers' own warpers)."""
    cfg, tok, model, prompts = student
    cfg = with_sample(cfg, **warp)
    keys = [f"p{i}" for i in range(len(prompts))]
    ours = engine_hf.generate(model, tok, prompts, cfg, seed=3, keys=keys)
    ref = engine_hf.reference_generate(model, tok, prompts, cfg, seed=3, keys=keys)
    assert_same_up_to_ties(model, cfg, prompts, ours, ref, 3, keys)
    assert len({tuple(g["completion_ids"]) for g in ours}) > len(prompts)  # a prompt's samples differ
    assert {g["finish_reason"] for g in ours} <= {"eos", "length"}


def test_stops_end_rows_as_generate_does(student):
    """Stop strings and stop_after_code end a row where generate's stopping criteria do, and `finish`
    cuts both the same way."""
    cfg, tok, model, prompts = student
    free = engine_hf.generate(model, tok, prompts, cfg, seed=4)
    words = [w for g in free for w in g["text"].split(" ")[1:-1] if w.strip().isalpha() and len(w) >= 3]
    assert words, "the tiny model wrote no word to stop at"
    stop = with_sample(cfg, stop=[" " + words[0]])
    ours, ref = (f(model, tok, prompts, stop, seed=4) for f in (engine_hf.generate, engine_hf.reference_generate))
    assert_same_up_to_ties(model, stop, prompts, ours, ref, 4)
    assert any(g["finish_reason"] == "stop" for g in ours)
    code = with_sample(cfg, stop_after_code=True)
    ours, ref = (f(model, tok, prompts, code, seed=4) for f in (engine_hf.generate, engine_hf.reference_generate))
    assert_same_up_to_ties(model, code, prompts, ours, ref, 4)


def test_a_completion_does_not_depend_on_the_slots_or_its_neighbours(student):
    """One slot, five, or all completions at once; a prompt sampled alone or beside others: the same rows."""
    cfg, tok, model, prompts = student
    keys = [f"p{i}" for i in range(len(prompts))]
    runs = [engine_hf.generate(model, tok, prompts, with_sample(cfg, batch_size=n), seed=9, keys=keys)
            for n in (1, 5, 64)]
    assert_same_up_to_ties(model, cfg, prompts, runs[0], runs[1], 9, keys)
    assert_same_up_to_ties(model, cfg, prompts, runs[0], runs[2], 9, keys)
    alone = engine_hf.generate(model, tok, prompts[2:3], cfg, seed=9, keys=keys[2:3])
    assert_same_up_to_ties(model, cfg, prompts, [{**g, "group": 2} for g in alone],
                           [g for g in runs[0] if g["group"] == 2], 9, keys)


def test_greedy_is_generates_greedy(student):
    cfg, tok, model, prompts = student
    assert engine_hf.greedy(model, tok, prompts, 20, 3) == engine_hf.reference_greedy(model, tok, prompts, 20, 4)


def logprob_bound(model, prompts, temperature: float, elements: int, new: int = 20) -> float:
    """Two float32 paths to log softmax(z / T) of a token (the decode step, generate, the logprobs
    stage's forward): the derived bound at the logits' magnitude over the prompts, the longest prompt
    and its completion's keys."""
    with torch.no_grad():
        scale = max(float(model(input_ids=torch.tensor([p])).logits.abs().max()) for p in prompts)
    return logits_tolerance(model, max(map(len, prompts)) + new, scale / temperature, elements, logprobs=True)


def test_the_samplers_logprobs_are_the_policys(student):
    """float32: the logprob the loop keeps for each token is log softmax(z / T) of the policy, as the
    logprobs stage recomputes it (logprobs/sampler_gap at rounding level)."""
    from pipeline.engines.forward import rollout_logprobs
    cfg, tok, model, prompts = student
    cfg = with_sample(cfg, temperature=0.7)
    gens = engine_hf.generate(model, tok, prompts, cfg, seed=2)
    rows = [{"prompt_ids": prompts[g["group"]], **g} for g in gens]
    old, _ = rollout_logprobs(model, rows, 0.7, tok.pad_token_id, policy_is_reference=True, share_prompt=False)
    gap = torch.cat([(torch.tensor(r["sampler_logprobs"]) - old[i]).abs() for i, r in enumerate(rows)])
    assert len(gap) == sum(g["length"] for g in gens) and float(gap.max()) <= logprob_bound(model, prompts, 0.7, len(gap))


def test_generation_config_processors_never_reach_the_sampler(tiny_model):
    """A model whose generation_config holds repetition_penalty 1.3: every token the loop draws is the
    inverse-CDF pick of softmax(z / T) at its stream's uniform, z the model's own logits (generate
    would have penalised them first)."""
    cfg = load_config(None, [f"student.model={tiny_model}", "sample.num_samples=3", "sample.max_new_tokens=12",
                             "sample.temperature=0.8", "sample.dtype=float32"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student)
    model.generation_config.repetition_penalty = 1.3
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in QUESTIONS[:2]]
    gens = engine_hf.generate(model, tok, prompts, cfg, seed=6, keys=["a", "b"])
    for g in gens:
        ids = prompts[g["group"]] + g["completion_ids"]
        with torch.no_grad():
            z = model(input_ids=torch.tensor([ids])).logits[0, len(prompts[g["group"]]) - 1: -1]   # (K, V)
        u = engine_hf.uniforms([engine_hf.row_seed(6, "ab"[g["group"]], g["sample_idx"])], len(z))[0].float()
        assert pick(torch.softmax(z / 0.8, -1), u).tolist() == g["completion_ids"]
    # sample.engine=generate draws the same unpenalised rows; transformers' generate left to the
    # model's own generation_config would have applied its processors. A penalty of 1.3 changes a pick
    # only where a token repeats, which 12 tokens of a random model may never do: suppress_tokens of
    # every row's first pick changes each row, whatever the numerics
    model.generation_config.suppress_tokens = sorted({g["completion_ids"][0] for g in gens})
    assert_same_up_to_ties(model, cfg, prompts, gens, engine_hf.reference_generate(model, tok, prompts, cfg, seed=6,
                                                                                   keys=["a", "b"]), 6, ["a", "b"])
    penalised = engine_hf.reference_generate(model, tok, prompts, cfg, seed=6, keys=["a", "b"],
                                             neutral=False)
    assert all(p["completion_ids"][0] != g["completion_ids"][0] for p, g in zip(penalised, gens))


def test_pick_is_the_inverse_cdf():
    """The two-level pick is the one-cumsum inverse CDF (up to float rounding at a boundary), never
    lands on a token of probability 0, and takes the first and last possible tokens at u=0 and u->1."""
    torch.manual_seed(0)
    z = torch.randn(64, 3000) * 3
    z[:, ::5] = float("-inf")
    probs = torch.softmax(z, -1)
    cdf = probs.cumsum(-1)
    agree = 0
    for _ in range(20):
        u = torch.rand(64)
        target = torch.minimum(u * cdf[:, -1], torch.nextafter(cdf[:, -1], torch.zeros(64)))
        full = torch.searchsorted(cdf, target[:, None], right=True)[:, 0]
        got = pick(probs, u)
        assert bool((probs.gather(1, got[:, None]) > 0).all())
        agree += int((got == full).sum())
    assert agree >= 64 * 20 - 2
    assert pick(probs, torch.zeros(64)).tolist() == [1] * 64                  # token 0 has p = 0
    last = pick(probs, torch.ones(64))                                           # 1.0: kept below the total
    assert bool((probs.gather(1, last[:, None]) > 0).all()) and int(last.min()) >= 2990


def test_bf16_sampling_copy(tiny_model, lora_adapter_for):
    """sample.dtype=bfloat16 on a float32 student with a LoRA: the loop samples from a bf16 copy of the
    merged weights, the student's own weights are untouched, and the sampler's logprobs stay near the
    float32 policy's (the gap the logprobs stage reports; this random model's logits reach 25, so its
    bf16 rounding is large)."""
    from pipeline.engines.forward import rollout_logprobs
    from pipeline.engines.sampling_weights import sampling_model
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
                             "sample.num_samples=3", "sample.max_new_tokens=16", "sample.temperature=1.0",
                             "sample.dtype=bfloat16"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student, lora_adapter_for(cfg))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in QUESTIONS]
    with torch.no_grad():
        model.merge_adapter()
        want = {k.replace(".base_layer.", "."): v.to(torch.bfloat16) for k, v in model.get_base_model().state_dict().items()
                if "lora_" not in k}
        model.unmerge_adapter()
    model.load_state_dict(before)
    with sampling_model(model, cfg) as m:
        assert m is not model and next(m.parameters()).dtype == torch.bfloat16
        gens = engine_hf.generate(m, tok, prompts, cfg, seed=1)
    got = m.state_dict()  # its linears unpacked again
    assert set(got) == set(want) and all(torch.equal(got[k], want[k]) for k in got)  # merged, then cast
    assert not torch.equal(got["model.layers.0.self_attn.q_proj.weight"],
                           before["base_model.model.model.layers.0.self_attn.q_proj.base_layer.weight"].bfloat16())
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
    rows = [{"prompt_ids": prompts[g["group"]], **g} for g in gens]
    old, _ = rollout_logprobs(model, rows, 1.0, tok.pad_token_id, policy_is_reference=True, share_prompt=False)
    gap = torch.cat([(torch.tensor(r["sampler_logprobs"]) - old[i]).abs() for i, r in enumerate(rows)])
    assert 0 < float(gap.mean()) < 0.5
    with sampling_model(model, with_sample(cfg, dtype="float32")) as m:
        assert m is model  # the student's own dtype: the student itself


def test_every_engine_writes_the_same_row(student):
    """The row contract: the loop, transformers' generate and vLLM's row builder (fed a vLLM-shaped
    output) write the same keys, so an engine cannot drift from the others unnoticed."""
    from pipeline.engines import vllm as engine_vllm
    cfg, tok, model, prompts = student
    ours = engine_hf.generate(model, tok, prompts[:1], cfg, seed=1)[0]
    ref = engine_hf.reference_generate(model, tok, prompts[:1], cfg, seed=1)[0]
    ids = ours["completion_ids"]
    out = SimpleNamespace(finish_reason="length", token_ids=ids,
                          logprobs=[{t: SimpleNamespace(logprob=-0.5)} for t in ids])
    vllm = {**engine_vllm._row(tok, out, [], cfg.sample.max_new_tokens), "group": 0, "sample_idx": 0}
    assert set(ours) == set(vllm) == set(ref)
    assert len(ours["sampler_logprobs"]) == ours["length"] == len(ids)
    assert len(ref["sampler_logprobs"]) == ref["length"] == len(ref["completion_ids"])


def test_an_epoch_sampled_in_bf16_reports_its_gap(tiny_config):
    """sample.dtype=bfloat16 through a whole epoch: the sample table keeps the sampler's logprobs and
    the logprobs stage reports their gap to the float32 policy (logprobs/sampler_gap)."""
    import json

    from pipeline.run.runner import Runner
    r = Runner(load_config(None, [*tiny_config, "sample.dtype=bfloat16", "select.drop_zero_std=false"]))
    r.run_epoch(1)
    m = json.loads((r.epoch_dir(1) / "metrics.json").read_text())
    assert 0 < m["logprobs/sampler_gap"] < 0.5 and m["logprobs/sampler_gap_max"] >= m["logprobs/sampler_gap"]


def test_the_embedded_copy_is_a_plain_checkpoint(tmp_path, monkeypatch):
    """The GGUF loader's quantization_config never reaches the safetensors copy's config.json (it made
    transformers attach a GGUF quantizer to plain fp32 weights), and a copy made before is repaired."""
    import json
    from pipeline.engines import model as model_mod
    monkeypatch.setenv("RLAIF_CACHE", str(tmp_path))
    old = tmp_path / "models" / model_mod.EMBEDDED
    old.mkdir(parents=True)
    (old / "model.safetensors").write_bytes(b"")
    (old / "config.json").write_text(json.dumps({"model_type": "llama", "hidden_size": 576,
                                                  "quantization_config": {"quant_method": "gguf"}}))
    assert model_mod.ensure_embedded() == old
    repaired = json.loads((old / "config.json").read_text())
    assert "quantization_config" not in repaired and repaired["hidden_size"] == 576
    monkeypatch.delenv("RLAIF_CACHE")
    real = json.loads((model_mod.ensure_embedded() / "config.json").read_text())
    assert "quantization_config" not in real


@pytest.mark.parametrize("temperature", [0.7, 1.0])
def test_generates_sampler_logprobs_are_the_policys_and_reported(student, temperature):
    """sample.engine=generate keeps the sampler's logprob of each kept token (SeededSampler: log of the
    drawn token's probability under the warped distribution), cut where the row was cut, so the
    logprobs stage reports its gap to the recomputed logprobs: rounding level in float32, the same
    tokens' logprobs as the loop's where the two engines drew the same row."""
    from pipeline.engines.forward import rollout_logprobs
    from pipeline.stages.logprobs import sampler_gap
    cfg, tok, model, prompts = student
    cfg = with_sample(cfg, temperature=temperature)
    gens = engine_hf.reference_generate(model, tok, prompts, cfg, seed=2)
    assert all(len(g["sampler_logprobs"]) == g["length"] for g in gens)
    rows = [{"prompt_ids": prompts[g["group"]], **g} for g in gens]
    old, _ = rollout_logprobs(model, rows, temperature, tok.pad_token_id, policy_is_reference=True, share_prompt=False)
    gap = sampler_gap(rows, old)
    bound = logprob_bound(model, prompts, temperature, sum(g["length"] for g in gens))
    assert 0 <= gap["logprobs/sampler_gap"] <= bound and gap["logprobs/sampler_gap_max"] <= bound, (gap, bound)
    loop = engine_hf.generate(model, tok, prompts, cfg, seed=2)
    same = [(a, b) for a, b in zip(gens, loop) if a["completion_ids"] == b["completion_ids"]]
    assert same
    for a, b in same:
        assert_close(torch.tensor(a["sampler_logprobs"]), torch.tensor(b["sampler_logprobs"]), bound)


def test_the_template_opening_is_prefilled_once(student):
    """generate and greedy prefill the chat template's opening (fixed by the tokenizer and the
    system prompt, not by the prompts) once: fewer tokens prefilled, the same completions."""
    cfg, tok, model, prompts = student
    prefix = engine_hf.template_prefix(tok, cfg)
    assert len(prefix) >= 8 and all(p[: len(prefix)] == prefix for p in prompts)
    assert engine_hf.template_prefix(tok, cfg.model_copy(update={"student": cfg.student.model_copy(
        update={"system_prompt": "Answer in Python."})})) != prefix          # the system turn is part of it
    whole, once = {}, {}
    plain = engine_hf.greedy(model, tok, prompts, 20, 3, stats=whole)
    assert engine_hf.greedy(model, tok, prompts, 20, 3, stats=once, prefix=prefix) == plain
    assert once["prefill_tokens"] == whole["prefill_tokens"] - (len(prompts) - 1) * len(prefix)
    from pipeline.engines.decode import decode                                    # through transformers' forward too
    slow = [r[0]["ids"] for r in decode(model, tok, prompts, 1, 20, 3, decode_step="transformers")]
    assert [r[0]["ids"] for r in decode(model, tok, prompts, 1, 20, 3, decode_step="transformers", prefix=prefix)] == slow
    other = prompts + [prompts[0][: len(prefix) - 1] + [prompts[0][len(prefix)]] + prompts[0][len(prefix):]]
    assert engine_hf.greedy(model, tok, other, 20, 3, prefix=prefix)[:-1] == plain  # another opening: whole


def test_grouped_attention_is_sdpa_over_the_cache_views():
    """The CUDA path's one-token attention (two matmuls and a float32 softmax over the cache's strided
    views, query head i on key/value head i // G) computes what SDPA with enable_gqa does, float32
    rounding apart, with rows of different lengths masked."""
    from pipeline.engines.decode import grouped_attention
    gen = torch.Generator().manual_seed(0)
    n, heads, kv_heads, dim, room, span = 5, 6, 2, 16, 64, 40
    cache_k = torch.randn(8, kv_heads, room, dim, generator=gen)
    cache_v = torch.randn(8, kv_heads, room, dim, generator=gen)
    key, value = cache_k[:n, :, :span], cache_v[:n, :, :span]            # views, as SlotCache.update returns
    query = torch.randn(n, heads, 1, dim, generator=gen)
    lengths = torch.tensor([3, 40, 17, 25, 1])
    mask = torch.where(torch.arange(span)[None, :] < lengths[:, None], 0.0, float("-inf"))[:, None, None, :]

    def atol(scale):
        """The scores' sums (dim) and the softmax's and weighted values' (span): a score's error moves
        an output by up to 2 max|v| times it, so the magnitude is max|v| (1 + max|score|)."""
        s = float((query @ key.repeat_interleave(heads // kv_heads, 1).transpose(-1, -2)).abs().max())
        s *= scale or dim ** -0.5
        return tolerance(torch.float32, float(value.abs().max()) * (1 + s), [dim, span, span], elements=n * heads * dim)
    for scale in (None, 0.3):
        want = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask, scale=scale,
                                                                enable_gqa=True)
        assert_close(grouped_attention(query, key, value, mask, scale), want, atol(scale))
    # heads 2 and 3 swapped across their groups read the other key/value head: the check can fail
    order = [0, 1, 3, 2, 4, 5]
    swapped = grouped_attention(query[:, order], key, value, mask, 0.3)[:, order]
    assert float((swapped - want).abs().max()) > 10 * atol(0.3)
    within = [1, 0, 2, 3, 5, 4]                                          # within a group: the same
    assert_close(grouped_attention(query[:, within], key, value, mask, 0.3)[:, within], want, atol(0.3))
