"""The OCaml judge's test harness (judges/ocaml.py compiles and runs it): harness.ml, generated from
the problem's signature by data/ocaml_types.py, holds only the test inputs and prints each result
as one JSON line tagged with a nonce; `read_results` reads those lines back and compares them with
the expected values outside the sandbox, by value and type.
"""
from __future__ import annotations

import json
import re

from data.ocaml_types import PRELUDE, TypeSpecError, check_tests, literal, parse_signature, printer
from data.schema import Problem
from judges import sandbox
from judges.verdicts import output_cut, outputs_match, wrong_answer


def test_code_line(problem: Problem) -> int:
    """The line of harness.ml its test_code starts at (an assertion failing in it names harness.ml's lines)."""
    head = harness_source(problem, "0" * 32).split((problem.test_code or "") + "\n;;\n")[0]
    return head.count("\n") + 1


def harness_source(problem: Problem, nonce: str) -> str:
    """harness.ml: calls Solution.<entry> on each test input and prints one JSON line per test
    (or, for test_code, runs it and prints a completion marker). Never holds expected values."""
    tag = lambda event: f'{{\\"nonce\\": \\"{nonce}\\", \\"event\\": \\"{event}\\"'  # noqa: E731
    # the results go to stderr: what an answer prints (print_string, Printf.printf) goes to stdout, each stream
    # capped on its own, so printing cannot push them out
    lines = [PRELUDE,
             "let emit s = Stdlib.prerr_string (\"\\n\" ^ s ^ \"\\n\"); Stdlib.flush Stdlib.stderr",
             f'let () = emit "{tag("start")}}}"']
    if not problem.tests:  # none (None or []): the test code, as the Python judge and the cache key read it
        lines += [f"let {problem.entry_point} = Solution.{problem.entry_point}",
                  problem.test_code or "", f';;\nlet () = emit "{tag("check")}, \\"ok\\": true}}"']
        return "\n".join(lines) + "\n"
    name, args, result = parse_signature(problem.signature or "")
    ty = " -> ".join(map(str, [*args, result]))
    lines += [f"let fn : {ty} = Solution.{name}", f"let show = {printer(result)}",
              "let err e = json_string (Stdlib.String.sub (Stdlib.Printexc.to_string e) 0 "
              "(Stdlib.min 300 (Stdlib.String.length (Stdlib.Printexc.to_string e))))"]
    for i, test in enumerate(problem.tests):
        call = " ".join(literal(t, v) for t, v in zip(args, test["input"]))
        head = f'"{tag("test")}, \\"i\\": {i}, \\"ok\\": '
        lines.append(f'let () = (match show (fn {call}) with\n'
                     f'  | s -> emit ({head}true, \\"out\\": " ^ s ^ "}}")\n'
                     f'  | exception e -> emit ({head}false, \\"error\\": " ^ err e ^ "}}"))')
    return "\n".join(lines) + "\n"


def check_problem(problem: Problem) -> None:
    """TypeSpecError/ValueError when the harness cannot drive this problem's tests."""
    if not problem.tests:
        if not problem.test_code:
            raise ValueError(f"problem {problem.id!r} has neither `tests` nor `test_code`")
        return
    try:
        check_tests(problem.signature, problem.entry_point, problem.tests)
    except TypeSpecError as e:
        raise TypeSpecError(f"problem {problem.id!r}: {e}") from None


def read_results(problem: Problem, run: sandbox.SandboxResult, nonce: str, bd: dict, cap: int) -> dict[int, dict]:
    """The harness's result lines in the program's stderr (only those tagged with `nonce`; `cap`: the bytes kept
    of each stream): fills `bd`'s passed, tests, error and timed_out; returns the result line per test index."""
    msgs, other = [], []
    # lines end at "\n" only: splitlines() also breaks at U+2028, U+2029 and U+0085, which a
    # string result carries unescaped (json_string escapes only control characters)
    for line in run.stderr.decode("utf-8", "replace").split("\n"):
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):   # a line of 100,000 '[' from the program recursed
            msg = None
        if isinstance(msg, dict) and msg.get("nonce") == nonce:
            msgs.append(msg)
        elif line.strip():
            other.append(line)
    bd["timed_out"] = run.timed_out
    died = ("timed out" if run.timed_out else
            output_cut(problem, cap) if len(run.stderr) >= cap
            else f"no result: the program exited (status {run.returncode}) before reporting")
    if not problem.tests:
        ok = any(m.get("event") == "check" and m.get("ok") is True for m in msgs)
        bd["passed"], bd["tests"] = int(ok), float(ok)
        first = test_code_line(problem)   # Assert_failure("harness.ml", 27, 2) as the row's test_code's line
        said = re.sub(r'Assert_failure\("harness\.ml", (\d+), (\d+)\)', lambda m: f"Assert_failure (test_code line "
                      f"{int(m.group(1)) - first + 1}, character {m.group(2)})", "\n".join(other).strip())
        bd["error"] = None if ok else (said[-300:] or died)
        return {}
    outs: dict[int, dict] = {}
    for m in msgs:
        if m.get("event") == "test" and isinstance(m.get("i"), int):
            outs.setdefault(m["i"], m)
    for i, test in enumerate(problem.tests):
        m = outs.get(i)
        expected = json.loads(json.dumps(test["output"]))
        ok = bool(m and m.get("ok") is True and "out" in m and outputs_match(expected, m["out"]))
        bd["passed"] += ok
        if not ok and bd["error"] is None:
            # a line the program forged may carry megabytes, or a dict, as its error: the harness's size kept
            bd["error"] = str((m or {}).get("error") or (wrong_answer(problem.entry_point, test["input"], m.get("out"),
                                                                      expected) if m else died))[:300]
    bd["tests"] = bd["passed"] / len(problem.tests) if problem.tests else 0.0
    return outs
