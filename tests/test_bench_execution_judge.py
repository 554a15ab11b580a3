"""bench/execution_judge.py as a user types it: each way judges the same answers (every reference
passes its tests, else it stops), from a small process and one holding tensors, the floors beside
them, ratios against ours."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_execution_judge_bench_prints_both_starts_and_the_floors():
    res = subprocess.run([sys.executable, "bench/execution_judge.py", "--answers", "6", "--rounds", "1", "--hold-gb", "0.2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    rows = {ln.split("|")[1].strip(): ln for ln in res.stdout.splitlines() if ln.startswith("| ")}
    assert rows["ours (no site, vfork)"].count("1.00x") == 2
    for way in ("with site", "with fork (a preexec_fn)", "before: site and fork", "floor: sandboxed starts of `pass`",
                "floor: bare interpreter starts"):
        assert rows[way].count("x |") == 2, rows
    assert "holding 0.2 GB" in res.stdout and "as fast as before from a small process" in res.stdout
    help_text = subprocess.run([sys.executable, "bench/execution_judge.py", "--help"], cwd=ROOT, capture_output=True,
                               text=True).stdout
    assert "--answers" in help_text and "--record" in help_text
