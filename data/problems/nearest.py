"""Is a held-out problem a variant of a training one? For every held-out problem of problems.jsonl
and bank.jsonl, its nearest training problem by reference solution and by task text.

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


def main(top: int) -> None:
    rows = [json.loads(line) for f in ("problems.jsonl", "bank.jsonl") if (HERE / f).exists()
            for line in (HERE / f).open()]
    train = [r for r in rows if r["split"] == "train"]
    held = [r for r in rows if r["split"] == "heldout"]
    tshape = [(r, shape(r["reference"])) for r in train]
    twords = [(r, words(r["prompt"])) for r in train]
    pairs = []
    for h in held:
        hs, hw = shape(h["reference"]), words(h["prompt"])
        ref_best = max(((difflib.SequenceMatcher(None, hs, ts, autojunk=False).ratio(), t) for t, ts in tshape),
                       key=lambda x: x[0])
        txt_best = max(((len(hw & tw) / max(len(hw | tw), 1), t) for t, tw in twords), key=lambda x: x[0])
        pairs.append((ref_best[0], txt_best[0], h, ref_best[1], txt_best[1]))
    print(f"{len(held)} held-out problems, {len(train)} training problems")
    for label, k in (("reference", 0), ("task text", 1)):
        print(f"\nclosest by {label}:")
        for p in sorted(pairs, key=lambda x: -x[k])[:top]:
            other = p[3] if k == 0 else p[4]
            print(f"  {p[k]:.2f}  {p[2]['id']} {p[2]['entry_point']}  ~  {other['id']} {other['entry_point']}")


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25)
