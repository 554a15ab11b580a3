"""Tables are written by `datasets` and read back by pyarrow alone: the same rows as `datasets` reads,
for every kind of column the stages store, across shards, and without importing `datasets`."""
from __future__ import annotations

import json
import subprocess
import sys

from datasets import Dataset, load_from_disk

from pipeline.store.tables import TABLE, load_table, save_table

ROWS = [
    {"id": "p1", "k": 0, "text": "def f():\n    return 1\n", "score": 0.25, "none_score": None,
     "tokens": [1, 2, 3], "logps": [-0.5, -1.25], "flag": True, "parts": {"a": 1.0, "b": None},
     "meta": {"x": [1, 2]}},
    {"id": "p2", "k": 1, "text": "", "score": None, "none_score": None, "tokens": [], "logps": [0.0],
     "flag": False, "parts": {"a": None, "b": 2.0}, "meta": {"x": []}},
]


def test_rows_read_back_as_datasets_reads_them(tmp_path):
    save_table(ROWS, tmp_path, json_cols=("meta",))
    want = [{**r, "meta": json.loads(r["meta"])} for r in map(dict, load_from_disk(str(tmp_path / TABLE)))]
    got = load_table(tmp_path, json_cols=("meta",))
    assert got == want
    assert got[0]["meta"] == {"x": [1, 2]} and got[1]["score"] is None and got[0]["tokens"] == [1, 2, 3]


def test_a_table_in_several_shards_reads_in_order(tmp_path):
    rows = [{"id": f"p{i}", "v": float(i), "tokens": list(range(i % 7))} for i in range(300)]
    Dataset.from_list(rows).save_to_disk(str(tmp_path / TABLE), num_shards=3)
    assert len(json.loads((tmp_path / TABLE / "state.json").read_text())["_data_files"]) == 3
    assert load_table(tmp_path) == [dict(r) for r in load_from_disk(str(tmp_path / TABLE))] == rows


def test_an_empty_table_reads_as_no_rows(tmp_path):
    save_table([], tmp_path)
    assert load_table(tmp_path) == []


def test_reading_a_table_does_not_import_datasets(tmp_path):
    save_table(ROWS[:1], tmp_path)
    code = ("import sys; from pathlib import Path; from pipeline.store.tables import load_table; "
            f"rows = load_table(Path({str(tmp_path)!r})); print(len(rows), 'datasets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "False"]
