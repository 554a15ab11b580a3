"""What a judged answer's error says where the fault is not the answer's code: results cut at the output cap
(the tests' own expected outputs too large, or the answer's far larger), a wrong answer in the problem
language's spelling, and an OCaml row refused at load with the fix in its own field."""
from __future__ import annotations

import json

import pytest

from data.loaders import load_source
from data.rows import DataError
from data.schema import Problem
from judges.execution import ExecutionJudge, ExecutionSettings
from judges.ocaml import OcamlJudge, OcamlSettings

CAP = 1 << 16
PY = ExecutionJudge(ExecutionSettings(timeout_s=10, max_output_bytes=CAP))


def rng(n: int, tests: int = 1) -> Problem:
    return Problem(id="big-out", prompt="", entry_point="rng",
                   tests=[{"input": [n], "output": list(range(n))} for _ in range(tests)])


def test_a_correct_answer_whose_expected_results_pass_the_cap_is_told_so_not_that_it_exited():
    s = PY.score(rng(20_000), "```python\ndef rng(n):\n    return list(range(n))\n```\n")
    assert s.breakdown["passed"] == 0 and "exited" not in s.breakdown["error"], s.breakdown
    assert s.breakdown["error"].startswith(
        "no result: the results passed the judge's output cap of 64 KiB and were cut; the expected output of its one "
        "test alone comes to about 126 KiB of results, so no answer reports them all: give the problem fewer tests"), s
    many = Problem(id="many", prompt="", entry_point="inc", tests=[{"input": [i], "output": i + 1} for i in range(2000)])
    s = PY.score(many, "```python\ndef inc(n):\n    return n + 1\n```\n")
    assert 0 < s.breakdown["passed"] < 2000 and "expected outputs of its 2000 tests alone come to about" in \
        s.breakdown["error"], s.breakdown


def test_an_answer_returning_far_more_than_expected_is_told_so():
    s = PY.score(rng(1000), "```python\ndef rng(n):\n    return list(range(n * 100))\n```\n")
    assert s.breakdown["error"] == ("no result: the results passed the judge's output cap of 64 KiB and were cut "
                                    "(its tests' expected outputs come to about 5 KiB: the answer returned far more)")


def test_a_python_wrong_answer_is_spelt_as_python_writes_it():
    p = Problem(id="isz", prompt="", entry_point="isz", tests=[{"input": [0, "a", None], "output": False}])
    s = PY.score(p, "```python\ndef isz(x, y, z):\n    return x == 0\n```\n")
    assert s.breakdown["error"] == "wrong answer: isz(0, 'a', None) gave True, expected False"


def test_ocaml_results_cut_at_the_cap_say_so(ocaml_compiler):
    judge = OcamlJudge(OcamlSettings(timeout_s=5, max_output_bytes=10_000))
    p = Problem(id="ml-rng", prompt="", entry_point="rng", signature="val rng : int -> int list", language="ocaml",
                tests=[{"input": [3000], "output": list(range(3000))}])
    body = "let rng n =\n  List.init n (fun i -> i)\n" + "(* pad *)\n" * 8
    s = judge.score(p, f"```ocaml\n{body}```\n")
    assert s.breakdown["compile"] == 1.0 and s.breakdown["passed"] == 0, s.breakdown
    assert s.breakdown["error"].startswith("no result: the results passed the judge's output cap of 10,000 bytes and "
                                           "were cut; the expected output of its one test alone comes to about"), s


@pytest.mark.parametrize("extra,said", [
    ({"tests": [{"input": [1], "output": 1}]},
     r"field 'signature' is missing: the OCaml test harness is built from it; add one to that row: `val f : <type>`"),
    ({"signature": "val f : int -> int", "tests": [{"input": [2 ** 63], "output": 1}]},
     r"field 'tests' does not fit the OCaml test harness: test input 9223372036854775808 is not an OCaml int .*; "
     r"change or drop that test\.$"),
    ({"signature": "val f : int -> int", "tests": [{"input": ["x"], "output": 1}]},
     r"test input 'x' is not an integer .*; fix that test, or the signature: write `val <entry_point> : <type>`")])
def test_an_ocaml_row_refused_at_load_says_the_fix_in_its_own_field(tmp_path, extra, said):
    row = {"id": "a", "prompt": "p", "entry_point": "f", "language": "ocaml", **extra}
    (tmp_path / "ml.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DataError, match=said) as e:
        load_source(str(tmp_path / "ml.jsonl"))
    assert "None" not in str(e.value)
