"""bench/length_reward.py as typed: a mistyped override or no epochs to train is said in one line, before any
model loads (a ConfigError traceback; a `min() arg is an empty sequence` after the setup)."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("args", "said"), [(["update.lrr=5e-4"], "update.lrr: unknown key (did you mean update.lr?)"),
                                            (["--epochs", "0"], "--epochs: 1 or more")])
def test_a_bad_argument_is_one_error_before_anything_runs(tmp_path, args, said):
    t = time.time()
    res = subprocess.run([sys.executable, "bench/length_reward.py", *args, f"run.dir={tmp_path / 'runs'}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and said in res.stderr and "Traceback" not in res.stderr, res.stderr[-3000:]
    assert time.time() - t < 60 and not (tmp_path / "runs").exists()
