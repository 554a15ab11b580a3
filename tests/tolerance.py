"""Numeric tolerances derived from the dtype, the magnitudes compared and the reductions' lengths,
never tuned to one machine.

Two implementations of one computation (ours and transformers', AVX2 and AVX-512 and AMX kernels,
a blocked and a plain sum) differ only in where they round. The model used here:

- A sum of n terms rounds once a term: its error is at most lambda * sqrt(n) * u * sum|x_i| with
  probability at least 1 - 2 exp(-lambda^2 / 2) when the rounding errors are independent and of
  mean zero (Higham & Mary 2019, "A new approach to probabilistic rounding error analysis", SIAM J.
  Sci. Comput. 41(5), Thm 2.4); u = eps / 2 the unit roundoff of the accumulating dtype. The worst
  case, n * u (Higham 2002, §4.2), is what no real kernel reaches: its rounding errors cancel.
- A chain of such reductions (a network's layers) adds their errors to first order: the sum of
  sqrt(n) over the chain. A value stored in a lower precision (bf16 activations, float32 sums)
  adds one rounding u_dtype * |x| at each store: k stores add lambda * sqrt(k) * u_dtype.
- Both sides carry their own errors: the bound is doubled.
- lambda comes from the number of elements compared and the false-failure probability accepted
  (P_FAIL for the whole comparison, a union bound): lambda = sqrt(2 ln(2 m / P_FAIL)).

`magnitude` stands for sum|x_i|: the size of the values compared where their sums do not cancel
(pass the terms' size where a sum cancels far below its terms). The model assumes the computation is well conditioned (later layers do not
amplify an early error); each test that uses it compares values of the same order as its inputs.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import torch

P_FAIL = 1e-6   # the chance that one comparison fails from rounding alone (a suite holds about 100)


def unit_roundoff(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps / 2


def lam(elements: int) -> float:
    """lambda for `elements` compared values at P_FAIL (union bound over the elements)."""
    return math.sqrt(2 * math.log(2 * max(1, elements) / P_FAIL))


def tolerance(dtype: torch.dtype, magnitude: float, reductions: Iterable[int] = (), *, stores: int = 0,
              elements: int = 1, accumulate: torch.dtype | None = None) -> float:
    """The largest |a - b| two roundings of one computation may show (see the module's docstring).

    dtype: the dtype the values are stored in; accumulate: the dtype the sums run in (float32 for bf16
    matmuls and norms on the CPU; dtype by default); reductions: the length of each sum on the chain
    from the inputs to a compared value; stores: the roundings to `dtype` on that chain (each
    operation's output in a low-precision dtype); elements: how many values are compared."""
    acc = accumulate or dtype
    sums = sum(math.sqrt(n) for n in reductions)
    per_side = unit_roundoff(acc) * sums + unit_roundoff(dtype) * math.sqrt(stores)
    return 2 * lam(elements) * per_side * magnitude


def llama_chain(hidden: int, intermediate: int, head_dim: int, keys: int, layers: int,
                vocab: int | None = None) -> list[int]:
    """The reductions on the path from a token's embedding to one logit of a Llama-shaped decoder
    (and to its log-probability, with the vocabulary's log-sum-exp, where `vocab` is given): per layer
    the RMSNorm (hidden), q/k/v (hidden), the scores (head_dim), softmax and the weighted values (keys),
    o_proj (hidden), the second RMSNorm (hidden), gate/up (hidden) and down (intermediate); then the
    final norm and the head (hidden)."""
    layer = [hidden, hidden, head_dim, keys, keys, hidden, hidden, hidden, intermediate]
    out = layer * layers + [hidden, hidden]
    return out + [vocab] if vocab else out


def model_chain(model, keys: int, logprobs: bool = False) -> list[int]:
    """llama_chain for a transformers decoder (Llama, Qwen2: the same reductions) at `keys` positions."""
    c = getattr(model, "config", model)
    head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
    return llama_chain(c.hidden_size, c.intermediate_size, head_dim, keys, c.num_hidden_layers,
                       c.vocab_size if logprobs else None)


def logits_tolerance(model, keys: int, magnitude: float, elements: int, logprobs: bool = False,
                     dtype: torch.dtype = torch.float32) -> float:
    """Two float32 forwards of a decoder (another kernel, another order of the same sums) at `keys`
    positions: the derived bound on their logits' (or log-probabilities') difference."""
    return tolerance(dtype, magnitude, model_chain(model, keys, logprobs), elements=elements)


def gradient_tolerance(model, keys: int, tokens: int) -> float:
    """Two float32 backward passes of a sum of log-probabilities (another batching, another kernel):
    the derived bound on ||g_a - g_b|| / ||g_b||. The forward's reductions, the backward's (the same
    lengths again) and the sum over the `tokens` positions that a weight's gradient adds up; the norm
    averages its elements' errors, so one element's lambda, at relative magnitude 1."""
    chain = model_chain(model, keys, logprobs=True)
    return tolerance(torch.float32, 1.0, chain + chain + [tokens])


def adapter_tolerance(model, keys: int, tokens: int, moved: float, elements: int) -> float:
    """Two float32 trainings that take the same steps on the same batches (in another summation order):
    the derived bound on their parameters' difference. Each step moves a parameter by the optimizer's
    map of its gradient, so a gradient's relative rounding (gradient_tolerance's chain) moves it by that
    fraction of its movement; `moved` is the largest |p_after - p_before| of the parameters compared."""
    chain = model_chain(model, keys, logprobs=True)
    return tolerance(torch.float32, moved, chain + chain + [tokens], elements=elements)


def assert_same_parameters(got: dict, want: dict, before: dict, model, keys: int, tokens: int) -> None:
    """The training's whole movement the same within adapter_tolerance, relative to its norm. Not element
    by element: Adam divides each gradient by its own scale, so an element whose gradient cancels to
    near 0 turns a last-place difference into a step-sized one; the norm weighs the elements by size."""
    names = list(want)
    moved = torch.cat([(want[n] - before[n]).flatten() for n in names]).double()
    diff = torch.cat([(got[n] - want[n]).flatten() for n in names]).double()
    assert float(moved.norm()) > 0, "nothing moved"
    rel = float(diff.norm() / moved.norm())
    bound = adapter_tolerance(model, keys, tokens, 1.0, 1)
    assert rel <= bound, f"the trainings differ by {rel:.3g} of their movement > derived {bound:.3g}"


def llama_stores(layers: int) -> int:
    """The roundings to the activations' dtype on that path: per layer the two norms, q/k/v, the
    scores, the attention output, o_proj and its residual add, gate/up, the SiLU product, down and
    its residual add (11); then the final norm and the logits."""
    return 11 * layers + 2


def assert_close(got: torch.Tensor, want: torch.Tensor, atol: float, what: str = "") -> None:
    """|got - want| <= atol everywhere (an absolute bound: the magnitude is in atol already)."""
    got, want = got.double(), want.double()
    diff = torch.where(got == want, 0.0, (got - want).abs())   # equal infinities agree; a NaN never does
    worst = float(diff.max()) if diff.numel() else 0.0
    assert worst <= atol, f"{what} max |diff| {worst:.3g} > derived tolerance {atol:.3g}"
