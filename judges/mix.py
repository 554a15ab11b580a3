"""The mix judge: a weighted combination of component judges (e.g. tests 0.65 + rubric 0.35).

Each component is scored and cached on its own (pipeline/stages/judging.py runs them), so changing a
weight re-pays nothing; this is only the arithmetic.
"""
from __future__ import annotations

from judges.base import Score


def combine(parts: dict[str, Score], weights: dict[str, float]) -> Score:
    """Weighted mean of the components; None when any component could not score (counted)."""
    if len(parts) == 1:
        return next(iter(parts.values()))
    if any(s.value is None for s in parts.values()):
        return Score(value=None, breakdown={k: {"value": s.value, **s.breakdown} for k, s in parts.items()},
                     raw="a component could not score", cost_usd=sum(s.cost_usd for s in parts.values()))
    total = sum(weights.values())
    return Score(value=sum(weights[k] * s.value for k, s in parts.items()) / total,
                 breakdown={k: {"value": s.value, "weight": weights[k], **s.breakdown} for k, s in parts.items()},
                 cost_usd=sum(s.cost_usd for s in parts.values()))
