"""The OCaml execution judge: graded scores, and the reward hacks it must not pay for.

Every program below is compiled and run for real in the sandbox (bytecode ocamlc: ~0.1 s each).
"""
from __future__ import annotations

import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from data.schema import Problem
from judges import ocaml, sandbox
from judges.ocaml import OcamlJudge, OcamlSettings, extract_code
from judges.ocaml_harness import harness_source

pytestmark = pytest.mark.usefixtures("ocaml_compiler")
strong = pytest.mark.skipif(sandbox.active_backend() != "bwrap", reason="needs bubblewrap")
JUDGE = OcamlJudge(OcamlSettings(timeout_s=3))

ADD = Problem(id="add", prompt="", entry_point="add", signature="val add : int -> int -> int", language="ocaml",
              tests=[{"input": [1, 2], "output": 3}, {"input": [2, 2], "output": 4},
                     {"input": [-1, 1], "output": 0}, {"input": [10, 5], "output": 15}])
BODY = """(* add two integers, with a few steps to reach 8 lines *)
let add a b =
  let s = a + b in
  let t = s in
  let u = t in
  let v = u in
  let w = v in
  w
"""


def fenced(code: str) -> str:
    return f"Here you go:\n```ocaml\n{code.strip()}\n```\nDone."


def one_test(sig: str, output, name: str = "f") -> Problem:
    return Problem(id="secret", prompt="", entry_point=name, signature=sig, language="ocaml",
                   tests=[{"input": [None], "output": output}])


def padded(code: str) -> str:
    return code.strip() + "\n" + "(* padding *)\n" * 8


# ---------------------------------------------------------------------------- scoring

def test_correct_solution_scores_one_with_the_full_breakdown():
    s = JUDGE.score(ADD, fenced(BODY))
    bd = s.breakdown
    assert s.value == pytest.approx(1.0)
    assert (bd["structure"], bd["typecheck"], bd["typecheck_errors"], bd["compile"], bd["tests"]) == (1, 1, 0, 1, 1)
    assert (bd["passed"], bd["total"], bd["lines"], bd["language"]) == (4, 4, 8, "ocaml")
    assert bd["error"] is None and bd["compiler_error"] is None and not bd["timed_out"]


def test_wrong_answer_keeps_structure_typecheck_and_compile():
    s = JUDGE.score(ADD, fenced(BODY.replace("a + b", "a - b")))
    assert s.breakdown["passed"] == 0 and s.breakdown["error"] == "wrong answer: add(1, 2) gave -1, expected 3"
    assert s.value == pytest.approx(0.05 + 0.20 + 0.10)
    half = JUDGE.score(ADD, fenced(BODY.replace("a + b", "if a > 5 then 0 else a + b")))
    assert half.breakdown["passed"] == 3 and half.value == pytest.approx(0.35 + 0.65 * 3 / 4)


def test_syntax_error_scores_structure_only_and_reports_the_compiler_message():
    s = JUDGE.score(ADD, fenced(BODY.replace("a + b", "a + ")))
    bd = s.breakdown
    assert bd["typecheck"] == 0 and bd["compile"] == 0 and s.value == pytest.approx(0.05)
    assert "Syntax error" in bd["compiler_error"] and 'File "solution.ml", line 3' in bd["compiler_error"]


def test_type_errors_are_graduated_by_count_and_consequences_are_not_counted():
    one = JUDGE.score(ADD, fenced(BODY.replace("a + b", "a + \"b\"")))
    assert one.breakdown["typecheck_errors"] == 1 and one.breakdown["typecheck"] == 0.75
    assert "Error" in one.breakdown["compiler_error"] and one.value == pytest.approx(0.05 + 0.2 * 0.75)
    # three independent errors; `broken` is used later (its Unbound value is a consequence, not counted)
    three = ("let broken x = x + \"one\"\nlet g y = y +. 1\nlet h z = z ^ 2\nlet k = broken 3\n" + BODY)
    s = JUDGE.score(ADD, fenced(three))
    assert s.breakdown["typecheck_errors"] == 3 and s.breakdown["typecheck"] == pytest.approx(0.25)
    assert "line 1" in s.breakdown["compiler_error"]  # the first error, not the last


def test_wrong_entry_point_type_gets_half_compile_credit():
    s = JUDGE.score(ADD, fenced(BODY.replace("let add a b", "let add (a, b)")))
    bd = s.breakdown
    assert (bd["typecheck"], bd["compile"], bd["tests"]) == (1, 0.5, 0)
    assert "harness.ml" in bd["compiler_error"] and s.value == pytest.approx(0.05 + 0.2 + 0.05)


def test_truncation_min_lines_and_structure_rules():
    assert JUDGE.score(ADD, fenced(BODY), truncated=True).value == pytest.approx(0.3)
    short = JUDGE.score(ADD, fenced("let add a b = a + b"))
    assert short.value == 0 and short.breakdown["lines"] == 1
    unclosed = JUDGE.score(ADD, "```ocaml\n" + BODY)
    assert unclosed.breakdown["structure"] == 0 and unclosed.value == pytest.approx(0.95)
    assert extract_code(BODY + "END\nprose")[1] and extract_code(BODY + "(* END *)\n")[1]
    assert extract_code("```python\nx = 1\n```\n```ocaml\nlet x = 1\n```") == ("let x = 1\n", True)
    assert JUDGE.score(ADD, "no code here").value == 0


def test_values_of_every_supported_type_round_trip_and_compare_by_type():
    p = Problem(id="types", prompt="", entry_point="f", language="ocaml",
                signature="val f : int -> (float * string * char * bool) list * int option array * unit",
                tests=[{"input": [1], "output": [[[2.5, "q\"\\\n\u00e9", "x", True]], [None, 7], None]},
                       {"input": [2], "output": [[[3.0, "", "y", False]], [], None]},
                       {"input": [3], "output": [[[3.0, "", "y", False]], [], None]}])
    code = padded('let f i = match i with\n'
                  '  | 1 -> ([ (2.5, "q\\"\\\\\\n\\xc3\\xa9", \'x\', true) ], [| None; Some 7 |], ())\n'
                  '  | 2 -> ([ (3., "", \'y\', false) ], [||], ())\n'
                  '  | _ -> ([ (3.001, "", \'y\', false) ], [||], ())')
    s = JUDGE.score(p, fenced(code))
    assert s.breakdown["passed"] == 2 and s.breakdown["error"].startswith("wrong answer: f(3) gave [[[3.001, "), s


def test_assertion_style_test_code_and_a_redefined_equality_earns_nothing():
    p = Problem(id="mpl", prompt="", entry_point="add", language="ocaml",
                test_code="let assertions =\n  assert (add 1 2 = 3);\n  assert (add 0 0 = 0)\n")
    assert JUDGE.score(p, fenced(BODY)).value == pytest.approx(1.0)
    assert JUDGE.score(p, fenced(BODY.replace("a + b", "a * b"))).breakdown["tests"] == 0
    liar = "let ( = ) _ _ = true\n" + BODY.replace("a + b", "a * b")
    assert JUDGE.score(p, fenced(liar)).breakdown["tests"] == 0


def test_a_string_result_holding_a_unicode_line_separator_keeps_its_line():
    """The results are split at "\n" only: U+2028, U+2029 and U+0085 go out unescaped inside a JSON
    string, and str.splitlines() broke the result line there (a correct answer scored 0.35)."""
    for sep in ("\u2028", "\u2029", "\u0085"):
        escaped = "".join(f"\\x{b:02x}" for b in sep.encode())
        s = JUDGE.score(one_test("val f : unit -> string", f"a{sep}b"), fenced(padded(f'let f () = "a{escaped}b"')))
        assert s.value == pytest.approx(1.0), (sep, s.breakdown)


def test_an_empty_test_list_runs_the_test_code_as_the_python_judge_does():
    """`tests: []` with `test_code`: the test code is what runs (the Python judge and the cache key
    read no tests that way too); it was ignored and the row had no tests to run."""
    p = Problem(id="mpl", prompt="", entry_point="add", language="ocaml", tests=[],
                test_code="let assertions =\n  assert (add 1 2 = 3);\n  assert (add 0 0 = 0)\n")
    assert JUDGE.score(p, fenced(BODY)).value == pytest.approx(1.0)
    assert JUDGE.score(p, fenced(BODY.replace("a + b", "a * b"))).breakdown["tests"] == 0
    assert JUDGE.score(Problem(id="none", prompt="", entry_point="add", language="ocaml", tests=[]),
                       fenced(BODY)).value is None  # neither: a judge error, as in Python


def test_harness_holds_inputs_but_no_expected_values():
    src = harness_source(ADD, "n0nce")
    assert "(10) (5)" in src and "15" not in src


def test_missing_compiler_is_a_judge_error_that_says_how_to_install(monkeypatch):
    monkeypatch.setattr(ocaml.shutil, "which", lambda name: None)
    s = JUDGE.score(ADD, fenced(BODY))
    assert s.value is None and "apt-get install" in s.raw and "make setup" in s.raw


def test_compiler_and_program_have_separate_timeouts():
    slow_compile = OcamlJudge(OcamlSettings(compile_timeout_s=0.001, timeout_s=5)).score(ADD, fenced(BODY))
    assert slow_compile.breakdown["compile"] == 0 and "did not finish" in slow_compile.breakdown["compiler_error"]
    loop = BODY.replace("let s = a + b in", "let s = if a = 10 then (let rec spin () = spin () in spin ()) else a + b in")
    s = OcamlJudge(OcamlSettings(compile_timeout_s=20, timeout_s=1.5)).score(ADD, fenced(loop))
    assert s.breakdown["compile"] == 1 and s.breakdown["timed_out"] and s.breakdown["passed"] == 3


# ---------------------------------------------------------------------------- hacks

def test_exit_before_the_tests_earns_nothing():
    for exit_call in ("let () = exit 0", "let () = Stdlib.exit 0", "let () = raise Exit"):
        s = JUDGE.score(ADD, fenced(BODY + exit_call))
        assert s.breakdown["compile"] == 1 and s.breakdown["tests"] == 0, (exit_call, s)
        assert "no result" in s.breakdown["error"]


def test_printed_pass_markers_earn_nothing():
    forged = "".join(f'let () = print_endline "{{\\"event\\": \\"test\\", \\"i\\": {i}, \\"ok\\": true, '
                     f'\\"out\\": {t["output"]}}}"\n' for i, t in enumerate(ADD.tests))
    code = forged + 'let () = print_endline "PASS: all tests passed"\n' + BODY.replace("w\n", "print_string \"\\n{}\\n\"; -1\n")
    s = JUDGE.score(ADD, fenced(code))
    assert s.breakdown["compile"] == 1 and s.breakdown["passed"] == 0


def test_huge_allocation_earns_nothing_and_is_contained():
    code = BODY.replace("let s = a + b in", "let big = Array.make (1 lsl 31) 0 in let s = a + b + big.(0) in")
    s = JUDGE.score(ADD, fenced(code))
    assert s.value is not None and s.breakdown["passed"] == 0 and "Out of memory" in s.breakdown["error"]


@strong
def test_fork_bomb_through_unix_is_contained_when_unix_is_linked():
    code = BODY.replace("let s = a + b in", "let rec bomb () = (try ignore (Unix.fork ()) with _ -> ()); bomb () in\n"
                                            "  let s = bomb () in")
    unlinked = JUDGE.score(ADD, fenced(code))  # by default Unix is not linked: it does not build
    assert unlinked.breakdown["compile"] == 0.5 and "Unix" in unlinked.breakdown["compiler_error"]
    t = subprocess.run(["true"], timeout=5)
    s = OcamlJudge(OcamlSettings(timeout_s=2, libraries=("unix",))).score(ADD, fenced(code))
    assert s.breakdown["compile"] == 1 and s.breakdown["passed"] == 0 and s.breakdown["timed_out"]
    assert t.returncode == 0 and subprocess.run(["true"], timeout=5).returncode == 0  # the host still forks


@strong
def test_environment_and_problem_files_are_unreachable(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-ocaml-secret")
    problems = Path(__file__).resolve().parents[1] / "data" / "problems" / "ocaml.jsonl"
    code = padded(f'let f () =\n  match Sys.getenv_opt "FAKE_API_KEY" with\n  | Some v -> v\n'
                  f'  | None -> (try let ic = open_in {str(problems)!r} in input_line ic with _ -> "hidden")')
    s = JUDGE.score(one_test("val f : unit -> string", "sk-ocaml-secret"), fenced(code.replace("'", '"')))
    assert s.breakdown["compile"] == 1 and s.breakdown["passed"] == 0
    first_line = problems.read_text().splitlines()[0]
    s = JUDGE.score(one_test("val f : unit -> string", first_line), fenced(code.replace("'", '"')))
    assert s.breakdown["passed"] == 0


@strong
def test_writing_outside_leaves_nothing():
    run_dir = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="fake-run-"))
    run_dir.chmod(0o777)
    home = Path.home() / f".planted-{uuid.uuid4().hex}"
    try:
        code = padded(f'let f () =\n  List.iter (fun p -> try let oc = open_out p in output_string oc "x"; '
                      f'close_out oc with _ -> ())\n    ["{run_dir}/planted.ml"; "{home}"; "/etc/planted"];\n  "done"')
        s = OcamlJudge(OcamlSettings(timeout_s=3, hide=(str(run_dir),))).score(
            one_test("val f : unit -> string", "done"), fenced(code))
        assert s.breakdown["passed"] == 1  # it ran to the end
        assert list(run_dir.iterdir()) == [] and not home.exists() and not Path("/etc/planted").exists()
    finally:
        for p in run_dir.iterdir():
            p.unlink()
        run_dir.rmdir()
        if home.exists():
            home.unlink()


@strong
def test_files_written_by_the_program_stop_at_the_tmpfs_cap():
    """The program runs in the private /tmp (64 MiB), not in the host directory it was compiled
    in, where RLIMIT_FSIZE capped each file but not their number (12 x 8 MiB went through)."""
    code = padded("let f () =\n  let n = ref 0 in\n  (try\n    for i = 0 to 11 do\n"
                  "      let oc = open_out_bin (\"f\" ^ string_of_int i) in\n"
                  "      output_string oc (String.make (8 lsl 20) 'x'); close_out oc; incr n\n"
                  "    done\n  with _ -> ());\n  !n")
    written = JUDGE.outputs(one_test("val f : unit -> int", 12), code)[0]
    assert 1 <= written <= 8, written


def test_score_many_keeps_order_in_parallel():
    wrong = fenced(BODY.replace("a + b", "0"))
    scores = JUDGE.score_many([(ADD, fenced(BODY)), (ADD, wrong), (ADD, fenced(BODY), True)], workers=2)
    assert [s.breakdown["passed"] for s in scores] == [4, 1, 4] and scores[2].value == pytest.approx(0.3)


def test_an_ocaml_epoch_without_a_compiler_stops_before_any_work(monkeypatch, tmp_path):
    from pipeline.config.file import load_config
    from pipeline.config.errors import RunError
    from pipeline.stages.problems import choose_prompts
    cfg = load_config(None, [f"run.dir={tmp_path}", "data.source=ocaml:train"])
    assert len(choose_prompts(cfg, tmp_path, 1)[0]) == cfg.data.prompts_per_epoch  # with the compiler: fine
    monkeypatch.setattr(ocaml.shutil, "which", lambda name: None)
    with pytest.raises(RunError, match="ocamlc.*not on PATH.*apt-get install"):
        choose_prompts(cfg, tmp_path, 1)
    python_only = load_config(None, [f"run.dir={tmp_path}"])
    assert choose_prompts(python_only, tmp_path, 1)[0]  # Python problems do not need it


def test_the_eval_table_counts_well_formed_and_type_checking_answers():
    """pipeline/stages/eval.py's <part>_ok columns: the share of a problem's answers with full credit
    on each part, from the judge's own breakdown (what bench/learning.py --sets ocaml reports)."""
    from pipeline.stages.eval import part_shares
    answers = [fenced(BODY), fenced(BODY.replace("a + b", "a - b")), fenced(BODY.replace("a + b", "a + ")),
               "no code at all"]
    shares = part_shares("ocaml", [JUDGE.score(ADD, a) for a in answers])
    assert shares == {"structure_ok": 0.75, "typecheck_ok": 0.5, "compile_ok": 0.5, "tests_ok": 0.25}
    assert part_shares("ocaml", []) == {}


def test_an_eval_of_both_languages_keeps_every_part_column(tmp_path):
    """A table's columns are its first row's: an eval whose first problem is Python must still keep
    the OCaml rows' typecheck_ok (None on the Python rows, which compare-evals then skips)."""
    from pipeline.metrics.evals import per_problem
    from pipeline.stages.eval import every_part, part_shares
    from pipeline.store.tables import load_table, save_table
    py = {"source": "builtin:heldout", "problem_id": "p", "pass@1": 0.0, "structure_ok": 1.0}
    ml = {"source": "ocaml:heldout", "problem_id": "m", "pass@1": 0.0,
          **part_shares("ocaml", [JUDGE.score(ADD, fenced(BODY)), JUDGE.score(ADD, "no code at all")])}
    save_table(every_part([py, ml]), tmp_path / "t")
    rows = load_table(tmp_path / "t")
    assert rows[1]["typecheck_ok"] == 0.5 and rows[0]["typecheck_ok"] is None
    assert per_problem(rows, "typecheck_ok") == {"ocaml:heldout:m": 0.5}


def test_answers_aimed_at_the_judge_are_scored_not_stored_whole():
    """A results line of 100,000 '[' made json.loads raise RecursionError (the wrong answer an unscored judge
    error, dropped from its group); a forged test line's error of 2 MB and the compiler's 15 MB of output (types
    that double four times over) went into the judge cache whole."""
    wrong = BODY.replace("a + b", "a - b")
    plain = JUDGE.score(ADD, fenced(wrong))
    score = JUDGE.score(ADD, fenced(wrong + "let () = print_string (String.make 100000 '[')\n"))
    assert score.value is not None and score.value == plain.value and score.breakdown["passed"] == 0
    grows = ("let f0 x = (x, x)\n" + "".join(f"let f{i} x = f{i - 1} (f{i - 1} x)\n" for i in range(1, 5))
             + "let g x = f0 (f0 (f0 (f0 x)))\nlet () = f4 (g 1)\n")
    score = OcamlJudge(OcamlSettings(timeout_s=5)).score(ADD, fenced(padded(BODY + grows)))
    assert len(score.raw) <= 2000 and len(score.breakdown["compiler_error"] or "") <= 600
    score = JUDGE.score(ADD, fenced(FORGE + wrong))
    assert score.breakdown["passed"] == 0 and isinstance(score.breakdown["error"], str)
    assert len(score.breakdown["error"]) <= 300


# finds the result lines' tag in its own program file and forges test 0's line with a 2 MB error
FORGE = r"""
let read_all f = let ic = open_in_bin f in let s = really_input_string ic (in_channel_length ic) in close_in ic; s
let hex c = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
let find s sub = let n = String.length s and m = String.length sub in
  let rec ok j k = k = 32 || (j + k < n && hex s.[j + k] && ok j (k + 1)) in
  let rec go i = if i + m > n then -1 else if String.sub s i m = sub && ok (i + m) 0 then i else go (i + 1) in go 0
let () =
  let b = read_all Sys.executable_name and key = "{\"nonce\": \"" in
  let nonce = String.sub b (find b key + String.length key) 32 in
  print_string ("\n{\"nonce\": \"" ^ nonce ^ "\", \"event\": \"test\", \"i\": 0, \"ok\": false, \"error\": {\"big\": \""
                ^ String.make 2000000 'x' ^ "\"}}\n")
"""
