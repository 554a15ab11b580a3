"""The LM head in float32 for a bf16/fp16 student (`fp32_head`, which the logprobs stage and the
update run the model under), and on CUDA the float32 matmul it makes on TF32 tensor cores
(`ExactTF32Linear`)."""
from __future__ import annotations

from contextlib import contextmanager

import torch


@contextmanager
def fp32_head(model):
    """While the model runs, its LM head computes in float32 when its weights are bf16/fp16: the
    hidden states and a float32 copy of the head's weights (kept on the module, refreshed when the
    weights change) give float32 logits. bf16 logits round every logprob by ~1e-2 and bias the
    entropy low; ScaleRL (Khatri et al. 2025) and TRL's cast_lm_head_to_fp32 compute the head in
    float32 for the same reason. The weights themselves stay as they are (a tied embedding too), so
    the sampler, which runs outside this, is untouched. Costs vocab x hidden x 4 bytes (0.9 GB for
    Qwen2.5-1.5B). On CUDA the float32 matmul runs on TF32 tensor cores (`ExactTF32Linear`: exact for
    these bf16 values). On an H100's float32 units the head of a 1.5B student (completions of 256
    tokens after prompts of 100), at the peaks, takes 0.6x the time of the rest of the forward and
    backward with a 49k vocabulary, 1.9x with Qwen2.5's 152k. A float32 model, or a head that carries
    a LoRA adapter, runs as it is."""
    model = unwrapped(model)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if not isinstance(head, torch.nn.Linear) or head.weight.dtype not in (torch.bfloat16, torch.float16):
        yield
        return
    w32, b32 = _fp32_weights(head)
    if head.weight.is_cuda:
        head.forward = lambda h: ExactTF32Linear.apply(h.float(), w32, b32)
    else:
        head.forward = lambda h: torch.nn.functional.linear(h.float(), w32, b32)
    try:
        yield
    finally:
        del head.forward  # back to the class's own


def unwrapped(model):
    """The model a DDP wrapper holds (the update's model on several processes: accelerate's prepare),
    else the model: DDP passes no attribute (get_output_embeddings, config) through to the one it wraps."""
    return model.module if isinstance(model, torch.nn.parallel.DistributedDataParallel) else model


def _fp32_weights(head: torch.nn.Linear) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The head's float32 (weight, bias), a copy kept on the module and refreshed when the weights change."""
    w = head.weight
    if w.dtype == torch.float32:
        return w.detach(), None if head.bias is None else head.bias.detach()
    key = (w.data_ptr(), w._version)
    if getattr(head, "_fp32_key", None) != key:
        head._fp32 = (w.detach().float(), None if head.bias is None else head.bias.detach().float())
        head._fp32_key = key
    return head._fp32


PLAIN_HEADS = ("qwen2", "qwen3", "llama", "mistral", "phi3", "starcoder2", "gemma")
"""model_types whose causal LM computes its logits as `lm_head(last hidden states)` and nothing after
(no softcapping, no logit scale): their head can run outside the model (`fused_head`)."""


def fused_head(model):
    """(weight, bias) of a float32 LM head that the caller may apply to the model's last hidden states
    itself, a chunk of rows at a time, so that the (B, K, V) float32 logits never exist at once
    (`pipeline.engines.forward`); None where it may not: a head that trains (its weights require grad
    outside no_grad) or carries an adapter, or a
    model whose forward does more after the head (PLAIN_HEADS)."""
    model = unwrapped(model)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if type(head) is not torch.nn.Linear or (head.weight.requires_grad and torch.is_grad_enabled()):
        return None   # a head that trains computes its own gradient
    c = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    if getattr(c, "model_type", None) not in PLAIN_HEADS:
        return None
    return _fp32_weights(head)


@contextmanager
def hidden_states_out(model):
    """While the model runs, its `.logits` are its last hidden states (the head a no-op): for `fused_head`."""
    head = unwrapped(model).get_output_embeddings()
    head.forward = lambda h: h
    try:
        yield
    finally:
        del head.forward


def head_linear(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    """float32 logits of hidden states h under `fused_head`'s weights: on CUDA on TF32 tensor cores
    (`ExactTF32Linear`) when the weights hold bf16 values, as `fp32_head` computes them."""
    if h.is_cuda and h.dtype in (torch.bfloat16, torch.float16):
        return ExactTF32Linear.apply(h.float(), w, b)
    return torch.nn.functional.linear(h.float(), w, b)


@contextmanager
def tf32_matmuls():
    """CUDA float32 matmuls on TF32 tensor cores while inside (torch.backends.cuda.matmul.allow_tf32)."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


class ExactTF32Linear(torch.autograd.Function):
    """`linear(h, w, b)` in float32 where h and w hold bf16 or fp16 values (`fp32_head`'s upcasts), on
    CUDA's TF32 tensor cores instead of its float32 units (an H100: 495 against 67 dense TFLOP/s). TF32
    keeps 10 mantissa bits, so it holds every bf16 (7) and fp16 (10) value exactly: the forward's
    products are exact and sum in float32, as the float32 GEMM's do. The backward rounds the float32
    gradient of the logits to TF32 (2^-11 relative) before it meets the weights; its result goes back
    into the model through the bf16 cast, a rounding of 2^-8. Only the head's gradient with respect to
    h is computed (its float32 weights are a frozen copy). The CPU computes the same as `linear`."""

    @staticmethod
    def forward(ctx, h, w, b):
        ctx.save_for_backward(w)
        with tf32_matmuls():
            return torch.nn.functional.linear(h, w, b)

    @staticmethod
    def backward(ctx, grad):
        (w,) = ctx.saved_tensors
        with tf32_matmuls():
            return grad @ w, None, None
