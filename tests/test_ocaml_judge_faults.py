"""The OCaml judge where an answer or a problem goes wrong: an answer printing megabytes keeps its results
(they have a channel of their own), tests that cannot compile are a judge error (no answer's fault) and an
int no OCaml int holds is refused when the row loads; a failed test says what the call gave."""
from __future__ import annotations

import json

import pytest

from data.loaders import load_source
from data.ocaml_types import TypeSpecError, parse_type
from data.rows import DataError
from data.schema import Problem
from judges.ocaml import OcamlJudge, OcamlSettings

pytestmark = pytest.mark.usefixtures("ocaml_compiler")
JUDGE = OcamlJudge(OcamlSettings(timeout_s=5))
NEG = Problem(id="neg", prompt="", entry_point="neg", signature="val neg : int -> int", language="ocaml",
              tests=[{"input": [i], "output": -i} for i in range(4)])


def fenced(body: str) -> str:
    return "```ocaml\n" + body + "(* a *)\n" * 8 + "```\n"


def test_an_answer_printing_past_the_output_cap_keeps_its_results():
    cap = OcamlSettings().max_output_bytes
    loud = fenced(f'let neg x = print_string (String.make {cap // 3} \'x\'); -x\n')   # 4 calls: 4/3 of the cap
    s = JUDGE.score(NEG, loud)
    assert s.value == pytest.approx(1.0) and s.breakdown["passed"] == 4, s.breakdown


def test_tests_that_do_not_compile_are_a_judge_error_not_the_answers():
    broken = Problem(id="tcsyn", prompt="", entry_point="neg", language="ocaml",
                     test_code="let assertions =\n  assert (neg 1 = -1;\n")
    s = JUDGE.score(broken, fenced("let neg x = -x\n"))
    assert s.value is None and "judge error: problem 'tcsyn': its test_code does not compile" in s.raw, s
    wrong = JUDGE.score(NEG, fenced("let neg x = x\n"))
    assert wrong.breakdown["error"] == "wrong answer: neg(1) gave 1, expected -1"


def test_an_int_past_63_bits_and_a_type_of_two_parameters_are_refused_when_the_row_loads(tmp_path):
    row = {"id": "big", "prompt": "p", "entry_point": "idb", "language": "ocaml", "signature": "val idb : int -> int"}
    for tests, said in (([{"input": [2 ** 62], "output": 0}], r"test input 4611686018427387904 is not an OCaml int"),
                        ([{"input": [0], "output": -2 ** 63}], r"test 0's expected output: -9223372036854775808 is not")):
        (tmp_path / "ml.jsonl").write_text(json.dumps({**row, "tests": tests}) + "\n")
        with pytest.raises(DataError, match=r"ml.jsonl, line 1: field 'tests' does not fit the OCaml test harness: " + said):
            load_source(str(tmp_path / "ml.jsonl"))
    with pytest.raises(TypeSpecError, match=r"',' inside parentheses: a type of several parameters"):
        parse_type("(int, int) Hashtbl.t -> int")


def test_a_failed_test_code_assertion_names_the_rows_line():
    p = Problem(id="t", prompt="", entry_point="neg", language="ocaml",
                test_code="let () =\n  assert (neg 1 = -1);\n  assert (neg 2 = 5)\n")
    s = JUDGE.score(p, fenced("let neg x = -x\n"))
    assert s.breakdown["passed"] == 0 and "Assert_failure (test_code line 3, character 2)" in s.breakdown["error"], s


def test_an_answer_that_exits_after_printing_past_the_cap_is_said_to_have_exited():
    """The cap on stdout (what the answer prints) cut, the results' stderr not: the program exited, said so."""
    judge = OcamlJudge(OcamlSettings(timeout_s=5, max_output_bytes=10_000))
    s = judge.score(NEG, fenced("let neg x = print_string (String.make 50_000 'x'); exit 3\n"))
    assert s.breakdown["error"] == "no result: the program exited (status 3) before reporting", s.breakdown
