"""The graded execution judge: scores, and the reward hacks it must not pay for.

Every hack below runs for real in the sandbox; "no credit" means the tests component is 0
(structure and static credit for well-formed code may remain, as designed). The hacks that reach
for the host (files, secrets, network, processes): tests/test_execution_judge_isolation.py.
"""
from __future__ import annotations

import dataclasses

import pytest

from data.schema import Problem
from judges.execution import ExecutionJudge, ExecutionSettings, outputs_match, run_tests
from judges.pycode import extract_code, static_check

SETTINGS = ExecutionSettings(timeout_s=3)
JUDGE = ExecutionJudge(SETTINGS)

ADD = Problem(id="add", prompt="Write add(a, b).", entry_point="add",
              tests=[{"input": [1, 2], "output": 3}, {"input": [2, 2], "output": 4},
                     {"input": [-1, 1], "output": 0}, {"input": [10, 5], "output": 15}])


def fenced(code: str) -> str:
    return f"Here is my solution:\n```python\n{code.strip()}\n```\nIt adds the numbers."


def one_test(output, entry_point="f") -> Problem:
    return Problem(id="secret", prompt="", entry_point=entry_point,
                   tests=[{"input": [], "output": output}])


CORRECT = fenced("def add(a, b):\n    return a + b")


# ---------------------------------------------------------------------------- scoring

def test_correct_solution_scores_one_with_full_breakdown():
    s = JUDGE.score(ADD, CORRECT)
    assert s.value == pytest.approx(1.0)
    bd = s.breakdown
    assert (bd["structure"], bd["static"], bd["static_errors"], bd["load"], bd["tests"]) == (1, 1, 0, 1, 1)
    assert (bd["passed"], bd["total"], bd["truncated"], bd["lines"]) == (4, 4, False, 2)
    assert bd["error"] is None and not bd["timed_out"]


def test_wrong_answer_loses_the_test_weight():
    s = JUDGE.score(ADD, fenced("def add(a, b):\n    return a - b"))
    assert s.breakdown["tests"] == 0 and s.breakdown["passed"] == 0
    assert s.breakdown["error"] == "wrong answer: add(1, 2) gave -1, expected 3"   # the first failing test, said
    assert s.value == pytest.approx(0.05 + 0.20 + 0.10)
    floats = JUDGE.score(ADD, fenced("def add(a, b):\n    return float(a + b)"))   # compared by value and type
    assert floats.breakdown["error"] == "wrong answer: add(1, 2) gave 3.0, expected 3"
    a_set = JUDGE.score(ADD, fenced("def add(a, b):\n    return {a + b}"))    # a set: not JSON, said so
    assert a_set.breakdown["passed"] == 0 and a_set.breakdown["error"].startswith(
        "returned a set, not a JSON value the test can compare (a list, dict, str, number, bool or None): TypeError")
    half = JUDGE.score(ADD, fenced("def add(a, b):\n    return a + b if a > 0 else 99"))
    assert half.breakdown["passed"] == 3 and half.value == pytest.approx(0.35 + 0.65 * 3 / 4)


def test_an_answer_that_returns_a_sets_order_gets_one_verdict():
    """`list(set(s))` for "the distinct characters, sorted": which tests it passes follows the str
    hash seed; judged in a fresh process each time, it must still get the same verdict each time
    (with a random seed per process, ten judgings agree about 0.3% of the time)."""
    problem = Problem(id="distinct", prompt="", entry_point="distinct_chars",
                      tests=[{"input": [w], "output": sorted(set(w))} for w in
                             ("banana", "cab", "hello", "3121", "zyxwvu", "query", "python")])
    answer = fenced("def distinct_chars(s):\n    return list(set(reversed(s)))")
    verdicts = {JUDGE.score(problem, answer).breakdown["passed"] for _ in range(10)}
    assert len(verdicts) == 1, verdicts


def test_syntax_error_scores_structure_only():
    s = JUDGE.score(ADD, fenced("def add(a, b):\n    return a +"))
    assert s.breakdown["static"] == 0 and s.breakdown["static_errors"] is None
    assert s.breakdown["load"] == 0 and s.value == pytest.approx(0.05)


def test_a_deeply_nested_answer_is_scored_and_never_stops_the_stage():
    """Nesting past the interpreter's or pyflakes's recursion depth: 400 `x + ` terms (1.6 KB) compile
    but pyflakes's tree walk recurses out (unchecked: no static credit; the tests run), 2,000 do not
    compile, nor do 5,000 unary minus signs (RecursionError building the AST) or 100,000 (MemoryError).
    Each one raised out of score() and failed the whole judge stage, on every rerun."""
    p = Problem(id="deep", prompt="", entry_point="f", tests=[{"input": [1], "output": 401}])
    s = JUDGE.score(p, fenced("def f(x):\n    return " + "x + " * 400 + "1"))
    assert s.value == pytest.approx(0.8) and s.breakdown["passed"] == 1 and s.breakdown["static"] == 0, s
    # a 13-token line too deep for pyflakes hid every undefined name from the check, for +0.2
    wrong = "def add(a, b):\n    return helper(a) + undefined_offset"
    plain, hidden = (JUDGE.score(ADD, fenced(wrong + tail)) for tail in ("", "\n_z = " + "-" * 500 + "1"))
    assert plain.breakdown["static_errors"] == 2 and hidden.value <= plain.value, (plain.breakdown, hidden.breakdown)
    for body in ["x + " * 2000 + "1", "-" * 5000 + "x", "-" * 100_000 + "x"]:
        s = JUDGE.score(p, fenced("def f(x):\n    return " + body))
        assert s.value == pytest.approx(0.05) and s.breakdown["static_errors"] is None, s.breakdown
        assert s.breakdown["error"].startswith("does not compile")


def test_a_correct_answer_that_needs_its_own_module_loads_and_comments_are_not_code():
    """dataclasses (under `from __future__ import annotations`) and pickle look the answer's module up in
    sys.modules: it was not there, and this correct answer failed to load. A comment line is no code line
    toward judge.execution.min_lines (2): padding a one-line answer with comments earns nothing."""
    answer = ("from __future__ import annotations\nimport pickle\nfrom dataclasses import dataclass\n\n"
              "@dataclass\nclass Acc:\n    total: int = 0\n\n"
              "def add(a, b):\n    acc = pickle.loads(pickle.dumps(Acc(a)))\n    acc.total += b\n    return acc.total")
    s = JUDGE.score(ADD, fenced(answer))
    assert s.value == pytest.approx(1.0), s.breakdown
    padded = JUDGE.score(ADD, fenced("# add two numbers\ndef add(a, b): return a + b"))
    assert padded.value == 0 and padded.breakdown["lines"] == 1 and "fewer than 2 lines" in padded.breakdown["error"]


def test_an_answer_the_judge_itself_fails_on_is_a_judge_error_not_a_crash():
    """A bug met judging one answer (here a test input that is not JSON: the payload cannot be
    written) is that answer's judge error, reported as a sandbox that cannot start is."""
    p = Problem(id="bad-input", prompt="", entry_point="add", tests=[{"input": [{1, 2}, 3], "output": 3}])
    s = JUDGE.score(p, CORRECT)
    assert s.value is None and s.raw.startswith("judge error: TypeError"), s
    assert "not JSON serializable" in s.breakdown["error"]


def test_undefined_name_is_a_static_error_and_fails_at_load():
    s = JUDGE.score(ADD, fenced("def add(a: List[int], b):\n    return a + b"))
    assert s.breakdown["static_errors"] == 1 and s.breakdown["static"] == 0.75
    assert s.breakdown["load"] == 0 and "NameError" in s.breakdown["error"]


def test_context_runs_first_and_its_names_are_defined():
    """A problem's context (HumanEval: the prompt's imports and helpers) is in the answer's scope,
    as in HumanEval's own harness; the answer's own definitions win; messages keep its lines."""
    p = dataclasses.replace(ADD, context="from typing import List\nOFFSET = 100\n\n\n"
                                         "def helper(a, b):\n    return a + b + OFFSET\n")
    s = JUDGE.score(p, fenced("def add(a: List[int], b):\n    return helper(a, b) - OFFSET"))
    assert s.value == pytest.approx(1.0) and s.breakdown["static_errors"] == 0
    s = JUDGE.score(p, fenced("OFFSET = 0\n\n\ndef add(a: List[int], b):\n    return helper(a, b)"))
    assert s.value == pytest.approx(1.0)  # its OFFSET replaced the context's
    _, errors, messages = static_check("def add(a: List[int], b):\n    return missing(a, b)\n", p.context)
    assert errors == 1 and messages[0].startswith("solution.py:2:") and "'missing'" in messages[0]
    assert static_check("def add(a: List[int], b):\n    return a + b\n")[1] == 1  # without it: undefined
    # the context's __future__ imports hold for the answer, as in one program
    future = dataclasses.replace(ADD, context="from __future__ import annotations\n")
    assert JUDGE.score(future, fenced("def add(a: Undefined, b) -> Nope:\n    return a + b")).breakdown["passed"] == 4


@pytest.mark.parametrize("context", ["raise RuntimeError('bad problem')\n", "def broken(:\n",
                                     "import no_such_module_xyz\n"])
def test_a_context_that_fails_is_a_judge_error_not_the_answers(context):
    s = JUDGE.score(dataclasses.replace(ADD, context=context), CORRECT)
    assert s.value is None and "context" in s.raw, s.raw


def test_truncated_completion_is_multiplied_by_the_factor():
    assert JUDGE.score(ADD, CORRECT, truncated=True).value == pytest.approx(0.3)


def test_too_few_lines_scores_zero():
    s = JUDGE.score(ADD, fenced("def add(a, b): return a + b"))
    assert s.value == 0 and s.breakdown["lines"] == 1


def test_no_code_scores_zero():
    assert JUDGE.score(ADD, "I am not sure how to add numbers.").value == 0


def test_unclosed_fence_gets_no_structure_credit():
    s = JUDGE.score(ADD, "```python\ndef add(a, b):\n    return a + b\n")
    assert s.breakdown["structure"] == 0 and s.value == pytest.approx(0.95)


def test_weights_must_sum_to_one():
    with pytest.raises(ValueError, match="sum to 1"):
        ExecutionSettings(tests_weight=0.9)


def test_extract_code_variants():
    assert extract_code(CORRECT) == ("def add(a, b):\n    return a + b\n", True)
    assert extract_code("def f():\n    return 1\nEND\ntrailing prose") == ("def f():\n    return 1\n", True)
    assert extract_code("```python\ndef f():\n    return 1\nEND\n") == ("def f():\n    return 1\n", True)
    assert extract_code("Sure.\ndef f():\n    return 1\n") == ("def f():\n    return 1\n", False)
    assert extract_code("no code at all") == (None, False)
    two = "```bash\npip install x\n```\n```python\nprint(f(1))\n```\n```python\ndef f(x):\n    return x\n```"
    assert extract_code(two, entry_point="f") == ("def f(x):\n    return x\n", True)
    assert extract_code(two)[0] == "print(f(1))\n"  # without an entry point: the first python block


def test_static_check_is_graduated():
    assert static_check("import os\ndef f():\n    return 1\n")[:2] == (1.0, 0)  # unused import: a warning
    assert static_check("def f():\n    return a + b + c\n")[:2] == (0.25, 3)
    assert static_check("def f():\n    return a + b + c + d + e\n")[:2] == (0.0, 5)
    assert static_check("def f(:\n")[:2] == (0.0, None)


def test_outputs_compare_by_value_and_json_type():
    assert outputs_match([1, [2, "a"]], [1, [2, "a"]])
    assert not outputs_match(True, 1) and not outputs_match(1, True)
    assert not outputs_match(1, 1.0) and not outputs_match(1.0, 1)
    assert outputs_match(0.3, 0.1 + 0.2) and not outputs_match(0.3, 0.31)
    assert outputs_match({"a": [1.0]}, {"a": [1.0000000001]})
    assert not outputs_match({"a": 1}, {"a": 1, "b": 2})
    assert not outputs_match(None, 0) and not outputs_match("1", 1)


def test_types_are_checked_end_to_end():
    p = Problem(id="types", prompt="", entry_point="f", tests=[
        {"input": [0], "output": True}, {"input": [1], "output": 1},
        {"input": [2], "output": [1, 2]}, {"input": [3], "output": 0.3}])
    # Returns 1 for True, 1.0 for 1: both wrong; a tuple for a list and 0.1+0.2 for 0.3: both right.
    code = fenced("def f(i):\n    return [1, 1.0, (1, 2), 0.1 + 0.2][i]")
    details = run_tests(extract_code(code)[0], p, SETTINGS).details
    assert [d["passed"] for d in details] == [False, False, True, True]


def test_assertion_style_test_code_pass_and_fail():
    p = Problem(id="he", prompt="", entry_point="add",
                test_code="def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(0, 0) == 0\n")
    assert JUDGE.score(p, CORRECT).value == pytest.approx(1.0)
    s = JUDGE.score(p, fenced("def add(a, b):\n    return a * b"))
    assert s.breakdown["tests"] == 0 and "AssertionError" in s.breakdown["error"]
    s = JUDGE.score(p, fenced("def add(a, b):\n    print('PASS')\n    raise SystemExit(0)"))
    assert s.breakdown["tests"] == 0


def test_sandbox_that_cannot_start_is_a_judge_error_not_zero():
    s = ExecutionJudge(ExecutionSettings(memory_mb=1)).score(ADD, CORRECT)
    assert s.value is None and "judge error" in s.raw


def test_problem_without_tests_is_a_judge_error():
    s = JUDGE.score(Problem(id="x", prompt="", entry_point="add"), CORRECT)
    assert s.value is None


def test_score_many_runs_in_parallel_and_keeps_order():
    wrong = fenced("def add(a, b):\n    return 0")
    items = [(ADD, CORRECT), (ADD, wrong), (ADD, CORRECT, True), (ADD, wrong)] * 2
    scores = ExecutionJudge(SETTINGS).score_many(items, workers=4)
    assert [s.breakdown["passed"] for s in scores] == [4, 1, 4, 1] * 2
    assert scores[2].value == pytest.approx(0.3)


# ---------------------------------------------------------------------------- hacks

def test_infinite_loop_keeps_earlier_tests():
    code = fenced("def add(a, b):\n    while a == 10:\n        pass\n    return a + b")
    s = ExecutionJudge(ExecutionSettings(timeout_s=2)).score(ADD, code)
    assert s.breakdown["timed_out"] and s.breakdown["passed"] == 3 and s.breakdown["total"] == 4


@pytest.mark.parametrize("exit_call", ["sys.exit(0)", "os._exit(0)", "raise SystemExit(0)"])
def test_exiting_before_the_tests_earns_nothing(exit_call):
    s = JUDGE.score(ADD, fenced(f"import os, sys\ndef add(a, b):\n    return a + b\n{exit_call}"))
    assert s.breakdown["load"] == 0 and s.breakdown["tests"] == 0


def test_threads_left_running_do_not_hold_up_grading():
    code = fenced("import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n"
                  "def add(a, b):\n    return a + b")
    s = JUDGE.score(ADD, code)
    assert s.breakdown["passed"] == 4 and not s.breakdown["timed_out"]


def test_exiting_inside_the_function_earns_nothing():
    s = JUDGE.score(ADD, fenced("import os\ndef add(a, b):\n    os._exit(0)"))
    assert s.breakdown["tests"] == 0


def test_printed_pass_markers_earn_nothing():
    forged = "\n".join(f'print(\'{{"event": "test", "i": {i}, "ok": true, "out": {t["output"]}}}\')'
                       for i, t in enumerate(ADD.tests))
    code = fenced(f"import os\n{forged}\nprint('PASS ALL TESTS OK')\n"
                  "for fd in range(3, 64):\n"
                  "    try: os.write(fd, b'{\"event\": \"test\", \"i\": 0, \"ok\": true, \"out\": 3}\\n')\n"
                  "    except OSError: pass\n"
                  "def add(a, b):\n    print('{\"event\": \"test\", \"i\": 1, \"ok\": true, \"out\": 4}')\n    return None")
    s = JUDGE.score(ADD, code)
    assert s.breakdown["load"] == 1 and s.breakdown["passed"] == 0


def test_object_whose_eq_is_always_true_earns_nothing():
    liar = "class Liar:\n    def __eq__(self, other):\n        return True\n"
    assert JUDGE.score(ADD, fenced(liar + "def add(a, b):\n    return Liar()")).breakdown["passed"] == 0
    lying_int = "class LyingInt(int):\n    def __eq__(self, other):\n        return True\n"
    s = JUDGE.score(ADD, fenced(lying_int + "def add(a, b):\n    return LyingInt(7)"))
    assert s.breakdown["passed"] == 0  # serialised as its real value, 7


def test_monkeypatching_the_harness_earns_nothing():
    code = fenced(
        "import builtins, json, sys\n"
        "json.dumps = lambda *a, **k: '{\"event\": \"test\", \"ok\": true}'\n"
        "json.JSONEncoder.encode = lambda self, o: '{\"event\": \"test\", \"i\": 0, \"ok\": true, \"out\": 3}'\n"
        "def emit(**kw): pass\n"
        "def outputs_match(*a): return True\n"
        "builtins.isinstance = lambda *a: True\n"
        "sys.modules['math'].isclose = lambda *a, **k: True\n"
        "def add(a, b):\n    return -1")
    s = JUDGE.score(ADD, code)
    assert s.breakdown["passed"] == 0 and s.breakdown["tests"] == 0


def test_recursion_bomb_earns_nothing_and_is_contained():
    code = fenced("import sys\nsys.setrecursionlimit(10**8)\n"
                  "class A:\n    def __repr__(self):\n        return repr(self)\n"
                  "def add(a, b):\n    return repr(A())")
    s = JUDGE.score(ADD, code)
    assert s.value is not None and s.breakdown["passed"] == 0


def test_megabytes_of_output_do_not_break_grading():
    code = fenced("import sys\nsys.stdout.write('x' * 20_000_000)\ndef add(a, b):\n"
                  "    print('y' * 1_000_000)\n    return a + b")
    s = ExecutionJudge(ExecutionSettings(timeout_s=10, max_output_bytes=1 << 16)).score(ADD, code)
    assert s.breakdown["passed"] == 4 and len(s.raw) <= 2000
