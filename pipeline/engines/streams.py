"""Each completion's own random stream and the inverse-CDF pick the samplers draw with.

A completion's seed comes from the run's sampling seed, its prompt's key and its index in the
group (`row_seed`), never from its batch or process; its t-th uniform is the t-th output of a
SplitMix64 stream from that seed (`uniforms`); a token is the first whose cumulative probability
exceeds the uniform x the total (`pick`). The decode loop (pipeline/engines/decode.py) and the reference
engine (transformers' generate with engine_hf.SeededSampler) draw by these same rules, so the same
streams give the same tokens in either.
"""
from __future__ import annotations

import hashlib

import numpy as np
import torch

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (Steele et al. 2014), on uint64 arrays (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def row_seed(seed: int, key: str, sample_idx: int) -> int:
    """The seed of one completion: the run's sampling seed (run.seed and the epoch), the prompt's
    key (its problem id) and the sample's index in its group. Not its batch, not its rank."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}:{sample_idx}".encode()).digest()[:8], "little")


def uniforms(seeds: list[int], steps: int) -> torch.Tensor:
    """(len(seeds), steps) float64 in [0, 1): the t-th draw of each row's SplitMix64 stream."""
    s = np.array(seeds, dtype=np.uint64)[:, None]
    t = np.arange(1, steps + 1, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):
        z = _splitmix64(s + t * _GOLDEN)
    return torch.from_numpy((z >> np.uint64(11)).astype(np.float64) * 2.0**-53)


BLOCK = 256


def pick(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """(B,) token ids: the inverse-CDF pick of each row's probabilities (B, V) at its uniform (B,):
    the first token whose cumulative probability exceeds u x the total. Two levels (the block of
    BLOCK tokens, then the token in it) instead of one cumsum over the vocabulary: the same rule
    for a fraction of the work. A target is kept strictly below the total (a uniform near 1 rounds
    up to it in float32) and a pick never lands on a token of probability 0."""
    n, vocab = probs.shape
    blocks = torch.nn.functional.pad(probs, (0, -vocab % BLOCK)).view(n, -1, BLOCK)      # (B, NB, BLOCK)
    cdf = blocks.sum(-1).cumsum(-1)                                                    # (B, NB)
    total = cdf[:, -1]
    target = torch.minimum(u * total, torch.nextafter(total, torch.zeros_like(total)))
    b = torch.searchsorted(cdf, target[:, None], right=True).clamp(max=cdf.shape[1] - 1)  # (B, 1)
    before = torch.where(b > 0, cdf.gather(1, (b - 1).clamp(min=0)), torch.zeros_like(target[:, None]))
    block = blocks.gather(1, b[:, :, None].expand(n, 1, BLOCK))[:, 0]                    # (B, BLOCK)
    inner = block.cumsum(-1) + before
    j = torch.searchsorted(inner, target[:, None], right=True)
    last = BLOCK - 1 - (block > 0).flip(-1).to(torch.uint8).argmax(-1, keepdim=True)    # last token with p > 0
    return (b * BLOCK + torch.minimum(j, last))[:, 0]
