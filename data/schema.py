"""The problem record every loader produces and every judge consumes."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Difficulty = Literal["easy", "medium", "hard"]
LANGUAGES = ("python", "ocaml")


@dataclass(frozen=True)
class Problem:
    id: str
    """Unique problem id (unique across splits)."""
    prompt: str
    """Task text shown to the model, including the function signature."""
    entry_point: str
    """Name of the function the tests call."""
    difficulty: str = "medium"
    """easy | medium | hard."""
    split: str = "train"
    """train | heldout."""
    reference: str | None = None
    """Reference solution (source in `language`), used as the default teacher answer."""
    tests: list[dict[str, Any]] | None = None
    """Input/expected pairs: [{"input": [arg0, arg1, ...], "output": expected}, ...] (JSON values).
    The sandbox only ever sees the inputs; comparison happens outside it."""
    test_code: str | None = None
    """Assertion-style tests (HumanEval's `check(candidate)`), run inside the sandbox. Weaker guarantee."""
    signature: str | None = None
    """The `def ...:` line (Python) or `val name : type` (OCaml: the test harness is built from it)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Anything else the source row had (kept, not used)."""
    language: str = "python"
    """python | ocaml: which execution judge grades answers to it (rows without it take data.language)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Problem":
        return cls(**d)
