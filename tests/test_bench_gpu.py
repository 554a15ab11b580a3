"""bench/gpu.py as a user types it, on the CPU (the smoke test its docstring gives): both sides run,
the table and the ratios print, and the record lands where RLAIF_BENCH_RESULTS says."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_help():
    res = subprocess.run([sys.executable, "bench/gpu.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--shapes" in res.stdout and "--profile" in res.stdout


@pytest.mark.slow
def test_the_tiny_smoke_run_on_the_cpu(tmp_path):
    env = {**os.environ, "RLAIF_BENCH_RESULTS": str(tmp_path / "RESULTS.md")}
    cmd = [sys.executable, "bench/gpu.py", "--shapes", "tiny", "--device", "cpu", "--prompts", "2", "--k", "2",
           "--new", "8", "--steps", "2", "--models", str(tmp_path / "students"), "--profile", str(tmp_path / "prof.txt")]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    record = (tmp_path / "RESULTS.md").read_text()
    assert "| tiny | ours |" in record and "| tiny | TRL |" in record and "TRL's generation (goal >= 3)" in record
    rows = [line for line in record.splitlines() if line.startswith("| tiny |")]
    assert all(float(line.split("|")[3]) > 0 for line in rows)           # epoch seconds measured on both sides
    prof = (tmp_path / "prof.txt").read_text()
    assert "decode loop:" in prof and "== stage update" in prof
