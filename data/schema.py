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
    context: str | None = None
    """Code the prompt puts in scope of the answer (Python only): HumanEval's stub less the entry
    point's own def, i.e. its imports (`from typing import List`) and helper functions
    (`encode_cyclic`). The judge runs it before the answer, in the same namespace (the answer's
    own definitions win), and the static check counts its names as defined, as HumanEval's
    harness does by running prompt + completion as one program. Shown to the model as part of
    the prompt, so nothing secret (no expected outputs)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Problem":
        return cls(**d)
