"""A sandboxed process's pipes under a deadline (judges/sandbox.py starts the process): stdin fed,
stdout and stderr read in bounded chunks, and the whole process group SIGKILLed at the wall-clock
timeout or once the process has exited but something it left behind still holds the pipes.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time

# After the main process exits, how long surviving grandchildren may keep our pipes open.
_EXIT_GRACE_S = 0.3


def _exited(pid: int) -> bool:
    # WNOWAIT: look without reaping, so the pid (our process-group id) cannot be reused
    # before the final killpg.
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _killpg(pid: int) -> None:
    # The whole group: with bwrap that includes its namespace init, whose death takes every
    # process in the PID namespace along.
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _pump(proc: subprocess.Popen, stdin: bytes, deadline: float,
          cap: int) -> tuple[bytes, bytes, bool, bool]:
    """Feed stdin and read both pipes until EOF, keeping at most `cap` bytes of each. At the
    deadline, or once the process has exited but something still holds the pipes, kill the
    group, then read what was already written (results just before a timeout count)."""
    sel = selectors.DefaultSelector()
    bufs = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    for fd in bufs:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    timed_out = truncated = False
    exited_at = killed_at = None
    while sel.get_map():
        now = time.monotonic()
        if exited_at is None and _exited(proc.pid):
            exited_at = now
        if killed_at is None and (now >= deadline or (exited_at and now - exited_at > _EXIT_GRACE_S)):
            timed_out = now >= deadline
            _killpg(proc.pid)
            killed_at = now
        if killed_at is not None and now - killed_at > 1.0:
            break  # a process outside the group (fallback backends only) holds the pipes
        for key, _ in sel.select(timeout=0.05):
            if key.events & selectors.EVENT_WRITE:
                try:
                    pending = pending[os.write(key.fd, pending[:1 << 16]):]
                except BlockingIOError:
                    continue
                except BrokenPipeError:  # it stopped reading: fine, it gets no more input
                    pending = pending[:0]
                if not pending:
                    sel.unregister(key.fd)
                    proc.stdin.close()
                continue
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                sel.unregister(key.fd)
                continue
            buf = bufs[key.fd]
            room = cap - len(buf)
            buf += chunk[:max(room, 0)]
            truncated |= len(chunk) > room
    sel.close()
    return bytes(bufs[proc.stdout.fileno()]), bytes(bufs[proc.stderr.fileno()]), timed_out, truncated
