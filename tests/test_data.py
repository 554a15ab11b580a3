"""The shipped problem set and the loaders: counts, well-formedness, and errors a user can act on."""
from __future__ import annotations

import gzip
import json
import keyword
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from data.loaders import BUILTIN, load_builtin, load_humaneval, load_problems, load_source
from data.rows import DataError
from data.schema import Problem

ROOT = Path(__file__).resolve().parents[1]


def _row(i: int, **over) -> dict:
    row = {"id": f"p{i}", "prompt": f"Write `def f{i}(x):`.", "entry_point": f"f{i}",
           "difficulty": "easy", "split": "train", "reference": f"def f{i}(x):\n    return x\n",
           "tests": [{"input": [1], "output": 1}]}
    row.update(over)
    return row


def _jsonl(tmp_path: Path, lines: list, name: str = "p.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
                    encoding="utf-8")
    return path


def _error(path, mapping=None) -> str:
    with pytest.raises(DataError) as info:
        load_problems(path, mapping)
    return str(info.value)


# ------------------------------------------------------------------------ the shipped set

def test_builtin_counts_per_difficulty_and_split():
    problems = load_builtin()
    tiers = Counter(p.difficulty for p in problems)
    assert tiers["easy"] >= 45 and tiers["medium"] >= 55 and tiers["hard"] >= 30, tiers
    held = Counter(p.difficulty for p in problems if p.split == "heldout")
    assert all(held[t] >= 5 for t in ("easy", "medium", "hard")), held
    assert 0.15 <= sum(held.values()) / len(problems) <= 0.25
    assert {p.id for p in load_builtin("train")} | {p.id for p in load_builtin("heldout")} == {p.id for p in problems}
    assert not {p.id for p in load_builtin("train")} & {p.id for p in load_builtin("heldout")}


def test_builtin_ids_and_entry_points_unique():
    problems = load_builtin()
    assert len({p.id for p in problems}) == len(problems)
    assert len({p.entry_point for p in problems}) == len(problems)
    for p in problems:
        assert p.id.startswith(f"py-{p.difficulty}-"), p.id


def _json_types_only(value) -> bool:
    if isinstance(value, list):
        return all(_json_types_only(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_types_only(v) for k, v in value.items())
    return value is None or isinstance(value, (str, int, bool))  # no floats: exact comparison


def test_builtin_problems_well_formed():
    for p in load_builtin():
        assert isinstance(p, Problem)
        assert p.difficulty in ("easy", "medium", "hard") and p.split in ("train", "heldout"), p.id
        assert p.entry_point.isidentifier() and not keyword.iskeyword(p.entry_point), p.id
        assert p.signature.startswith(f"def {p.entry_point}(") and p.signature.endswith(":"), p.id
        assert f"`{p.signature}`" in p.prompt and "```python" in p.prompt, p.id
        assert p.reference.startswith(p.signature), p.id
        compile(p.reference, p.id, "exec")
        assert p.test_code is None and len(p.tests) >= 3, p.id
        for case in p.tests:
            assert set(case) == {"input", "output"} and isinstance(case["input"], list), p.id
            assert _json_types_only(case["input"]) and _json_types_only(case["output"]), p.id
        # A function returning None must not pass everything.
        assert any(case["output"] is not None for case in p.tests), p.id


def test_builtin_jsonl_matches_its_generator_run_as_typed(tmp_path):  # --help and --out write nothing shipped
    run = lambda *a: subprocess.run([sys.executable, "data/problems/build.py", *a], cwd=ROOT, capture_output=True)
    assert run("--check").returncode == 0 and b"--out" in run("--help").stdout and not run("--out", tmp_path).returncode
    assert [f.read_bytes() == (ROOT / "data/problems" / f.name).read_bytes() for f in tmp_path.iterdir()] == [True] * 2


def test_problem_bank_parts_pass_their_checker():
    """data/problems/bank_*.py: every reference agrees with its hand values and its cases catch its
    wrong edits (data/problems/bank_check.py); 892 problems, 159 of them held out, 133 the tuning split."""
    result = subprocess.run([sys.executable, "data/problems/bank_check.py"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    counts = [line for line in result.stdout.splitlines() if line.startswith("bank_")]
    assert len(counts) >= 4 and result.stdout.strip().endswith("all good"), result.stdout


def test_builtin_file_fields_are_exactly_the_schema():
    fields = set(Problem.__dataclass_fields__)
    for line in BUILTIN.read_text(encoding="utf-8").splitlines():
        assert set(json.loads(line)) == fields


# ------------------------------------------------------------------------ HumanEval

def test_humaneval_loads_164_heldout_problems():
    problems = load_humaneval()
    assert len(problems) == 164
    assert len({p.id for p in problems}) == 164
    first = problems[0]
    assert first.id == "HumanEval/0" and first.entry_point == "has_close_elements"
    assert all(p.split == "heldout" and p.tests is None and "def check(candidate)" in p.test_code
               for p in problems)
    assert all(p.signature and p.signature.startswith(f"def {p.entry_point}(") for p in problems)
    assert "```python" in first.prompt and first.meta["stub"] in first.reference


def test_humaneval_context_is_the_stub_less_the_entry_point():
    """What HumanEval's prompt puts in scope of the answer: imports, helpers, constants."""
    by_id = {p.id: p for p in load_humaneval()}
    assert sum(p.context is not None for p in by_id.values()) == 26
    assert by_id["HumanEval/22"].context == "from typing import List, Any\n"
    assert by_id["HumanEval/2"].context is None
    helper = by_id["HumanEval/38"].context
    assert helper.startswith("def encode_cyclic(s: str):") and "decode_cyclic" not in helper
    assert by_id["HumanEval/32"].context.startswith("import math\n") and "def poly(" in by_id["HumanEval/32"].context
    for p in by_id.values():  # the stub is exactly the context plus the entry point's def
        if p.context:
            assert f"def {p.entry_point}(" not in p.context
            assert p.meta["stub"].lstrip("\n").startswith(p.context.rstrip("\n")), p.id


def test_context_column_loads_and_round_trips(tmp_path):
    path = _jsonl(tmp_path, [_row(1, context="from typing import List\n"), _row(2)])
    one, two = load_problems(path)
    assert one.context == "from typing import List\n" and two.context is None
    assert Problem.from_json(json.loads(json.dumps(one.to_json()))) == one
    assert Problem.from_json({k: v for k, v in two.to_json().items() if k != "context"}) == two  # older tables


def test_humaneval_reference_passes_its_check():
    p = load_humaneval()[0]
    namespace: dict = {}
    exec(p.reference + "\n" + p.test_code + f"\ncheck({p.entry_point})\n", namespace)


# ------------------------------------------------------------------------ dispatch

def test_load_source_dispatch(tmp_path):
    assert len(load_source("builtin")) == len(load_builtin())
    assert {p.split for p in load_source("builtin:heldout")} == {"heldout"}
    assert {p.split for p in load_source("builtin:train")} == {"train"}
    bank = load_source("bank")
    assert {p.split for p in load_source("bank:heldout")} == {"heldout"} and len(bank) > len(load_builtin())
    assert {p.split for p in load_source("bank:tune")} == {"tune"}
    splits = [{p.id for p in load_source(f"bank:{s}")} for s in ("train", "heldout", "tune")]
    assert sum(map(len, splits)) == len(bank) == len(set().union(*splits))   # every problem in one split
    assert len(splits[1]) == 159 and len(splits[2]) == 133
    assert len(load_source("humaneval")) == 164
    path = _jsonl(tmp_path, [_row(1), _row(2)])
    assert [p.id for p in load_source(str(path))] == ["p1", "p2"]
    for bad in ("no/such/file.jsonl", "builtin:test", "hf:"):
        with pytest.raises(DataError):
            load_source(bad)
    with pytest.raises(DataError, match="no field mapping"):
        load_source("builtin", {"id": "task_id"})


def test_a_split_after_a_files_path_selects_its_rows(tmp_path):
    """my.jsonl:heldout: the rows whose split is heldout (a row without one is train); a missing file
    fails before any run."""
    from data.loaders import check_source
    row = _row(3)
    del row["split"]
    path = _jsonl(tmp_path, [_row(1), _row(2, split="heldout"), row, _row(4, split="tune")])
    assert [p.id for p in load_source(f"{path}:heldout")] == ["p2"]
    assert [p.id for p in load_source(f"{path}:train")] == ["p1", "p3"]
    assert [p.id for p in load_source(f"{path}:tune")] == ["p4"]
    assert len(load_source(str(path))) == 4
    check_source(f"{path}:heldout")
    with pytest.raises(DataError, match="no such file"):
        check_source(str(tmp_path / "missing.jsonl:heldout"))
    with pytest.raises(DataError, match="unknown data source"):
        load_source(f"{path}:test")


def test_load_hub_goes_through_datasets(monkeypatch):
    """No network here: stand in for datasets.load_dataset and check mapping and row numbers."""
    import datasets

    calls = []

    def fake(name, split):
        calls.append((name, split))
        return [{"task_id": 7, "text": "Write `def g(x):`.", "entry_point": "g"},
                {"task_id": 8, "text": "Write `def h(x):`.", "entry_point": "h", "extra": 1},
                {"task_id": 8, "text": "dup", "entry_point": "h"}]

    monkeypatch.setattr(datasets, "load_dataset", fake)
    with pytest.raises(DataError) as info:
        load_source("hf:org/set:test", {"id": "task_id", "prompt": "text"})
    assert calls == [("org/set", "test")]
    assert "'8'" in str(info.value) and "row 2" in str(info.value) and "row 3" in str(info.value)
    monkeypatch.setattr(datasets, "load_dataset", lambda name, split: fake(name, split)[:2])
    problems = load_source("hf:org/set", {"id": "task_id", "prompt": "text"})
    assert calls[-1] == ("org/set", "train")
    assert [p.id for p in problems] == ["7", "8"] and problems[1].meta == {"extra": 1}


# ------------------------------------------------------------------------ malformed rows

def test_bad_json_names_file_and_line(tmp_path):
    path = _jsonl(tmp_path, [_row(1), _row(2), '{"id": "p3", "prompt": ', _row(4)])
    msg = _error(path)
    assert str(path) in msg and "line 3" in msg and "invalid JSON" in msg
    # json's own message ends in "at" here: said once ("starting at at column" was)
    msg = _error(_jsonl(tmp_path, [_row(1), '{"id": "p2", "prompt": "cut off'], "q.jsonl"))
    assert "line 2" in msg and "Unterminated string starting at column 24" in msg and "at at" not in msg, msg


def test_bad_json_in_json_array_names_line(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('[\n' + json.dumps(_row(1)) + ',\n' + json.dumps(_row(2)) + ',\n{"id": oops}\n]\n')
    msg = _error(path)
    assert str(path) in msg and "line 4" in msg


def test_a_bad_row_of_a_json_list_on_one_line_names_its_item(tmp_path):
    broken = _row(3)
    del broken["entry_point"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps([_row(1), _row(2), broken]))          # the whole list on line 1
    msg = _error(path)
    assert str(path) in msg and "line 1 (item 3 of the list)" in msg and "'entry_point'" in msg
    dup = tmp_path / "d.json"
    dup.write_text(json.dumps([_row(1), _row(2), _row(9, id="p1")]))
    assert "item 1 of the list" in (msg := _error(dup)) and "item 3 of the list" in msg


def test_missing_field_names_line_and_field(tmp_path):
    broken = _row(2)
    del broken["entry_point"]
    path = _jsonl(tmp_path, [_row(1), broken])
    msg = _error(path)
    assert str(path) in msg and "line 2" in msg and "'entry_point'" in msg and "missing" in msg
    assert "mapping" in msg  # says what to do


@pytest.mark.parametrize("field,value", [
    ("tests", "not a list"), ("tests", [{"input": 1, "output": 1}]), ("tests", [[1, 1]]),
    ("difficulty", "impossible"), ("split", "test"), ("prompt", 5), ("entry_point", "not a name"),
    ("reference", ["x"]), ("meta", [1]), ("context", ["from typing import List"]),
    ("context", "def broken(:\n"), ("context", "from typing import List"),
])
def test_wrong_type_names_line_and_field(tmp_path, field, value):
    bad = _row(3, **{field: value})
    if value == "from typing import List":  # valid Python, but on an OCaml row: refused, not ignored
        bad.update(language="ocaml", entry_point="f3", tests=None)
    path = _jsonl(tmp_path, [_row(1), _row(2), bad])
    msg = _error(path)
    assert str(path) in msg and "line 3" in msg and f"'{field}'" in msg


def test_row_that_is_not_an_object(tmp_path):
    msg = _error(_jsonl(tmp_path, [_row(1), [1, 2]]))
    assert "line 2" in msg and "object" in msg


def test_non_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes((json.dumps(_row(1)) + "\n").encode() + b'{"id": "caf\xe9"}\n')
    msg = _error(path)
    assert str(path) in msg and "line 2" in msg and "UTF-8" in msg


def test_duplicate_ids_name_both_lines(tmp_path):
    path = _jsonl(tmp_path, [_row(1), _row(2), _row(3), _row(9, id="p2")])
    msg = _error(path)
    assert str(path) in msg and "'p2'" in msg and "line 2" in msg and "line 4" in msg


@pytest.mark.parametrize("content,name", [("", "p.jsonl"), ("\n\n", "p.jsonl"), ("[]", "p.json")])
def test_empty_dataset_is_an_error(tmp_path, content, name):
    path = tmp_path / name
    path.write_text(content)
    msg = _error(path)
    assert str(path) in msg and "no problems" in msg


def test_unknown_extension_and_unknown_mapping_field(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id\n")
    assert "unknown file type" in _error(path)
    assert "unknown field 'ident'" in _error(_jsonl(tmp_path, [_row(1)]), {"ident": "id"})
    assert "unknown field 'promt' (did you mean prompt?)" in _error(_jsonl(tmp_path, [_row(1)]), {"promt": "prompt"})
    row = {k: v for k, v in _row(1).items() if k not in ("id", "prompt")} | {"qid": "a", "question": "Write f."}
    msg = _error(_jsonl(tmp_path, [row]), {"prompt": "question"})
    assert "e.g. data.mapping={prompt: question, id: qid}" in msg, msg   # keeps what was mapped; guesses a column


# ------------------------------------------------------------------------ field mapping

def _foreign(i: int) -> dict:
    """A row laid out like another dataset (HumanEval/MBPP-style column names)."""
    return {"task_id": f"t{i}", "text": f"Write `def f{i}(x):`.", "fn": f"f{i}", "level": "hard",
            "solution": f"def f{i}(x):\n    return x\n", "cases": [{"input": [i], "output": i}],
            "source_url": "https://example.org"}


MAPPING = {"id": "task_id", "prompt": "text", "entry_point": "fn", "difficulty": "level",
           "reference": "solution", "tests": "cases"}


def _check_mapped(problems: list[Problem]) -> None:
    assert [p.id for p in problems] == ["t1", "t2"]
    p = problems[1]
    assert (p.entry_point, p.difficulty, p.split) == ("f2", "hard", "train")
    assert p.reference.startswith("def f2") and p.tests == [{"input": [2], "output": 2}]
    assert p.meta == {"source_url": "https://example.org"}  # unmapped columns are kept


def test_mapping_jsonl(tmp_path):
    _check_mapped(load_problems(_jsonl(tmp_path, [_foreign(1), _foreign(2)]), MAPPING))


def test_mapping_jsonl_gz_and_json(tmp_path):
    gz = tmp_path / "p.jsonl.gz"
    gz.write_bytes(gzip.compress("".join(json.dumps(_foreign(i)) + "\n" for i in (1, 2)).encode()))
    _check_mapped(load_problems(gz, MAPPING))
    js = tmp_path / "p.json"
    js.write_text(json.dumps([_foreign(1), _foreign(2)], indent=2))
    _check_mapped(load_problems(js, MAPPING))


def test_mapping_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [_foreign(1), _foreign(2)]
    path = tmp_path / "p.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    _check_mapped(load_problems(path, MAPPING))
    # Mixed-type test lists cannot be Arrow columns; a JSON string column works instead.
    for r in rows:
        r["cases"] = json.dumps(r["cases"])
    pq.write_table(pa.Table.from_pylist(rows), path)
    _check_mapped(load_problems(path, MAPPING))


def test_mapping_missing_column_names_row_and_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "p.parquet"
    pq.write_table(pa.Table.from_pylist([_foreign(1), _foreign(2)]), path)
    msg = _error(path, {**MAPPING, "entry_point": "function_name"})
    assert str(path) in msg and "row 1" in msg and "'entry_point' (column 'function_name')" in msg


def test_mapping_leaves_our_own_layout_alone(tmp_path):
    path = _jsonl(tmp_path, [_row(1)])
    assert load_problems(path, {})[0] == load_problems(path)[0]


# ------------------------------------------------------------------------ references vs. the judge

@pytest.fixture(scope="module")
def judge():
    execution = pytest.importorskip("judges.execution")
    return execution.ExecutionJudge(execution.ExecutionSettings())


@pytest.mark.slow
def test_every_reference_passes_its_tests_and_a_wrong_answer_fails(judge):
    """Each shipped reference scores full marks in the sandbox; `return None` fails some test."""
    problems = load_builtin()
    right = [(p, f"```python\n{p.reference}```") for p in problems]
    wrong = [(p, f"```python\n{p.signature}\n    return None\n```") for p in problems]
    scores = judge.score_many(right + wrong)
    for (p, _), s in zip(right, scores[:len(problems)]):
        assert s.breakdown["total"] == len(p.tests) and s.breakdown["passed"] == len(p.tests), (p.id, s)
        assert s.value == pytest.approx(1.0), (p.id, s)  # also: pyflakes-clean, well-formed
    for (p, _), s in zip(wrong, scores[len(problems):]):
        assert s.breakdown["total"] == len(p.tests) and s.breakdown["passed"] < len(p.tests), (p.id, s)
        assert s.value is not None and s.value < 1.0, (p.id, s)


def test_humaneval_references_pass_through_the_judge(judge):
    """The loader's HumanEval records (stub + solution, `check` tests) work with the judge as is."""
    problems = load_humaneval()
    scores = judge.score_many([(p, f"```python\n{p.reference}\n```") for p in problems])
    failed = [p.id for p, s in zip(problems, scores) if s.breakdown["passed"] != 1]
    assert not failed
    wrong = judge.score(problems[0], f"```python\n{problems[0].signature}\n    return None\n```")
    assert wrong.breakdown["passed"] == 0
