"""The sandbox's dedicated-uid layer (judges/sandbox.py): when we are root, each run gets a uid
of its own, claimed with a lock file, dropped to by setpriv, and reaped empty after the run.

RLIMIT_NPROC does not bind root, so without it a fork bomb could fill the host's PID table
until the wall timeout; a uid per concurrent run keeps one run's fork bomb from starving
another's forks.
"""
from __future__ import annotations

import fcntl
import functools
import logging
import os
import pwd
import shutil
import signal
import subprocess
import time

# The sandbox's own logger name: its warnings read the same wherever the code lives.
log = logging.getLogger("judges.sandbox")

# systemd's DynamicUser range (61184-65519): ids no real account on a Debian machine uses, though a
# service's may (claim_uid skips any uid in use).
UID_BASE, UID_SLOTS = 61184, 256
# The uids' lock files: one directory for every process of the machine, whatever its TMPDIR (two runs
# with other TMPDIRs would otherwise hold the same uid, and one's reap would kill the other's program).
LOCK_DIR = "/tmp"


def claim_uid() -> tuple[int, int]:
    """A uid no other run on this machine holds nor anything else uses (`in_use`), and the
    lock-file fd that holds it (close it to release). flock is per open file, so this excludes
    other threads and processes: sharing a uid would add up fork counts, and `reap` kills every
    process of the uid."""
    while True:
        foreign = 0
        for uid in range(UID_BASE, UID_BASE + UID_SLOTS):
            path = os.path.join(LOCK_DIR, f"sandbox-uid-{uid}.lock")
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if not in_use(uid):
                return uid, fd
            os.close(fd)
            foreign += 1
        if foreign == UID_SLOTS:   # none is ours to wait for: waiting would never end
            raise RuntimeError(f"every sandbox uid ({UID_BASE}-{UID_BASE + UID_SLOTS - 1}) is used by an account, a "
                               "service or a process of this machine; free some, or run without root (bubblewrap "
                               "then maps the program to an unprivileged user of its own namespace)")
        time.sleep(0.05)  # all taken: wait for a run to finish


def in_use(uid: int) -> bool:
    """Someone else's: an account, a systemd DynamicUser= service's (the same range), or a uid any
    process runs as (no run of ours holds it, or its lock would have said so). `reap` would
    kill every process of it."""
    return _named(uid) or bool(pids_of(uid))


@functools.lru_cache(maxsize=None)
def _named(uid: int) -> bool:
    """An account or a DynamicUser= service's: looked up once per process (a name service such as
    LDAP can take a while, on every judged answer otherwise)."""
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    return any(os.path.lexists(f"/run/systemd/dynamic-uid/{name}") for name in (uid, f"direct:{uid}"))


def pids_of(uid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                pids.append(int(name))
        except FileNotFoundError:
            pass
    return pids


def kill_uid(uid: int) -> None:
    """SIGKILL every process of `uid` in one kernel pass: kill(-1) sent by a process running as
    `uid`. Unlike a scan of /proc, a fork cannot slip past it (the kernel cancels a fork whose
    parent gets a signal before the child is listed), and pids that wrap around mid-scan do
    not hide a child from it."""
    # The shell's builtin kill, as `uid`: a binary any uid may run (the interpreter may
    # sit under a private directory such as /root/.pyenv).
    subprocess.run([shutil.which("sh") or "/bin/sh", "-c", "kill -9 -1"], user=uid, group=uid,
                   extra_groups=[], env={}, cwd="/", stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)


def reap(uid: int, timeout_s: float = 5.0, *, kill_all: bool = False) -> None:
    """Kill whatever still runs as `uid` and wait until it is gone, so the uid's process count
    is back to zero before the next run gets it (killing a PID namespace is asynchronous).
    A scan of /proc alone can come back empty while a fork bomb still has a child (pids wrap
    around, 32768 by default): so when anything of the uid was seen, or `kill_all` (the run
    was killed or did not end cleanly), kill(-1) as the uid first."""
    deadline = time.monotonic() + timeout_s
    if kill_all:
        kill_uid(uid)
    while (pids := pids_of(uid)) and time.monotonic() < deadline:
        if not kill_all:
            kill_uid(uid)
            kill_all = True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    if pids:
        log.warning("sandbox uid %d still has processes %s after %.0fs", uid, pids, timeout_s)


def drop_to_uid() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None
