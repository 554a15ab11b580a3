"""The one judge interface: every judge returns a `Score`; a teacher model returns a `Generation`.

`value is None` means the judge could not score (parse failure, sandbox error). It is
counted and reported, never silently turned into 0.
"""
from __future__ import annotations

import math
import re
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


GRADED_PARTS = {"judge.execution": ("structure", "static", "load", "tests"),
                "judge.ocaml": ("structure", "typecheck", "compile", "tests")}
"""Each grading judge's config section and the parts its score is split between (`<part>_weight` each)."""


def check_weights(section: str, settings: Any) -> None:
    """A grading judge's weights (`settings.<part>_weight` for the parts of GRADED_PARTS[section]) are the
    shares of a score in [0, 1]: none negative, summing to 1. The config checks them when it loads, the judge
    when it is built."""
    weights = {f"{p}_weight": getattr(settings, f"{p}_weight") for p in GRADED_PARTS[section]}
    total = sum(weights.values())
    if min(weights.values()) < 0 or not math.isclose(total, 1.0, abs_tol=1e-6):
        listed = ", ".join(f"{section}.{k}={v:g}" for k, v in weights.items())
        raise ValueError(f"{section}'s weights must be >= 0 and sum to 1, not {total:g} ({listed}): they split a "
                         "score of 1 between the checks, so change the others with the one you set (e.g. "
                         f"{section}.tests_weight=1 and the other three 0 scores the tests alone)")


_SHORT = re.compile(r"fewer than (\d+) lines of code(?: \((judge\.\w+\.min_lines)\))?$")


def too_short(section: str, least: int) -> str:
    """The error of an answer with fewer lines of code than a grading judge's min_lines: scored 0, never run."""
    return f"fewer than {least} lines of code ({section}.min_lines)"


def short_of(error: Any, language: str | None = "python") -> tuple[str, int] | None:
    """(the min_lines key, its value) where `error` is too_short's (or one cached before it named the key, the
    key then read from the answer's language); None for any other error."""
    m = _SHORT.match(str(error or ""))
    if not m:
        return None
    return m.group(2) or f"judge.{'ocaml' if language == 'ocaml' else 'execution'}.min_lines", int(m.group(1))


def check_library_names(libraries) -> None:
    """judge.ocaml.libraries holds compiler library names (str, unix), nothing a command line could misread."""
    bad = [lib for lib in libraries if not re.fullmatch(r"[a-z][a-z0-9_]*", lib)]
    if bad:
        raise ValueError(f"judge.ocaml.libraries: {bad} are not library names: give the compiler's library "
                         "names, e.g. [str, unix]")
