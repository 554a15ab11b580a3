"""The sandbox's dedicated uids (judges/sandbox_uid.py): one holder at a time across the machine."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_two_processes_with_other_tmpdirs_never_hold_the_same_uid(tmp_path):
    """A uid's holder reaps every process of it after its run: two runs sharing one would kill each
    other's programs. The lock files sit in one directory for the machine, whatever each process's
    TMPDIR."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    hold = ("import os, sys, time\nfrom judges.sandbox_uid import claim_uid\n"
            "uid, fd = claim_uid()\nprint(uid, flush=True)\nsys.stdin.read()")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    procs = [subprocess.Popen([sys.executable, "-c", hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env={**env, "TMPDIR": str(tmp_path / d)}) for d in ("a", "b")]
    try:
        uids = [int(p.stdout.readline()) for p in procs]
    finally:
        for p in procs:
            p.communicate("", timeout=30)
    assert uids[0] != uids[1]
