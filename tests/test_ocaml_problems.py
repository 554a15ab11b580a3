"""The shipped OCaml problem set: counts, well-formedness, and every reference passes while a
wrong answer fails (checked in the sandbox, in parallel; ~250 compiled programs)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from data.loaders import load_problems, load_source
from data.rows import DataError
from judges.ocaml import OcamlJudge
from data.ocaml_types import parse_signature

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("ocaml_compiler")


def _builder():
    spec = importlib.util.spec_from_file_location("build_ocaml", ROOT / "data/problems/build_ocaml.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_counts_tiers_and_heldout_split():
    problems = load_source("ocaml")
    assert len(problems) >= 80
    tiers = Counter(p.difficulty for p in problems)
    assert tiers["easy"] >= 25 and tiers["medium"] >= 25 and tiers["hard"] >= 20, tiers
    held = load_source("ocaml:heldout")
    assert all(Counter(p.difficulty for p in held)[t] >= 4 for t in ("easy", "medium", "hard"))
    assert {p.id for p in held} | {p.id for p in load_source("ocaml:train")} == {p.id for p in problems}
    assert not {p.id for p in held} & {p.id for p in load_source("ocaml:train")}


def test_problems_are_well_formed():
    for p in load_source("ocaml"):
        assert p.language == "ocaml" and p.id.startswith(f"ml-{p.difficulty}-"), p.id
        name, args, _ = parse_signature(p.signature)
        assert name == p.entry_point and f"`{p.signature}`" in p.prompt and "```ocaml" in p.prompt, p.id
        assert p.reference and len(p.tests) >= 4 and p.test_code is None, p.id
        assert all(len(t["input"]) == len(args) for t in p.tests), p.id
        assert len({json.dumps(t["output"]) for t in p.tests}) >= 2, p.id  # a constant answer cannot pass all


@pytest.mark.slow
def test_every_reference_passes_and_wrong_answers_fail():
    """Each reference scores 1.0 in the sandbox; the builder's small edit of it (a plausible bug) compiles
    and fails at least one test. (A constant answer fails too: test_problems_are_well_formed checks that
    every problem's tests expect at least two different outputs.)"""
    problems = load_source("ocaml")
    wrong = {r["id"]: r["_wrong"] for r in _builder()._rows()}
    judge = OcamlJudge()
    right = judge.score_many([(p, f"```ocaml\n{p.reference}```") for p in problems], workers=4)
    for p, s in zip(problems, right):
        assert s.value == pytest.approx(1.0) and s.breakdown["passed"] == len(p.tests), (p.id, s.breakdown)
    edits = judge.score_many([(p, f"```ocaml\n{w}```") for p in problems for w in wrong[p.id]], workers=4)
    for p, s in zip(problems, edits):
        assert s.breakdown["compile"] == 1 and s.breakdown["passed"] < len(p.tests), (p.id, s.breakdown)


def test_jsonl_matches_its_generator_run_as_typed(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "data/problems/build_ocaml.py", *args], cwd=ROOT,
                              capture_output=True, text=True)
    result = run("--check")
    assert result.returncode == 0, result.stderr + result.stdout
    shipped = (ROOT / "data/problems/ocaml.jsonl").read_bytes()
    assert "--out" in run("--help").stdout and (ROOT / "data/problems/ocaml.jsonl").read_bytes() == shipped
    assert run("--out", str(tmp_path)).returncode == 0 and (tmp_path / "ocaml.jsonl").read_bytes() == shipped
    (tmp_path / "ocaml.jsonl").write_text("{}\n")                 # a stale copy: --check names it and fails
    stale = run("--check", "--out", str(tmp_path))
    assert stale.returncode == 1 and "ocaml.jsonl is out of date" in stale.stderr


# ------------------------------------------------------------------------ language and mapping

def test_language_defaults_from_the_loader_and_rows_override_it(tmp_path):
    row = {"id": "a", "prompt": "p", "entry_point": "f", "signature": "val f : int -> int",
           "tests": [{"input": [1], "output": 2}]}
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "id": "b", "language": "python"}) + "\n")
    a, b = load_problems(path, language="ocaml")
    assert (a.language, b.language) == ("ocaml", "python")
    assert load_problems(path)[0].language == "python"


def test_ocaml_row_whose_signature_does_not_fit_the_tests_names_the_row(tmp_path):
    row = {"id": "a", "prompt": "p", "entry_point": "f", "language": "ocaml", "signature": "val f : int -> int",
           "tests": [{"input": ["x"], "output": 2}]}
    path = tmp_path / "p.jsonl"
    path.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(DataError, match=r"p\.jsonl, line 2: field 'tests' does not fit the OCaml test harness"):
        load_problems(path)
    path.write_text(json.dumps({**row, "signature": "val f : 'a -> int"}) + "\n")
    with pytest.raises(DataError, match="field 'signature'.*not supported"):
        load_problems(path)


def test_hub_shaped_ocaml_rows_map_and_grade_with_test_code(tmp_path):
    """The usual Hub shape (problem text, assertion tests, solution) through data.mapping."""
    rows = [{"name": "double", "problem": "Write `double : int -> int`.", "tests": "let () =\n  assert (double 2 = 4);\n"
             "  assert (double 0 = 0)\n", "solution": "let double x =\n  x * 2\n" + "(* . *)\n" * 7}]
    path = tmp_path / "hub.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mapping = {"id": "name", "entry_point": "name", "prompt": "problem", "test_code": "tests", "reference": "solution"}
    [p] = load_problems(path, mapping, language="ocaml")
    assert p.language == "ocaml" and p.test_code.startswith("let () =") and p.tests is None
    judge = OcamlJudge()
    assert judge.score(p, f"```ocaml\n{p.reference}```").value == pytest.approx(1.0)
    assert judge.score(p, f"```ocaml\n{p.reference.replace('x * 2', 'x + 2')}```").breakdown["tests"] == 0
