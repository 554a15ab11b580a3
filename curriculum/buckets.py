"""Difficulty estimates -> easy / medium / hard buckets.

thresholds: fixed cut points (`easy_below`, `hard_above`), so a bucket's meaning stays the same
    across epochs and its size shows how the student is doing (hard prompts becoming medium).
quantiles: tertiles of the current estimates, so the three buckets stay about equally full
    whatever the student's level; a bucket is then relative to the rest of the pool.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Literal

from curriculum.config import CurriculumConfig

Bucket = Literal["easy", "medium", "hard"]
BUCKETS: tuple[Bucket, ...] = ("easy", "medium", "hard")


def cut_points(difficulties: dict[str, float], cfg: CurriculumConfig) -> tuple[float, float]:
    """(low, high): below low is easy, above high is hard, anything between (inclusive) is medium."""
    if cfg.buckets == "thresholds":
        return cfg.easy_below, cfg.hard_above
    values = list(difficulties.values())
    if len(values) < 2:
        # one prompt has no tertiles; call it medium
        return float("-inf"), float("inf")
    # interpolated tertiles; tied estimates always share a bucket (all equal -> all medium)
    low, high = statistics.quantiles(values, n=3, method="inclusive")
    return low, high


def assign(difficulties: dict[str, float], cfg: CurriculumConfig) -> dict[str, Bucket]:
    """Bucket of every prompt id, by `cfg.buckets` (thresholds or quantiles). Under quantiles the estimates tied
    at a cut point go to the side that keeps each bucket nearest a third of the pool: tier priors put a whole
    tier on one value (every easy problem at 0.25, which is then the lower tertile, and was medium)."""
    low, high = cut_points(difficulties, cfg)
    easy_at_low = hard_at_high = False
    if cfg.buckets == "quantiles":
        values, third = list(difficulties.values()), len(difficulties) / 3
        easy_at_low = abs(sum(v <= low for v in values) - third) < abs(sum(v < low for v in values) - third)
        hard_at_high = abs(sum(v >= high for v in values) - third) < abs(sum(v > high for v in values) - third)
    return {pid: "easy" if d < low or (easy_at_low and d == low) else
            "hard" if d > high or (hard_at_high and d == high) else "medium" for pid, d in difficulties.items()}


def counts(buckets: dict[str, Bucket], ids: Iterable[str] | None = None) -> dict[Bucket, int]:
    """How many prompts per bucket, over `ids` (default: all of them); every bucket present."""
    out: dict[Bucket, int] = {b: 0 for b in BUCKETS}
    for pid in buckets if ids is None else ids:
        out[buckets[pid]] += 1
    return out
