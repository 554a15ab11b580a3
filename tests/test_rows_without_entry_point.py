"""A row without tests (a TRL dataset: a prompt and its columns, scored by a reward function) needs no
entry_point; a row with tests still does, since the tests call it."""
from __future__ import annotations

import json

import pytest

from data.loaders import load_source
from data.rows import DataError
from pipeline.cli.main import main
from pipeline.store.tables import load_table


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_only_a_row_with_tests_needs_an_entry_point(tmp_path):
    bare = [{"id": "a", "prompt": "Say hi.", "solution": "hi"}, {"id": "b", "prompt": "Say bye.", "solution": "bye"}]
    problems = load_source(_write(tmp_path / "bare.jsonl", bare))
    assert [(p.entry_point, p.meta["solution"]) for p in problems] == [("", "hi"), ("", "bye")]
    for tests in ({"tests": [{"input": [1], "output": 1}]}, {"test_code": "def check(candidate):\n    pass\n"}):
        path = _write(tmp_path / "tested.jsonl", [bare[0], {**bare[1], **tests}])
        with pytest.raises(DataError, match=r"tested.jsonl, line 2: field 'entry_point' is missing"):
            load_source(path)
    with pytest.raises(DataError, match=r"line 1: field 'entry_point' must be a non-empty string"):
        load_source(_write(tmp_path / "empty.jsonl", [{**bare[0], "entry_point": " ", "tests": [{"input": [1], "output": 1}]}]))


def test_a_reward_function_trains_on_rows_without_an_entry_point(tmp_path, tiny_config, monkeypatch, capsys):
    """The dry run and the stages up to the reward, as typed, over rows with neither tests nor entry_point:
    the reward function is called with entry_point '' for each answer, and an execution judge over the
    same rows is refused before any work, naming the rows without tests."""
    monkeypatch.chdir(tmp_path)
    source = _write(tmp_path / "mine.jsonl", [{"id": str(i), "prompt": f"What is {i} + 1?", "solution": str(i + 1)}
                                              for i in range(4)])
    (tmp_path / "rw.py").write_text(
        "import json\n"
        "def reward(completions, entry_point, solution, **kw):\n"
        "    with open('seen.jsonl', 'a') as f:\n"
        "        f.write(json.dumps([entry_point, solution]) + '\\n')\n"
        "    return [float(s in c) for c, s in zip(completions, solution)]\n")
    args = [*tiny_config, f"data.source={source}", "data.validation_size=0", "eval.sources=[]", "judge.kind=python",
            f"judge.python.function={tmp_path / 'rw.py'}:reward", "teacher.kind=none", "reward.kind=direct"]
    assert main(["epoch", "1", "--dry-run", *args]) == 0
    for stage in ("prompts", "sample", "teacher", "judge", "reward"):
        assert main(["epoch", "1", "--only", stage, *args]) == 0
    seen = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]
    assert seen and all(set(entry) == {""} and len(entry) == len(sol) for entry, sol in seen)
    judged = load_table(tmp_path / "runs" / "default" / "epoch-001" / "judge")
    assert judged and all(r["value"] in (0.0, 1.0) for r in judged)
    execution = [a for a in args if not a.startswith("judge.")] + ["judge.kind=execution"]
    capsys.readouterr()
    assert main(["epoch", "1", "--dry-run", *execution]) != 0
    assert "4 of 4 training problems have no tests (0, 1, 2, 3)" in capsys.readouterr().err


def test_a_linear_curriculum_over_one_tier_is_said(tmp_path, tiny_config, caplog, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = _write(tmp_path / "nodiff.jsonl", [{"id": str(i), "prompt": f"Write f{i}.", "entry_point": f"f{i}",
                                                 "tests": [{"input": [1], "output": 1}]} for i in range(4)])
    args = [*tiny_config, f"data.source={source}", "data.validation_size=0", "eval.sources=[]"]
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *args, "curriculum.strategy=linear"]) == 0
    assert "curriculum.strategy=linear: all 4 training problems are medium" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *args]) == 0
    assert "curriculum.strategy=linear" not in caplog.text
