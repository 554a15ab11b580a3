"""Run untrusted code (a Python script, or any command such as a compiler or a compiled
program) in a subprocess, as contained as this machine allows.

Layers, each stopping something the others do not:

- bubblewrap (`bwrap`, when it works here): read-only root, private size-capped /tmp, no
  network, own PID/IPC/UTS namespaces, `--die-with-parent`; $HOME, /run and any `hide=`
  directories are covered by empty tmpfs (the interpreter's own directories are bound back).
- a dedicated uid (when we are root and `setpriv` exists; judges/sandbox_uid.py): RLIMIT_NPROC
  does not bind root, so without it a fork bomb could fill the host's PID table until the wall
  timeout. Each concurrent run gets its own uid, so one run's fork bomb cannot starve another's
  forks.
- rlimits (set by the bootstrap inside, before the program: see `_LIMITS`): processes, address
  space, CPU seconds, file size, open files.
- an empty environment (a Python script's holds only PYTHONHASHSEED=0: a set's order, and with
  it whatever an answer computes from one, is the same on every run, so a verdict is a function
  of the answer), `python -S -P` (no `site`: the interpreter's site-packages go on the path as
  plain directories, their .pth files unread, no user site, no sitecustomize; no working directory
  on the path; `-I` would also ignore PYTHONHASHSEED), a fresh temp working directory, a wall-clock timeout after which the
  whole process group is SIGKILLed, and output read in bounded chunks.

Without bwrap it falls back to `unshare -rn` (no network only) or to a plain subprocess, and
warns loudly: those can read the host's files and /proc, and a grandchild that calls
setsid() escapes the group kill. Left out: seccomp filters and cgroup memory accounting
(RLIMIT_AS is per process: `max_procs * memory_mb` is the worst case).
"""
from __future__ import annotations

import functools
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

from judges.sandbox_uid import claim_uid, drop_to_uid, reap

log = logging.getLogger(__name__)

Backend = Literal["bwrap", "unshare", "none"]

# After the main process exits, how long surviving grandchildren may keep our pipes open.
_EXIT_GRACE_S = 0.3

# The limits, set first inside the sandbox by the program's bootstrap (not between fork and exec:
# a preexec_fn makes Popen fork, copying the page tables of the whole parent, some 100 ms from a
# process holding a model: without one Popen uses vfork): argv "nproc,as,cpu,fsize,nofile,core", each
# capped at the hard limit inherited. RLIMIT_NPROC binds inside bwrap's user namespace when not root,
# or for the dedicated uid when root.
_LIMITS = (
    "import resource\n"
    "for r, v in zip((resource.RLIMIT_NPROC, resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_FSIZE,\n"
    "                 resource.RLIMIT_NOFILE, resource.RLIMIT_CORE), map(int, sys.argv[LIMITS].split(','))):\n"
    "    hard = resource.getrlimit(r)[1]\n"
    "    v = v if hard == resource.RLIM_INFINITY else min(v, hard)\n"
    "    resource.setrlimit(r, (v, v))\n"
)

# Runs first inside the sandbox: sets the limits, then runs the script as __main__.
_BOOTSTRAP = (
    "import sys\n"
    + _LIMITS.replace("LIMITS", "2") +
    "sys.path[:] = [p for p in sys.path if p]\n"  # Python 3.10 has no -P: drop the working dir
    "sys.path += [p for p in sys.argv[3].split(':') if p]\n"  # site-packages, without `site` (_site_dirs)
    "import builtins\n"
    "builtins.exit = builtins.quit = sys.exit\n"  # what `site` would have defined
    "path = sys.argv[1]; sys.argv = [path]\n"
    "src = open(path, encoding='utf-8').read()\n"
    "exec(compile(src, path, 'exec'), {'__name__': '__main__', '__file__': path})\n"
)

# Python's flags for a script: isolated as -I is (no user site, nothing of the working directory on
# sys.path) but reading the environment, which holds only PY_ENV.
_PY_FLAGS = ["-S", "-P"] if sys.version_info >= (3, 11) else ["-S"]


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
PY_ENV = {"PYTHONHASHSEED": "0"}
"""A Python script's whole environment: str hashes, and so the iteration order of a set of strings
(`list(set(s))`), the same in every run instead of a random seed per process (an answer that
returned a set's order passed 4 of 6 tests in one judging and 2 of 6 in another)."""

# The same limits for any other command (a compiler, a compiled program): set them, then exec.
_EXEC_BOOTSTRAP = (
    "import os, sys\n"
    + _LIMITS.replace("LIMITS", "1") +
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0
    """Wall-clock seconds before the whole process group is killed."""
    memory_mb: int = 512
    """RLIMIT_AS per process (virtual memory, MiB)."""
    max_output_bytes: int = 1 << 20
    """Bytes kept from each of stdout and stderr; the rest is read and discarded."""
    file_size_mb: int = 16
    """RLIMIT_FSIZE: largest file the program may write (MiB); beyond it, SIGXFSZ."""
    max_open_files: int = 64
    """RLIMIT_NOFILE."""
    max_procs: int = 16
    """RLIMIT_NPROC inside the sandbox (binds only for a non-root uid, see module doc)."""
    tmpfs_mb: int = 64
    """Size of the private /tmp under bwrap (MiB)."""


@dataclass
class SandboxResult:
    returncode: int | None
    """Exit status of the sandbox process (negative = killed by that signal)."""
    stdout: bytes
    """First `max_output_bytes` of stdout."""
    stderr: bytes
    """First `max_output_bytes` of stderr."""
    timed_out: bool
    """True when the wall-clock limit killed it."""
    truncated: bool
    """True when some output was discarded."""
    wall_s: float
    """Seconds from start to the end of the run."""
    backend: Backend
    """Which isolation ran it."""


class SandboxError(RuntimeError):
    """The sandbox itself could not run (as opposed to the program failing inside it)."""


def _interpreter_dirs() -> set[str]:
    """Directories the interpreter needs; bound back in when they sit under a hidden dir."""
    exe_root = Path(os.path.realpath(sys.executable)).parent.parent
    return {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                          sys.base_exec_prefix, exe_root)}


def _under(path: str, parent: str) -> bool:
    return path != parent and path.startswith(parent.rstrip("/") + "/")


def _mount_args(hide: Sequence[str], tmp_bytes: int) -> list[str]:
    """tmpfs over hidden dirs and /tmp, then read-only binds of interpreter dirs under them
    (parents first): a virtualenv that lives under /tmp or $HOME must stay usable."""
    hidden = {os.path.realpath(h) for h in hide if os.path.isdir(h)}
    expose = {d for d in _interpreter_dirs() if any(_under(d, h) for h in hidden)}
    args: list[str] = []
    for path in sorted(hidden | expose, key=lambda p: (p.count("/"), p)):
        if path in hidden and path not in expose:
            perms, size = ("01777", tmp_bytes) if path == "/tmp" else ("0755", 1 << 20)
            args += ["--perms", perms, "--size", str(size), "--tmpfs", path]
            continue
        # bwrap creates missing parents inside a tmpfs as 0700, which the sandbox uid could
        # not traverse: create them 0755 ourselves.
        top = max((h for h in hidden if _under(path, h)), key=len)
        parts = Path(path).relative_to(top).parts
        for i in range(1, len(parts)):
            args += ["--perms", "0755", "--dir", str(Path(top, *parts[:i]))]
        args += ["--ro-bind", path, path]
    return args


def _parents(workdir: str, hidden: Sequence[str]) -> list[str]:
    """Traversable (0755) parents for a workdir nested inside a hidden directory's tmpfs
    (bwrap would create them 0700, which the sandbox uid could not enter)."""
    path = os.path.realpath(workdir)
    tops = [os.path.realpath(h) for h in hidden if _under(path, os.path.realpath(h))]
    if not tops:
        return []
    parts = Path(path).relative_to(max(tops, key=len)).parts
    return [a for i in range(1, len(parts))
            for a in ("--perms", "0755", "--dir", str(Path(max(tops, key=len), *parts[:i])))]


def _command(kind: Backend, inner: list[str], workdir: str, limits: Limits,
             hide: Sequence[str], uid: int | None, env: dict[str, str] | None = None) -> list[str]:
    """The full argv: `inner` (an interpreter with its bootstrap) wrapped in the backend."""
    if kind == "none":
        return inner
    if kind == "unshare":
        return [shutil.which("unshare") or "unshare", "-rn", *inner]
    hidden = ["/tmp", "/root", "/home", str(Path.home()), "/run", *hide]
    args = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            *_mount_args(hidden, limits.tmpfs_mb << 20), *_parents(workdir, hidden),
            "--bind", workdir, workdir, "--chdir", workdir,
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    for k, v in (env or {}).items():
        args += ["--setenv", k, v]
    if os.geteuid() != 0:
        args.insert(1, "--unshare-user")  # unprivileged bwrap needs a user namespace
    if uid is None:
        return [*args, "--cap-drop", "ALL", "--", *inner]
    # As root without a user namespace bwrap keeps capabilities; setpriv drops all of them
    # together with the uid, so the program is an ordinary user of the host kernel.
    return [*args, "--", shutil.which("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", *inner]


def _limits_arg(limits: Limits) -> str:
    """The bootstrap's limits argument (_LIMITS): processes, address space, CPU seconds, file size,
    open files, core size."""
    return ",".join(map(str, (limits.max_procs, limits.memory_mb << 20, int(limits.timeout_s) + 1,
                              limits.file_size_mb << 20, limits.max_open_files, 0)))


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


def run_python(script: str, *, stdin: bytes = b"", limits: Limits = Limits(),
               hide: Sequence[str] = (), backend: Backend | None = None) -> SandboxResult:
    """Run `script` (Python source) as __main__ in the sandbox, with `stdin` on its stdin.

    `hide`: host directories the program must not see (run dirs, caches, problem sets).
    `backend`: force one (tests); default is the strongest that works here, see `active_backend()`.
    Raises SandboxError when the sandbox could not be started at all.
    """
    def inner(workdir: str) -> list[str]:
        path = os.path.join(workdir, "main.py")
        Path(path).write_text(script, encoding="utf-8")
        return [sys.executable, *_PY_FLAGS, "-c", _BOOTSTRAP, path, _limits_arg(limits), _site_dirs()]
    return _run(inner, stdin, limits, hide, backend, None, dict(PY_ENV))


def run_command(argv: Sequence[str], *, workdir: str, stdin: bytes = b"", limits: Limits = Limits(),
                hide: Sequence[str] = (), backend: Backend | None = None,
                env: dict[str, str] | None = None) -> SandboxResult:
    """Run `argv` (an absolute path to a program, then its arguments) in the sandbox, in
    `workdir`: a directory the caller made and removes, the only host directory the program
    can write (so a compiler's output stays there for the next run). `env` is the program's
    whole environment (default empty). Same containment and errors as `run_python`."""
    if not os.path.isabs(argv[0]):
        raise SandboxError(f"run_command needs an absolute program path, got {argv[0]!r}")
    inner = [sys.executable, "-I", "-S", "-c", _EXEC_BOOTSTRAP, _limits_arg(limits), *argv]
    return _run(lambda _: inner, stdin, limits, hide, backend, workdir, env or {})


def _run(inner, stdin: bytes, limits: Limits, hide: Sequence[str], backend: Backend | None,
         workdir: str | None, env: dict[str, str]) -> SandboxResult:
    kind = backend or active_backend()
    uid, uid_lock = claim_uid() if kind == "bwrap" and drop_to_uid() else (None, -1)
    own_dir = workdir is None
    workdir = tempfile.mkdtemp(prefix="sandbox-") if own_dir else workdir
    start = time.monotonic()
    clean = False  # ended by itself, in time: nothing of its uid should be left to hunt down
    try:
        argv = inner(workdir)
        if uid is not None:
            os.chown(workdir, uid, uid)
        cmd = _command(kind, argv, workdir, limits, hide, uid, env)
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env, cwd=workdir,
                                    start_new_session=True)
        except OSError as e:
            raise SandboxError(f"could not start the {kind} sandbox ({cmd[0]}): {e}") from e
        try:
            out, err, timed_out, truncated = _pump(proc, stdin, start + limits.timeout_s,
                                                  limits.max_output_bytes)
        finally:
            _killpg(proc.pid)  # before reaping, so the group id cannot have been reused
            proc.wait()
            for f in (proc.stdin, proc.stdout, proc.stderr):
                f.close()
        elapsed = time.monotonic() - start
        # past its wall-clock limit is timed out, also where it ended before the watchdog next looked
        timed_out = timed_out or elapsed > limits.timeout_s
        clean = not timed_out and proc.returncode is not None and proc.returncode >= 0
        return SandboxResult(proc.returncode, out, err, timed_out, truncated, elapsed, kind)
    finally:
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
        if uid is not None:
            reap(uid, kill_all=not clean)
            os.close(uid_lock)


def _works(kind: Backend) -> bool:
    if kind != "none" and shutil.which(kind) is None:
        return False
    try:
        res = run_python("print('ok')", limits=Limits(timeout_s=30), backend=kind)
    except SandboxError:
        return False
    return res.returncode == 0 and res.stdout == b"ok\n"


@functools.lru_cache(maxsize=None)
def active_backend() -> Backend:
    """The strongest isolation that works on this machine (probed once per process)."""
    if _works("bwrap"):
        if os.geteuid() == 0 and not drop_to_uid():
            _warn("setpriv not found: sandboxed code runs as root in its namespace, so "
                  "RLIMIT_NPROC does not bind and a fork bomb runs until the timeout.")
        return "bwrap"
    kind: Backend = "unshare" if _works("unshare") else "none"
    _warn(f"bubblewrap (bwrap) is not usable here; falling back to '{kind}'. The execution "
          "sandbox is WEAKER: untrusted code can read host files, /proc and other processes' "
          "environments" + (" and reach the network" if kind == "none" else "") +
          ". Install bubblewrap (apt-get install bubblewrap) or run `make setup`.")
    return kind


def _warn(msg: str) -> None:
    log.warning(msg)
    warnings.warn(msg, RuntimeWarning, stacklevel=3)
