"""Sampling with transformers: the hf engine behind the sample and eval stages.

`generate` and `greedy` run the continuous-batching decode loop of pipeline/engines/decode.py over the
model's own forward; `reference_generate` and `reference_greedy` run transformers' `generate`
over static batches (sample.engine=generate, and the reference the tests compare with). Both
draw each completion from a random stream of its own, seeded by the epoch's seed, its prompt's id
and its index in the group (`row_seed`), by the same inverse-CDF rule (`pipeline.engines.streams.pick`),
so a completion does not depend on what else shares its batch, nor on how many processes share
the prompts (up to float rounding: in bf16, on a CPU whose matmul kernels change with the row
count, some picks move with the batch; pipeline/engines/decode.py). Each completion keeps its text, token
ids, finish reason (eos / stop / length) and length, so the update can recompute logprobs on
exactly the sampled tokens, and (both) the sampler's own logprob of each token. `sampling_model`
gives the weights to sample with: the policy's LoRA merged in, in sample.dtype (bf16 on a CPU with
avx512_bf16).
"""
from __future__ import annotations

import logging
from contextlib import contextmanager, nullcontext

import torch
from tqdm import tqdm

from pipeline.config.errors import RunError
from pipeline.config.schema import Config
from pipeline.engines.ends import CompletionStops, code_end, finish, model_end_ids  # noqa: F401 (the engine's names)
from pipeline.engines.streams import pick, row_seed, uniforms  # noqa: F401

log = logging.getLogger("rlaif")


def chat_prompt(tok, cfg: Config, prompt: str) -> list[int]:
    """A problem's prompt as the student's tokens (student.prompt_format): through the chat template, or
    raw, the text as it is after the system prompt, tokenized as TRL tokenizes a text prompt."""
    if cfg.student.prompt_format == "raw":
        system = cfg.student.system_prompt
        return list(tok(f"{system}\n\n{prompt}" if system else prompt)["input_ids"])
    msgs = ([{"role": "system", "content": cfg.student.system_prompt}] if cfg.student.system_prompt else [])
    msgs.append({"role": "user", "content": prompt})
    ids = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True, **cfg.student.chat_template_kwargs)
    if hasattr(ids, "keys"):
        ids = ids["input_ids"]
    return list(ids)


def template_prefix(tok, cfg: Config) -> list[int]:
    """The tokens every chat prompt of this config opens with, whatever its problem (the template's
    opening and the system turn): the common start of two prompts that differ from their first
    character. The decode loop prefills them once; it depends on the tokenizer and the system
    prompt only, never on which prompts a stage holds."""
    a, b = chat_prompt(tok, cfg, "a"), chat_prompt(tok, cfg, "1")
    return a[: next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))]


def check_prompts(cfg: Config, ids: list[list[int]], names: list[str], max_new: int, new_key: str,
                  context: int | None, prompt_limit: bool = True) -> None:
    """Before any generation (the sample and eval stages): every prompt within data.max_prompt_tokens
    (prompt_limit: the sample stage's; the eval's prompts are not held to a training limit whose key
    moves the sample stage's fingerprint), and the longest plus max_new (the setting `new_key`) within
    the model's context (`context_length`; None: unchecked). A RunError naming the first prompt over
    and what to change otherwise."""
    limit = cfg.data.max_prompt_tokens
    too_long = [(n, len(i)) for n, i in zip(names, ids) if prompt_limit and len(i) > limit]
    if too_long:
        raise RunError(f"{len(too_long)} prompts are longer than data.max_prompt_tokens={limit} "
                       f"(first: {too_long[0][0]}, {too_long[0][1]} tokens"
                       + (f"; then {', '.join(n for n, _ in too_long[1:6])}" + (", ..." if len(too_long) > 6 else "")
                          if len(too_long) > 1 else "") + "); raise data.max_prompt_tokens or drop those problems")
    longest = max(range(len(ids)), key=lambda k: len(ids[k]), default=None)
    if context and longest is not None and len(ids[longest]) + max_new > context:
        raise RunError(f"the longest prompt ({names[longest]}, {len(ids[longest])} tokens) plus {new_key}={max_new} "
                       f"exceeds the model's context of {context} tokens; lower {new_key} or data.max_prompt_tokens")


def context_length(cfg: Config) -> int | None:
    """The student's context (its config's max_position_embeddings; None where it names none)."""
    from transformers import AutoConfig

    from pipeline.engines.model import resolve
    return getattr(AutoConfig.from_pretrained(resolve(cfg.student.model)), "max_position_embeddings", None)


def left_pad(seqs: list[list[int]], pad_id: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, attention_mask), both (B, T), padded on the left so every row ends at T."""
    width = max(len(s) for s in seqs)
    ids = torch.tensor([[pad_id] * (width - len(s)) + s for s in seqs], device=device)
    attn = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs], device=device)
    return ids, attn


@torch.no_grad()
def prefill(model, prompts: list[list[int]], pad_id: int, k: int, device):
    """The prompts' keys and values, computed once per prompt and repeated k times: generate then
    starts from them (it runs only the tokens the cache lacks) instead of prefilling k copies.
    All but each prompt's last token: generate needs one token to run to get the first logits."""
    ids, attn = left_pad(prompts, pad_id, device)
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    cache = model(input_ids=ids[:, :-1], attention_mask=attn[:, :-1], position_ids=pos[:, :-1],
                  use_cache=True, logits_to_keep=1).past_key_values
    cache.batch_repeat_interleave(k)
    return cache


def batch_size(model, setting: int | str, longest_prompt: int, max_new: int, group: int = 1,
               reserve: int = 0) -> int:
    """Sequences per generate call. An int is taken as it is; auto: 32 on the CPU (where a larger
    batch buys nothing), and on CUDA as many as 60% of the free GPU memory holds: each sequence's
    KV cache over prompt + max_new tokens, plus a step's float32 logits and their softmax. At
    least one group. reserve: bytes that will be allocated before the cache (the decode step's
    fused weights), not free for it."""
    if setting != "auto":
        return int(setting)
    device = _device(model)
    if device.type != "cuda":
        return 32
    c = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
    kv_heads = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
    elem = next(model.parameters()).element_size()
    per_seq = 2 * c.num_hidden_layers * kv_heads * head_dim * elem * (longest_prompt + max_new) + 3 * 4 * c.vocab_size
    free, _ = torch.cuda.mem_get_info(device)
    n = min(int(0.6 * max(free - reserve, 0) / per_seq), 4096)
    return max(group, n // group * group)


class SeededSampler:
    """A logits processor that samples each row from its own random stream: the token drawn for row
    i at step t depends only on the row's seed (`row_seed`), t and the row's own logits, by
    inverse-CDF sampling of softmax(warped logits) with the stream's t-th uniform (`pipeline.engines.streams.pick`,
    the decode loop's own rule). So a completion
    is the same whatever else shares its batch: on 1 process or N, with any sample.batch_size.
    (torch.multinomial draws for the whole batch from one generator, so a row's tokens depend on
    its neighbours.) generate runs greedy over the result: every token but the drawn one is -inf.
    Temperature, top-k and top-p are transformers' own warpers, in generate's order. `logps` (B, steps):
    the log of each drawn token's probability under the warped distribution it was drawn from, as
    the decode loop keeps it (`sampler_logprobs`)."""

    def __init__(self, seeds: list[int], width: int, max_new: int, temperature: float, top_p: float, top_k: int,
                 device):
        from types import SimpleNamespace
        self.width = width
        self.u = uniforms(seeds, max_new).to(device, torch.float32)                   # (B, max_new)
        self.warpers = warpers(SimpleNamespace(temperature=temperature, top_k=top_k, top_p=top_p))
        self.drawn: list[torch.Tensor] = []                                           # per step, (B,) on the device

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        step = input_ids.shape[1] - self.width
        probs = torch.softmax(self.warpers(input_ids, scores).float(), -1)             # (B, V)
        ids = pick(probs, self.u[:, step])                                             # (B,)
        self.drawn.append(probs.gather(-1, ids[:, None])[:, 0].log())
        return torch.full_like(scores, float("-inf")).scatter_(-1, ids[:, None], 0.0)

    @property
    def logps(self) -> torch.Tensor:
        return torch.stack(self.drawn, 1) if self.drawn else torch.zeros(len(self.u), 0)  # (B, steps)


def cache_kwargs(cfg: Config) -> dict:
    """generate's KV-cache options (sample.static_cache)."""
    return {"cache_implementation": "static"} if cfg.sample.static_cache else {}


def warpers(sc):
    """transformers' own temperature, top-k and top-p warpers, in generate's order."""
    from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper
    return LogitsProcessorList([TemperatureLogitsWarper(sc.temperature)] + ([TopKLogitsWarper(sc.top_k)] if sc.top_k else [])
                               + ([TopPLogitsWarper(sc.top_p)] if sc.top_p < 1.0 else []))


def _device(model):
    return next(model.parameters()).device


def slots(model, setting: int | str, longest_prompt: int, max_new: int, decode_step: str = "auto") -> int:
    """Completions in flight in the decode loop (sample.batch_size). auto: 128 on the CPU (larger
    matmuls amortise each step's fixed cost), on CUDA as many as the free memory holds once the
    decode step (sample.decode_step: any but transformers on CUDA) holds its fused q/k/v and gate/up
    weights (`fused_bytes`: made after this count, inside the loop)."""
    if setting == "auto" and _device(model).type != "cuda":
        return 128
    from pipeline.engines.decode_step import fused_bytes
    reserve = 0 if decode_step == "transformers" else fused_bytes(model, longest_prompt + max_new)
    return batch_size(model, setting, longest_prompt, max_new, reserve=reserve)


@torch.no_grad()
def generate(model, tok, prompts: list[list[int]], cfg: Config, seed: int, keys: list[str] | None = None,
             desc: str = "sample", stats: dict | None = None):
    """K completions for each prompt, as dicts in prompt order, from the decode loop
    (pipeline/engines/decode.py). keys: each prompt's identity (its problem id; default its index), which
    with seed and the sample index seeds each completion. Each dict also holds `sampler_logprobs`:
    the loop's logprob of each kept token under the distribution it drew from."""
    from pipeline.engines.decode import decode
    if cfg.sample.engine == "generate":
        return reference_generate(model, tok, prompts, cfg, seed, keys, desc)
    keys = [str(i) for i in range(len(prompts))] if keys is None else keys
    sc = cfg.sample
    k = sc.num_samples
    warp = warpers(sc)
    seeds = [[row_seed(seed, key, j) for j in range(k)] for key in keys]
    n = slots(model, sc.batch_size, max((len(p) for p in prompts), default=0), sc.max_new_tokens, sc.decode_step)
    plain = not sc.top_k and sc.top_p >= 1.0                       # the temperature alone: one C++ call on the CPU
    done = decode(model, tok, prompts, k, sc.max_new_tokens, n, seeds=seeds,
                  warp=None if plain else (lambda z: warp(None, z)), temperature=sc.temperature if plain else None,
                  stop=sc.stop, stop_after_code=sc.stop_after_code, desc=desc, stats=stats,
                  prefix=template_prefix(tok, cfg), decode_step=sc.decode_step)
    out, ends = [], model_end_ids(tok, model)
    for g, rows in enumerate(done):
        for j, r in enumerate(rows):
            ids, text, reason = finish(tok, r["ids"], sc.stop, sc.max_new_tokens, sc.stop_after_code, ends)
            out.append({"completion_ids": ids, "text": text, "finish_reason": reason, "length": len(ids),
                        "sample_idx": j, "group": g, "sampler_logprobs": r["logps"][: len(ids)]})
    return out


@torch.no_grad()
def greedy(model, tok, prompts: list[list[int]], max_new: int, batch_size: int | str = "auto",
           stats: dict | None = None, prefix: list[int] | None = None,
           decode_step: str = "auto") -> list[tuple[str, str]]:
    """(text, finish_reason) per prompt, greedy decoding (argmax; no generation_config processor),
    from the decode loop. prefix: the prompts' template opening (`template_prefix`), prefilled once.
    decode_step: `sample.decode_step`."""
    from pipeline.engines.decode import decode
    n = slots(model, batch_size, max((len(p) for p in prompts), default=0), max_new, decode_step)
    done = decode(model, tok, prompts, 1, max_new, n, desc="eval", stats=stats, prefix=prefix,
                  decode_step=decode_step)
    ends = model_end_ids(tok, model)
    return [finish(tok, rows[0]["ids"], [], max_new, ends=ends)[1:] for rows in done]


@contextmanager
def neutral_generation(model):
    """While `generate` runs, the model's generation_config holds nothing but its token ids.
    transformers' `generate` adds the processors of model.generation_config (repetition_penalty,
    no_repeat_ngram_size, suppress_tokens, min_length, ...; Qwen2.5 Instruct ships repetition_penalty
    1.05-1.1) even with do_sample=False, and fills every field a generation_config passed to it leaves
    unset from the model's own (transformers 5), so the model's must be swapped, not overridden:
    else the tokens come from a distribution the update does not train."""
    from transformers import GenerationConfig
    own = model.generation_config
    model.generation_config = GenerationConfig(bos_token_id=own.bos_token_id, eos_token_id=own.eos_token_id,
                                               pad_token_id=own.pad_token_id)
    try:
        yield
    finally:
        model.generation_config = own


@torch.no_grad()
def reference_generate(model, tok, prompts: list[list[int]], cfg: Config, seed: int, keys: list[str] | None = None,
                       desc: str = "sample", neutral: bool = True):
    """`generate`'s rows from transformers' `generate` over static batches of whole groups, the
    same streams (`SeededSampler`): sample.engine=generate, and the reference the loop is tested
    against. neutral: generate under `neutral_generation` (the sampled policy is softmax(z/T) and its
    warpers, nothing of the model's generation_config), as the loop samples; False: the model's own
    config applies (the tests' way to show what it would have done). Each row holds
    `sampler_logprobs` as the loop's rows do: `SeededSampler`'s logprob of each kept token."""
    from transformers import LogitsProcessorList, StoppingCriteriaList
    keys = [str(i) for i in range(len(prompts))] if keys is None else keys
    sc = cfg.sample
    k = sc.num_samples
    longest = max((len(p) for p in prompts), default=0)
    per_batch = max(1, batch_size(model, sc.batch_size, longest, sc.max_new_tokens, k) // k)  # whole groups per batch
    device = next(model.parameters()).device
    out, ends = [], model_end_ids(tok, model)
    bar = tqdm(total=len(prompts) * k, desc=desc, unit="seq", dynamic_ncols=True)
    for b in range(0, len(prompts), per_batch):
        group = prompts[b: b + per_batch]
        seqs = [p for p in group for _ in range(k)]
        input_ids, attn = left_pad(seqs, tok.pad_token_id, device)
        width = input_ids.shape[1]
        # a static cache is allocated by generate itself, so it cannot start from a shared prefill
        cache = prefill(model, group, tok.pad_token_id, k, device) if sc.share_prompt and not sc.static_cache else None
        sampler = SeededSampler([row_seed(seed, keys[b + j // k], j % k) for j in range(len(seqs))], width,
                                sc.max_new_tokens, sc.temperature, sc.top_p, sc.top_k, device)
        with neutral_generation(model) if neutral else nullcontext():
            gen = model.generate(
                input_ids=input_ids, attention_mask=attn, past_key_values=cache, **cache_kwargs(cfg),
                do_sample=False, logits_processor=LogitsProcessorList([sampler]), max_new_tokens=sc.max_new_tokens,
                stopping_criteria=StoppingCriteriaList([CompletionStops(tok, width, sc.stop, sc.stop_after_code)]
                                                       if sc.stop or sc.stop_after_code else []),
                pad_token_id=tok.pad_token_id, eos_token_id=sorted(ends))
        logps = sampler.logps.cpu().tolist()                                           # (B, steps), one sync
        for j, row in enumerate(gen[:, width:].tolist()):
            ids, text, reason = finish(tok, row, sc.stop, sc.max_new_tokens, sc.stop_after_code, ends)
            # the kept ids are a prefix of the generated ones (finish cuts, never drops inside)
            out.append({"completion_ids": ids, "text": text, "finish_reason": reason, "length": len(ids),
                        "sample_idx": j % k, "group": b + j // k, "sampler_logprobs": logps[j][: len(ids)]})
        bar.update(len(seqs))
    bar.close()
    return out


@torch.no_grad()
def reference_greedy(model, tok, prompts: list[list[int]], max_new: int, batch_size: int,
                     **gen_kw) -> list[tuple[str, str]]:
    """`greedy` from transformers' `generate` (static batches, prompts sorted by length to pad less; no
    generation_config processor: `neutral_generation`)."""
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    out: dict[int, tuple[str, str]] = {}
    device, ends = next(model.parameters()).device, model_end_ids(tok, model)
    for b in tqdm(range(0, len(order), batch_size), desc="eval", unit="batch", dynamic_ncols=True):
        idx = order[b: b + batch_size]
        ids, attn = left_pad([prompts[i] for i in idx], tok.pad_token_id, device)
        width = ids.shape[1]
        with neutral_generation(model):
            gen = model.generate(input_ids=ids, attention_mask=attn, do_sample=False, max_new_tokens=max_new,
                                 pad_token_id=tok.pad_token_id, eos_token_id=sorted(ends), **gen_kw)
        for i, row in zip(idx, gen[:, width:].tolist()):
            _, text, reason = finish(tok, row, [], max_new, ends=ends)
            out[i] = (text, reason)
    return [out[i] for i in range(len(prompts))]
