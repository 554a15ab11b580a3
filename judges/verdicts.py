"""What a test's result line says, for both execution judges (judges/execution.py, judges/ocaml_harness.py):
the comparison with the expected value, and the error a wrong or missing result reads as.
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable

from data.schema import Problem


def outputs_match(expected: Any, got: Any) -> bool:
    """Equal by value and JSON type (both sides already JSON round-tripped)."""
    if type(expected) is not type(got):
        return False
    if isinstance(expected, float):
        return (math.isnan(expected) and math.isnan(got)) or \
            math.isclose(expected, got, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(expected, list):
        return len(expected) == len(got) and all(map(outputs_match, expected, got))
    if isinstance(expected, dict):
        return expected.keys() == got.keys() and all(outputs_match(v, got[k]) for k, v in expected.items())
    return expected == got


def wrong_answer(entry_point: str, args: list, got: Any, expected: Any, spell: Callable[[Any], str] = json.dumps) -> str:
    """'wrong answer: add(1, 2) gave -1, expected 3': the call, what it returned and what the test expects, each
    cut short, spelt by `spell` (JSON's true and null by default; the Python judge gives repr: True, None), where
    2 and 2.0 differ as outputs_match's comparison by value and type does."""
    def short(v: Any) -> str:
        text = spell(v)
        return text if len(text) <= 80 else text[:77] + "..."
    call = f"{entry_point}({', '.join(short(a) for a in args)})"
    return capped(f"wrong answer: {call if len(call) <= 120 else call[:117] + '...'} gave {short(got)}, "
                  f"expected {short(expected)}")


def capped(error: Any) -> str | None:
    """A line's error as the harness writes it (a string of at most 300 characters): an answer that reached
    the harness's `emit` could put megabytes, or a dict, there, and into the judge cache with them."""
    return None if error is None else str(error)[:300]


def output_cut(problem: Problem, cap: int) -> str:
    """The error of a test left without a result because the results stream passed the output cap (`cap` bytes
    kept of it), saying whose fault that is: the tests', when their own expected outputs, as result lines, come
    to the cap already (a correct answer cannot report them all), else the answer's (it returned far more)."""
    def size(n: int) -> str:
        return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"
    exact = f"{cap >> 20} MiB" if cap % (1 << 20) == 0 else f"{cap >> 10} KiB" if cap % 1024 == 0 else f"{cap:,} bytes"
    said = f"no result: the results passed the judge's output cap of {exact} and were cut"
    tests = problem.tests or []
    if not tests:   # test_code: its one marker line is small
        return said
    need = sum(len(json.dumps({"event": "test", "i": i, "ok": True, "out": t.get("output"), "nonce": "0" * 32})) + 1
               for i, t in enumerate(tests))
    if need < cap:
        return capped(f"{said} (its tests' expected outputs come to about {size(need)}: the answer returned far more)")
    alone = f"outputs of its {len(tests)} tests alone come" if len(tests) > 1 else "output of its one test alone comes"
    return capped(f"{said}; the expected {alone} to about {size(need)} of results, so no answer reports them all: "
                  "give the problem fewer tests, or tests with smaller outputs")
