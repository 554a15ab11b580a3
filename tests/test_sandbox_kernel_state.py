"""What the rlimits do not bound: kernel memory and state an answer reaches through system calls
(SysV shared memory, memfd files, the kernel keyring), refused by the sandbox's seccomp filter;
and answers aimed at the judging process rather than the host (a results line that recurses,
an error field of megabytes, a completion whose blank lines made a regex quadratic). Each runs
for real; a control run without the filter shows the attack would have worked.
"""
from __future__ import annotations

import struct
import time

import pytest

from judges import sandbox, sandbox_seccomp
from judges.pycode import extract_code
from judges.sandbox import Limits, run_python
from judges.sandbox_seccomp import filter_program
from tests.test_execution_judge import ADD, JUDGE, fenced

strong = pytest.mark.skipif(sandbox.active_backend() != "bwrap", reason="needs bubblewrap")
native = pytest.mark.skipif(filter_program() is None, reason="no seccomp table for this architecture")

# 4 segments of 64 MiB, each filled then detached: 256 MiB held by the kernel, none of it mapped at the end
HOARD = r'''
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
held = 0
for _ in range(4):
    sid = libc.shmget(0, 64 << 20, 0o1600)
    if sid < 0:
        print("shmget", errno.errorcode[ctypes.get_errno()]); break
    addr = libc.shmat(sid, None, 0)
    ctypes.memset(addr, 1, 64 << 20); libc.shmdt(addr); held += 64
files = []
try:
    for _ in range(4):
        fd = os.memfd_create("x"); os.write(fd, b"\1" * (16 << 20)); files.append(fd)
except OSError as e:
    print("memfd", errno.errorcode[e.errno])
key = libc.syscall(248 if os.uname().machine == "x86_64" else 217, b"user", b"rlaif-test", b"stash", 5, -4)
print("add_key", "ok" if key >= 0 else errno.errorcode[ctypes.get_errno()])
if key >= 0:
    libc.syscall(250 if os.uname().machine == "x86_64" else 219, 3, key)   # KEYCTL_REVOKE: leave no key behind
print("held", held + 16 * len(files), "MiB")
'''
LIMIT = Limits(timeout_s=20, memory_mb=200)


@strong
@native
def test_shared_memory_memfd_and_the_keyring_are_refused(monkeypatch):
    res = run_python(HOARD, limits=LIMIT)
    out = res.stdout.decode()
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    assert "shmget EPERM" in out and "memfd EPERM" in out and "add_key EPERM" in out and "held 0 MiB" in out, out
    monkeypatch.setattr(sandbox, "_seccomp_file", lambda: None)   # control: the same sandbox, no filter
    out = run_python(HOARD, limits=LIMIT).stdout.decode()
    assert "held 320 MiB" in out, out   # 320 MiB held under a 200 MiB RLIMIT_AS: the harm the filter stops


# a user namespace of its own, three ways, then a mount in it: where it worked, a tmpfs no rlimit counts
USERNS = r'''
import ctypes, errno, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
clone = 56 if os.uname().machine == "x86_64" else 220
pid = libc.syscall(clone, 0x10000000 | 17, 0, 0, 0, 0)   # CLONE_NEWUSER | SIGCHLD
if pid == 0:
    os._exit(0)
print("clone", "ok" if pid > 0 else errno.errorcode[ctypes.get_errno()])
if pid > 0:
    os.waitpid(pid, 0)
r = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m t /tmp && echo mounted"],
                   capture_output=True, text=True)
print("tool", "mounted" if "mounted" in r.stdout else "refused")
print("unshare", "ok" if libc.unshare(0x10000000 | 0x20000) == 0 else errno.errorcode[ctypes.get_errno()])
'''


@strong
@native
def test_a_user_namespace_and_its_mounts_are_refused(monkeypatch):
    """A user namespace of the answer's own let it mount a tmpfs and fill the host's memory past every limit
    (4 GiB held under a 256 MiB RLIMIT_AS, by an answer that also passed its tests)."""
    out = run_python(USERNS, limits=Limits(timeout_s=20)).stdout.decode()
    assert out.split() == ["clone", "EPERM", "tool", "refused", "unshare", "EPERM"], out
    monkeypatch.setattr(sandbox, "_seccomp_file", lambda: None)   # control: the same sandbox, no filter
    control = run_python(USERNS, limits=Limits(timeout_s=20)).stdout.decode()
    if "unshare ok" in control:   # (a kernel that refuses users their namespaces cannot show the harm)
        assert control.split() == ["clone", "ok", "tool", "mounted", "unshare", "ok"], control


@strong
@native
def test_an_ordinary_answer_runs_under_the_filter():
    res = run_python("import numpy, threading, tempfile, os\n"
                     "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
                     "import subprocess, sys\nprint(subprocess.run([sys.executable, '-c', 'print(5)'], capture_output=True).stdout.strip().decode())\n"
                     "pid = os.fork()\nif pid == 0:\n    os._exit(7)\n"
                     "print(numpy.arange(4).sum(), open(tempfile.mkstemp()[1], 'w').write('x'), os.waitpid(pid, 0)[1] >> 8)",
                     limits=Limits(timeout_s=20))
    assert res.returncode == 0 and res.stdout.split() == [b"thread", b"5", b"6", b"1", b"7"], res


def _run_bpf(prog: bytes, arch: int, nr: int, arg0: int = 0) -> int:
    """A classic-BPF interpreter for the instructions the filter uses, over seccomp_data (nr, arch, args[0])."""
    ins = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = ins[pc]
        if code == 0x20:
            acc = {0: nr & 0xFFFFFFFF, 4: arch, 16: arg0 & 0xFFFFFFFF}[k]
        elif code in (0x15, 0x35, 0x45):
            pc += jt if {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code] else jf
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unknown instruction {code:#x}")
        pc += 1


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_program_on_each_architecture(machine):
    """The jumps land where they should on both tables (aarch64 cannot run here: read by an interpreter)."""
    audit, numbers, clones = sandbox_seccomp._ARCHES[machine]
    prog = filter_program(machine)
    eperm, enosys, allow, kill = 0x50001, 0x50026, 0x7FFF0000, 0x80000000
    assert set(numbers) == set(sandbox_seccomp.REFUSED)
    for name, nr in numbers.items():
        assert _run_bpf(prog, audit, nr) == eperm, name
    assert _run_bpf(prog, audit, clones["clone3"]) == enosys
    thread = 0x3D0F00   # glibc's pthread_create flags (CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|...)
    assert _run_bpf(prog, audit, clones["clone"], thread) == allow
    assert _run_bpf(prog, audit, clones["clone"], thread | sandbox_seccomp.CLONE_NEWUSER) == eperm
    refused = set(numbers.values()) | set(clones.values())
    for nr in range(0, 460):
        if nr not in refused:
            assert _run_bpf(prog, audit, nr) == allow, nr
    assert _run_bpf(prog, audit, 0x40000000 | 29) == eperm          # x32's numbering
    assert _run_bpf(prog, 0x40000003, 29) == kill                   # i386's int 0x80 on x86-64
    assert filter_program("riscv64") is None


@strong
def test_a_results_line_that_recurses_scores_the_answer_not_a_judge_error():
    """A line of 100,000 '[' on the harness's channel made the judge's json.loads raise RecursionError,
    and the wrong answer an unscored judge error (dropped from its group instead of scored low)."""
    code = fenced("import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'[' * 100000 + b'\\n')\n"
                  "    except OSError:\n        pass\ndef add(a, b):\n    return a - b")
    plain = JUDGE.score(ADD, fenced("def add(a, b):\n    return a - b"))
    score = JUDGE.score(ADD, code)
    assert score.value is not None and score.value == plain.value and score.breakdown["passed"] == 0


@strong
def test_a_forged_error_field_is_cut_to_the_harness_size():
    """An answer that takes the harness's emit from its caller's frame writes what it likes as a test's
    error; it earns nothing, and the judge keeps 300 characters of it (not megabytes in the cache)."""
    code = fenced("import sys\ndef add(a, b):\n    f = sys._getframe(1)\n    while 'emit' not in f.f_locals:\n"
                  "        f = f.f_back\n    f.f_locals['emit'](event='test', i=0, ok=False, error={'x': 'y' * 2000000})\n"
                  "    return a - b")
    score = JUDGE.score(ADD, code)
    assert score.breakdown["passed"] == 0 and score.value == JUDGE.score(ADD, fenced("def add(a, b):\n    return a - b")).value
    assert isinstance(score.breakdown["error"], str) and len(score.breakdown["error"]) <= 300


def test_blank_lines_do_not_stall_the_code_extraction():
    """20,000 newlines in a fence took 6.8 s with the entry point's regex (\\s* across lines, in the judge's
    own process, outside any sandbox timeout); 200,000 would take minutes. Linear now."""
    completion = "```python\n" + "\n" * 200_000 + "x = 1\n```"
    t = time.perf_counter()
    code, closed = extract_code(completion, "add")
    assert closed and code.strip() == "x = 1"
    assert time.perf_counter() - t < 10, "quadratic again"
    assert extract_code("```python\nprint(1)\n```\n```python\n  async  def add(a, b):\n    return 1\n```", "add")[0] \
        .lstrip().startswith("async")


@strong
def test_a_bwrap_that_refuses_the_filter_runs_without_it_and_says_so(monkeypatch):
    """A kernel or container that refuses seccomp made bwrap's probe fail, and the sandbox fall back to unshare
    (no read-only root, no PID namespace): bwrap without the filter is kept instead, with a warning."""
    monkeypatch.setattr(sandbox, "filter_program", lambda machine=None: b"\0" * 7)   # bwrap refuses this program
    monkeypatch.setattr(sandbox, "_SECCOMP_OFF", [])
    sandbox.active_backend.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="only without its seccomp filter"):
            assert sandbox.active_backend() == "bwrap"
        assert run_python("print(1)", limits=Limits(timeout_s=20)).stdout == b"1\n"
    finally:
        sandbox.active_backend.cache_clear()


@strong
def test_a_probe_that_fails_once_keeps_bwrap(monkeypatch):
    """The backend is probed once a process: a probe that met a passing fault (every sandbox uid busy, a slow
    start) fell back to unshare for the whole run, with no PID namespace and the host's files readable."""
    real, calls = sandbox.run_python, []

    def flaky(*a, **kw):
        calls.append(kw.get("backend"))
        if len(calls) == 1:
            raise sandbox.SandboxError("every sandbox uid is busy")
        return real(*a, **kw)
    monkeypatch.setattr(sandbox, "run_python", flaky)
    monkeypatch.setattr(sandbox, "_SECCOMP_OFF", [])
    sandbox.active_backend.cache_clear()
    try:
        # bwrap with its filter: not taken for a kernel that refuses the filter, nor for a weaker backend
        assert sandbox.active_backend() == "bwrap" and calls == ["bwrap", "bwrap"] and not sandbox._SECCOMP_OFF
    finally:
        sandbox.active_backend.cache_clear()
