"""bench/decode_levers.py as typed: every lever timed against today's call, ratios printed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_decode_levers_prints_each_lever_against_today():
    res = subprocess.run([sys.executable, "bench/decode_levers.py", "--threads", "1", "--no-trace", "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    rows = [line.split(" | ") for line in res.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    today = [r for r in rows if r[0].startswith("| today")]
    if "levers skipped: this CPU's oneDNN has no packed bf16 linear" in res.stdout:   # an AVX2-only CPU
        assert len(today) == 4 and len(rows) == 1 + 4 * 5
        assert all(float(r[2]) > 0 and float(r[3].strip(" |")) > 0 for r in rows[1:])
        return
    assert len(today) == 4 + 3 * 3 + 2 and all(r[-1].strip(" |") == "1.00" for r in today)
    assert len(rows) == 1 + 4 * 5 + 3 * 6 + 4
    # the cascade computes today's attention (bf16 rounding apart), so its timing compares like with like
    diff = [line for line in res.stdout.splitlines() if line.startswith("cascade against today")]
    assert diff and float(diff[0].rsplit("difference ", 1)[1].split()[0]) < 0.02, res.stdout[-2000:]
    assert all(float(r[2]) > 0 and float(r[3].strip(" |")) > 0 for r in rows[1:])


def test_decode_levers_help():
    res = subprocess.run([sys.executable, "bench/decode_levers.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--no-trace" in res.stdout and "--quick" in res.stdout
