"""Stage outputs on disk: fingerprints, atomic directories, manifests, checksums.

A stage's output is a directory that appears in one `rename` once everything in it is
written and fsynced, with `manifest.json` written last. A directory without a manifest, or
whose files do not match the manifest's checksums, is never used (DVC-style content check).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from judges.hashing import canonical, sha256_text

log = logging.getLogger("rlaif")

MANIFEST = "manifest.json"


def fingerprint(stage: str, version: str, config: dict, inputs: dict[str, str]) -> str:
    """Hash of stage name, code VERSION, the config fields it reads and its inputs' fingerprints."""
    return sha256_text(canonical({"stage": stage, "version": version, "config": config, "inputs": inputs}))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST)


def _fsync_tree(root: Path) -> None:
    for p in [*_files(root), root / MANIFEST]:
        if p.exists():
            with open(p, "rb") as f:
                os.fsync(f.fileno())
    for d in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        fd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_json(path: Path, obj: Any) -> None:
    """Atomic small-file write (temp file + fsync + rename)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "w") as f:
            json.dump(obj, f, indent=2, sort_keys=True, default=str)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:                      # a full disk, Ctrl-C: no temp file left behind
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_dir(final: Path, carry: tuple[str, ...] = ()) -> Iterator[Path]:
    """Yield a temp directory beside `final`; on success it replaces `final` in one rename.

    On any exception (Ctrl-C included) the temp directory is removed and `final` is untouched.
    carry: entries of the replaced `final` moved into the new one after the swap (the replaced
    directory is removed only once they are: a crash between leaves them in its .trash-*).
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{final.name}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    tmp.mkdir()
    try:
        yield tmp
        _fsync_tree(tmp)
        if final.exists():
            trash = final.parent / f".trash-{final.name}-{uuid.uuid4().hex[:6]}"
            os.rename(final, trash)
            os.rename(tmp, final)
            for name in carry:
                os.rename(trash / name, final / name)
            _remove(trash)
        else:
            os.rename(tmp, final)
        fd = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def clean_stale(epoch_dir: Path, name: str | None = None) -> None:
    """Remove temp/trash directories (and a replaced file's trash) left by a killed process (never a finished output).
    name: only the temp directories of that output (`.tmp-<name>-<pid>-*`), in a directory holding others' files."""
    if not epoch_dir.exists():
        return
    for p in epoch_dir.iterdir():
        if (p.name.startswith(f".tmp-{name}-") if name is not None
                else p.name.startswith(".tmp-") or p.name.startswith(".trash-")):
            pid = p.name.split("-")[-2] if p.name.startswith(".tmp-") else None
            if pid and pid.isdigit() and _alive(int(pid)):
                continue
            _remove(p)


def _remove(path: Path) -> None:
    """Delete a directory tree or a single file (a stage output replaced may have been either)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def write_manifest(tmp: Path, manifest: dict) -> dict:
    manifest = dict(manifest)
    manifest["files"] = {str(p.relative_to(tmp)): file_sha256(p) for p in _files(tmp)}
    manifest["finished_at"] = time.time()
    write_json(tmp / MANIFEST, manifest)
    return manifest


class ArtifactError(RuntimeError):
    """A finished artifact a stage must read changed on disk after it was written; the message says what to remake."""


def read_manifest(d: Path) -> dict | None:
    try:
        return json.loads((d / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def content_digest(d: Path | None) -> str | None:
    """The content digest of a stage's output directory (its manifest's file checksums), or of the stage
    directory an adapter lies in; None for no directory or one without a manifest."""
    if d is None:
        return None
    m = read_manifest(d) or (read_manifest(d.parent) if d.name == "adapter" else None)
    if not m or not m.get("files"):
        return None
    return hashlib.sha256(json.dumps(m["files"], sort_keys=True).encode()).hexdigest()[:16]


def input_digests(inputs: dict[str, Path | None]) -> dict[str, str]:
    """{input: its content digest} for a stage's manifest."""
    return {k: v for k, d in inputs.items() if (v := content_digest(d)) is not None}


def load_complete(d: Path, fp: str | None = None, verify: bool = True) -> dict | None:
    """The manifest of a finished, intact output (matching `fp` if given), else None.

    A checksum mismatch is logged as a warning and treated as missing (it will be recomputed).
    """
    m = read_manifest(d)
    if m is None:
        if (d / MANIFEST).exists() and (d, MANIFEST) not in _SAID:
            _SAID.add((d, MANIFEST))
            log.warning("%s: its %s does not parse; this stage is made again", d, MANIFEST)
        return None
    if fp is not None and m.get("fingerprint") != fp:
        return None
    if verify and (rel := corrupted_file(d, m)) is not None:
        if (d, rel) not in _SAID:   # said once a process (the preflight and the run both look)
            _SAID.add((d, rel))
            log.warning("%s: %s %s; this stage is made again", d, rel, damage(d, rel))
        return None
    return m


_SAID: set[tuple[Path, str]] = set()   # the damaged outputs load_complete has warned about in this process


def damage(d: Path, rel: str) -> str:
    """How file `rel` of output `d` (one `corrupted_file` names) is damaged, as a predicate: 'is missing'."""
    return "is missing" if not (d / rel).is_file() else "was changed after it was written (checksum mismatch)"


def corrupted_file(d: Path, m: dict) -> str | None:
    """The first file of output `d` (manifest `m`) that is missing or fails its checksum, else None."""
    for rel, digest in m.get("files", {}).items():
        p = d / rel
        if not p.is_file() or file_sha256(p) != digest:
            return rel
    return None


def epoch_name(n: int) -> str:
    return f"epoch-{n:03d}"


# torch.save's words for a write that came up short (its zip writer, or the C++ stream under it): no errno
# comes with them, and a full disk (or quota) is what makes a local write short
_SHORT_WRITE = ("unexpected pos", "PytorchStreamWriter failed", "basic_ios::clear", "file write failed")


def disk_full(e: BaseException) -> bool:
    """Whether e (or what caused it) is a full disk or quota: an OSError ENOSPC/EDQUOT from a write, or
    the message the libraries that write our artifacts give it (Arrow, SQLite, torch.save's short write)."""
    import errno
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = str(e)
        if any(w in text for w in ("No space left on device", "database or disk is full", "Disk quota exceeded",
                                    *_SHORT_WRITE)):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False
