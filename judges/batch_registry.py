"""The batches in flight of every process sharing a judge cache, so that two of them missing the same keys
pay for one batch: two runs whose teacher answers the same problems, `rlaif judge` beside an epoch.

`<cache dir>/batches/<local>.<pid>.json` holds one submission: provider, base URL, its keys, the batch id
once the provider returned it. The process polling it holds an exclusive flock on the file and removes the
file once it has read the results; a process killed, or stopped by a timeout, leaves the file unlocked. Another process missing some of those keys does not submit them: while the owner lives it waits
for them to reach the cache; once the owner is dead it polls the batch itself by its id (the answers then
count as paid in its ledger: the dead process never read them). A submission whose id never reached the
file (killed in that window) is submitted again, as a rerun of the owner would.

The stage's own journal (batch_records.Journal) stays what makes a rerun of the owner resume its batches;
this registry only tells the other processes. A file system without flock (some network mounts) turns it
off: the processes then may both pay, as before.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
from pathlib import Path
from typing import Iterator

log = logging.getLogger("rlaif")


class Registry:
    def __init__(self, cache_dir: str | Path):
        self.dir = Path(cache_dir) / "batches"
        self._held: dict[str, str] = {}   # local id -> the file this process holds for it
        self._fds: dict[str, int] = {}    # that file -> the descriptor whose flock says its holder lives
        self.on = True

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The registry to itself: what the others hold is read and this process's submissions are
        registered as one step, so two processes never both find a key unclaimed."""
        fd = None
        if self.on:
            try:
                self.dir.mkdir(mode=0o777, exist_ok=True)   # (less the umask, as the cache's inflight.lock)
                fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as e:
                self._off(e)
                if fd is not None:
                    os.close(fd)
                fd = None
        try:
            yield
        finally:
            if fd is not None:
                os.close(fd)   # (releases the flock)

    def _off(self, e: OSError) -> None:
        log.debug("judge cache %s: no batch registry (%s); processes sharing it may both pay for a batch",
                  self.dir.parent, e)
        self.on = False

    def others(self, provider: str, base_url: str, keys: set[str]) -> list[tuple[dict, bool]]:
        """(entry, alive) of the other processes' submissions to this provider that hold any of keys, one
        per submission: alive while any process still polls it (its owner, or one that took it over).
        Files whose holder died without a batch id are removed (their requests are free to submit)."""
        found: dict[str, tuple[dict, bool]] = {}
        for e, live in self._scan("*"):
            if e.get("provider") == provider and e.get("base_url") == base_url and keys & set(e.get("keys", [])):
                old = found.get(e["local"])
                found[e["local"]] = (e, live or bool(old and old[1]))
        return list(found.values())

    def state(self, local: str) -> tuple[dict | None, bool]:
        """(entry, alive) of one submission another process registered; (None, False) once it is read."""
        entry, live = None, False
        for e, alive in self._scan(local):
            entry, live = e, live or alive
        return entry, live

    def _scan(self, local: str) -> Iterator[tuple[dict, bool]]:
        for p in sorted(self.dir.glob(f"{local}.*.json")) if self.on and self.dir.is_dir() else []:
            if p.name in self._held.values():
                continue
            try:
                e = json.loads(p.read_text())
            except (OSError, ValueError):   # removed meanwhile, or torn by a kill while written: not a claim
                continue
            live = self.alive(p)
            if not live and not e.get("batch_id"):   # killed before its id: its requests are free to submit
                with contextlib.suppress(OSError):
                    p.unlink()
                continue
            yield e, live

    def alive(self, path: Path) -> bool:
        """Whether a process still holds the registry file at path (False once it is gone)."""
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return True
            self._off(e)
            return False
        finally:
            os.close(fd)

    def hold(self, entry: dict) -> None:
        """Register a submission this process polls (entry: local, provider, base_url, keys, batch_id): its
        own, one it resumes, or a dead process's it takes over (whose files then go)."""
        if not self.on:
            return
        for p in self.dir.glob(f"{entry['local']}.*.json"):   # a dead holder's (a live one's stays)
            if not self.alive(p):
                with contextlib.suppress(OSError):
                    p.unlink()
        name = f"{entry['local']}.{os.getpid()}.json"
        try:
            fd = os.open(self.dir / name, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as e:
            self._off(e)
            return
        self._held[entry["local"]] = name
        self._fds[name] = fd
        self._write(entry)

    def _write(self, entry: dict) -> None:
        fd = self._fds.get(self._held.get(entry["local"], ""))
        if fd is not None:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({**entry, "pid": os.getpid()}).encode(), 0)

    def created(self, entry: dict, batch_id: str) -> None:
        entry["batch_id"] = batch_id
        self._write(entry)

    def release(self, local: str) -> None:
        """A submission read, or abandoned: its file removed, then its flock let go."""
        name = self._held.pop(local, None)
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.dir / name)
            os.close(self._fds.pop(name))

    def close(self) -> None:
        """This process stops polling (a timeout, an error): its files stay, unlocked, so that another
        process polls those batches by their ids rather than paying for their requests again."""
        for local in list(self._held):
            os.close(self._fds.pop(self._held.pop(local)))
