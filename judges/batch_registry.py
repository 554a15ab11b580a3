"""The batches in flight of every process sharing a judge cache, so that two of them missing the same keys
pay for one batch: two runs whose teacher answers the same problems, `rlaif judge` beside an epoch.

`<cache dir>/batches/<local>.<pid>.json` holds one submission: provider, base URL, its keys, the batch id
once the provider returned it. The process polling it holds an exclusive flock on the file and removes the
file once it has read the results; a process killed, or stopped by a timeout or an error, leaves the file
unlocked. Another process missing some of those keys does not submit them: while the holder lives it waits
for them to reach the cache; once the holder is dead it polls the batch itself by its id (the answers then
count as paid in its ledger: the dead one never read them). A claim whose holder died before the batch id
(killed in that window, or refused by the provider) frees its keys: the waiter submits them.

Every file is written and read under `locked()` (the registry's own flock), so no reader sees one half
written. The stage's journal (batch_records.Journal) stays what makes a rerun of a process resume its
batches; this registry only tells the other processes. Where flock fails (some network mounts) the registry
turns itself off, with a debug line: processes then may both pay, as before. Left out: NFS's flock, which
Linux emulates with per-process POSIX locks (a holder's own probe could drop its lock); a cache there is
best given to one process at a time.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
from pathlib import Path
from typing import Callable, Iterator

log = logging.getLogger("rlaif")


class Registry:
    def __init__(self, cache_dir: str | Path, cached: Callable[[str], bool] = lambda key: False):
        self.dir = Path(cache_dir) / "batches"
        self.cached = cached   # whether a key's answer is in the cache (a dead claim all answered is removed)
        self._held: dict[str, str] = {}   # local id -> the file this process holds for it
        self._entries: dict[str, dict] = {}   # local id -> what that file says
        self._kept: list[str] = []   # claims held on only until their keys are claimed anew (let_go)
        self._fds: dict[str, int] = {}    # that file -> the descriptor whose flock says its holder lives
        self.on = True

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The registry to itself: what the others hold is read and this process's claims written as one
        step, so two processes never both find a key unclaimed, nor a claim half written."""
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
        """(entry, alive) of the other processes' submissions to this provider that hold any of keys and
        still matter, one per submission: alive while any process polls it. (Under locked().)"""
        found: dict[str, tuple[dict, bool]] = {}
        for e, live in self._scan("*"):
            if not live and (not (e.get("batch_id") or e.get("file_id")) or all(map(self.cached, e["keys"]))):
                continue   # (its keys free to submit, or all answered: the file is gone)
            if e.get("provider") == provider and e.get("base_url") == base_url and keys & set(e["keys"]):
                old = found.get(e["local"])
                found[e["local"]] = (e, live or bool(old and old[1]))
        return list(found.values())

    def state(self, local: str) -> tuple[dict | None, bool]:
        """(entry, alive) of one submission another process registered: (None, False) once it is read; an
        entry without a batch id and not alive is one whose holder died before the provider's id. (Under
        locked().)"""
        entry, live = None, False
        for e, alive in self._scan(local):
            if entry is None or alive or e.get("batch_id") or e.get("file_id"):
                entry, live = e, live or alive
        return entry, live

    def _scan(self, local: str) -> Iterator[tuple[dict, bool]]:
        """The other holders' claims of `local` ("*": all), each with whether its holder lives. A dead one
        is yielded once more and its file removed where it no longer matters (no id, or every key answered)."""
        for p in sorted(self.dir.glob(f"{local}.*.json")) if self.on and self.dir.is_dir() else []:
            if p.name in self._held.values():
                continue
            live = self.alive(p)
            try:
                e = json.loads(p.read_text())
            except (OSError, ValueError):   # gone meanwhile, or torn by a kill while written
                e = None
            if not live and (e is None or not (e.get("batch_id") or e.get("file_id"))
                             or all(map(self.cached, e.get("keys", [])))):
                with contextlib.suppress(OSError):
                    p.unlink()
            if e is not None:
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
        """Claim a submission this process polls (entry: local, provider, base_url, keys, batch_id): its own,
        one it resumes, or a dead holder's it takes over (whose files go). (Under locked().)"""
        if not self.on or entry["local"] in self._held:
            return
        for p in self.dir.glob(f"{entry['local']}.*.json"):   # a dead holder's (a live one's stays)
            if not self.alive(p):
                with contextlib.suppress(OSError):
                    p.unlink()
        name, fd = f"{entry['local']}.{os.getpid()}.json", None
        try:
            fd = os.open(self.dir / name, os.O_RDWR | os.O_CREAT, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)   # (held already in this process: another Registry's)
        except OSError as e:
            if fd is not None:
                os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                self._off(e)
            return
        self._held[entry["local"]] = name
        self._entries[entry["local"]] = entry
        self._fds[name] = fd
        self._write(entry)

    def _write(self, entry: dict) -> None:
        fd = self._fds.get(self._held.get(entry["local"], ""))
        if fd is not None:
            data = json.dumps({**entry, "pid": os.getpid()}).encode()
            os.pwrite(fd, data, 0)   # (then cut to its length: never an empty file between the two)
            os.ftruncate(fd, len(data))
            os.fsync(fd)

    def note(self, entry: dict, **fields) -> None:
        """What the provider returned for a claimed submission: batch_id, or file_id (OpenAI's upload)."""
        entry.update(fields)
        with self.locked():
            self._write(entry)

    def lost(self, local: str) -> None:
        """A held claim whose batch will never be read (404, no id): its ids dropped, so that should this
        process stop before it lets the claim go, another frees its keys rather than polling a lost batch;
        kept until its keys are claimed anew."""
        if local in self._entries:
            self.note(self._entries[local], batch_id=None, file_id=None)
        self.keep(local)

    def keep(self, local: str) -> None:
        """Hold a claim on until let_go(): a process waiting on its keys then finds the new claims on them
        (or their answers), never the keys unclaimed in between."""
        self._kept.append(local)

    def let_go(self) -> None:
        """Release the claims kept on (after the claims that replace them are held)."""
        for local in self._kept:
            self.release(local)
        self._kept.clear()

    def release(self, local: str) -> None:
        """A submission read, or abandoned: its file removed, then its flock let go."""
        name = self._held.pop(local, None)
        self._entries.pop(local, None)
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.dir / name)
            os.close(self._fds.pop(name))

    def close(self) -> None:
        """This process stops polling (a timeout, an error): its files stay, unlocked, so that another
        process polls those batches by their ids rather than paying for their requests again."""
        for local in list(self._held):
            self._entries.pop(local, None)
            os.close(self._fds.pop(self._held.pop(local)))
