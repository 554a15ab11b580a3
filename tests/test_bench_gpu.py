"""bench/gpu.py as a user types it, on the CPU (the smoke test its docstring gives): both sides run,
the table and the ratios print, and the record lands where RLAIF_BENCH_RESULTS says."""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_help():
    res = subprocess.run([sys.executable, "bench/gpu.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0 and "--shapes" in res.stdout and "--profile" in res.stdout and "--repeats" in res.stdout


def test_ratio_text_gives_the_pairs_geometric_mean_and_its_interval():
    sys.path.insert(0, str(ROOT / "bench"))
    import gpu
    assert gpu.ratio_text([1.59]) == "1.59x"
    text = gpu.ratio_text([1.0, 2.0, 4.0])                  # logs 0, ln2, 2 ln2: mean ln2, sd ln2
    assert text.startswith("2.00x [") and text.endswith("(3 pairs: 1.00, 2.00, 4.00)")
    lo, hi = (float(x) for x in text.split("[")[1].split("]")[0].split(", "))
    h = 4.302653 * math.log(2) / math.sqrt(3)              # t(0.975, 2) x sd / sqrt(n)
    assert lo == pytest.approx(2 * math.exp(-h), abs=0.006) and hi == pytest.approx(2 * math.exp(h), abs=0.006)


@pytest.mark.slow
def test_the_tiny_smoke_run_on_the_cpu(tmp_path):
    env = {**os.environ, "RLAIF_BENCH_RESULTS": str(tmp_path / "RESULTS.md")}
    cmd = [sys.executable, "bench/gpu.py", "--shapes", "tiny", "--device", "cpu", "--prompts", "2", "--k", "2",
           "--new", "8", "--steps", "2", "--models", str(tmp_path / "students"), "--profile", str(tmp_path / "prof.txt")]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    record = (tmp_path / "RESULTS.md").read_text()
    assert "| tiny | ours |" in record and "| tiny | TRL |" in record and "TRL's generation (goal >= 3)" in record
    assert "tiny: the decode loop (" in record and " ms a step" in record   # where the sample stage goes
    rows = [line for line in record.splitlines() if line.startswith("| tiny |")]
    assert all(float(line.split("|")[3]) > 0 for line in rows)           # epoch seconds measured on both sides
    prof = (tmp_path / "prof.txt").read_text()
    assert "decode loop:" in prof and "== stage update" in prof


def test_a_bench_stopped_at_its_time_limit_still_writes_the_finished_runs(tmp_path, monkeypatch):
    """gpu_check stops a section with `timeout` (SIGTERM): the runs finished by then make the table,
    with a note saying it was cut. The sides here are canned (what they measure is the smoke test's):
    the first finishes, the signal comes while the second runs."""
    sys.path.insert(0, str(ROOT / "bench"))
    import gpu
    monkeypatch.setenv("RLAIF_BENCH_RESULTS", str(tmp_path / "RESULTS.md"))
    monkeypatch.setattr(sys, "argv", ["bench/gpu.py", "--shapes", "tiny", "--device", "cpu", "--repeats", "3",
                                      "--models", str(tmp_path / "students")])
    figures = {"device": "CPU", "wall": 2.0, "stages": {"sample": 1.0, "update": 0.5}, "gen_tps": 10.0,
               "train_tps": 20.0, "steps": 2, "peak_gib": 0.0, "prompt_tokens": 40, "trained": 32,
               "alloc": {"num_device_alloc": 7, "num_device_free": 2, "num_alloc_retries": 1}}
    calls = []

    def side(cmd, **kw):
        calls.append(cmd[cmd.index("--side") + 1])
        if len(calls) == 3:                              # ours #2 under way: the time limit
            os.kill(os.getpid(), signal.SIGTERM)
        stages = {"generate": 0.5, "judge": 0.1, "train": 0.5} if calls[-1] == "trl" else figures["stages"]
        return subprocess.CompletedProcess(cmd, 0, json.dumps(figures | {"stages": stages}) + "\n", "")
    monkeypatch.setattr(gpu.subprocess, "run", side)
    before = signal.getsignal(signal.SIGTERM)
    assert gpu.main() == 0
    assert calls == ["ours", "trl", "ours"] and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    signal.signal(signal.SIGTERM, before)
    record = (tmp_path / "RESULTS.md").read_text()
    assert "| tiny | ours #1 |" in record and "| tiny | TRL #1 |" in record and "#2" not in record, record
    assert "stopped by SIGTERM (its time limit) after 2 finished run(s)" in record, record
    assert "tiny: epoch ours/TRL speed **1.00x**" in record, record     # the one finished pair's ratio
    assert "(cudaMalloc / cudaFree / retries): ours #1 7 / 2 / 1, trl #1 7 / 2 / 1" in record, record


def test_a_failed_run_drops_its_repeat_and_a_profiled_one_is_no_pair():
    sys.path.insert(0, str(ROOT / "bench"))
    import gpu
    ours = {0: {"r": "o0"}, 2: {"r": "o2"}}                  # ours failed in repeat 1
    trl = {0: {"r": "t0"}, 1: {"r": "t1"}, 2: {"r": "t2"}}
    assert [(o["r"], t["r"]) for o, t in gpu.paired({"ours": ours, "trl": trl}, False, 3)] == [("o0", "t0"), ("o2", "t2")]
    assert [(o["r"], t["r"]) for o, t in gpu.paired({"ours": ours, "trl": trl}, True, 3)] == [("o2", "t2")]
    assert len(gpu.paired({"ours": {0: {}}, "trl": {0: {}}}, True, 1)) == 1   # one run: it is the pair
    assert gpu.ratio_text([1.5, 0.0]) == "1.50x, 0.00x"       # a side that measured nothing: no log of 0
