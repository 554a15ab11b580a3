"""The one judge interface: every judge returns a `Score`; a teacher model returns a `Generation`.

`value is None` means the judge could not score (parse failure, sandbox error). It is
counted and reported, never silently turned into 0.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Score:
    value: float | None
    """Score in [0, 1], or None when the judge could not score."""
    breakdown: dict[str, Any] = field(default_factory=dict)
    """Named parts of the score (for execution: structure, static, load, tests, ...)."""
    raw: str = ""
    """The judge's raw output (API response text, sandbox error), kept so re-parsing never pays again."""
    usage: dict[str, int] = field(default_factory=dict)
    """Token usage of the call that produced it ({} for local judges)."""
    cost_usd: float = 0.0
    """Dollars the call cost (0 for local judges and cache hits)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Score":
        return cls(value=d["value"], breakdown=d.get("breakdown", {}), raw=d.get("raw", ""),
                   usage=d.get("usage", {}), cost_usd=d.get("cost_usd", 0.0))


@dataclass
class Generation:
    """A teacher answer written by an API model."""
    text: str
    raw: str = ""
    """The full raw response, kept so re-parsing never pays again."""
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float = 0.0
    truncated: bool = False
    """The model stopped at max_tokens."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Generation":
        return cls(text=d["text"], raw=d.get("raw", ""), usage=d.get("usage", {}), cost_usd=d.get("cost_usd", 0.0),
                   truncated=d.get("truncated", False))
