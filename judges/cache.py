"""The judge cache: every judgement paid for once, kept forever.

diskcache with JSON values (never pickle: a pickle cache is a code-execution hole), no
eviction (diskcache's default silently evicts at 1 GB), directory mode 0700. The key is the
sha256 of a canonical JSON of every ingredient that changes the answer.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import zlib
from pathlib import Path
from typing import Any, Callable

import diskcache
from diskcache.core import MODE_BINARY, MODE_RAW, MODE_TEXT

from judges.hashing import canonical, sha256_text


class CacheError(RuntimeError):
    """The judge cache cannot be used as it is; the message says what to do."""


class CacheCorrupted(CacheError):
    pass


class CacheFull(CacheError):
    """The disk under the cache is full: the cache is whole, only a write failed."""


class SafeJSONDisk(diskcache.JSONDisk):
    """JSONDisk that refuses pickled rows instead of unpickling them (a planted row never runs)."""

    def get(self, key, raw):
        if not raw:
            raise CacheCorrupted("judge cache holds a non-JSON key; refusing to unpickle it")
        return super().get(key, raw)

    def fetch(self, mode, filename, value, read):
        if mode not in (MODE_RAW, MODE_BINARY, MODE_TEXT):
            raise CacheCorrupted("judge cache holds a pickled value; refusing to unpickle it")
        return super().fetch(mode, filename, value, read)


def _full(e: BaseException) -> bool:
    """SQLite's words for a full disk: the cache is whole, only its write failed."""
    return "disk is full" in str(e)


def _damaged(e: BaseException) -> bool:
    """SQLite's words for a damaged database file; anything else (locked, read-only, cannot open) is not
    the cache's fault, and moving it aside would lose paid judgements for nothing."""
    return any(w in str(e) for w in ("malformed", "not a database", "disk image", "corrupt"))


def _not_usable(directory: Path, e: BaseException) -> CacheError:
    why = str(e)
    hint = ("another process holds it in a long write (another run sharing judge.cache_dir?): wait for it, or "
            "give this run its own judge.cache_dir" if "locked" in why or "busy" in why else
            "it cannot be written here (a read-only mount, or another user's directory): give this run a "
            "judge.cache_dir it may write, or copy the cache there (`rlaif cache export`, then `rlaif cache import`)"
            if any(w in why for w in ("readonly", "read-only", "unable to open", "permission")) else
            "the file system under it failed; check the device, then rerun")
    return CacheError(f"judge cache {directory} cannot be used ({why}): {hint}; the cache itself is whole")


def _not_an_answer(v: dict) -> str:
    """Why an imported value reads as no cached answer ('' when it does): a judgement's `value`, a finite
    number or None, or a teacher answer's `text`; no non-finite number anywhere."""
    if "value" in v:
        x = v["value"]
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))):
            return f"its value {x!r:.40} is not a number"
    elif not isinstance(v.get("text"), str):
        return "neither a `value` nor a `text`"
    try:
        json.dumps(v, allow_nan=False)
    except ValueError:
        return "a NaN or infinite number in it"
    return ""


def cache_key(ingredients: dict[str, Any]) -> str:
    return sha256_text(canonical(ingredients))


class JudgeCache:
    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        if not self.directory.exists():   # ours: 0700 (a directory the user made keeps the mode they gave it)
            try:
                self.directory.mkdir(parents=True)
                os.chmod(self.directory, 0o700)
            except FileExistsError:   # another run sharing it made it first
                pass
        try:
            self._cache = diskcache.Cache(str(self.directory), disk=SafeJSONDisk,
                                          eviction_policy="none", size_limit=2**62)
        except sqlite3.DatabaseError as e:
            raise self._error(e, CacheCorrupted(
                f"judge cache {self.directory} is corrupted ({e}); it is not used. Move it aside "
                f"(mv {self.directory} {self.directory}.broken), then rerun: judgements are recomputed "
                "(API ones are paid again), or restore it from a `rlaif cache export` file with "
                "`rlaif cache import`")) from None
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def get(self, key: str) -> dict | None:
        try:
            return self._cache.get(key)
        except (zlib.error, json.JSONDecodeError, UnicodeDecodeError, sqlite3.DatabaseError) as e:
            raise self._error(e, CacheCorrupted(f"judge cache {self.directory}: entry {key[:12]} is unreadable ({e}); "
                                                "move the cache aside and rerun, or restore it with `rlaif cache "
                                                "import`")) from None

    def _error(self, e: BaseException, corrupted: CacheCorrupted) -> CacheError:
        """What a failed read or write of the cache says: a full disk, a database SQLite cannot use here
        (locked, read-only), or, only for SQLite's words for damage (or an entry that does not decode),
        `corrupted`, which advises moving the cache aside."""
        if _full(e):   # (its text keeps SQLite's "database or disk is full": inside a stage, the runner says it)
            return CacheFull(f"no space left on the device for the judge cache {self.directory} ({e}); the cache "
                             "is whole: free space there, then rerun the same command")
        if isinstance(e, sqlite3.DatabaseError) and not _damaged(e):
            return _not_usable(self.directory, e)
        return corrupted

    def set(self, key: str, value: dict) -> None:
        try:
            self._cache.set(key, value)
        except diskcache.Timeout:   # the write lock not had within the connection's timeout (60 s)
            raise _not_usable(self.directory, sqlite3.OperationalError("database is locked")) from None
        except sqlite3.DatabaseError as e:
            raise self._error(e, CacheCorrupted(f"judge cache {self.directory}: a write failed ({e}); move the cache "
                                                "aside and rerun, or restore it with `rlaif cache import`")) from None

    def _lock(self, key: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())

    def get_or_compute(self, key: str, compute: Callable[[], dict],
                       keep: Callable[[dict], bool] | None = None) -> tuple[dict, bool]:
        """(value, hit). Concurrent misses on one key compute once. keep: whether a computed value is
        stored (a transient failure is not: the next run computes it again)."""
        v = self.get(key)
        if v is not None:
            return v, True
        with self._lock(key):
            v = self.get(key)
            if v is not None:
                return v, True
            v = compute()
            if keep is None or keep(v):
                self.set(key, v)
            return v, False

    def __len__(self) -> int:
        return len(self._cache)

    def __iter__(self):
        return iter(self._cache)

    def volume(self) -> int:
        return self._cache.volume()

    def export(self, path: str | Path, force: bool = False) -> int:
        """Write every judgement to a portable file (.jsonl, or .parquet): a teammate imports it
        and replays without paying. Returns the number of entries written. An existing file is replaced
        only with force, and then whole: written beside it and moved over it (a crash leaves it as it was)."""
        path = Path(path)
        if path.suffix not in (".jsonl", ".parquet"):
            raise CacheCorrupted(f"cache export {path}: write a .jsonl or a .parquet file (what import reads)")
        if not path.parent.is_dir():
            raise CacheCorrupted(f"cache export {path}: {path.parent} is a file, not a directory" if path.parent.exists()
                                 else f"cache export {path}: the directory {path.parent} does not exist")
        if path.is_dir():
            raise CacheError(f"cache export {path}: a directory; give a file name (.jsonl or .parquet)")
        if path.exists() and not force:
            raise CacheError(f"cache export {path}: the file exists; give a new file, or --force to replace it")
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        try:
            n = self._write_export(tmp, path.suffix)
            if path.exists():   # (replaced with its group and permissions: a file shared with a team stays shared)
                st = path.stat()
                with contextlib.suppress(OSError):   # (a group this user is not in: the umask's, as a new file)
                    os.chown(tmp, -1, st.st_gid)
                os.chmod(tmp, st.st_mode & 0o7777)
            os.replace(tmp, path)
        except OSError as e:   # (a folder this user cannot write, a full disk)
            raise CacheError(f"cache export {path}: {e.strerror or e}; the cache itself is unchanged") from None
        finally:
            if not tmp.is_dir():
                tmp.unlink(missing_ok=True)
        return n

    def _write_export(self, path: Path, suffix: str) -> int:
        rows = ({"key": k, "value": self.get(k)} for k in self._cache.iterkeys())
        if suffix == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq
            rows = [{"key": r["key"], "value": json.dumps(r["value"], sort_keys=True)} for r in rows]
            pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema([("key", pa.string()), ("value", pa.string())])), path)
            return len(rows)
        n = 0
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r, sort_keys=True) + "\n")
                n += 1
            f.write(json.dumps({"rows": n}) + "\n")   # the count: a copy cut at a row's end is found short
        return n

    def import_(self, path: str | Path, items: list[tuple[str, dict]] | None = None) -> tuple[int, int]:
        """Merge a file written by `export` without overwriting: (added, already present). items: the file
        read and checked before (`read_export`)."""
        added = 0
        items = read_export(path) if items is None else items
        for k, v in items:
            added += self._cache.add(k, v)
        return added, len(items) - added

    def close(self) -> None:
        self._cache.close()


def read_export(path: str | Path) -> list[tuple[str, dict]]:
    """The (key, value) rows of a file written by `JudgeCache.export`, each checked: CacheCorrupted naming the
    first bad one (a bad file adds nothing, so it is read whole before any cache is opened)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        try:
            items = [(r["key"], json.loads(r["value"])) for r in pq.read_table(path).to_pylist()]
        except (pa.ArrowException, OSError, KeyError, TypeError, ValueError) as e:
            raise CacheCorrupted(f"{path}: not a cache export (a parquet file of key and value columns, the "
                                 f"value JSON): {type(e).__name__}: {str(e)[:200]}") from None
    else:
        items = []
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            raise CacheCorrupted(f"{path}: not text (compressed?); import the .jsonl or .parquet file "
                                 "`rlaif cache export` wrote, uncompressed") from None
        lines, counted = text.splitlines(), False
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                if isinstance(r, dict) and set(r) == {"rows"} and i == len(lines):   # the writer's count, last
                    if r["rows"] != len(items):
                        raise CacheCorrupted(f"{path}: {len(items)} rows, but it was written with {r['rows']} (a copy "
                                             "cut short?); copy it again, or export it again; nothing was imported")
                    counted = True
                    break
                items.append((r["key"], r["value"]))
            except (ValueError, KeyError, TypeError):
                if i == len(lines) and not text.endswith("\n"):   # cut inside its last row
                    raise CacheCorrupted(f"{path}, line {i}: the file ends inside a row (a truncated copy?); copy "
                                         "it again, or export it again with `rlaif cache export`") from None
                raise CacheCorrupted(f"{path}, line {i}: not a cache export row "
                                     '({"key": ..., "value": {...}}); was it written by `rlaif cache export`?') from None
        if not counted:   # (a copy cut at a row's end reads as rows: the count, written last, is what is missing)
            logging.getLogger("rlaif").warning(
                '%s ends without the row count `rlaif cache export` writes last ({"rows": N}): an export from before '
                "counts were written, or a copy cut short at a row's end; its %d rows are read as they are (the "
                "source's `rlaif cache stats` tells them apart)", path, len(items))
    for k, v in items:   # every row checked before any is added: a bad file adds nothing
        if not isinstance(k, str) or not isinstance(v, dict):
            raise CacheCorrupted(f"{path}: entry {k!r} is not a key string with a JSON object value")
        if why := _not_an_answer(v):   # added for good (import never overwrites): it must read as one
            raise CacheCorrupted(f"{path}: entry {k[:16]!r} is no judgement or teacher answer ({why}); "
                                 "nothing was imported")
    return items
