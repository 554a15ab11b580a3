"""bench/warm_start.py as typed: the warm-start's rows through the padded batch and the per-prompt loop,
the same loss, the seconds and the tokens each computes printed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_warm_start_bench_prints_both_arms_with_the_same_loss(tiny_model):
    # the tiny student (the shipped one's tokenizer and rows): the arms' tokens and loss as the embedded one's
    res = subprocess.run([sys.executable, "bench/warm_start.py", "--rows", "4", "--rounds", "1",
                          f"student.model={tiny_model}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    rows = {r[0].strip("| "): r for r in (line.split(" | ") for line in res.stdout.splitlines())
            if len(r) == 6 and not r[0].startswith("| arm") and "---" not in r[0]}
    assert set(rows) == {"padded", "per prompt"}, res.stdout
    assert rows["padded"][2] == "1.00" and float(rows["per prompt"][1]) > 0
    assert float(rows["per prompt"][3]) < float(rows["padded"][3])        # the loop computes fewer tokens ...
    assert rows["padded"][4] == rows["per prompt"][4]                     # ... of the same loss
    assert all(0 < float(r[5].strip(" |%")) for r in rows.values()) and "GFLOP/s" in res.stdout


def test_warm_start_bench_help():
    res = subprocess.run([sys.executable, "bench/warm_start.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--rows" in res.stdout
