"""Check the problem bank's parts (data/problems/bank_*.py) before data/problems/build.py takes them.

    python data/problems/bank_check.py data/problems/bank_strings.py [...]   # one or more parts
    python data/problems/bank_check.py                                        # every part

A part is plain data: `PROBLEMS = [dict(split=..., difficulty=..., task=..., ref=..., cases=[...]), ...]`,
`task` completing "Write a Python function `def ...:` that ...", `ref` the reference solution, `cases`
a list of (args, expected) with `...` for "trust the reference". For every problem this checks:
the reference runs and agrees with every hand-written expected value; outputs survive a JSON round
trip; at least 5 cases; split in {train, heldout, tune}, difficulty in {easy, medium, hard}; entry points
unique across problems.jsonl and every part; and the cases kill the reference's wrong edits: each
single mutation of the reference (a comparison flipped or loosened, + and - swapped, an integer
constant moved by one, and/or swapped, a `not` dropped, a returned value replaced by its
negation or None) must fail at least one case, except for mutants listed as survivors (at most a
quarter of a problem's mutants, since some edits change nothing: `x < y` and `x <= y` agree when
x == y cannot happen). Exit 1 with one line per failure.
"""
from __future__ import annotations

import ast
import copy
import json
import re
import resource
import runpy
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
MIN_CASES, MAX_SURVIVING = 5, 0.25
SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.Add: ast.Sub, ast.Sub: ast.Add, ast.And: ast.Or, ast.Or: ast.And, ast.Mult: ast.FloorDiv,
        ast.FloorDiv: ast.Mult, ast.In: ast.NotIn, ast.NotIn: ast.In}


class Timeout(Exception):
    pass


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _alarm(*_):
    raise Timeout


def _sites(tree) -> list[tuple]:
    """(node, what, index, replacement) of every place one edit can go, in ast.walk order."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            out += [(node, "ops", i, SWAP[type(op)]()) for i, op in enumerate(node.ops) if type(op) in SWAP]
        elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp)) and type(node.op) in SWAP:
            out.append((node, "op", None, SWAP[type(node.op)]()))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out += [(node, "value", None, node.value + d) for d in (1, -1)]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((node, "not", None, None))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.append((node, "return", None, ast.Constant(None)))
    return out


def mutants(ref: str) -> list[tuple[str, str]]:
    """(description, source) of every single edit of `ref`."""
    out = []
    for k in range(len(_sites(ast.parse(ref)))):
        tree = ast.parse(ref)
        node, what, i, new = _sites(tree)[k]
        if what == "ops":
            node.ops[i] = new
        elif what in ("op", "value"):
            setattr(node, what, new)
        elif what == "return":
            node.value = new
        else:  # drop the `not`: the parent holds its operand instead
            parent = next(p for p in ast.walk(tree) for c in ast.iter_child_nodes(p) if c is node)
            for field, val in ast.iter_fields(parent):
                if val is node:
                    setattr(parent, field, node.operand)
                elif isinstance(val, list):
                    setattr(parent, field, [node.operand if v is node else v for v in val])
        label = type(new).__name__ if isinstance(new, ast.AST) else repr(new)
        out.append((f"line {getattr(node, 'lineno', 0)}: {what} -> {label}", ast.unparse(ast.fix_missing_locations(tree))))
    return out


def run_cases(src: str, name: str, cases: list, limit: float = 0.5) -> list | None:
    """The outputs of `name` from `src` on every case, or None when it raises or runs over `limit` s."""
    ns: dict = {}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        exec(compile(src, f"<{name}>", "exec"), ns)
        return [ns[name](*copy.deepcopy(args)) for args, _ in cases]
    except (Timeout, Exception, RecursionError, MemoryError):  # noqa: BLE001 - a failing mutant is killed
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def check_problem(p: dict, where: str) -> list[str]:
    errs = []
    known = {"split", "difficulty", "task", "ref", "cases", "survivors"}
    if set(p) - known:
        errs.append(f"{where}: unknown fields {sorted(set(p) - known)}")
    if p.get("split") not in ("train", "heldout", "tune"):
        errs.append(f"{where}: split must be train, heldout or tune")
    if p.get("difficulty") not in ("easy", "medium", "hard"):
        errs.append(f"{where}: difficulty must be easy, medium or hard")
    ref = p["ref"].strip("\n") + "\n"
    m = re.search(r"^def (\w+)\(.*\).*:$", ref, re.M)
    if not m:
        return errs + [f"{where}: the reference has no def line"]
    name = m.group(1)
    if len(p["cases"]) < MIN_CASES:
        errs.append(f"{where} {name}: {len(p['cases'])} cases, at least {MIN_CASES}")
    t = time.perf_counter()
    got = run_cases(ref, name, p["cases"])
    # a wrong edit that loops is killed sooner than the reference's own 0.5 s: at 10x the reference's
    # time (at least 0.1 s; every other edit ran under 0.05 s here). A shorter limit can only kill
    # more edits, never keep one alive, so it cannot hide a weak problem's survivors
    limit = max(0.1, 10 * (time.perf_counter() - t))
    if got is None:
        return errs + [f"{where} {name}: the reference raises or runs over 0.5 s on a case"]
    for (args, expected), g in zip(p["cases"], got):
        if not _same(json.loads(json.dumps(g)), g):
            errs.append(f"{where} {name}{args!r}: output {g!r} does not survive a JSON round trip")
        elif expected is not ... and not _same(g, expected):
            errs.append(f"{where} {name}{args!r}: the reference gives {g!r}, the hand value is {expected!r}")
    muts = mutants(ref)
    alive = [d for d, src in muts if (out := run_cases(src, name, p["cases"], limit)) is not None
             and all(_same(a, b) for a, b in zip(out, got))]
    allowed = set(p.get("survivors", []))
    unexplained = [d for d in alive if d not in allowed]
    if unexplained or len(alive) > MAX_SURVIVING * max(len(muts), 1):
        errs.append(f"{where} {name}: {len(alive)}/{len(muts)} wrong edits pass every case: {alive} "
                    "(add cases that catch them; an edit that changes nothing can be listed in survivors=[...])")
    return errs


def names_in(rows) -> list[str]:
    return [re.search(r"^def (\w+)\(", p["ref"].strip("\n"), re.M).group(1) for p in rows]


def main(paths: list[str]) -> int:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a mutant's runaway list fails, not the host
    sys.setrecursionlimit(3000)
    every = sorted(HERE.glob("bank_*.py"))
    every = [p for p in every if p.name != "bank_check.py"]
    parts = [Path(p) for p in paths] or every
    existing = [json.loads(line)["entry_point"] for line in (HERE / "problems.jsonl").open()]
    others = {p: names_in(runpy.run_path(str(p))["PROBLEMS"]) for p in every}
    errs = []
    for part in parts:
        rows = runpy.run_path(str(part))["PROBLEMS"]
        seen = existing + [n for q, ns in others.items() if q.resolve() != part.resolve() for n in ns]
        mine = names_in(rows)
        for n in {n for n in mine if mine.count(n) > 1 or n in seen}:
            errs.append(f"{part.name}: entry point {n} is not unique (problems.jsonl or another part has it)")
        for k, p in enumerate(rows):
            errs += check_problem(p, f"{part.name}#{k}")
        splits = {s: sum(p["split"] == s for p in rows) for s in ("train", "heldout", "tune")}
        print(f"{part.name}: {len(rows)} problems (" + ", ".join(f"{n} {s}" for s, n in splits.items() if n) + ")")
    for e in errs:
        print(e)
    print(f"{len(errs)} failures" if errs else "all good")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
