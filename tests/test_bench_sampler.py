"""bench/sampler.py as typed: its help, and a scenario it does not know refused by name (a run of it
needs minutes of the embedded student: bench/RESULTS.md holds its runs)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/sampler.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_sampler_help():
    res = run("--help")
    assert res.returncode == 0 and "--only" in res.stdout and "--quick" in res.stdout


def test_an_unknown_scenario_is_refused_by_name():
    res = run("--only", "sample,eval gready")
    assert res.returncode == 2 and "unknown eval gready" in res.stderr and "eval greedy" in res.stderr
