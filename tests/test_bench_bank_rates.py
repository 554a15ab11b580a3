"""bench/bank_rates.py, as typed: a held-out set's base rates and the paired difference it resolves."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pipeline.store.tables import save_table

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/bank_rates.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_help():
    out = run("--help")
    assert out.returncode == 0 and "eval_dir" in out.stdout and "--record" in out.stdout


def test_counts_and_mde_from_an_eval_table(tmp_path):
    rows = [{"source": "builtin:heldout", "problem_id": pid, "n": 8, "correct": c, "score": s}
            for pid, c, s in (("py-easy-005", 4, 0.75), ("py-easy-010", 2, 0.5), ("py-easy-020", 0, 0.1),
                              ("py-easy-015", 8, 1.0))]
    save_table(rows, tmp_path)
    out = run(str(tmp_path))
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("| all |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    # 4 problems, mean 0.4375, one at 0/8, one at 8/8, two in between; MDE 2.8 sqrt(mean 2p(1-p)/8) / sqrt(4)
    mde = 2.8 * ((2 * 0.25 / 8 + 2 * 0.1875 / 8) / 4) ** 0.5 / 2
    assert cells[1:6] == ["4", "0.438", "1", "1", "2 (50%)"] and cells[6] == f"{mde:.3f}" and cells[7] == "0.588"
    save_table(rows + [{**rows[0], "problem_id": "py-easy-001"}], tmp_path)    # a training problem: not counted
    out = run(str(tmp_path))
    assert "left out 1 rows" in out.stderr and "py-easy-001" in out.stderr and line in out.stdout


def test_a_greedy_eval_is_refused(tmp_path):
    save_table([{"source": "x", "problem_id": "a", "n": 1, "correct": 1, "score": 1.0}], tmp_path)
    out = run(str(tmp_path))
    assert out.returncode == 2 and "sampled eval" in out.stderr
