"""bench/update_profile.py as a user types it, on the CPU with a tiny student: both sides are profiled at
two depths, the per-layer split and the worked-out lines print, and a bad micro-batch is refused."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CMD = [sys.executable, "bench/update_profile.py"]


def test_help():
    res = subprocess.run([*CMD, "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--layers2" in res.stdout and "--gpu-gib" in res.stdout


def test_a_micro_batch_of_split_groups_is_refused():
    res = subprocess.run([*CMD, "--rows", "6", "--k", "4", "--no-record"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 2 and "--rows 6 is not a multiple of --k 4" in res.stderr


@pytest.mark.slow
def test_both_sides_profiled_at_two_depths(tmp_path):
    cmd = [*CMD, "--shape", "tiny", "--layers", "1", "--layers2", "2", "--rows", "4", "--k", "2", "--prompt", "8",
           "--new", "8", "--extra", "1", "--models", str(tmp_path / "students"), "--trace", str(tmp_path / "trace"),
           "--no-record", "--fused-head", "on", "update.share_prompt=false"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.splitlines()
    head = [c.strip() for c in next(line for line in lines if line.startswith("| side |")).split("|")[1:-1]]
    rows = {}
    for line in lines:
        if line.startswith(("| ours |", "| trl |")):
            cells = [c.strip() for c in line.split("|")[1:-1]]
            rows[tuple(cells[:2])] = {h: float(c) for h, c in zip(head[2:], cells[2:])}
    assert set(rows) == {("ours", "1"), ("ours", "2"), ("trl", "1"), ("trl", "2")}
    for side in ("ours", "trl"):
        one, two = rows[(side, "1")], rows[(side, "2")]
        calls = "kernel-reaching calls"
        assert two[calls] > one[calls] > 0                  # a second decoder layer adds kernel-reaching calls
        assert one["calls a layer"] == two["calls a layer"] == two[calls] - one[calls]   # the per-layer split
        assert one["fixed calls"] + one["calls a layer"] == one[calls]                   # and the fixed part
        assert one["peak MiB"] >= 1 and two["peak MiB"] >= 1   # the logits alone: 4 x 9 x 49k floats a copy
    assert "calls ours - TRL by operator" in res.stdout and "MiB a decoder layer" in res.stdout
    assert "max_batch_tokens auto on a 80.0 GiB GPU" in res.stdout and "float32 log-softmax" in res.stdout
    assert {p.name for p in (tmp_path / "trace").iterdir()} == {"ours-1l.txt", "ours-2l.txt", "trl-1l.txt", "trl-2l.txt"}
