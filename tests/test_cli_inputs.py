"""Command-line entry points a user hits first: scoring one answer, missing models, bad data."""
from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.config_file import load_config
from pipeline.model import ModelError, load_student


def test_judge_one_answer_prints_json_and_caches(tmp_path, capsys):
    good = tmp_path / "good.md"
    good.write_text("```python\ndef add(a, b):\n    return a + b\n```\n")
    from data.loaders import load_builtin
    p = load_builtin("train")[0]
    (tmp_path / "ref.md").write_text(f"```python\n{p.reference}\n```\n")
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 1.0 and out["breakdown"]["passed"] == out["breakdown"]["total"] > 0
    assert out["cache_hit"] is False
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    assert json.loads(capsys.readouterr().out)["cache_hit"] is True
    assert main(["judge", "--problem", p.id, "--completion", str(good), f"run.dir={tmp_path}", "--truncated"]) == 0
    wrong = json.loads(capsys.readouterr().out)
    assert wrong["value"] < 0.3 and wrong["breakdown"]["truncated"]
    assert main(["judge", "--problem", "no-such-id", "--completion", str(good), f"run.dir={tmp_path}"]) == 2
    assert "no-such-id" in capsys.readouterr().err


def test_missing_model_says_what_was_tried(tmp_path):
    cfg = load_config(None, [f"student.model={tmp_path / 'nope'}"])
    try:
        load_student(cfg.student)
    except ModelError as e:
        msg = str(e)
    else:
        raise AssertionError("a missing model loaded")
    assert "local path" in msg and "Hub id" in msg and "smollm2-135m-instruct" in msg


def test_missing_model_fails_the_epoch_cleanly(tmp_path, capsys):
    rc = main(["epoch", "1", f"run.dir={tmp_path}", f"student.model={tmp_path / 'nope'}", "data.prompts_per_epoch=1"])
    assert rc == 2
    assert "cannot load student.model" in capsys.readouterr().err
    # the default config warm-starts: the model is first needed by epoch 0's update; what came before is kept
    assert (tmp_path / "default" / "epoch-000" / "teacher" / "manifest.json").exists()
    rc = main(["epoch", "1", f"run.dir={tmp_path}", f"student.model={tmp_path / 'nope'}", "data.prompts_per_epoch=1",
               "update.warm_start=false"])
    assert rc == 2 and "cannot load student.model" in capsys.readouterr().err
    assert (tmp_path / "default" / "epoch-001" / "prompts" / "manifest.json").exists()  # earlier stage kept


def test_malformed_dataset_row_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"id": "a", "prompt": "x", "entry_point": "f", "tests": [{"input": [1], "output": 1}]}\n{oops\n')
    assert main(["epoch", "1", f"run.dir={tmp_path}", f"data.source={bad}"]) == 2
    err = capsys.readouterr().err
    assert "p.jsonl" in err and "line 2" in err
