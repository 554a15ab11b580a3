"""A disk that fills: a stage that hits ENOSPC fails with one line naming the stage and its path,
the stages before it stay as they were, nothing half-written is left to pass for finished, and once
space is freed the same command resumes at that stage. On a real small filesystem (a 16 MiB tmpfs)."""
from __future__ import annotations

import gc
import os
import subprocess
from pathlib import Path

import pytest

from pipeline.cli.main import main


@pytest.fixture
def small_fs(tmp_path):
    where = tmp_path / "fs"
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root and mount rights): {r.stderr.strip()[:200]}")
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(where: Path) -> None:
    """Write files until the filesystem is full (1 MiB writes, then 4 KiB ones for the rest)."""
    for i, size in enumerate((1 << 20, 4096)):
        try:
            fd = os.open(where / f"filler{i}", os.O_WRONLY | os.O_CREAT, 0o644)
        except OSError:
            return
        try:
            while True:
                os.write(fd, b"\0" * size)
        except OSError:
            pass
        finally:
            os.close(fd)


def test_a_stage_that_fills_the_disk_fails_in_one_line_and_resumes(small_fs, tiny_config, capsys):
    runs = small_fs / "runs"
    over = [x for x in tiny_config if not x.startswith("run.dir=")] + [f"run.dir={runs}"]
    for stage in ("prompts", "sample", "teacher", "judge"):
        assert main(["epoch", "1", "--only", stage, *over]) == 0, stage
    edir = runs / "default" / "epoch-001"
    before = {p.parent.name: p.read_bytes() for p in edir.glob("*/manifest.json")}
    assert set(before) == {"prompts", "sample", "teacher", "judge"}
    capsys.readouterr()
    fill(small_fs)
    assert os.statvfs(small_fs).f_bavail == 0
    assert main(["epoch", "1", *over]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "no space left on the device writing stage " in errors[0], err[-2000:]
    assert str(edir) in errors[0] and "rerun the same command" in errors[0]
    after = {p.parent.name: p.read_bytes() for p in edir.glob("*/manifest.json")}
    assert {k: after[k] for k in before} == before                                             # intact
    assert not [p for p in edir.iterdir() if p.name.startswith((".tmp-", ".trash-"))]          # nothing half-written
    for f in small_fs.glob("filler*"):
        f.unlink()
    assert main(["epoch", "1", *over]) == 0
    out = capsys.readouterr().out
    assert "reward" in out and (edir / "reward" / "manifest.json").exists()
    assert {p.parent.name: p.read_bytes() for p in edir.glob("*/manifest.json")
            if p.parent.name in before} == before                                              # reused, not redone


@pytest.mark.parametrize("stage, before, room", [
    ("judge", ("prompts", "sample", "teacher"), 0),
    # 64 KiB left: the update's own tables fit, torch.save's adapter comes up short
    ("update", ("prompts", "sample", "teacher", "judge", "reward", "select", "logprobs"), 64 << 10)])
def test_a_full_disk_at_the_judge_cache_or_the_updates_save_is_said_as_one(small_fs, tiny_config, capsys, stage, before,
                                                                           room):
    """SQLite's 'database or disk is full' was said as a corrupted judge cache, with advice to move it aside
    (its paid judgements with it); torch.save's short write was a 60-line traceback. Both are the disk."""
    runs = small_fs / "runs"
    over = [x for x in tiny_config if not x.startswith("run.dir=")] + [f"run.dir={runs}", "update.warm_start=false"]
    for st in before:
        assert main(["epoch", "1", "--only", st, *over]) == 0, st
    capsys.readouterr()
    gc.collect()   # the judge cache an earlier command left open: closed now, not mid-run (its WAL's space freed then)
    fill(small_fs)
    if room:
        os.truncate(small_fs / "filler0", os.path.getsize(small_fs / "filler0") - room)
    assert main(["epoch", "1", "--only", stage, *over]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "no space left on the device writing stage " in errors[0], err[-3000:]
    assert "corrupted" not in err and "Traceback" not in err
    for f in small_fs.glob("filler*"):
        f.unlink()
    assert main(["epoch", "1", "--only", stage, *over]) == 0
