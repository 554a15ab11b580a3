"""bench/coverage.py, as typed: the simulated miss rates of a paired-by-seed interval."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/coverage.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def test_help_and_refusals():
    out = run("--help")
    assert out.returncode == 0 and "--seeds" in out.stdout and "--reps" in out.stdout and "--record" in out.stdout
    out = run("--seeds", "2")
    assert out.returncode == 2 and "--seeds: 3 or more" in out.stderr
    out = run("--problems", "3")
    assert out.returncode == 2 and "--problems: 5 or more" in out.stderr


def test_a_short_run_prints_every_configuration_and_records_it(tmp_path):
    import os
    results = tmp_path / "RESULTS.md"
    out = run("--reps", "20", "--problems", "40", "--record", env={**os.environ, "RLAIF_BENCH_RESULTS": str(results)})
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| 0.")]
    assert len(rows) == 2 * 7                                       # printed as it goes, and in the record
    for row in rows[:7]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for cell in cells[4:]:                                      # 'missed%, width' of each interval
            missed, width = cell.split(", ")
            assert 0 <= float(missed.rstrip("%")) <= 100 and float(width) > 0
        # the bench's interval is the wider of the other two: never narrower than either
        widths = [float(c.split(", ")[1]) for c in cells[4:]]
        assert widths[2] >= max(widths[:2]) - 1e-4
    text = results.read_text()
    assert text.startswith("## coverage: a paired-by-seed interval over 3 seeds (bench/coverage.py)")
    assert "20 repetitions per row" in text


def test_against_the_base_runs_its_own_simulation():
    out = run("--against", "base", "--reps", "10", "--problems", "40")
    assert out.returncode == 0, out.stderr
    assert "| a seed's luck SD |" in out.stdout and "against the base model's 5 draws" in out.stdout
    assert len([line for line in out.stdout.splitlines() if line.startswith("| 0.")]) == 7
