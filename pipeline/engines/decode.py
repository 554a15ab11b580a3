"""The hf engine's sampler: a continuous-batching decode loop over the model's own forward.

transformers' `generate` steps a static batch until its longest row ends (the eval counted 42-65%
of row-steps spent on rows already finished) and grows its KV cache by concatenation every step.
This loop keeps `slots` completions in flight: a row that ends frees its slot at once for the next
waiting completion, across the whole stage, so every step computes rows that are still writing.

- The model is transformers' own (any architecture whose attention goes through transformers'
  attention interface: Llama, Qwen2, Mistral, ...); only the KV cache and the one-token attention
  are ours. The cache is preallocated, (slots, kv_heads, capacity, head_dim) per layer, each row at
  its own length; live rows are kept in a dense prefix of the slots (a row that ends with nobody
  waiting is replaced by the last live row), and a step attends over the longest live row only.
- A prompt is prefilled once, alone; its keys and values are copied into each of its completions'
  slots and its last logits give each completion's first token. The chat template's opening (its
  system turn: `prefix`, fixed by the tokenizer and the system prompt, never by the prompt set) is
  prefilled once for the stage and each prompt's prefill continues from it, so a prompt's keys are
  the same numbers whatever else the stage, its slots or its processes hold.
- One-token attention reads the cache as it lies, the query heads grouped by their key/value head
  (no repeat of the grouped heads, no copy of the cache): on the CPU our step's is a C++ kernel
  (pipeline.engines.cpu_attention: float32 arithmetic, each row's own keys only) and transformers' forward's
  is SDPA (its kernel accumulates in float32); on CUDA two batched matmuls and a float32 softmax
  (`grouped_attention`: SDPA's cuDNN call there cost more CPU than the step's GPU work).
- Sampling is inverse-CDF with each row's own stream (`SeededSampler`'s rule), so a completion does
  not depend on what shares its steps, the slot count or the process count, up to float rounding:
  a CPU's matmul kernels can change with the row count (oneDNN on AMX does), and in bf16 that moves
  some picks (bench/RESULTS.md: 52-55 of 64 completions parted between 16 and 64 slots on such a CPU,
  none on another); in float32 only ties move. On the CPU, with the temperature as the only warp,
  the softmax and the pick of all live rows are one C++ call (`sample_pick`, pipeline.engines.cpu_attention:
  the probabilities never materialised as torch tensors). Greedy is argmax. No
  generation_config processor (repetition_penalty, ...) is applied: the sampled distribution is
  softmax(warped logits / T), the one the logprobs stage and the update compute.
- Rows end at an end id (the tokenizer's eos or one of the generation_config's) or pad, at max_new
  tokens, at a stop string, or (stop_after_code) where the first code block closes
  (pipeline/engines/ends.py); `finish` then cuts them exactly as it cuts transformers' output.

Each row also keeps the sampler's own logprob of each token it drew (the gap to the trainer's
recomputed logprob is `logprobs/sampler_gap`).
"""
from __future__ import annotations

import time
from collections import deque
from contextlib import contextmanager

import torch
from tqdm import tqdm

from pipeline.engines.decode_step import grouped_attention, make_step
from pipeline.engines.ends import Stopper, model_end_ids
from pipeline.engines.graphed_step import GraphedStep
from pipeline.engines.streams import pick, uniforms

ATTENTION = "rlaif_slots"

def slot_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """transformers' attention interface. One query token (decode), over the cache's views as they
    lie, the query heads grouped by their key/value head (no repeat of the cache); attention_mask is
    additive (n, 1, 1, L): on the CPU SDPA (its one-token kernel), on CUDA `grouped_attention`.
    Several tokens (prefill): transformers' SDPA."""
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    if query.shape[2] != 1:
        return sdpa_attention_forward(module, query, key, value, attention_mask, scaling=scaling, dropout=dropout,
                                      **kwargs)
    if query.device.type == "cuda":
        out = grouped_attention(query, key, value, attention_mask, scaling)
    else:
        out = torch.nn.functional.scaled_dot_product_attention(query, key, value, enable_gqa=True, scale=scaling,
                                                               attn_mask=attention_mask.to(query.dtype))
    return out.transpose(1, 2), None                                            # (n, 1, H, D), as sdpa's


def _register() -> None:
    from transformers import AttentionInterface
    AttentionInterface.register(ATTENTION, slot_attention)


@contextmanager
def slot_attention_on(model):
    """The model's attention through `slot_attention` for the duration."""
    _register()
    cfgs = [m.config for m in model.modules() if hasattr(m, "config") and hasattr(m.config, "_attn_implementation")]
    cfgs = list({id(c): c for c in cfgs}.values())
    before = [c._attn_implementation for c in cfgs]
    for c in cfgs:
        c._attn_implementation = ATTENTION
    try:
        yield model
    finally:
        for c, b in zip(cfgs, before):
            c._attn_implementation = b


class SlotCache:
    """KV cache of `slots` rows, each at its own length; transformers' attention layers call
    `update`. Per layer (slots, kv_heads, room, head_dim), room a multiple of CHUNK at least the
    longest live row (`fit` grows it, never shrinks it: each new allocation costs page faults). A
    step's attention reads the first n slots' first `span` positions (`reach`) as a strided view, in
    place: the longest live row rounded up to SPAN, not the whole room (at 64 rows the keys and
    values a step reads outweigh the model's weights).
    Prefill mode (`prefilling` a list): keys/values of one prompt are kept aside, unchanged."""

    CHUNK = 128
    SPAN = 32                                     # a step reads keys [0, span): the longest live row, rounded up

    def __init__(self, layers: int, slots: int, kv_heads: int, head_dim: int, dtype, device):
        self.layers, self.shape, self.dtype, self.device = layers, (slots, kv_heads, 0, head_dim), dtype, device
        self.k = self.v = [None] * layers
        self.room = self.span = -1
        self.prefilling: list | None = None
        self.prefix: list | None = None           # per layer (1, KVH, S, D): what a prefill continues from
        self.n = 0                                # live rows: the first n slots
        self.rows = self.pos = None               # (n,) slot index and write position of this step
        self.fit(0, 0)

    def fit(self, length: int, live: int) -> None:
        """Room for `length` positions, rounded up to CHUNK; the first `live` slots keep their contents."""
        room = -(-max(length, 1) // self.CHUNK) * self.CHUNK
        if room <= self.room:
            return
        slots, heads, _, dim = self.shape
        keep = min(room, self.room)
        new_k, new_v = [], []
        for old_k, old_v in zip(self.k, self.v):
            k = torch.zeros(slots, heads, room, dim, dtype=self.dtype, device=self.device)
            v = torch.zeros_like(k)
            if old_k is not None and live and keep > 0:
                k[:live, :, :keep] = old_k[:live, :, :keep]
                v[:live, :, :keep] = old_v[:live, :, :keep]
            new_k.append(k)
            new_v.append(v)
        self.k, self.v, self.room = new_k, new_v, room
        self.span = room                          # until `reach` narrows it

    def update(self, key, value, layer_idx, *args, **kwargs):
        if self.prefilling is not None:           # (1, KVH, P, D): kept for the prompt's completions
            if self.prefix is not None:           # the template's opening, prefilled once
                pk, pv = self.prefix[layer_idx]
                key, value = torch.cat((pk, key), 2), torch.cat((pv, value), 2)
            self.prefilling.append((key, value))
            return key, value
        self.k[layer_idx][self.rows, :, self.pos] = key[:, :, 0]
        self.v[layer_idx][self.rows, :, self.pos] = value[:, :, 0]
        return self.k[layer_idx][: self.n, :, : self.span], self.v[layer_idx][: self.n, :, : self.span]

    def reach(self, length: int) -> None:
        """This step's live rows reach `length` positions at most (their new tokens included): its
        attention reads positions [0, span), span that length rounded up to SPAN (at most the room)."""
        self.span = min(self.room, -(-length // self.SPAN) * self.SPAN)

    def put(self, slot: int, kv: list) -> None:
        for layer, (k, v) in enumerate(kv):
            self.k[layer][slot, :, : k.shape[2]] = k[0]
            self.v[layer][slot, :, : v.shape[2]] = v[0]

    def move(self, src: int, dst: int, length: int) -> None:
        for k, v in zip(self.k, self.v):
            k[dst, :, :length] = k[src, :, :length]
            v[dst, :, :length] = v[src, :, :length]

    # what transformers may ask of a cache besides update
    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.room

    is_compileable = False


class Row:
    __slots__ = ("group", "index", "u", "ids", "logps", "length")

    def __init__(self, group: int, index: int, u: list[float] | None, prompt_len: int):
        self.group, self.index, self.u = group, index, u
        self.ids: list[int] = []
        self.logps: list[float] = []
        self.length = prompt_len                  # tokens in the cache once the last id is written


def model_shape(model) -> tuple[int, int, int]:
    c = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
    return c.num_hidden_layers, (getattr(c, "num_key_value_heads", None) or c.num_attention_heads), head_dim


@torch.no_grad()
def decode(model, tok, prompts: list[list[int]], k: int, max_new: int, slots: int,
           seeds: list[list[int]] | None = None, warp=None, stop: list[str] | None = None,
           stop_after_code: bool = False, desc: str = "sample", stats: dict | None = None,
           decode_step: str = "auto", prefix: list[int] | None = None,
           temperature: float | None = None) -> list[list[dict]]:
    """k completions of each prompt: per prompt, a list of k dicts with `ids` (as sampled, before any
    cut), `logps` (the sampler's logprob of each id). seeds[g][j]: the random stream of prompt g's
    j-th completion (`row_seed`); None: greedy (argmax). warp: logits -> warped
    logits (temperature, top-k, top-p) before the softmax; temperature (instead of warp, when the
    warp is the temperature alone): on the CPU softmax(logits / T) and the pick run as one C++ call
    per step (pipeline.engines.cpu_attention's sample_pick: streams.pick's rule, a rounding tie apart), unless
    decode_step is ours-sdpa (torch's operations throughout). stats, when given, receives the steps,
    row-steps and prefilled tokens computed, and which step ran. decode_step (`sample.decode_step`): ours
    (pipeline.engines.decode_step: Llama-family models, fewer and larger calls, where it supports the model),
    transformers (the model's own forward), auto (ours on the CPU, graphs on CUDA),
    graphs (ours, on CUDA replayed from CUDA graphs: `GraphedStep`; on the CPU ours).
    prefix: the first tokens of every chat prompt (`engine_hf.template_prefix`), prefilled once; a
    prompt that starts with them continues from their keys and values, any other is prefilled whole."""
    device = next(model.parameters()).device
    dtype = next(model.parameters()).dtype
    layers, kv_heads, head_dim = model_shape(model)
    slots = max(1, min(slots, len(prompts) * k))
    cache = SlotCache(layers, slots, kv_heads, head_dim, dtype, device)
    stopper = Stopper(tok, max_new, stop or [], stop_after_code, model_end_ids(tok, model))
    waiting = deque((g, j) for g in range(len(prompts)) for j in range(k))
    prefilled: dict[int, tuple[list, torch.Tensor, int]] = {}   # group -> (kv, last logits, rows left)
    live: list[Row] = []                                         # slot i holds live[i]
    done: list[list[dict | None]] = [[None] * k for _ in prompts]
    counts = {"slots": slots, "steps": 0, "row_steps": 0, "prefill_tokens": 0, "forward_s": 0.0, "choose_s": 0.0}
    bar = tqdm(total=len(prompts) * k, desc=desc, unit="seq", dynamic_ncols=True)
    longest = max((len(p) for p in prompts), default=0) + max_new
    if decode_step == "auto":                # measured: bench/RESULTS.md, "gpu ... on NVIDIA H200"
        decode_step = "graphs" if device.type == "cuda" else "ours"
    step = None if decode_step == "transformers" else make_step(
        model, longest, slots, ("cpu", "cuda") if decode_step in ("ours", "ours-sdpa", "graphs") else ("cpu",),
        attention="sdpa" if decode_step == "ours-sdpa" else "kernel")
    counts["step"] = "decode_step" if step is not None else "transformers"
    counts["attention"] = step.attention if step is not None else "transformers"
    if step is not None and decode_step == "graphs" and device.type == "cuda":
        step = GraphedStep(step, slots)
        cache.fit(longest, 0)                    # the room at once: a graph holds the cache's tensors

    fused_pick = None
    if seeds is not None and warp is None and temperature is not None:
        if device.type == "cpu" and decode_step != "ours-sdpa" and dtype in (torch.float32, torch.bfloat16):
            from pipeline.engines import cpu_attention
            mod = cpu_attention.module()
            fused_pick = mod.sample_pick if mod is not None else None
        warp = lambda z: z / temperature                                    # noqa: E731 (transformers' warper's arithmetic)
    counts["pick"] = "kernel" if fused_pick is not None else "torch"

    def choose(logits: torch.Tensor, rows: list[Row]) -> tuple[list[int], list[float]]:
        if seeds is None:                                                    # greedy: argmax, as generate
            ids = logits.argmax(-1)
            return ids.tolist(), [0.0] * len(rows)
        if fused_pick is not None:
            u = torch.tensor([r.u[len(r.ids)] for r in rows], dtype=torch.float32)
            ids, logps = fused_pick(logits.contiguous(), temperature, u)
            return ids.tolist(), logps.tolist()
        z = logits.float()                                                   # (n, V)
        probs = torch.softmax(warp(z) if warp is not None else z, -1)
        u = torch.tensor([r.u[len(r.ids)] for r in rows], dtype=torch.float32).to(device)
        ids = pick(probs, u)
        return ids.tolist(), probs.gather(-1, ids[:, None])[:, 0].log().tolist()

    def retire(i: int) -> None:
        """Row i is done: the next waiting completion takes its slot (and the one after, while each
        ends at its first token: a loop, not a recursion), else the last live row does."""
        while True:
            r = live[i]
            done[r.group][r.index] = {"ids": r.ids, "logps": r.logps}
            bar.update(1)
            if not waiting:
                break
            live[i] = admit(i)
            if not stopper(live[i].ids):
                return
        last = live.pop()
        if i < len(live):
            cache.move(len(live), i, last.length)
            live[i] = last

    def prefill(ids: list[int], start: int, before: list | None) -> tuple[list, torch.Tensor]:
        """Keys/values of positions [0, start + len(ids)) and the last position's logits: ids at
        positions start.. on top of `before` (the keys/values of the first `start` positions)."""
        counts["prefill_tokens"] += len(ids)
        if step is not None:
            return step.prefill(torch.tensor(ids, device=device), start, before)
        cache.prefilling, cache.prefix = [], before
        n = len(ids)
        causal = torch.full((n, start + n), float("-inf"), device=device).triu(start + 1)[None, None].to(dtype)
        out = model(input_ids=torch.tensor([ids], device=device), attention_mask=causal,
                    position_ids=torch.arange(start, start + n, device=device)[None],
                    past_key_values=cache, use_cache=True, logits_to_keep=1)
        kv = [(kk.clone(), vv.clone()) for kk, vv in cache.prefilling]
        cache.prefilling = cache.prefix = None
        return kv, out.logits[:, -1]

    shared: list = []                        # the template opening's keys/values, once computed

    def admit(slot: int) -> Row:
        g, j = waiting.popleft()
        if g not in prefilled:
            p = prompts[g]
            start = len(prefix) if prefix and len(p) > len(prefix) and p[: len(prefix)] == prefix else 0
            if start and not shared:
                shared.extend(prefill(prefix, 0, None)[0])
            kv, logits = prefill(p[start:], start, shared if start else None)
            prefilled[g] = (kv, logits, k)
        kv, logits, left = prefilled[g]
        cache.fit(max(cache.room, len(prompts[g]) + 1), max(slot, len(live)))
        cache.put(slot, kv)
        prefilled[g] = (kv, logits, left - 1)
        if left == 1:
            del prefilled[g]
        # the row's uniforms as float32 values on the host: a step sends the rows' draws in one copy
        u = uniforms([seeds[g][j]], max_new)[0].to(torch.float32).tolist() if seeds is not None else None
        row = Row(g, j, u, len(prompts[g]))
        (t,), (lp,) = choose(logits, [row])
        row.ids.append(t)
        row.logps.append(lp)
        return row

    with slot_attention_on(model):
        while waiting and len(live) < slots:
            live.append(admit(len(live)))
        for i in reversed(range(len(live))):                                # a first token may end a row
            if stopper(live[i].ids):
                retire(i)
        while live:
            n = len(live)
            lengths = [r.length for r in live]
            pos, reach = torch.tensor(lengths, device=device), max(lengths) + 1
            cache.fit(reach, n)
            cache.reach(reach)
            t0 = time.perf_counter()
            last = torch.tensor([r.ids[-1] for r in live], device=device)
            if step is not None:
                logits = step(last, pos, cache)
            else:
                cache.n, cache.rows, cache.pos = n, torch.arange(n, device=device), pos
                mask = torch.where(torch.arange(cache.span, device=device)[None, :] <= pos[:, None], 0.0, float("-inf"))
                logits = model(input_ids=last[:, None], attention_mask=mask[:, None, None, :], position_ids=pos[:, None],
                               past_key_values=cache, use_cache=True).logits[:, -1]
            t1 = time.perf_counter()
            ids, lps = choose(logits, live)
            counts["forward_s"] += t1 - t0
            if stats is not None and "trace" in stats:  # (rows, keys read per row, forward seconds) of each step
                stats["trace"].append((n, cache.span, t1 - t0))
            counts["choose_s"] += time.perf_counter() - t1
            counts["steps"] += 1
            counts["row_steps"] += n
            for r, t, lp in zip(live, ids, lps):
                r.length += 1
                r.ids.append(t)
                r.logps.append(lp)
            for i in reversed(range(n)):
                if stopper(live[i].ids):
                    retire(i)
    bar.close()
    # the closures let go: none of them, nor the cache and step they hold, outlives the call (retire's
    # loop leaves no cycle between them; this keeps a later one from holding them until a full gc)
    choose = retire = prefill = admit = None  # noqa: F841
    if isinstance(step, GraphedStep):               # what ran: graph replays, or the eager fallback
        counts["graph_replays"] = step.replays
        counts["step"] = "decode_step+graphs" if step.replays else "decode_step"
    if stats is not None:
        stats.update(counts)
    return done
