"""The graded execution judge for OCaml: structure, type-check, compile, tests.

    value = 0.05 structure + 0.20 typecheck + 0.10 compile + 0.65 tests   (x0.3 when truncated)

The weights and rules of the GRPO run on 5,060 OCaml problems (issue 14): structure = an END
marker line or a closed ```ocaml block; typecheck = `ocamlc -c` accepts the module, else
1 - 0.25 per error the compiler reports (a syntax error scores 0); compile = the module links
with the test harness into an executable (0.5 when the module compiles alone but the harness
cannot call the entry point with the signature's type); tests = fraction of tests passed, only
when it compiled. Fewer than `min_lines` (8) non-empty code lines scores 0; a completion cut
off by the token limit is multiplied by 0.3.

The compiler stops at the first type error, so the judge keeps going itself: it blanks the
top-level phrase the error points into and checks again (at most 1 / error_penalty rounds).
An "Unbound value x" for an `x` it blanked is a consequence, not a new error, and is not
counted.

Every step runs in the shared sandbox (judges/sandbox.py: bubblewrap, no network, read-only
root, private /tmp, PID namespace, rlimits), the compiler and the program each under their own
timeout. Tests compare outside, as for Python: the harness (judges/ocaml_harness.py, generated
from the signature by data/ocaml_types.py) holds only the inputs, prints each result as one JSON
line tagged with a nonce, and the judge compares by value and type. A program that exits before
the harness runs, or prints pass markers, earns no test credit: a forged line can only claim an
output, which then has to equal the expected value the program never saw. Assertion-style `test_code`
(MultiPL-E's OCaml tests) runs inside, after the module, with only the entry point in scope (so
the module cannot redefine `=` for the asserts): passed = 1 when it finishes. That is weaker,
as for Python: a program could read the marker's nonce out of its own executable and print it.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Sequence

from data.ocaml_types import TypeSpecError
from data.schema import Problem
from judges import sandbox
from judges.base import Score, check_library_names, check_weights, too_short
from judges.execution import _answer_dirs, unexpected_error
from judges.ocaml_harness import check_problem, harness_source, read_results

OCAML_HARNESS_VERSION = "ocaml-2"
"""Bump whenever OCaml grading changes; part of the judge cache key of OCaml judgements. ocaml-2: the
results on stderr (an answer printing megabytes pushed them past the output cap), tests that do not
compile a judge error (they scored every answer 0.3)."""

INSTALL_HINT = ("install the OCaml compiler: `make setup` does it as root (apt-get install -y ocaml), "
                "otherwise run `sudo apt-get install ocaml` (Debian/Ubuntu) or put ocamlc on PATH")


class ProblemError(ValueError):
    """The problem's own tests do not compile: a judge error (no answer's fault, not cached)."""


class CompilerMissing(RuntimeError):
    """ocamlc (or ocamlopt) is not installed; the message says how to install it."""


def compiler_path(compiler: str = "ocamlc") -> str:
    """Absolute path of the compiler, or CompilerMissing with what to do."""
    path = shutil.which(compiler)
    if not path:
        raise CompilerMissing(f"OCaml problems need `{compiler}`, which is not on PATH: {INSTALL_HINT}")
    return os.path.realpath(path)


@dataclass(frozen=True)
class OcamlSettings:
    structure_weight: float = 0.05
    """Weight of a well-formed answer: a closed ```ocaml block or an END marker line."""
    typecheck_weight: float = 0.20
    """Weight of the type-check: 1 - error_penalty per compiler error (syntax error: 0)."""
    compile_weight: float = 0.10
    """Weight of compiling: links with the test harness (0.5 when only the module compiles)."""
    tests_weight: float = 0.65
    """Weight of the fraction of tests passed (0 unless it compiled)."""
    truncation_factor: float = 0.3
    """Multiplier for a completion that hit the token limit without finishing."""
    min_lines: int = 8
    """Fewer non-empty lines of code than this scores 0; comment lines count (the Python judge's do not)."""
    error_penalty: float = 0.25
    """Type-check credit lost per error the compiler reports."""
    compiler: Literal["ocamlc", "ocamlopt"] = "ocamlc"
    """ocamlc: bytecode (fast to compile); ocamlopt: native code (fast to run, slow to compile)."""
    libraries: tuple[str, ...] = ()
    """Compiler libraries linked into the program (e.g. "str", "unix"); none by default."""
    compile_timeout_s: float = 20.0
    """Wall-clock seconds for one compiler run."""
    compile_memory_mb: int = 1024
    """Address-space limit of the compiler (MiB)."""
    timeout_s: float = 10.0
    """Wall-clock seconds for the program (all its tests)."""
    memory_mb: int = 512
    """Address-space limit of the program (MiB)."""
    max_output_bytes: int = 4 << 20
    """Bytes kept of the program's output."""
    hide: tuple[str, ...] = ()
    """Extra host directories the code must not see (run dirs, caches)."""

    def __post_init__(self):
        check_weights("judge.ocaml", self)
        if not 0 <= self.truncation_factor <= 1:
            raise ValueError(f"truncation_factor must be in [0, 1], got {self.truncation_factor}")
        check_library_names(self.libraries)


# ---------------------------------------------------------------------------- extraction

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[ \t]*$", re.M)
_END = re.compile(r"^[ \t]*(?:\(\*[ \t]*)?END(?:[ \t]*\*\))?[ \t]*$", re.M)
_CODE_START = re.compile(r"^(?:let |type |open |module |exception )", re.M)


def extract_code(completion: str) -> tuple[str | None, bool]:
    """(code, well-formed). Well-formed: a ```ocaml (or ```ml, or bare ```) block closed by ```,
    or code ending at an END line (`END` or `(* END *)`). An unclosed block, or bare code from
    its first `let`/`type`/`open`, still yields code without structure credit."""
    fences = list(_FENCE.finditer(completion))
    i = 0
    while i < len(fences):
        lang, start = fences[i].group(1).lower(), fences[i].end()
        if lang not in ("", "ocaml", "ml"):
            i += 2
            continue
        end = _END.search(completion, start)
        close = fences[i + 1].start() if i + 1 < len(fences) else None
        if close is not None and (end is None or close < end.start()):
            return completion[start:close].strip("\n") + "\n", True
        if end is not None:
            return completion[start:end.start()].strip("\n") + "\n", True
        return completion[start:].strip("\n") + "\n", False
    if not fences:
        m = _CODE_START.search(completion)
        if m:
            end = _END.search(completion, m.start())
            code = completion[m.start():end.start() if end else None]
            return code.strip("\n") + "\n", end is not None
    return None, False


# ---------------------------------------------------------------------------- compiler

_LOC = re.compile(r'^File "[^"]*", line (\d+)', re.M)
_PHRASE = re.compile(r"^(?:let|type|open|module|exception|external|class|include|;;)\b")
_DEFINES = re.compile(r"^(?:let|and)\s+(?:rec\s+)?([a-z_][\w']*)|^type\s+(?:'\w+\s+|\([^)]*\)\s+)?([a-z_][\w']*)")
_UNBOUND = re.compile(r"Unbound (?:value|type constructor) ([a-z_][\w']*)")


def first_error(output: str) -> str | None:
    """The compiler's first error report (location line through its message), shortened."""
    m = re.search(r"^Error", output, re.M)
    if not m:
        return None
    start = output.rfind("File ", 0, m.start())
    text = output[start if start >= 0 else m.start():]
    nxt = re.search(r"^File ", text[5:], re.M)
    return (text[: nxt.start() + 5] if nxt else text).strip()[:600]


def toolchain(s: OcamlSettings) -> str:
    """The compiler's installation (/usr, or an opam switch): the sandbox shows it, read-only, to the
    compiler and to the program (a bytecode program runs its ocamlrun)."""
    return os.path.dirname(os.path.dirname(compiler_path(s.compiler)))


def _compile(workdir: str, argv: list[str], s: OcamlSettings) -> sandbox.SandboxResult:
    limits = sandbox.Limits(timeout_s=s.compile_timeout_s, memory_mb=s.compile_memory_mb,
                            max_output_bytes=1 << 16, max_procs=32)
    return sandbox.run_command(argv, workdir=workdir, limits=limits, env={"PATH": "/usr/bin:/bin"},
                               hide=[*_answer_dirs(), *s.hide], read_only=[toolchain(s)])


def count_errors(code: str, first_output: str, workdir: str, compiler: str, s: OcamlSettings) -> int:
    """Errors the compiler reports if it kept going: blank the top-level phrase the error is in,
    check again; an unbound name the judge itself blanked is a consequence and not counted.
    `first_output` is the compiler's output on `code` as it is (the first round)."""
    lines = code.split("\n")
    starts = [i for i, line in enumerate(lines) if _PHRASE.match(line)] or [0]
    removed: set[str] = set()
    errors, out = 0, first_output
    for _ in range(64):
        if out is None:
            with open(os.path.join(workdir, "count.ml"), "w") as f:
                f.write("\n".join(lines))
            res = _compile(workdir, [compiler, "-i", "count.ml"], s)
            if res.returncode == 0 or res.timed_out:
                break
            out = res.stderr.decode("utf-8", "replace") + res.stdout.decode("utf-8", "replace")
        loc, unbound = _LOC.search(out), _UNBOUND.search(out)
        if not (unbound and unbound.group(1) in removed):
            errors += 1
        if not loc or "Syntax error" in out or errors >= max(1, round(1 / s.error_penalty)):
            break
        line = int(loc.group(1)) - 1
        begin = max([st for st in starts if st <= line], default=0)
        stop = min([st for st in starts if st > line], default=len(lines))
        for i in range(begin, stop):
            m = _DEFINES.match(lines[i])
            if m:
                removed.add(m.group(1) or m.group(2))
            lines[i] = ""
        out = None
    return errors


# ---------------------------------------------------------------------------- judge

class OcamlJudge:
    kind = "execution"
    version = OCAML_HARNESS_VERSION

    def __init__(self, settings: OcamlSettings = OcamlSettings()):
        self.settings = settings

    def score(self, problem: Problem, completion: str, truncated: bool = False) -> Score:
        try:
            return self._score(problem, completion, truncated)
        except Exception as e:
            return unexpected_error(problem, e)

    def _score(self, problem: Problem, completion: str, truncated: bool) -> Score:
        s = self.settings
        code, well_formed = extract_code(completion)
        lines = sum(1 for line in (code or "").splitlines() if line.strip())
        bd: dict[str, Any] = {"language": "ocaml", "structure": float(well_formed), "typecheck": 0.0,
                              "typecheck_errors": None, "typecheck_warnings": None, "compile": 0.0, "tests": 0.0, "passed": 0,
                              "total": len(problem.tests or []) or int(problem.test_code is not None),
                              "truncated": truncated, "lines": lines, "error": None, "compiler_error": None,
                              "timed_out": False, "harness_version": OCAML_HARNESS_VERSION}
        try:
            if problem.context is not None:
                raise ValueError(f"problem {problem.id!r} has a `context`, which only the Python judge runs")
            check_problem(problem)
            compiler = compiler_path(s.compiler)
        except (TypeSpecError, ValueError, CompilerMissing) as e:
            return Score(value=None, breakdown=bd, raw=f"judge error: {e}")
        if code is None or lines < s.min_lines:
            bd["error"] = "no code found" if code is None else too_short("judge.ocaml", s.min_lines)
            return Score(value=0.0, breakdown=bd)
        workdir = sandbox.make_workdir("rlaif-ocaml-")
        os.chmod(workdir, 0o755)
        try:
            raw, _ = self._grade(problem, code, compiler, workdir, bd)
        except (sandbox.SandboxError, ProblemError) as e:
            return Score(value=None, breakdown=bd, raw=f"judge error: {e}")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        value = (s.structure_weight * bd["structure"] + s.typecheck_weight * bd["typecheck"]
                 + s.compile_weight * bd["compile"] + s.tests_weight * bd["tests"])
        if truncated:
            value *= s.truncation_factor
        # the compiler's output, its tail: an answer whose types grow exponentially wrote 15 MB of it
        return Score(value=min(1.0, max(0.0, value)), breakdown=bd, raw=raw[-2000:])

    def outputs(self, problem: Problem, code: str) -> list[Any]:
        """What `code` returns on each test input (the problem builder computes expected values
        with the reference this way). RuntimeError when it does not compile or a test fails to run."""
        bd: dict[str, Any] = {"passed": 0, "error": None}
        workdir = sandbox.make_workdir("rlaif-ocaml-")
        os.chmod(workdir, 0o755)
        try:
            raw, outs = self._grade(problem, code, compiler_path(self.settings.compiler), workdir, bd)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        tests = problem.tests or []
        bad = [i for i in range(len(tests)) if not outs.get(i, {}).get("ok")]
        if bd.get("compile") != 1.0 or bad:
            raise RuntimeError(f"problem {problem.id!r}: {bd.get('compiler_error') or bd.get('error')} "
                               f"(tests without a result: {bad}) {raw[-500:]}")
        return [outs[i]["out"] for i in range(len(tests))]

    def _grade(self, problem: Problem, code: str, compiler: str, workdir: str,
               bd: dict) -> tuple[str, dict[int, dict]]:
        """Compile and run; fills `bd`. (compiler/program output, result line per test index)."""
        s = self.settings
        native = s.compiler == "ocamlopt"
        obj, libs = ("solution.cmx", [f"{lib}.cmxa" for lib in s.libraries]) if native else \
            ("solution.cmo", [f"{lib}.cma" for lib in s.libraries])
        nonce = secrets.token_hex(16)
        for name, text in (("solution.ml", code), ("harness.ml", harness_source(problem, nonce))):
            with open(os.path.join(workdir, name), "w") as f:
                f.write(text)
        # one compiler sandbox for both steps (only the trusted compiler runs in it)
        script = (f"{compiler} -c solution.ml >tc.out 2>&1; echo $? >tc.rc; "
                  f"[ \"$(cat tc.rc)\" = 0 ] && {{ {compiler} -o prog {' '.join(libs)} {obj} harness.ml "
                  f">link.out 2>&1; echo $? >link.rc; }}; true")
        res = _compile(workdir, ["/bin/sh", "-c", script], s)
        read = lambda n: open(os.path.join(workdir, n), errors="replace").read() if os.path.exists(  # noqa: E731
            os.path.join(workdir, n)) else ""
        tc_out, tc_rc = read("tc.out"), read("tc.rc").strip()
        if res.timed_out or not tc_rc:
            bd["error"] = bd["compiler_error"] = f"the compiler did not finish (timed out: {res.timed_out})"
            return tc_out, {}
        bd["typecheck_warnings"] = len(re.findall(r"^Warning", tc_out, re.M))
        if tc_rc != "0":
            bd["compiler_error"] = bd["error"] = first_error(tc_out) or tc_out[:600]
            n = 1 if "Syntax error" in tc_out else count_errors(code, tc_out, workdir, compiler, s)
            bd["typecheck_errors"] = n
            bd["typecheck"] = 0.0 if "Syntax error" in tc_out else max(0.0, 1.0 - s.error_penalty * n)
            return tc_out, {}
        bd["typecheck"], bd["typecheck_errors"] = 1.0, 0
        link_out = read("link.out")
        if read("link.rc").strip() != "0":
            if re.search(r"Syntax error|Integer literal exceeds", link_out):   # the tests' fault, not the answer's
                raise ProblemError(f"problem {problem.id!r}: its {'tests do' if problem.tests else 'test_code does'} not "
                                   f"compile: {first_error(link_out) or link_out[:600]}")
            bd["compile"] = 0.5
            bd["compiler_error"] = first_error(link_out) or link_out[:600]
            bd["error"] = f"does not link with the tests (entry point `{problem.entry_point}` missing or of " \
                          f"another type): {bd['compiler_error']}"
            return tc_out + link_out, {}
        bd["compile"] = 1.0
        # the program is untrusted: it reads only itself, and writes only to the private /tmp
        prog = os.path.join(workdir, "prog")
        run = sandbox.run_command([prog], workdir=None, read_only=[prog, toolchain(s)],
                                  limits=sandbox.Limits(timeout_s=s.timeout_s, memory_mb=s.memory_mb,
                                                        max_output_bytes=s.max_output_bytes),
                                  hide=[*_answer_dirs(), *s.hide])
        outs = read_results(problem, run, nonce, bd, s.max_output_bytes)
        return (tc_out + run.stderr.decode("utf-8", "replace"))[-2000:], outs

    def score_many(self, items: Iterable[Sequence], workers: int | None = None) -> list[Score]:
        """Score (problem, completion[, truncated]) items in parallel threads, in order."""
        with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            return list(pool.map(lambda item: self.score(*item), items))
