"""`rlaif judge` on an answer file as a user writes one: a reference saved as plain code is told why its
structure part scored 0, and how the run judges a reference (in a fence)."""
from __future__ import annotations

import json

from data.loaders import load_builtin
from pipeline.cli.main import main


def test_plain_code_is_told_about_the_fence(tmp_path, capsys):
    p = load_builtin("train")[0]
    (tmp_path / "ref.py").write_text(p.reference)
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.py"), f"run.dir={tmp_path}"]) == 0
    got = capsys.readouterr()
    out = json.loads(got.out)
    assert out["breakdown"]["structure"] == 0.0 and out["breakdown"]["passed"] == out["breakdown"]["total"] > 0
    assert "no closed ```python fence around it, so the structure part scored 0" in got.err
    (tmp_path / "ref.md").write_text(f"```python\n{p.reference}\n```\n")
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    got = capsys.readouterr()
    assert json.loads(got.out)["value"] == 1.0 and "fence" not in got.err
    (tmp_path / "none.md").write_text("I cannot answer that.\n")        # no code at all: the error says so already
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "none.md"), f"run.dir={tmp_path}"]) == 0
    assert "fence" not in capsys.readouterr().err
