"""bench/head_memory.py as a user types it, on the tiny shape: the whole and the fused head's peaks print,
the fused one lower by copies of the logits."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CMD = [sys.executable, "bench/head_memory.py"]


def test_help():
    res = subprocess.run([*CMD, "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--chunk-rows" in res.stdout


def test_the_fused_head_lowers_the_peak_on_the_tiny_shape(tmp_path):
    res = subprocess.run([*CMD, "--shape", "tiny", "--rows", "8", "--prompt", "8", "--new", "32",
                          "--models", str(tmp_path), "--no-record"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    copies = [float(m) for m in re.findall(r"^\| [^|]+ \| \d+ \| ([\d.]+) \|", res.stdout, re.M)]
    assert len(copies) == 2 and copies[0] - copies[1] >= 3, res.stdout   # whole, fused: three copies or more fewer
