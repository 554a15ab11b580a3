"""What a new user bringing their own data and config meets: the key list readable beside a broken config.yaml,
empty values refused by name, an entry_point the prompt never names said before any work, and an overlap of
training and eval problems told the fix that applies."""
from __future__ import annotations

import json
import re

from pipeline.cli.main import main

ROW = {"prompt": "Write a Python function `def add0(x: int) -> int:` that returns x.", "entry_point": "add0",
       "reference": "def add0(x):\n    return x\n", "tests": [{"input": [1], "output": 1}]}


def test_the_key_list_and_metrics_read_beside_a_broken_config_file(tmp_path, monkeypatch, capsys):
    """The error of a typo'd config.yaml says to see `rlaif config show --doc`: that (and `rlaif metrics`) runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("data:\n  sorce: my.jsonl\n")
    assert main(["config", "show"]) == 2
    assert "see `rlaif config show --doc` for valid keys" in capsys.readouterr().err
    assert main(["config", "show", "--doc"]) == 0
    assert "data.source " in capsys.readouterr().out
    assert main(["metrics"]) == 0
    assert "reward/mean" in capsys.readouterr().out
    (tmp_path / "config.yaml").write_text("data: [unclosed\n")   # not even YAML
    assert main(["config", "show", "--doc"]) == 0


def test_empty_values_are_refused_by_name(tmp_path, monkeypatch, capsys):
    """data.source= and student.model= read as the working directory ("is a directory", "has no config.json")."""
    monkeypatch.chdir(tmp_path)
    assert main(["config", "show", "data.source="]) == 2
    assert "data.source: is empty: name the training problems (builtin:train" in capsys.readouterr().err
    assert main(["epoch", "1", "--dry-run", "student.model="]) == 2
    assert "student.model: is empty: name the student" in capsys.readouterr().err
    assert main(["config", "show", "data.source=~"]) == 2   # YAML's null
    assert "YAML reads a bare ~ (or nothing) as null" in capsys.readouterr().err


def test_an_entry_point_the_prompt_never_names_is_said(tmp_path, tiny_config, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    rows = [{**ROW, "id": f"p{i}", "prompt": ROW["prompt"].replace("add0", f"add{i}"), "entry_point": f"plus{i}",
             "reference": f"def plus{i}(x):\n    return x\n"} for i in range(10)]
    (tmp_path / "renamed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, "data.source=renamed.jsonl"]) == 0
    said = [r.getMessage() for r in caplog.records if "never name their entry_point" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("10 problem(s) with tests never name their entry_point in the prompt "
                                                 "(p0: 'plus0', p1: 'plus1', p2: 'plus2', ...)"), caplog.text
    caplog.clear()
    fine = [{**ROW, "id": f"p{i}", "prompt": ROW["prompt"].replace("add0", f"add{i}"), "entry_point": f"add{i}"}
            for i in range(10)]
    (tmp_path / "fine.jsonl").write_text("".join(json.dumps(r) + "\n" for r in fine))
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, "data.source=fine.jsonl"]) == 0
    assert "never name their entry_point" not in caplog.text


def test_an_overlap_from_a_split_already_names_the_eval_source_to_drop(tmp_path, tiny_config, monkeypatch, capsys):
    """Training on my.jsonl:train while eval.sources also holds base.jsonl, the same problems: the fix is the eval
    source, not "train on a split" (it does)."""
    monkeypatch.chdir(tmp_path)
    rows = [{**ROW, "id": f"p{i}", "prompt": ROW["prompt"] + f" ({i})", "split": "train" if i < 8 else "heldout"}
            for i in range(10)]
    (tmp_path / "my.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "base.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "split"}) + "\n"
                                                 for r in rows))
    assert main(["epoch", "1", "--dry-run", *tiny_config, "data.source=my.jsonl:train",
                 "eval.sources=[my.jsonl:heldout, base.jsonl]"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"trains on \d problem\(s\) the eval scores \(eval.sources: base.jsonl", err), err
    assert "take base.jsonl out of eval.sources, or name its held-out split (base.jsonl:heldout)" in err, err
    assert "train on a split" not in err

    assert main(["epoch", "1", "--dry-run", *tiny_config, "data.source=builtin:train", "eval.sources=[builtin]"]) == 2
    assert "take builtin out of eval.sources, or name its held-out split (builtin:heldout)" in capsys.readouterr().err


def test_every_missing_field_is_mapped_at_once_from_the_columns_other_datasets_use(tmp_path):
    """APPS' question, a function_name column and a qid: one error gives the whole mapping (it named one field,
    then the next with <column> beside a column named question); a null field is not told to map itself."""
    import pytest
    from data.loaders import load_source
    from data.rows import DataError
    row = {"qid": "a1", "question": "Write add0(x).", "function_name": "add0", "tests": [{"input": [1], "output": 1}]}
    (tmp_path / "ren.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DataError, match=re.escape("e.g. data.mapping={id: qid, prompt: question, entry_point: "
                                                  "function_name}")):
        load_source(str(tmp_path / "ren.jsonl"))
    (tmp_path / "nul.jsonl").write_text(json.dumps({**ROW, "id": "a1", "prompt": None}) + "\n")
    with pytest.raises(DataError, match=r"field 'prompt' is null; give it a value in that row, or drop the row\.$"):
        load_source(str(tmp_path / "nul.jsonl"))


def test_problems_keyed_by_id_in_one_json_object_are_told_the_command_that_lists_them(tmp_path, monkeypatch):
    """{"add-000": {...}, ...} read as one row missing its id; the error gives a command, run here as typed."""
    import shlex
    import subprocess
    import sys

    import pytest
    from data.loaders import load_source
    from data.rows import DataError
    monkeypatch.chdir(tmp_path)
    (tmp_path / "obj.json").write_text(json.dumps({f"add-00{i}": {k: v for k, v in ROW.items()} for i in range(2)},
                                                  indent=1))
    with pytest.raises(DataError, match=r"one JSON object of problems keyed by their ids \(add-000, add-001\)") as e:
        load_source("obj.json")
    command = shlex.split(str(e.value).split("e.g. ", 1)[1])
    assert command[:2] == ["python", "-c"]
    subprocess.run([sys.executable, *command[1:]], check=True, cwd=tmp_path)
    assert [p.id for p in load_source("problems.json")] == ["add-000", "add-001"]


def test_early_stopping_on_a_figure_better_lower_is_refused(tmp_path, tiny_config, monkeypatch, capsys):
    """eval/ref_nll falls as the policy learns (and is not recorded without references): it never stopped a run."""
    monkeypatch.chdir(tmp_path)
    assert main(["epoch", "1", "--dry-run", *tiny_config, "eval.patience=1", "eval.early_stop_metric=eval/ref_nll"]) == 2
    assert "eval.early_stop_metric=eval/ref_nll is better lower" in capsys.readouterr().err
