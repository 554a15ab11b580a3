"""SIGKILL inside every stage, then rerun: the run finishes with the same artifacts as an
uninterrupted one, and no partial directory ever looks finished."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.config.file import load_config
from pipeline.run.runner import Runner

STAGES = ["prompts", "sample", "teacher", "judge", "reward", "select", "logprobs", "update", "eval"]


def finished(edir: Path) -> dict[str, dict]:
    out = {}
    if not edir.exists():  # killed before the first stage made its directory
        return out
    for p in sorted(edir.iterdir()):
        m = p / "manifest.json"
        if m.exists():
            d = json.loads(m.read_text())
            out[p.name] = {"fingerprint": d["fingerprint"], "files": d["files"], "rows": d["rows"]}
    return out


def cli(*args, env=None, **kw):
    return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, **kw)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory, tiny_model):
    """An uninterrupted epoch to compare against."""
    base = tmp_path_factory.mktemp("ref")
    over = crash_config(base, tiny_model)
    p = cli("epoch", "1", *over)
    out, _ = p.communicate(timeout=300)
    assert p.returncode == 0, out[-2000:]
    return finished(Runner(load_config(None, over)).epoch_dir(1))


def crash_config(root: Path, tiny_model: str) -> list[str]:
    return [f"run.dir={root / 'runs'}", f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
            "data.prompts_per_epoch=3", "sample.num_samples=3", "sample.max_new_tokens=24",
            "update.micro_batch_size=3", "update.grad_accum=1", "judge.execution.timeout_s=5",
            "eval.max_problems=3", "eval.max_new_tokens=16", "select.drop_zero_std=false",
            "select.advantage=mean", "reward.none_as=0.0", "update.warm_start=false"]


# a kill at a random point inside every stage; a kill between the last output and the manifest in each
# kind of writer (every stage writes through runner._write_stage and artifacts.atomic_dir: the table
# stages as sample and judge do, update an adapter and its optimizer state, eval a suffixed
# directory); the other table stages would only repeat sample's case
WRITERS = ["sample", "judge", "update", "eval"]


@pytest.mark.slow
@pytest.mark.parametrize("when", ["random", "before-manifest"])
def test_sigkill_inside_each_stage_then_rerun_matches_uninterrupted(when, tmp_path, tiny_model, reference_run):
    """One run killed again and again, each time in the next stage: every rerun reuses what is
    finished, redoes the stage killed last and is killed in the following one; a last rerun
    finishes the epoch, which must equal the uninterrupted one. random: SIGKILL 0-300 ms after the
    stage starts (inside the work for the longer stages); before-manifest: once all its outputs are
    written and only the manifest is missing. (A chain, not one fresh run a stage: each process
    spends most of its time importing torch and transformers.)"""
    over = crash_config(tmp_path, tiny_model)
    edir = Runner(load_config(None, over)).epoch_dir(1)
    for stage in STAGES if when == "random" else WRITERS:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "RLAIF_STALL_IN": stage}
        mark = f"{stage:<8} running" if when == "random" else f"stalled in {stage}"
        p = cli("epoch", "1", *over, env=env)
        seen, deadline = "", time.time() + 300
        while mark not in seen and time.time() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            seen += line
        assert mark in seen, (stage, seen[-2000:])
        if when == "random":
            time.sleep(random.Random(f"{stage}").uniform(0, 0.3))
        p.send_signal(signal.SIGKILL)
        p.wait()
        # the killed stage's outputs exist at most in a temp dir that never looks finished
        assert not any(n.split("-")[0] == stage for n in finished(edir)), stage
    r = cli("epoch", "1", *over, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    out, _ = r.communicate(timeout=300)
    assert r.returncode == 0, out[-2000:]
    got = finished(edir)
    assert got.keys() == reference_run.keys()
    for name, ref in reference_run.items():
        assert got[name]["fingerprint"] == ref["fingerprint"], name
        if not name.startswith(("update", "eval")):  # tables: identical bytes
            assert got[name]["files"] == ref["files"], name
    assert not [x for x in edir.iterdir() if x.name.startswith((".tmp-", ".trash-"))]


@pytest.mark.slow
def test_two_runs_share_one_judge_cache_side_by_side(tmp_path, tiny_model):
    over = crash_config(tmp_path, tiny_model)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    a = cli("epoch", "1", *over, "run.name=a", env=env)
    b = cli("epoch", "1", *over, "run.name=b", env=env)
    out_a, _ = a.communicate(timeout=300)
    out_b, _ = b.communicate(timeout=300)
    assert a.returncode == 0 and b.returncode == 0, (out_a[-1500:], out_b[-1500:])
    ja = json.loads((tmp_path / "runs" / "a" / "epoch-001" / "judge" / "manifest.json").read_text())
    jb = json.loads((tmp_path / "runs" / "b" / "epoch-001" / "judge" / "manifest.json").read_text())
    assert ja["files"] == jb["files"]  # same judgements, one cache
    # and the same run twice at once: the second refuses with a clear message
    c = cli("epoch", "1", *over, "run.name=c", env={**env, "RLAIF_STALL_IN": "prompts"})
    while "stalled in prompts" not in c.stdout.readline():
        pass
    d = cli("epoch", "1", *over, "run.name=c", env=env)
    out_d, _ = d.communicate(timeout=120)
    c.kill()
    c.wait()
    assert d.returncode == 2 and "another rlaif process" in out_d


def test_the_run_lock_is_reentrant_and_a_command_holds_it_across_its_epochs(tiny_config, monkeypatch, capsys):
    """`rlaif epoch 4` took and dropped the lock at each epoch: another command (an update, a promote) could
    slip in between and change the choice the next epoch starts from. It is held from the first epoch to
    the last; the lock is re-entrant, so each epoch's own lock inside it is the same."""
    from pipeline.cli.main import main
    from pipeline.config.errors import RunError
    cfg = load_config(None, tiny_config)
    a, b = Runner(cfg), Runner(cfg)
    a.lock()
    a.lock()
    a.unlock()
    with pytest.raises(RunError, match="another rlaif process"):
        b.lock()
    a.unlock()
    b.lock()
    b.unlock()
    seen = []

    def first_epoch(self, n, **kw):   # where epoch 1 would start: is the run taken for another process?
        try:
            Runner(cfg).lock()
            seen.append("free")
        except RunError:
            seen.append("held")
        raise RunError("stopped by the test")
    monkeypatch.setattr(Runner, "run_epoch", first_epoch)
    assert main(["epoch", "2", *tiny_config, "update.warm_start=false"]) == 2
    assert seen == ["held"] and "stopped by the test" in capsys.readouterr().err
    b.lock()   # and the command let it go
    b.unlock()
