"""What the execution judge (judges/execution.py) learns from a Python answer without running it:
its code, pulled out of the completion with whether the answer is well-formed (the structure
credit), and the static check (parses, then pyflakes: a penalty per finding that is a bug at run
time), with the names the problem's context defines counted as defined.
"""
from __future__ import annotations

import ast
import re
import symtable
import threading

from pyflakes import checker as pyflakes_checker, messages as pyflakes_messages

# ---------------------------------------------------------------------------- extraction

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[ \t]*$", re.M)
_END = re.compile(r"^[ \t]*(?:#[ \t]*)?END[ \t]*$", re.M)
_CODE_START = re.compile(r"^(?:def |class |import |from |@|async def )", re.M)


def extract_code(completion: str, entry_point: str | None = None) -> tuple[str | None, bool]:
    """The answer's code and whether the answer is well-formed (structure credit).

    Well-formed: a ```python block closed by ``` (the first one defining `entry_point` when
    given, else the first), or code ending at an END marker line. An unclosed fence still
    yields its code, as does bare code starting at a `def`/`import`/`class` line, without
    structure credit.
    """
    fences = list(_FENCE.finditer(completion))
    blocks: list[tuple[str, bool]] = []
    i = 0
    while i < len(fences):
        lang, start = fences[i].group(1).lower(), fences[i].end()
        if lang not in ("", "python", "py", "python3"):
            i += 2  # some other language's block: skip it and its closing fence
            continue
        end = _END.search(completion, start)
        close = fences[i + 1].start() if i + 1 < len(fences) else None
        if close is not None and (end is None or close < end.start()):
            blocks.append((completion[start:close], True))
        elif end is not None:
            blocks.append((completion[start:end.start()], True))
        else:
            blocks.append((completion[start:], False))
        i += 2
    if not fences:
        m = _CODE_START.search(completion)
        if m:
            end = _END.search(completion, m.start())
            blocks.append((completion[m.start():end.start()], True) if end
                          else (_bare(completion[m.start():], entry_point), False))
    if not blocks:
        return None, False
    if entry_point:
        defines = _defines(entry_point)
        blocks = [b for b in blocks if defines.search(b[0])] or blocks
    code, closed = blocks[0]
    return code.strip("\n") + "\n", closed


def _defines(entry_point: str) -> re.Pattern:
    r"""A line defining `entry_point` (`def name(` or `async def name(`, at any indent). [ \t], not \s: \s crosses
    lines, and over a run of blank lines each start rescans the rest (20,000 newlines took 6.8 s, in the
    judge's process, outside any sandbox timeout)."""
    return re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(entry_point)}[ \t]*\(", re.M)


def _compiles(code: str) -> bool:
    try:
        compile(code, "<answer>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):   # (as the static check reads them)
        return False


def _bare(code: str, entry_point: str | None = None) -> str:
    """Bare code (no fence, no END marker) runs to the end of the completion, a closing sentence of prose
    included: when the whole does not compile, the code up to the last top-level line after which what
    is left does and still defines the entry point (at most 200 such lines tried: a broken entry point is
    never cut away to leave its helpers), else the whole, to fail as it is."""
    if _compiles(code):
        return code
    lines = code.splitlines(keepends=True)
    cuts = [i for i, line in enumerate(lines) if i and line.strip() and not line[0].isspace()]
    defines = _defines(entry_point) if entry_point else None
    for i in reversed(cuts[-200:]):
        if _compiles(head := "".join(lines[:i])):
            return head if defines is None or defines.search(head) else code
    return code


def continue_prompt(prompt: str, entry_point: str, completion: str) -> str:
    """A completion that continues its raw prompt's own `def <entry_point>(...):` (the function's body, as
    a base model writes after a signature and docstring) as the whole function, unfenced: the prompt from
    that def on, then the completion up to its first line back at column 0 (where HumanEval's stop
    sequences end a body: the next def, class, if, print or comment). HumanEval's harness scores prompt +
    completion the same way. Any other completion (one defining the function itself, fenced, or adding no
    line of its own to the body: empty, or prose) as it is."""
    defn = _defines(entry_point) if entry_point else None
    starts = list(defn.finditer(prompt)) if defn else []
    if not starts or defn.search(completion) or "```" in completion:
        return completion
    head = prompt[starts[-1].start():]
    lines = (head + completion).splitlines(keepends=True)
    body = next((i for i, line in enumerate(lines) if line.rstrip().endswith(":")), 0) + 1   # past the signature
    end = next((i for i in range(body, len(lines)) if lines[i].strip() and not lines[i][0].isspace()), len(lines))
    if not "".join(lines[:end])[len(head):].strip():   # nothing of the answer's own in the body (empty, or prose)
        return completion
    return "".join(lines[:end]).rstrip() + "\n"   # bare code: no fence, so no structure credit it did not write


# ---------------------------------------------------------------------------- static check

# pyflakes findings that are bugs at run time; the rest (unused imports, redefinitions,
# style) are reported as warnings and cost nothing.
_ERRORS = tuple(getattr(pyflakes_messages, name) for name in (
    "UndefinedName", "UndefinedLocal", "UndefinedExport", "DuplicateArgument",
    "ReturnOutsideFunction", "YieldOutsideFunction", "ContinueOutsideLoop", "BreakOutsideLoop",
    "DefaultExceptNotLast", "TwoStarredExpressions", "TooManyExpressionsInStarredAssignment",
    "IfTuple", "AssertTuple", "RaiseNotImplemented", "ForwardAnnotationSyntaxError",
    "InvalidPrintSyntax", "PercentFormatInvalidFormat", "StringDotFormatInvalidFormat",
) if hasattr(pyflakes_messages, name))


def context_names(context: str | None) -> set[str]:
    """Names a problem's context binds at module level (imports, defs, classes, assignments);
    empty when there is none or it does not compile. Never runs it."""
    if not context:
        return set()
    try:
        table = symtable.symtable(context, "context.py", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}


# CPython 3.11 keeps the AST constructor's recursion depth in state every thread shares: two
# threads building ASTs at once can fail one with "SystemError: AST constructor recursion depth
# mismatch" (python/cpython#106905; seen here in the judge's thread pool, which killed a judge
# stage). One AST at a time; parsing an answer takes well under a millisecond.
_AST_LOCK = threading.Lock()


def static_check(code: str, context: str | None = None) -> tuple[float, int | None, list[str]]:
    """(score, error count, messages) for the answer's `code` alone (its own line numbers),
    with the names `context` defines counted as defined. Does not compile: score 0, count None."""
    try:
        with _AST_LOCK:
            tree = ast.parse(code, "solution.py")
            compile(tree, "solution.py", "exec")  # symbol-table errors ast.parse lets through
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        # nested too deeply for this interpreter (5,000 unary minus signs: RecursionError while
        # building the AST, 100,000: MemoryError; 2,000 `x + ` terms: while compiling it) does
        # not compile here, nor in the sandbox, which compiles it the same way
        return 0.0, None, [f"does not compile: {str(e) or type(e).__name__}"]
    try:
        found = pyflakes_checker.Checker(tree, filename="solution.py", builtins=context_names(context)).messages
    except RecursionError:
        # pyflakes walks the tree recursively in Python: 400 `x + ` terms (1.6 KB), or one line of 500 unary
        # minus signs (13 tokens), are too deep for it though the code compiles. Unchecked is not clean: no
        # static credit (else such a line hides every undefined name from the check); the tests still run.
        return 0.0, 0, ["static check could not run: the code is nested too deeply for pyflakes (no credit)"]
    errors = [m for m in found if isinstance(m, _ERRORS)]
    return max(0.0, 1.0 - 0.25 * len(errors)), len(errors), [str(m) for m in found]
