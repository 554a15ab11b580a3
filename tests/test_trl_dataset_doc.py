"""docs/guides/from-trl.md's conversion of a TRL conversational dataset, run as the page shows it: its
output loads as a data source, and the row as TRL wrote it is refused naming the row."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from data.loaders import load_source
from data.rows import DataError

ROOT = Path(__file__).resolve().parents[1]


def test_the_documented_conversion_of_a_trl_dataset_loads(tmp_path, monkeypatch):
    page = (ROOT / "docs" / "guides" / "from-trl.md").read_text()
    snippet = re.search(r"```python\n(import datasets\n.*?)```", page, re.S).group(1)
    rows = [{"prompt": [{"role": "user", "content": f"What is {i} + 1? Answer with the number."}], "solution": str(i + 1)}
            for i in range(3)]
    (tmp_path / "trl.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataError, match=r"trl.jsonl, line 1: field 'id' is missing"):
        load_source(str(tmp_path / "trl.jsonl"))
    exec(compile(snippet, "from-trl.md", "exec"), {})
    problems = load_source(str(tmp_path / "mine.jsonl"))
    assert [(p.id, p.prompt, p.entry_point) for p in problems][0] == ("0", "What is 0 + 1? Answer with the number.", "")
    assert problems[2].meta["solution"] == "3"          # the other columns reach a reward function's kwargs
