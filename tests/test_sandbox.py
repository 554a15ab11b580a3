"""The sandbox against real harm, with real subprocesses.

Each attack runs for real and the test checks the host afterwards. Tests marked `strong`
need bubblewrap (the fallbacks are documented as weaker); where it matters, a control run
without the protection shows the attack would have worked, so the test can fail. What a program
sees of the host's filesystem, and the working directories: tests/test_sandbox_fs.py.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from judges import sandbox, sandbox_mounts, sandbox_uid
from judges.sandbox import Limits, SandboxError, run_python

BACKEND = sandbox.active_backend()
strong = pytest.mark.skipif(BACKEND != "bwrap", reason="needs bubblewrap (weaker fallback here)")
FAST = Limits(timeout_s=3)
AVAILABLE = [k for k in ("bwrap", "unshare", "none") if sandbox._works(k)]


def _processes_matching(text: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if text.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.parametrize("kind", AVAILABLE)
def test_runs_script_with_stdin_and_empty_env(kind, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-test-should-not-leak")
    res = run_python("import os, sys\nprint(sys.stdin.read().upper(), dict(os.environ))",
                     stdin=b"hello", limits=FAST, backend=kind)
    assert res.returncode == 0 and res.backend == kind
    assert res.stdout.startswith(b"HELLO")
    assert b"sk-test" not in res.stdout and b"PATH" not in res.stdout


@pytest.mark.parametrize("kind", AVAILABLE)
def test_a_scripts_hashes_and_set_order_are_the_same_every_run(kind):
    """The environment holds only PYTHONHASHSEED=0: without it each process draws its own str hash
    seed, and an answer that returns a set's order passes or fails by chance."""
    script = ("import os, sys\nprint(os.environ['PYTHONHASHSEED'], set(os.environ) <= {'PYTHONHASHSEED', "
              "'LC_CTYPE', 'PWD'}, sys.flags.no_site, [p for p in sys.path if p in ('', os.getcwd())], "
              "list(set('abcdefghijklmnop')), hash('abc'))")  # LC_CTYPE: Python's own (PEP 538)
    outs = {run_python(script, limits=FAST, backend=kind).stdout for _ in range(4)}
    assert len(outs) == 1, outs
    assert outs.pop().startswith(b"0 True 1 [] ["), outs


@pytest.mark.parametrize("kind", AVAILABLE)
def test_a_script_starts_without_site_yet_imports_what_the_environment_installs(kind):
    """`python -S`: no .pth file read, no user site, no sitecustomize (a quarter of the start-up);
    the interpreter's site-packages are still on the path, and exit()/quit() still exit."""
    import site
    script = ("import sys, numpy, site\nprint(sys.flags.no_site, numpy.__name__, "
              "any(p.startswith(site.USER_BASE or '~') for p in sys.path),)\nquit(3)")
    res = run_python(script, limits=FAST, backend=kind)
    assert res.stdout == b"1 numpy False\n" and res.returncode == 3, res
    assert set(site.getsitepackages()) & set(sandbox_mounts._site_dirs().split(":"))


def test_reports_the_strongest_backend():
    expected = "bwrap" if "bwrap" in AVAILABLE else ("unshare" if "unshare" in AVAILABLE else "none")
    assert BACKEND == expected


@pytest.mark.parametrize("kind", AVAILABLE)
def test_infinite_loop_is_killed_at_the_wall_timeout(kind):
    res = run_python("print('started', flush=True)\nwhile True: pass",
                     limits=Limits(timeout_s=1.5), backend=kind)
    assert res.timed_out and res.returncode == -9
    assert res.stdout == b"started\n"  # output before the kill is kept
    assert 1.4 < res.wall_s < 4


@pytest.mark.parametrize("kind", AVAILABLE)
def test_megabytes_of_output_are_capped_not_buffered(kind):
    script = "import sys\nfor _ in range(500): sys.stdout.write('x' * 100_000)\nprint('end')"
    res = run_python(script, limits=Limits(timeout_s=10, max_output_bytes=1 << 16), backend=kind)
    assert res.returncode == 0 and not res.timed_out  # the writer was never blocked
    assert len(res.stdout) == 1 << 16 and res.truncated


@pytest.mark.parametrize("kind", AVAILABLE)
def test_the_program_runs_under_every_limit_and_the_parent_spawns_it_without_forking(kind, monkeypatch):
    """The bootstrap sets the limits before the program runs (a preexec_fn would make Popen fork
    the judging process, page tables and all: bench/execution_judge.py)."""
    import resource
    seen = []
    popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **kw: seen.append(kw) or popen(*a, **kw))
    lim = Limits(timeout_s=3, memory_mb=300, file_size_mb=5, max_open_files=40, max_procs=7)
    names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_NPROC")
    res = run_python("import resource\nprint([resource.getrlimit(getattr(resource, n)) for n in %r])" % (names,),
                     limits=lim, backend=kind)
    want = [300 << 20, 4, 5 << 20, 40, 0, 7]
    got = eval(res.stdout)
    for n, w, g in zip(names, want, got):
        hard = resource.getrlimit(getattr(resource, n))[1]
        assert g == (w, w) or (hard != resource.RLIM_INFINITY and g == (hard, hard) and hard < w), (n, g)
    assert seen and all(kw.get("preexec_fn") is None for kw in seen)


def test_ten_gigabyte_allocation_fails():
    res = run_python("x = bytearray(10 * 1024**3)\nprint('allocated')", limits=FAST)
    assert b"MemoryError" in res.stderr and b"allocated" not in res.stdout


def test_recursion_bomb_crashes_only_itself():
    # C-level recursion (repr calling repr) overflows the C stack: a segfault, within ms.
    script = ("import sys\nsys.setrecursionlimit(10**8)\n"
              "class A:\n    def __repr__(self): return repr(self)\nrepr(A())\nprint('survived')")
    res = run_python(script, limits=FAST)
    assert res.returncode != 0 and b"survived" not in res.stdout
    assert subprocess.run([sys.executable, "-c", "pass"], timeout=10).returncode == 0


def _uptime_ticks() -> int:
    """Now, in the clock ticks since boot that /proc/PID/stat's start time counts."""
    return int(float(Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK"))


def _started_before(pid: int, ticks: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False  # gone meanwhile
    return int(stat.rsplit(")", 1)[1].split()[19]) <= ticks


@strong
def test_fork_bomb_is_contained_and_cleaned_up():
    script = ("import os, time\nprint(os.getuid(), flush=True)\nwhile True:\n    try:\n"
              "        os.fork()\n    except OSError:\n        time.sleep(0.01)")
    peak: dict[int, int] = {}
    done = threading.Event()

    def watch():  # the bomb's size while it runs, per sandbox uid, seen from the host
        while not done.is_set():
            for uid in range(sandbox_uid.UID_BASE, sandbox_uid.UID_BASE + sandbox_uid.UID_SLOTS):
                peak[uid] = max(peak.get(uid, 0), len(sandbox_uid.pids_of(uid)))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        res = run_python(script, limits=Limits(timeout_s=2, max_procs=16))
        ended = _uptime_ticks()
    finally:
        done.set()
        watcher.join()
    assert res.timed_out
    uid = int(res.stdout.split()[0])
    if os.geteuid() == 0:  # root: the bomb ran as a dedicated uid, whose RLIMIT_NPROC bounds it
        assert 1 < peak[uid] <= 16
        # and every forked process is gone: once the run returned, its uid is free, and another
        # test's sandbox run (pytest -n) may claim it at once; the bomb's own processes are
        # those started before the run returned
        assert [p for p in sandbox_uid.pids_of(uid) if _started_before(p, ended)] == []
    t = time.monotonic()
    subprocess.run(["true"], check=True, timeout=5)  # the host still forks promptly
    assert time.monotonic() - t < 3


@strong
def test_grandchild_that_outlives_its_parent_is_killed():
    marker = f"{37 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    script = (f"import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              f"        os.execv('/bin/sleep', ['sleep', '{marker}'])\n    os._exit(0)\n"
              "import time; time.sleep(0.3); print('parent exits')")
    res = run_python(script, limits=FAST)
    assert res.stdout == b"parent exits\n"
    assert _processes_matching(marker) == []


@strong
def test_killing_the_parent_or_everything_hurts_nobody_outside():
    sentinel = subprocess.Popen(["sleep", "30"])
    try:
        script = ("import os, signal\nfor target in (os.getppid(), -1, 1):\n"
                  "    try: os.kill(target, signal.SIGKILL)\n    except OSError as e: print(e)\n"
                  "print('still here')")
        res = run_python(script, limits=FAST)
        assert res.returncode is not None  # we got a result back: this process is alive
        assert sentinel.poll() is None  # and so is an unrelated host process
    finally:
        sentinel.kill()
        sentinel.wait()


def assert_unreached(attempt) -> None:
    """A listener on the host's loopback; `attempt(port)` tries to connect from inside; no connection
    ever arrives."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        attempt(server.getsockname()[1])
        with pytest.raises(socket.timeout):
            server.accept()


@strong
def test_no_network_to_a_host_listener():
    def attempt(port):
        script = (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
                  "    print('connected')\nexcept OSError as e:\n    print('refused', e)")
        assert b"refused" in run_python(script, limits=FAST).stdout
    assert_unreached(attempt)


_STEAL_ENV = """
import glob, os
found = [k for k, v in os.environ.items() if 'sk-' in v]
for path in glob.glob('/proc/*/environ'):
    try:
        if b'sk-stolen' in open(path, 'rb').read():
            found.append(path)
    except OSError:
        pass
print('FOUND' if found else 'nothing', found)
"""


def test_environment_secrets_are_unreachable(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-stolen-from-env")
    # A host process whose environment holds the secret: /proc/<pid>/environ is the classic leak.
    holder = subprocess.Popen(["sleep", "30"], env={"FAKE_API_KEY": "sk-stolen-from-proc"})
    try:
        if os.geteuid() == 0 and "none" in AVAILABLE:  # control: unsandboxed, the leak works
            assert b"FOUND" in run_python(_STEAL_ENV, limits=FAST, backend="none").stdout
        if BACKEND == "bwrap":
            assert b"nothing" in run_python(_STEAL_ENV, limits=FAST).stdout
    finally:
        holder.kill()
        holder.wait()


def test_start_failure_is_a_sandbox_error(monkeypatch):
    monkeypatch.setattr(sandbox, "_command", lambda *a, **k: ["/nonexistent/interpreter"])
    with pytest.raises(SandboxError):
        run_python("print(1)", limits=FAST)


def test_fallback_warns_loudly(monkeypatch):
    monkeypatch.setattr(sandbox, "_works", lambda kind: kind == "none")
    sandbox.active_backend.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="WEAKER"):
            assert sandbox.active_backend() == "none"
    finally:
        sandbox.active_backend.cache_clear()


# ---------------------------------------------------------------------------- OCaml programs

@pytest.fixture(scope="module")
def ocaml_programs(ocaml_compiler, tmp_path_factory):
    """Each attack compiled once (bytecode, Unix linked) outside the sandbox: name -> workdir."""
    attacks = {
        "loop": 'let () = print_endline "started"; flush stdout; while true do () done',
        "alloc": 'let () = let a = Array.make (1 lsl 31) 0 in print_endline ("allocated" ^ string_of_int a.(0))',
        "fork": "let () = print_endline (string_of_int (Unix.getuid ())); flush stdout;\n"
                "  while true do (try ignore (Unix.fork ()) with _ -> Unix.sleepf 0.01) done",
        "env": 'let () = print_endline (match Sys.getenv_opt "FAKE_API_KEY" with Some v -> v | None -> "nothing")',
        "write": 'let () = List.iter (fun p -> try let oc = open_out p in output_string oc "x"; close_out oc;\n'
                 '  print_endline ("wrote " ^ p) with Sys_error e -> print_endline e) (List.tl (Array.to_list Sys.argv))',
    }
    out = {}
    for name, src in attacks.items():
        d = tmp_path_factory.mktemp(f"ml-{name}")
        (d / "a.ml").write_text(src + "\n")
        subprocess.run([ocaml_compiler, "-o", "prog", "unix.cma", "a.ml"], cwd=d, check=True, capture_output=True)
        d.chmod(0o755)
        out[name] = str(d)
    return out


def _run_ml(programs, name, limits=FAST, args=(), **kw):
    return sandbox.run_command([os.path.join(programs[name], "prog"), *args], workdir=programs[name],
                               limits=limits, **kw)


def test_ocaml_infinite_loop_is_killed_at_the_wall_timeout(ocaml_programs):
    res = _run_ml(ocaml_programs, "loop", Limits(timeout_s=1.5))
    assert res.timed_out and res.stdout == b"started\n" and 1.4 < res.wall_s < 4


def test_ocaml_huge_allocation_fails(ocaml_programs):
    res = _run_ml(ocaml_programs, "alloc")
    assert b"allocated" not in res.stdout and b"Out of memory" in res.stderr


@strong
def test_ocaml_fork_bomb_via_unix_is_contained(ocaml_programs):
    res = _run_ml(ocaml_programs, "fork", Limits(timeout_s=2, max_procs=16))
    ended = _uptime_ticks()
    assert res.timed_out
    uid = int(res.stdout.split()[0])
    if os.geteuid() == 0:  # (a process of the uid started later is another test's run)
        assert uid >= sandbox_uid.UID_BASE
        assert [p for p in sandbox_uid.pids_of(uid) if _started_before(p, ended)] == []
    t = time.monotonic()
    subprocess.run(["true"], check=True, timeout=5)
    assert time.monotonic() - t < 3


def test_ocaml_program_sees_no_environment(ocaml_programs, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-ocaml-env")
    assert b"sk-ocaml-env" not in _run_ml(ocaml_programs, "env").stdout


@strong
def test_ocaml_program_cannot_write_outside_its_workdir(ocaml_programs):
    run_dir = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="fake-run-"))
    run_dir.chmod(0o777)
    home = Path.home() / f".planted-{uuid.uuid4().hex}"
    try:
        targets = [f"{run_dir}/planted", str(home), "/etc/planted", "/usr/planted"]
        res = _run_ml(ocaml_programs, "write", args=targets, hide=[str(run_dir)])
        assert b"wrote" not in res.stdout, res.stdout
        assert list(run_dir.iterdir()) == [] and not home.exists()
        control = _run_ml(ocaml_programs, "write", args=[f"{run_dir}/planted"])  # not hidden: world-writable
        assert b"wrote" not in control.stdout or (run_dir / "planted").exists()
    finally:
        for p in run_dir.iterdir():
            p.unlink()
        run_dir.rmdir()
