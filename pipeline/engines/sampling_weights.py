"""The weights the hf engine samples with: the policy (its LoRA merged in) in sample.dtype.

On a CPU with avx512_bf16 (or AMX), bf16 matmuls run about 3x as fast as float32 ones (measured
here: 267 against 77 GFLOP/s at the decode loop's 64 rows, bench/sampler.py), so sample.dtype=auto
samples in bf16 there while the logprobs stage and the update stay in the student's dtype: a
slightly different policy, whose distance from the trained one the logprobs stage measures on
every sampled token (`logprobs/sampler_gap`) and the report flags. The bf16 copy of the weights is
made once per process (one per base model and dtype) and refreshed from the policy's merged
weights at every use; its linear layers then run on weights packed once for oneDNN
(`PackedLinear`: the same results bit for bit, the repacking of every call saved).
"""
from __future__ import annotations

import weakref
from contextlib import contextmanager, nullcontext

import torch

_COPIES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _plain(model):
    """The transformers model under a PeftModel (or the model itself)."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def cpu_has_bf16() -> bool:
    cpu = getattr(torch, "cpu", None)
    return bool(cpu is not None and (getattr(cpu, "_is_avx512_bf16_supported", lambda: False)()
                                     or getattr(cpu, "_is_amx_tile_supported", lambda: False)()))


def sampling_dtype(spec: str, model) -> torch.dtype:
    """sample.dtype -> torch dtype. auto: bf16 for a float32 student on a CPU with avx512_bf16 or
    AMX, else the student's own dtype."""
    if spec != "auto":
        return getattr(torch, spec)
    p = next(model.parameters())
    if p.device.type == "cpu" and p.dtype == torch.float32 and cpu_has_bf16():
        return torch.bfloat16
    return p.dtype


def _copy_of(model, dtype):
    """This process's plain copy of the model's architecture in dtype (made once, weights loaded at use)."""
    from transformers import AutoModelForCausalLM
    from transformers.initialization import no_init_weights
    base = _plain(model)
    per = _COPIES.setdefault(base, {})
    if dtype not in per:
        with no_init_weights():
            copy = AutoModelForCausalLM.from_config(base.config, dtype=dtype)
        per[dtype] = copy.to(next(base.parameters()).device).eval()
    copy = per[dtype]
    copy.generation_config = base.generation_config  # engine=generate reads it, as on the student itself
    return copy


@torch.no_grad()
def _load_weights(copy, model) -> None:
    """The model's current (merged) weights into copy, cast to its dtype."""
    src = {k.replace(".base_layer.", "."): v for k, v in _plain(model).state_dict().items() if "lora_" not in k}
    for name, t in copy.state_dict().items():
        if name not in src:
            raise RuntimeError(f"sampling copy: no weight {name!r} in the student (set sample.dtype to the "
                               "student's dtype to sample on the student itself)")
        t.copy_(src[name])
    for name, t in copy.named_buffers():  # rotary frequencies and the like: not in a state dict
        own = dict(_plain(model).named_buffers()).get(name)
        if own is not None:
            t.copy_(own)


class PackedLinear(torch.nn.Module):
    """A bf16 nn.Linear on the CPU whose weight oneDNN packed once (`_reorder_linear_weight`), run
    by `_linear_pointwise` (what torch.compile's freezing uses): the same output, bit for bit, as
    F.linear, which repacks the weight at every call (measured: 13-19% of a decode step at 1-64 rows)."""

    def __init__(self, linear: torch.nn.Linear, rows_hint: int):
        super().__init__()
        self.weight = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), rows_hint)
        self.bias = linear.bias
        self.__dict__["original"] = linear  # not a submodule: the decode step reads its weights (decode_step.py)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.mkldnn._linear_pointwise(x.reshape(-1, x.shape[-1]), self.weight, self.bias, "none", [], "")
        return y.view(*x.shape[:-1], y.shape[-1])


_PACKING_OK: bool | None = None


def packing_works() -> bool:
    """oneDNN's packed linear is there and gives F.linear's output on this CPU (checked once)."""
    global _PACKING_OK
    if _PACKING_OK is None:
        try:
            lin = torch.nn.Linear(64, 48, bias=True).to(torch.bfloat16)
            x = torch.randn(5, 64, dtype=torch.bfloat16)
            _PACKING_OK = bool(torch.equal(PackedLinear(lin, 64)(x), torch.nn.functional.linear(x, lin.weight, lin.bias)))
        except (AttributeError, RuntimeError):
            _PACKING_OK = False
    return _PACKING_OK


@contextmanager
def packed_linears(model, rows_hint: int = 64):
    """The model's bf16 CPU linear layers as `PackedLinear` for the duration (where packing works)."""
    p = next(model.parameters())
    swapped = []
    if p.device.type == "cpu" and p.dtype == torch.bfloat16 and packing_works():
        for mod in list(model.modules()):
            for name, child in list(mod.named_children()):
                if type(child) is torch.nn.Linear:
                    setattr(mod, name, PackedLinear(child, rows_hint))
                    swapped.append((mod, name, child))
    try:
        yield model
    finally:
        for mod, name, child in swapped:
            setattr(mod, name, child)


@contextmanager
def sampling_model(model, cfg):
    """The model the sample and eval stages generate with. In the student's dtype: the student itself,
    its LoRA merged in for the duration (sample.merge_lora). In another dtype (sample.dtype): this
    process's copy in that dtype holding the merged weights, its CPU bf16 linears packed."""
    from pipeline.engines.model import merged
    dtype = sampling_dtype(cfg.sample.dtype, model)
    if dtype == next(model.parameters()).dtype:
        with merged(model) if cfg.sample.merge_lora else nullcontext():
            yield model
        return
    copy = _copy_of(model, dtype)
    with merged(model):
        _load_weights(copy, model)
    with packed_linears(copy):
        yield copy
