"""Tables on disk are Hugging Face `datasets` (Arrow). Nested values are stored as JSON text."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLE = "table"


def save_table(rows: list[dict[str, Any]], out_dir: Path, json_cols: tuple[str, ...] = ()) -> None:
    from datasets import Dataset
    if not rows:  # datasets cannot write a table with no rows (and no schema): mark it empty
        (out_dir / TABLE).mkdir(parents=True)
        (out_dir / TABLE / "EMPTY").write_text("this table has no rows\n")
        return
    enc = [{k: (json.dumps(v) if k in json_cols else v) for k, v in r.items()} for r in rows]
    Dataset.from_list(enc).save_to_disk(str(out_dir / TABLE))


def load_table(in_dir: Path, json_cols: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    from datasets import load_from_disk
    if (in_dir / TABLE / "EMPTY").exists():
        return []
    ds = load_from_disk(str(in_dir / TABLE))
    return [{k: (json.loads(v) if k in json_cols else v) for k, v in r.items()} for r in ds]
