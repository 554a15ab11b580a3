"""A run's lock: one rlaif process works on a run at a time (an flock on `<run>/.lock`, its pid inside)."""
from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import TypeVar

from pipeline.store import dist
from pipeline.config.errors import RunError


L = TypeVar("L", bound="RunLock")


def lock_holder(run_dir: Path) -> str | None:
    """The pid of the rlaif process holding run_dir's lock, or None where none does (nothing is taken or made)."""
    try:
        fd = os.open(run_dir / ".lock", os.O_RDWR)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    except BlockingIOError:
        return os.read(fd, 64).decode(errors="replace").strip() or "?"
    finally:
        os.close(fd)


def busy(run_dir: Path, pid: str) -> RunError:
    return RunError(f"another rlaif process (pid {pid}) is working on run {run_dir}; wait for it to finish, or use "
                    "another run.name")


class RunLock:
    """The lock of the run at self.run_dir (Runner's). Re-entrant within one runner; a second runner on the
    same run takes it only through under() (a sweep's points), else it refuses as a second process would."""
    run_dir: Path
    _lock_fd: int | None = None
    _lock_depth = 0   # lock() calls not yet unlocked: a command holds it across its epochs

    def lock(self) -> None:
        """Take the run's lock (rank 0 takes it for every rank of a multi-process run, and holds it
        until they are all done); a second rlaif process on the same run fails here. Re-entrant: a
        command running several epochs holds it from the first to the last, each epoch's own lock inside."""
        if self._lock_depth == 0:
            dist.on_main(self._lock)
        self._lock_depth += 1

    def _lock(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.run_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise busy(self.run_dir, other) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    @contextlib.contextmanager
    def held(self, take: bool = True):
        """The run's lock for the `with` block (nothing when not `take`: a dry run)."""
        if take:
            self.lock()
        try:
            yield
        finally:
            if take:
                self.unlock()

    def unlock(self) -> None:
        self._lock_depth = max(0, self._lock_depth - 1)
        if self._lock_depth == 0 and self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def under(self: L, holder: RunLock) -> L:
        """This runner inside `holder`'s lock on the same run (a sweep's points, each its own config, within the
        one command): it neither takes the lock nor lets it go, and no other command slips in between."""
        if holder._lock_depth and holder.run_dir == self.run_dir:
            self._lock_depth = 1
        return self
