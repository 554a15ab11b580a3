"""bench/execution_judge.py as a user types it: both starts judge the same answers (every reference
passes its tests, else it stops), the floors beside them, ratios against ours."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_execution_judge_bench_prints_both_starts_and_the_floors():
    res = subprocess.run([sys.executable, "bench/execution_judge.py", "--answers", "6", "--rounds", "1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = {ln.split("|")[1].strip(): ln for ln in res.stdout.splitlines() if ln.startswith("| ")}
    assert rows["without site (ours)"].endswith("| 1.00x |") and "with site" in rows
    assert any(k.startswith("floor: sandboxed starts") for k in rows)
    assert any(k.startswith("floor: bare interpreter starts") for k in rows)
    assert "as fast as with it" in res.stdout
    help_text = subprocess.run([sys.executable, "bench/execution_judge.py", "--help"], cwd=ROOT, capture_output=True,
                               text=True).stdout
    assert "--answers" in help_text and "--record" in help_text
