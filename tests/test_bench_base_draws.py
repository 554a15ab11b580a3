"""bench/base_draws.py, as typed: draws of the same weights in run order, their spread against their
problems' own noise, and the lift of a draw that kept problems for its own successes."""
from __future__ import annotations

import math
import random
import subprocess
import sys
from pathlib import Path

from bench.base_draws import analyse
from pipeline.store.tables import save_table

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/base_draws.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def draws(rates: dict[str, float], shifts: list[float], n: int = 8, seed: int = 0) -> list[list[dict]]:
    """One eval's rows per shift: each problem's n answers pass at its rate plus the draw's shift."""
    rng, out = random.Random(seed), []
    for shift in shifts:
        rows = []
        for pid, p in rates.items():
            c = sum(rng.random() < min(max(p + shift, 0.0), 1.0) for _ in range(n))
            rows.append({"source": "bank:heldout", "problem_id": pid, "n": n, "correct": c, "pass@1": c / n,
                         "score": c / n})
        out.append(rows)
    return out


def said(lines: list[str], start: str) -> str:
    return next(line for line in lines if line.startswith(start))


def test_help():
    out = run("--help")
    assert out.returncode == 0 and "--selected" in out.stdout and "--record" in out.stdout


def test_a_shared_shift_and_a_fall_in_run_order_are_seen():
    rates = {f"py-starter-{i:03d}": 0.1 + 0.8 * i / 150 for i in range(150)}
    # the same weights, no shift: the spread is the problems' own noise, the order says nothing
    plain = said(analyse(draws(rates, [0.0] * 5), "")[1], "Spread")
    ratio = float(plain.split("(")[1].split("x;")[0])
    assert 0.3 < ratio < 2.0, plain
    # each draw shifted by 0.05 less than the one before: a fall in run order, far beyond the noise
    falling = analyse(draws(rates, [0.1, 0.05, 0.0, -0.05, -0.1]), "")[1]
    order, spread = said(falling, "Run order"), said(falling, "Spread")
    assert "tau -1.00" in order and "p = 0.017" in order, order          # 2 of the 120 orders: 1/60
    assert float(spread.split("(")[1].split("x;")[0]) > 4, spread


def test_the_lift_of_a_draw_that_kept_problems_for_its_own_successes(tmp_path):
    """Problems kept for passing once in 8 answers: E[k/8 | k >= 1] - p each, over all problems."""
    evals = []
    for d in range(2):       # py-basics-001 never passes, py-basics-002 1/8 then 0/8 (pooled 1/16)
        rows = [{"source": "bank:heldout", "problem_id": pid, "n": 8, "correct": c, "pass@1": c / 8, "score": c / 8}
                for pid, c in (("py-basics-001", 0), ("py-basics-002", 1 - d), ("py-starter-001", 4),
                               ("py-starter-002", 2))]
        save_table(rows, tmp_path / f"d{d}")
        evals.append(str(tmp_path / f"d{d}"))
    out = run(*evals)
    assert out.returncode == 0, out.stderr
    line = said(out.stdout.splitlines(), "Selection")
    p = 1 / 16
    lift = (1 / 8 + p / (1 - (1 - p) ** 8) - p) / 4       # p = 0: its limit 1/n
    assert "2 problems (py-basics-*)" in line and f"{lift:+.4f}" in line, line
    assert not math.isnan(lift) and "Selection" not in run(*evals, "--selected", "").stdout
