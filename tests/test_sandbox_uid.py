"""The sandbox's dedicated uids (judges/sandbox_uid.py): one holder at a time across the machine."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judges import sandbox, sandbox_uid


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


@pytest.mark.skipif(os.geteuid() != 0 or sandbox.active_backend() != "bwrap" or not sandbox_uid.drop_to_uid(),
                    reason="dedicated uids need root, bwrap and setpriv")
def test_a_uid_someone_else_runs_as_is_neither_claimed_nor_reaped():
    """The range is systemd's DynamicUser range: a service may run as one of its uids. A run that
    claimed it would kill the service's processes when it reaped the uid (kill -9 -1 as the uid)."""
    uid, fd = sandbox_uid.claim_uid()  # the uid the next run would get
    os.close(fd)
    service = subprocess.Popen(["sleep", "30"], user=uid, group=uid, extra_groups=[])
    try:
        res = sandbox.run_python("import os\nprint(os.getuid())", limits=sandbox.Limits(timeout_s=5))
        assert res.returncode == 0 and int(res.stdout) != uid
        assert service.poll() is None  # alive
    finally:
        service.kill()
        service.wait()


def test_a_uid_range_all_in_use_by_others_is_an_error_not_a_wait(monkeypatch):
    """Every uid of the range taken by something else (accounts, services, processes): nothing of
    ours will free one, so claiming says so instead of waiting forever."""
    from judges import sandbox_uid
    monkeypatch.setattr(sandbox_uid, "in_use", lambda uid: True)
    with pytest.raises(RuntimeError, match="every sandbox uid"):
        sandbox_uid.claim_uid()

