"""Is a held-out problem a variant of a training one, or a tuning problem one of a held-out one? For
every held-out problem of problems.jsonl and bank.jsonl, its nearest training problem, and for every
problem of the bank's tuning split its nearest held-out problem, by reference solution and by task text.

    python data/problems/nearest.py [--top 25]

Reference similarity: difflib's ratio between the two references' token sequences, with every
identifier that is not a builtin or keyword renamed by order of appearance (so `def f(nums)` and
`def g(xs)` that do the same thing match), and the function's own name dropped. Task similarity:
Jaccard over the prompts' words, with the signature and the example left out. The closest pairs
are printed for a reader to judge; a pair that is the same task with other constants, names or
wording is a variant and must move to the same split.
"""
from __future__ import annotations

import builtins
import difflib
import io
import json
import keyword
import re
import sys
import tokenize
from pathlib import Path

HERE = Path(__file__).parent
KEEP = set(dir(builtins)) | set(keyword.kwlist) | {"self"}


def shape(ref: str) -> list[str]:
    """The reference's tokens, identifiers renamed v0, v1, ... by first appearance."""
    names: dict[str, str] = {}
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(ref).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        s = tok.string
        if tok.type == tokenize.NAME and s not in KEEP:
            s = names.setdefault(s, f"v{len(names)}")
        out.append(s)
    return out


def words(prompt: str) -> set[str]:
    task = re.sub(r"`def [^`]*`", " ", prompt.split(" For example,")[0])
    return {w for w in re.findall(r"[a-z]+", task.lower()) if len(w) > 2} - {"write", "python", "function", "that",
                                                                             "returns", "the", "and"}


def nearest(rows: list[dict], others: list[dict]) -> list[tuple]:
    """(reference ratio, task Jaccard, row, nearest other by reference, nearest other by task) per row."""
    oshape = [(r, shape(r["reference"])) for r in others]
    owords = [(r, words(r["prompt"])) for r in others]
    pairs = []
    for h in rows:
        hs, hw = shape(h["reference"]), words(h["prompt"])
        ref_best = max(((difflib.SequenceMatcher(None, hs, ts, autojunk=False).ratio(), t) for t, ts in oshape),
                       key=lambda x: x[0])
        txt_best = max(((len(hw & tw) / max(len(hw | tw), 1), t) for t, tw in owords), key=lambda x: x[0])
        pairs.append((ref_best[0], txt_best[0], h, ref_best[1], txt_best[1]))
    return pairs


def main(top: int) -> None:
    rows = [json.loads(line) for f in ("problems.jsonl", "bank.jsonl") if (HERE / f).exists()
            for line in (HERE / f).open()]
    by = {s: [r for r in rows if r["split"] == s] for s in ("train", "heldout", "tune")}
    # a held-out problem near a training one is learned, not generalised to; a tuning problem near a
    # held-out one would tune the recipe on the held-out set
    for what, mine, other in (("held-out", "heldout", "train"), ("tuning", "tune", "heldout")):
        if not by[mine]:
            continue
        pairs = nearest(by[mine], by[other])
        print(f"{len(by[mine])} {what} problems against {len(by[other])} {other} problems")
        for label, k in (("reference", 0), ("task text", 1)):
            print(f"\nclosest by {label}:")
            for p in sorted(pairs, key=lambda x: -x[k])[:top]:
                o = p[3] if k == 0 else p[4]
                print(f"  {p[k]:.2f}  {p[2]['id']} {p[2]['entry_point']}  ~  {o['id']} {o['entry_point']}")
        print()


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25)
