"""The decode loop's one-token step for the Llama family (Llama, Qwen2, Mistral, SmolLM2) on the
CPU, written out over the model's own weights instead of through transformers' forward.

A decode step of a small model on a CPU is mostly fixed cost: transformers' forward took 35 ms a
step at one row on SmolLM2-135M (masks, hooks, kwargs, seven linear calls and about sixty calls a
layer). This step makes about twenty calls a layer: q, k and v as one matmul, gate and up as one
(oneDNN-packed in bf16), RMSNorm fused, the cache written in place, the one-token attention on the
CPU a C++ kernel (pipeline.engines.cpu_attention; SDPA where it does not build). On the CPU, where those
kernels build, a layer's elementwise work is three more C++ calls (the residual add with the RMSNorm,
the rotary embedding with the cache write, SiLU x up): nine calls a layer, which took a one-row bf16
step of the embedded student from 3,737 profiled torch operations to 540 (bench/RESULTS.md). It reads the model's own
weights, norm epsilons, rotary embedding (any rope scaling), activation, embeddings and LM head.
Worth 1.21x on the sample stage (bench/RESULTS.md). `prefill` computes one prompt's keys and values
the same way (transformers' forward costs 3-4x its linears on a 100-token prompt here).

`make_step` returns None for a model this step does not compute exactly (another layer shape, an
unmerged LoRA, a sliding window in reach) and on a device it is not asked for (`sample.decode_step`:
auto asks for it on the CPU only; ours on CUDA too, where its one-token attention is
`grouped_attention`): the loop then steps through transformers' forward. tests/test_decode_step.py
holds its logits and cache writes to transformers' on tiny random Llama and Qwen2 models.
"""
from __future__ import annotations

import logging

import torch
from torch.nn.functional import linear

log = logging.getLogger(__name__)

_LAYER_PARTS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", "input_layernorm", "post_attention_layernorm")
_ROTATE_HALF = ("llama", "qwen2", "mistral")


def _text_config(model):
    return model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config


def _plain_linear(mod) -> torch.nn.Linear | None:
    """The nn.Linear whose weights a module computes with: itself; the one a PackedLinear replaced
    (pipeline.engines.sampling_weights); a PEFT LoRA layer's base layer once the LoRA is merged into it.
    None for anything else (an unmerged LoRA adds its own term)."""
    if type(mod) is torch.nn.Linear:
        return mod
    if hasattr(mod, "original"):
        return _plain_linear(mod.original)
    if hasattr(mod, "base_layer") and getattr(mod, "merged", False):
        return _plain_linear(mod.base_layer)
    return None


def grouped_attention(query, key, value, mask, scale=None):
    """One-token attention as two batched matmuls and a float32 softmax: query (n, H, 1, D), key and
    value (n, KVH, L, D) (strided views of the cache), mask additive (n, 1, 1, L); (n, H, 1, D).
    Query head i reads key/value head i // (H / KVH), as transformers' repeat_kv. The decode loop's
    attention on CUDA: there SDPA's one-token call went to cuDNN, which spent 1.2 ms of CPU a call (34%
    of the sample stage's CPU time under torch.profiler at 1.5B on an H100: bench/RESULTS.md), in a
    loop whose GPU work is a tenth of its wall. Not yet timed on a GPU itself."""
    n, heads, _, dim = query.shape
    kv_heads = key.shape[1]
    q = query.reshape(n, kv_heads, heads // kv_heads, dim)                   # (n, KVH, G, D)
    scores = torch.matmul(q, key.transpose(-1, -2)).float()                  # (n, KVH, G, L)
    scores = scores * (dim ** -0.5 if scale is None else scale) + mask.float()
    out = torch.matmul(torch.softmax(scores, -1).to(value.dtype), value)    # (n, KVH, G, D)
    return out.reshape(n, heads, 1, dim)


def make_step(model, longest: int, rows: int = 64, devices: tuple[str, ...] = ("cpu",),
              attention: str = "kernel") -> "LlamaStep | None":
    """The step for `model` when it is a Llama-family causal LM this step computes exactly
    (rotate-half rotary, pre-norm decoder layers with q/k/v/o and a gated MLP, plain or merged
    linears, no sliding window within `longest` tokens) on one of `devices` (device types); None
    otherwise (the loop then steps through transformers' forward). attention: the one-token
    attention on the CPU, kernel (pipeline.engines.cpu_attention, where it supports the shape and builds)
    or sdpa (torch's)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    if next(base.parameters()).device.type not in devices or not _computes(base, longest):
        return None
    return LlamaStep(base, rows, attention)


def _computes(base, longest: int) -> bool:
    """Whether the step computes this (plain transformers) model exactly: `make_step`'s conditions."""
    c = _text_config(base)
    inner = getattr(base, "model", None)
    if c.model_type not in _ROTATE_HALF or inner is None or not hasattr(inner, "rotary_emb"):
        return False
    window = getattr(c, "sliding_window", None)
    if window is not None and getattr(c, "use_sliding_window", True) and window < longest:
        return False
    for layer in inner.layers:
        mods = dict(layer.named_modules())
        if not all(p in mods for p in _LAYER_PARTS) or any(_plain_linear(mods[p]) is None for p in _LAYER_PARTS[:7]):
            return False
    return _plain_linear(base.lm_head) is not None


def fused_bytes(model, longest: int) -> int:
    """The bytes of the weights a step of `model` makes of its own (`_fused`: q/k/v and gate/up
    stacked, biases included); every other weight it reads in place. 0 for a model it does not
    compute. (On the CPU in bf16 oneDNN packs every weight anew, uncounted: `slots` asks on CUDA.)"""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    if not _computes(base, longest):
        return 0
    size = next(base.parameters()).element_size()
    parts = [(layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj)
             for layer in base.model.layers] + [(layer.mlp.gate_proj, layer.mlp.up_proj) for layer in base.model.layers]
    return sum(size * sum(m.weight.numel() + (m.out_features if any(x.bias is not None for x in group) else 0)
                          for m in map(_plain_linear, group)) for group in parts)


class _Linear:
    """One weight (and bias) for linear(): packed once for oneDNN where the CPU runs bf16 (the
    repacking F.linear does at every call costs 13-19% of a decode step), else the plain tensor."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None, packed: bool, rows: int):
        self.bias, self.packed = bias, packed
        self.weight = torch.ops.mkldnn._reorder_linear_weight(weight, rows) if packed else weight

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if self.packed:
            return torch.ops.mkldnn._linear_pointwise(x, self.weight, self.bias, "none", [], "")
        return linear(x, self.weight, self.bias)


def _fused(mods, packed: bool, rows: int, scale: float = 1.0, scaled: int = 0) -> _Linear:
    """nn.Linear layers that read the same input, as one: their weights (and biases) stacked by rows,
    the first `scaled` output rows times `scale`: a new tensor, the model's stay untouched. One
    layer, unscaled: its own weight and bias, no copy (o_proj, down_proj and the LM head would
    otherwise hold a second copy of most of the model while the loop runs)."""
    mods = [_plain_linear(m) for m in mods]
    if len(mods) == 1 and not scaled:
        bias = mods[0].bias
        return _Linear(mods[0].weight.detach(), None if bias is None else bias.detach(), packed, rows)
    w = torch.cat([m.weight.detach() for m in mods])
    b = None
    if any(m.bias is not None for m in mods):
        b = torch.cat([m.bias.detach() if m.bias is not None else w.new_zeros(m.out_features) for m in mods])
    if scaled:
        w[:scaled] *= scale
        if b is not None:
            b[:scaled] *= scale
    return _Linear(w, b, packed, rows)


class LlamaStep:
    """step(ids (n,), pos (n,), cache) -> logits (n, vocab): one token of each live row, its keys and
    values written into the cache (a pipeline.engines.decode.SlotCache) at pos.

    Each layer is about twenty calls (transformers' forward makes about sixty): RMSNorm as one
    fused call, rotary as a roll against a sine whose first half carries the sign, the attention
    scale folded into the query weights where it is a power of two (exact), the mask added and the
    softmax taken in float32 in one call each."""

    def __init__(self, model, rows: int = 64, attention: str = "kernel"):
        import math

        from pipeline.engines import cpu_attention
        from pipeline.engines.sampling_weights import packing_works
        c = _text_config(model)
        p = next(model.parameters())
        packed = p.device.type == "cpu" and p.dtype == torch.bfloat16 and packing_works()
        self.inner = model.model
        self.heads = c.num_attention_heads
        self.kv_heads = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
        self.head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
        self.q_size, self.kv_size = self.heads * self.head_dim, self.kv_heads * self.head_dim
        self.hidden = (c.hidden_size,)
        self.layers = []
        for layer in self.inner.layers:
            a, m = layer.self_attn, layer.mlp
            scaling = a.scaling
            # q x 2^-k is exact in any float format: folded into q's weights, the scores are the same numbers
            fold = math.log2(scaling).is_integer()
            qkv = _fused([a.q_proj, a.k_proj, a.v_proj], packed, rows, scaling, self.q_size if fold else 0)
            n1, n2 = layer.input_layernorm, layer.post_attention_layernorm
            self.layers.append((n1.weight, n1.variance_epsilon, qkv, _fused([a.o_proj], packed, rows),
                                n2.weight, n2.variance_epsilon, _fused([m.gate_proj, m.up_proj], packed, rows),
                                _fused([m.down_proj], packed, rows), m.act_fn, 1.0 if fold else scaling))
        self.norm = (self.inner.norm.weight, self.inner.norm.variance_epsilon)
        self.head = _fused([model.lm_head], packed, rows)
        # the CPU's one-token attention: the kernel where it computes this shape and builds, else SDPA
        self.kernel = None
        if attention == "kernel" and p.device.type == "cpu" and cpu_attention.supports(
                self.heads, self.kv_heads, self.head_dim, p.dtype):
            self.kernel = cpu_attention.kernel()
        self.attention = "grouped" if p.device.type == "cuda" else "kernel" if self.kernel else "sdpa"
        # the layers' elementwise work as three C++ calls (cpu_attention.module), where the kernel built
        # and the model is plain: SiLU, its norms in the step's dtype
        self.fused = None
        # every RMSNorm in order (each layer's two, then the final one): weights and epsilons
        self._norms = [w.detach().contiguous() for w1, _, _, _, w2, *_ in self.layers for w in (w1, w2)]
        self._norms.append(self.norm[0].detach().contiguous())
        self._eps = [e for layer in self.layers for e in (layer[1], layer[5])] + [self.norm[1]]
        if (self.kernel is not None and getattr(c, "hidden_act", None) == "silu" and self.head_dim % 2 == 0
                and all(w.dtype == p.dtype for w in self._norms)):
            self.fused = cpu_attention.module()

    def _rotary(self, x: torch.Tensor, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """cos and the signed sine at positions pos (n,), each (n, 1, d): rotate_half(q) * sin ==
        roll(q, d/2) * sin', sin' = sin with its first half negated (exact)."""
        cos, sin = self.inner.rotary_emb(x, pos[None])               # (1, n, d): the model's own rotary
        half = self.head_dim // 2
        cos, sin = cos[0, :, None], sin[0, :, None]
        return cos, torch.cat((-sin[..., :half], sin[..., half:]), -1)

    @torch.no_grad()
    def prefill(self, ids: torch.Tensor, start: int = 0, prefix: list | None = None) -> tuple[list, torch.Tensor]:
        """One prompt's tokens ids (T,) at positions start.. on top of `prefix` (per layer the keys and
        values (1, KVH, start, D) of the positions before, or None when start is 0): per layer its
        keys and values (1, KVH, start + T, D), and the last position's logits (1, vocab). One prompt
        at a time, so a prompt's keys do not depend on what else is prefilled (batch invariance)."""
        T, d, kvh, H = ids.shape[0], self.head_dim, self.kv_heads, self.heads
        x = self.inner.embed_tokens(ids)                             # (T, hidden)
        cos, sin = self._rotary(x, torch.arange(start, start + T, device=ids.device))
        mask = None                                                  # causal; with a prefix, every prefix key too
        if start:
            mask = torch.ones(T, start + T, dtype=torch.bool, device=ids.device).tril(start)
        half, out = d // 2, []
        sdpa = torch.nn.functional.scaled_dot_product_attention
        x = x.contiguous()
        h = self._add_norm(x, None, 0)
        for i, (w1, e1, qkv, o, w2, e2, gate_up, down, act, scaling) in enumerate(self.layers):
            h = qkv(h)                                               # (T, (H + 2 KVH) d)
            qk = h[:, : self.q_size + self.kv_size].view(T, H + kvh, d)
            qk = (qk * cos + torch.roll(qk, half, -1) * sin).transpose(0, 1)  # (H + KVH, T, d)
            q, k = qk[None, :H], qk[None, H:]
            v = h[:, self.q_size + self.kv_size:].view(T, kvh, d).transpose(0, 1)[None]
            if prefix is not None:
                k, v = torch.cat((prefix[i][0], k), 2), torch.cat((prefix[i][1], v), 2)
            k, v = k.contiguous(), v.contiguous()
            out.append((k, v))
            # scale 1.0 where it is folded into q's weights; query head h reads key/value head h // g
            att = sdpa(q, k, v, attn_mask=mask, is_causal=mask is None, scale=scaling, enable_gqa=True)
            x, h = self._add_norm(x, o(att[0].transpose(0, 1).reshape(T, self.q_size)), 2 * i + 1)
            h = gate_up(h)
            mlp = (self.fused.silu_mul(h) if self.fused is not None and h.dtype == torch.bfloat16
                   else act(h[:, : h.shape[-1] // 2]) * h[:, h.shape[-1] // 2:])
            x, h = self._add_norm(x, down(mlp), 2 * i + 2)
        return out, self.head(h[-1:])

    def _add_norm(self, x: torch.Tensor, y: torch.Tensor | None, k: int):
        """RMSNorm number k (each layer's two, then the final one) of x + y: (x + y, its norm), or the
        norm of x alone when y is None. In bf16 the fused call, which adds in place and rounds as
        transformers' LlamaRMSNorm does (x times the rsqrt rounded, then times the weight), as the
        decode step does: torch's F.rms_norm rounds once, a last place apart on some elements. In
        float32 torch's, whose pow-and-mean is the reference's own (the fused sum's other order
        doubled the prefill's distance to transformers' logprobs on a tiny random Qwen2)."""
        if self.fused is not None and x.dtype == torch.bfloat16:
            h = self.fused.add_rms_norm(x, y, self._norms[k], self._eps[k])
            return h if y is None else (x, h)
        if y is not None:
            x = x + y
        h = torch.nn.functional.rms_norm(x, self.hidden, self._norms[k], self._eps[k])
        return h if y is None else (x, h)

    @torch.no_grad()
    def _fused_step(self, ids: torch.Tensor, pos: torch.Tensor, cache) -> torch.Tensor:
        """The step on the CPU with the C++ calls: per layer nine calls (norm, qkv, rotary and cache
        write, attention, o, residual and norm, gate_up, SiLU x up, down); the operations of
        `__call__`, the residual add folded into the next norm, rounded as transformers' (its
        RMSNorm rounds twice where torch's F.rms_norm rounds once: `_add_norm`)."""
        f, n = self.fused, ids.shape[0]
        x = self.inner.embed_tokens(ids).contiguous()                # (n, hidden): the residual, added to in place
        cos, sin = self._rotary(x, pos)
        cos, sin = cos[:, 0].contiguous(), sin[:, 0].contiguous()   # (n, d)
        norms, eps = self._norms, self._eps
        h = f.add_rms_norm(x, None, norms[0], eps[0])
        for i, (_, _, qkv, o, _, _, gate_up, down, _, scaling) in enumerate(self.layers):
            kc, vc = cache.k[i], cache.v[i]
            q = f.rope_write(qkv(h), cos, sin, kc, vc, pos, self.heads)
            att = f.one_token_attention(q, kc, vc, pos, scaling)
            h = f.add_rms_norm(x, o(att.view(n, self.q_size)), norms[2 * i + 1], eps[2 * i + 1])
            h = f.add_rms_norm(x, down(f.silu_mul(gate_up(h))), norms[2 * i + 2], eps[2 * i + 2])
        return self.head(h)

    @torch.no_grad()
    def __call__(self, ids: torch.Tensor, pos: torch.Tensor, cache) -> torch.Tensor:
        if self.fused is not None:
            return self._fused_step(ids, pos, cache)
        n, d, kvh, H = ids.shape[0], self.head_dim, self.kv_heads, self.heads
        room, span = cache.room, cache.span                          # keys at [0, span) are read, span <= room
        dev = ids.device
        x = self.inner.embed_tokens(ids)                             # (n, hidden)
        cos, sin = self._rotary(x, pos)
        half = d // 2
        mask = None
        if self.kernel is None:                                      # additive, exact in any float format
            mask = torch.where(torch.arange(span, device=dev)[None, :] <= pos[:, None], 0.0, float("-inf"))
            mask = mask.to(x.dtype).view(n, 1, 1, span)
        # where each row's new key goes in a layer's cache seen as (slots * KVH * room, d)
        at = ((torch.arange(n, device=dev)[:, None] * kvh + torch.arange(kvh, device=dev)[None, :]) * room
              + pos[:, None]).view(-1)
        rms, sdpa = torch.nn.functional.rms_norm, torch.nn.functional.scaled_dot_product_attention
        for i, (w1, e1, qkv, o, w2, e2, gate_up, down, act, scaling) in enumerate(self.layers):
            h = qkv(rms(x, self.hidden, w1, e1))                     # (n, (H + 2 KVH) d)
            qk = h[:, : self.q_size + self.kv_size].view(n, H + kvh, d)
            qk = qk * cos + torch.roll(qk, half, -1) * sin           # transformers' apply_rotary_pos_emb
            q, k = qk[:, :H], qk[:, H:]
            v = h[:, self.q_size + self.kv_size:].reshape(n * kvh, d)
            kc, vc = cache.k[i], cache.v[i]                          # (slots, KVH, room, d)
            kc.view(-1, d).index_copy_(0, at, k.reshape(n * kvh, d))
            vc.view(-1, d).index_copy_(0, at, v)
            # SDPA: the first n slots' first span positions, a strided view read in place (it copies nothing);
            # query head h serves key/value head h // g (transformers' repeat_kv). SDPA's CPU kernel
            # accumulates in float32: bf16 probabilities times bf16 values in two bmm calls were 30x
            # further from float32 attention, and slower (bf16 bmm at 3 query rows a head: ~20 GFLOP/s)
            if self.kernel is not None:                              # row r reads its keys [0, pos[r]]
                att = self.kernel(q, kc, vc, pos, scaling)
            elif dev.type == "cuda":
                att = grouped_attention(q[:, :, None], kc[:n, :, :span], vc[:n, :, :span], mask, scaling)
            else:
                att = sdpa(q[:, :, None], kc[:n, :, :span], vc[:n, :, :span], attn_mask=mask, scale=scaling,
                           enable_gqa=True)
            x = x + o(att.view(n, self.q_size))
            h = gate_up(rms(x, self.hidden, w2, e2))                 # (n, 2 I): gate, then up
            x = x + down(act(h[:, : h.shape[-1] // 2]) * h[:, h.shape[-1] // 2:])
        return self.head(rms(x, self.hidden, *self.norm))
