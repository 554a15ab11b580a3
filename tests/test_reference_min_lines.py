"""A reference shorter than the judge's min_lines scores 0 without its tests running: the dry run, the eval and the
judge stage say so, naming the key and its value to lower, apart from the references that fail their own tests;
past the first names, a warning says how many more there are and how to see them all."""
from __future__ import annotations

import json
import logging

import pytest

from judges.base import Score, short_of, too_short
from pipeline.stages.eval import say_reference_failures
from pipeline.stages.judge import reference_failures

DRY = ["data.validation_size=0", "eval.sources=[]"]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_dry_run_says_a_short_python_reference_is_under_min_lines(tiny_config, tmp_path, caplog, capsys):
    from pipeline.cli.main import main
    src = _write(tmp_path / "short.jsonl", [
        {"id": "one", "prompt": "Write `def one(x)` returning x.", "entry_point": "one",
         "tests": [{"input": [1], "output": 1}], "reference": "def one(x): return x\n"},
        {"id": "two", "prompt": "Write `def two(x)` returning x.", "entry_point": "two",
         "tests": [{"input": [1], "output": 3}], "reference": "def two(x):\n    return x\n"}])
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, f"data.source={src}", *DRY]) == 0
    out = capsys.readouterr().out
    assert "(training references: 2 of 2 fail (1 their own tests, 1 under judge.execution.min_lines=2)" in out
    assert "1 of 2 training references fail their own tests (two: wrong answer: two(1) gave 1, expected 3)" in caplog.text
    assert ("1 of 2 training references have fewer lines of code than judge.execution.min_lines=2 (one): the judge "
            "scores an answer that short 0 without running its tests") in caplog.text
    assert "lower judge.execution.min_lines (0 scores answers of any length)" in caplog.text
    assert "one: fewer than" not in caplog.text          # not among those failing their tests
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):     # lowered: its tests run, and pass
        assert main(["epoch", "1", "--dry-run", *tiny_config, f"data.source={src}", *DRY,
                     "judge.execution.min_lines=1"]) == 0
    assert "(training references: 1 of 2 fail their own tests: see the warning)" in capsys.readouterr().out
    assert "min_lines" not in caplog.text


def test_the_dry_run_says_short_ocaml_references_are_under_judge_ocaml_min_lines(ocaml_compiler, tiny_config, tmp_path,
                                                                                caplog, capsys):
    from pipeline.cli.main import main
    src = _write(tmp_path / "ml_types.jsonl", [
        {"id": f"ml-{n}", "prompt": f"Write `{n} x`.", "entry_point": n, "signature": f"val {n} : int -> int",
         "tests": [{"input": [1], "output": 2}], "reference": f"let {n} x =\n  x + 1\n"} for n in ("f", "g")])
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, f"data.source={src}", "data.language=ocaml", *DRY,
                     "student.system_prompt=Answer in OCaml."]) == 0
    assert "(training references: 2 of 2 have fewer lines of code than judge.ocaml.min_lines=8: see the warning)" \
        in capsys.readouterr().out
    assert "2 of 2 training references have fewer lines of code than judge.ocaml.min_lines=8 (ml-f; ml-g)" in caplog.text
    assert "fail their own tests" not in caplog.text and "fix the tests or the reference" not in caplog.text


def test_the_judge_stage_says_short_references_apart_and_counts_them():
    cut = Score(0.0, {"error": too_short("judge.ocaml", 8), "language": "ocaml"})
    cached = Score(0.0, {"error": "fewer than 8 lines of code", "language": "ocaml"})   # cached before the key was named
    wrong = Score(0.35, {"error": "wrong answer: f(1) gave 1, expected 2"})
    assert short_of(cached.breakdown["error"], "ocaml") == short_of(cut.breakdown["error"]) == ("judge.ocaml.min_lines", 8)
    assert short_of("fewer than 2 lines of code") == ("judge.execution.min_lines", 2)
    assert short_of(wrong.breakdown["error"]) is None
    teacher = [{"problem_id": i} for i in ("a", "b", "c", "d")]
    log = logging.getLogger("rlaif")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    log.addHandler(handler)
    try:
        assert reference_failures(teacher, [cut, cached, wrong, Score(1.0, {})]) == 3
    finally:
        log.removeHandler(handler)
    said = [r.getMessage() for r in records]
    assert any("1 of 4 reference answers fail their own tests (c: 0.35)" in s for s in said), said
    assert any("2 of 4 reference answers have fewer lines of code than judge.ocaml.min_lines=8 (a, b)" in s
               and "lower judge.ocaml.min_lines" in s for s in said), said


class _P:
    def __init__(self, i: str, language: str = "python"):
        self.id, self.language = i, language


def test_past_three_failing_references_the_warning_says_how_many_more_and_how_to_see_them(caplog):
    probs = [("held.jsonl", _P(f"p{i}")) for i in range(7)]
    checked = [(False, f"wrong answer: f({i}) gave 0, expected 1") for i in range(6)] + [(True, None)]
    with caplog.at_level("DEBUG", logger="rlaif"):
        assert say_reference_failures(probs, checked) == 6
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "6 of the 7 reference answers" in warned[0]
    assert "held.jsonl:p2: wrong answer: f(2) gave 0, expected 1; ... 3 more (run.log_level=DEBUG names them all)" \
        in warned[0] and "p3" not in warned[0]
    debug = [r.getMessage() for r in caplog.records if r.levelname == "DEBUG"]
    assert any("all 6" in d and "held.jsonl:p5: wrong answer" in d for d in debug), debug


@pytest.mark.parametrize("language,key", [("python", "judge.execution.min_lines=2"), ("ocaml", "judge.ocaml.min_lines=8")])
def test_the_eval_warns_of_a_short_reference_as_under_min_lines(language, key, caplog):
    least = int(key.rsplit("=", 1)[1])
    probs = [("held.jsonl", _P("short", language)), ("held.jsonl", _P("ok", language))]
    checked = [(False, too_short(key.split(".min_lines")[0], least)), (True, None)]
    with caplog.at_level("WARNING", logger="rlaif"):
        assert say_reference_failures(probs, checked) == 1
    assert f"eval: 1 of 2 reference answers of the eval's problems have fewer lines of code than {key} " \
           "(held.jsonl:short)" in caplog.text and "fail their own tests" not in caplog.text
