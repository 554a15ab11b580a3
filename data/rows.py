"""Rows to `Problem` records, for every loader in data/loaders.py: the file readers (.jsonl,
.jsonl.gz, .json, .parquet), the strict check of each row (the rules are in data/loaders.py's
docstring), and the `DataError` every loader raises.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import gzip
import hashlib
import json
import keyword
import re
from pathlib import Path
from typing import Any, Iterator

from data.schema import LANGUAGES, Problem

FIELDS = tuple(f.name for f in dataclasses.fields(Problem))
SYNONYMS = {"prompt": ("question", "problem", "instruction", "text", "description", "query"),
            "entry_point": ("function_name", "func_name", "entrypoint", "fn_name")}
"""Columns other datasets hold a field in (APPS' question, MBPP's text), offered first when the field is missing."""
REQUIRED = ("id", "prompt", "entry_point")
DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = ("train", "heldout", "tune")  # tune: the problem bank's set to tune a recipe on (bank:tune)


class DataError(ValueError):
    """A problem set could not be loaded; the message says where and what to do."""


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


def _where(e: json.JSONDecodeError) -> str:
    """json's message and column: some of its messages end in "at" already ("Unterminated string starting at")."""
    return f"{e.msg.removesuffix(' at')} at column {e.colno}"


def rows_jsonl(path: Path, raw: bytes | None = None) -> Iterator[tuple[int, Any]]:
    raw = _read_bytes(path) if raw is None else raw
    for n, line in enumerate(raw.split(b"\n"), start=1):
        text = _decode(line, path, n)
        if not text.strip():
            continue
        try:
            yield n, json.loads(text)
        except json.JSONDecodeError as e:
            listed = (" The file opens a JSON list ('['): name it .json, which reads a list of problem objects, or "
                      "write one object per line." if n == 1 and text.lstrip().startswith("[") else "")
            raise DataError(f"{path}, line {n}: invalid JSON ({_where(e)}); "
                            f"fix or remove that line (one JSON object per line).{listed}") from None


def rows_json(path: Path) -> Iterator[tuple[int | str, Any]]:
    """A .json file's rows: (line, row) for JSON Lines; for a list, ("L (item K)", row), the line the item
    starts on and its place in the list (a list written on one line has every item on line 1)."""
    raw = _read_bytes(path)
    text = _decode(raw, path, 1)
    if not text.lstrip().startswith("["):  # datasets' "json" format is JSON Lines; accept both
        try:   # one object over several lines is no JSON Lines, and one wrapping a list holds no problem: say so
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        keyed = isinstance(whole, dict) and whole and all(isinstance(v, dict) and "prompt" in v for v in whole.values())
        if keyed:   # {"add-000": {problem}, ...}: problems under their ids
            raise DataError(f"{path}: one JSON object of problems keyed by their ids ({', '.join(list(whole)[:3])}"
                            f"{', ...' if len(whole) > 3 else ''}); a .json file is a list of problem objects, or one "
                            "per line: write each with its key as its id, e.g. python -c \"import json; d = json.load("
                            f"open('{path.name}')); json.dump([{{'id': k, **v}} for k, v in d.items()], "
                            "open('problems.json', 'w'))\"")
        if isinstance(whole, dict):   # (a problem itself has a prompt; a wrapper, a list of objects)
            lists = [] if "prompt" in whole else [k for k, v in whole.items()
                                                  if isinstance(v, list) and v and isinstance(v[0], dict)]
            if "\n" in text.strip() or (lists and not any(isinstance(v, str) for v in whole.values())):
                raise DataError(f"{path}: one JSON object" + (" over several lines" if "\n" in text.strip() else "") + (
                    f", its problems perhaps under {', '.join(repr(k) for k in lists[:3])}" if lists else "")
                    + "; a .json file is a list of problem objects, or one problem object per line (JSON Lines): "
                    "write that list alone")
        yield from rows_jsonl(path, raw)
        return
    try:
        items = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(f"{path}, line {e.lineno}: invalid JSON ({_where(e)}); "
                        f"fix the file (a list of problem objects).") from None
    # Walk the list once more to learn the line each item starts on.
    decoder, ws = json.JSONDecoder(), re.compile(r"[\s,]*")
    pos = ws.match(text, text.index("[") + 1).end()
    for k, item in enumerate(items, start=1):
        yield f"{text.count(chr(10), 0, pos) + 1} (item {k} of the list)", item
        pos = ws.match(text, decoder.raw_decode(text, pos)[1]).end()


def rows_parquet(path: Path) -> Iterator[tuple[int, Any]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as e:  # pyarrow's errors for a damaged file vary (ArrowInvalid, OSError)
        raise DataError(f"{path}: not a readable Parquet file ({e}); re-export it.") from None
    yield from enumerate(table.to_pylist(), start=1)


# ------------------------------------------------------------------------------ row checking

def check_mapping(mapping: dict[str, str] | None, source: str) -> None:
    if mapping is None:
        return
    if not isinstance(mapping, dict):
        raise DataError(f"{source}: the field mapping must be a dict of our field -> source column, "
                        f"got {type(mapping).__name__}.")
    for ours, theirs in mapping.items():
        if ours not in FIELDS:
            close = difflib.get_close_matches(str(ours), FIELDS, n=1)
            flipped = {v: k for k, v in mapping.items() if k not in FIELDS and v in FIELDS}
            said = (f" (did you mean {close[0]}?)" if close else f" (written the other way round? our field comes "
                    f"first: {{{', '.join(f'{v}: {k}' for v, k in flipped.items())}}})" if flipped and theirs in FIELDS
                    else "")
            raise DataError(f"{source}: the mapping names unknown field {ours!r}{said}; map only "
                            f"{', '.join(FIELDS)} (our field -> source column).")
        if not isinstance(theirs, str):
            raise DataError(f"{source}: the mapping for {ours!r} must be a column name string, got {theirs!r}.")


def check_mapped_columns(mapping: dict[str, str] | None, columns: set[str], source: str) -> None:
    """A mapping that names a column no row has (a typo: `reference: soluton`) fails, naming the
    columns there are; an optional field would otherwise load empty without a word."""
    missing = {ours: theirs for ours, theirs in (mapping or {}).items() if theirs not in columns}
    if missing and columns:
        ours, theirs = next(iter(missing.items()))
        raise DataError(f"{source}: column {theirs!r} (data.mapping.{ours}) is in no row; its columns: "
                        f"{', '.join(sorted(columns))}")


def to_problem(row: Any, source: str, place: str, mapping: dict[str, str] | None,
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
    system = None
    if isinstance(values.get("prompt"), list):   # TRL's conversational prompt: [system turn,] one user turn
        values["prompt"], system = _conversation(values["prompt"], lambda why: bad(
            "prompt", why, "a prompt here is one user turn, after an optional system turn (student.system_prompt "
            "gives every prompt its system turn); write such rows with their last user turn as the prompt"))
    idlike = [str(c) for c in row if c not in claimed and _idlike(str(c))]   # an id under another name: map it
    if ("id" not in values and mapping.get("id", "id") not in row and not idlike
            and isinstance(values.get("prompt"), str)):
        values["id"] = "p-" + hashlib.sha256(values["prompt"].encode("utf-8", "surrogatepass")).hexdigest()[:10]
    # a row nothing runs (no tests: a reward function or an LLM judge scores it) needs no function name
    no_entry = "entry_point" not in values and "tests" not in values and "test_code" not in values
    if no_entry:
        values["entry_point"] = ""
    free = [str(c) for c in row if c not in claimed]
    guesses = {f: g for f in REQUIRED if f not in values and f not in mapping and (g := (
        idlike if f == "id" else []) or [c for c in free if c.lower() in SYNONYMS.get(f, ())][:1]
        or difflib.get_close_matches(f, free, n=1, cutoff=0.6))}
    for f in REQUIRED:
        if f not in values:
            if mapping.get(f, f) in row:   # there, but null
                raise bad(f, "is null", "give it a value in that row, or drop the row")
            # every missing field's column at once (the mapping already given stays in it)
            given = "".join(f"{k}: {v}, " for k, v in mapping.items())
            more = "".join(f", {k}: {g[0]}" for k, g in guesses.items() if k != f)
            hint = ("or map it to the right column, e.g. data.mapping={%s%s: %s%s}" % (
                given, f, guesses[f][0] if f in guesses else "<column>", more)
                    if f not in mapping else f"or correct data.mapping.{f}")
            cols = [str(c) for c in row]
            have = (f" (the row's columns: {', '.join(cols[:30])}{', ...' if len(cols) > 30 else ''})" if cols
                    else " (the row has no columns)")
            raise bad(f, f"is missing{have}", f"add it to that row {hint}")

    if isinstance(values["id"], int) and not isinstance(values["id"], bool):
        values["id"] = str(values["id"])
    for f in ("id", "prompt") + (() if no_entry else ("entry_point",)):
        if not isinstance(values[f], str) or not values[f].strip():
            raise bad(f, f"must be a non-empty string, got {values[f]!r:.60}")
    values.setdefault("language", language or "python")
    if values["language"] not in LANGUAGES:
        raise bad("language", f"must be one of {', '.join(LANGUAGES)}, got {values['language']!r:.60}",
                  "fix that row, or leave it out and set data.language")
    ocaml = values["language"] == "ocaml"
    if not no_entry and not ocaml and (not values["entry_point"].isidentifier() or keyword.iskeyword(values["entry_point"])):
        raise bad("entry_point", f"must be a Python function name, got {values['entry_point']!r}")
    if not no_entry and ocaml and not re.fullmatch(r"[a-z_][A-Za-z0-9_']*", values["entry_point"]):
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
    if "test_code" in values and "tests" not in values and not ocaml:   # the judge runs it, then check(<entry>)
        try:
            compile(values["test_code"], "tests.py", "exec", dont_inherit=True)   # as the judge does
            tree = ast.parse(values["test_code"], "tests.py")
        except (SyntaxError, ValueError) as e:
            raise bad("test_code", f"does not compile as Python ({e})") from None
        if "check" not in _top_level_names(tree):
            raise bad("test_code", "defines no `check`: the judge calls check(<entry point>) after running it",
                      "put the asserts inside `def check(candidate):` (HumanEval's form; bare asserts, MBPP's, "
                      "indented under it work as they are, calling the function by its name)")
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
    # kept as JSON (the prompts table stores it so): a parquet or Hub column of dates or decimals as text
    values["meta"] = json.loads(json.dumps({**extra, **meta} if extra else meta, default=str))
    if system is not None:
        values["meta"]["system_turn"] = system
    if ocaml and "tests" in values:  # the harness is generated from the signature: check it drives them
        from data.ocaml_types import SUPPORTED, TypeSpecError, check_tests, parse_signature
        fix = "write `val <entry_point> : <type>` with the supported types, one input per argument"
        if not values.get("signature"):
            raise bad("signature", "is missing: the OCaml test harness is built from it", f"add one to that row: "
                      f"`val {values['entry_point']} : <type>`, one argument per test input; types: {SUPPORTED}")
        try:
            parse_signature(values.get("signature"))
        except TypeSpecError as e:
            raise bad("signature", f"does not fit the OCaml test harness: {e}", fix) from None
        try:
            check_tests(values.get("signature"), values["entry_point"], values["tests"])
        except TypeSpecError as e:   # a number no OCaml int holds: the test's fault, whatever the signature
            raise bad("tests", f"does not fit the OCaml test harness: {e}", "change or drop that test" if
                      "is not an OCaml int" in str(e) else f"fix that test, or the signature: {fix}") from None
        from data.ocaml_types import as_result
        result = parse_signature(values["signature"])[2]
        values["tests"] = [{**t, "output": as_result(result, t["output"])} if "output" in t else t
                           for t in values["tests"]]
    return Problem(**values)


def _top_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (def, class, assignment, import)."""
    out: set[str] = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
    return out


def _idlike(column: str) -> bool:
    """A column named as an id is (qid, task_id, problemId, ID-less words such as paid or grid not)."""
    low = column.lower()
    return column != "id" and (low in ("id", "qid", "uid", "pid", "sid", "rid", "tid", "nid", "cid")
                               or low.endswith(("_id", "-id")) or (column.endswith(("Id", "ID")) and column[-3:-2].islower()))


def _conversation(turns: list, bad) -> tuple[str, str | None]:
    """A conversational prompt's user turn and its system turn (None without one); anything else refused."""
    roles = [t.get("role") if isinstance(t, dict) else None for t in turns]
    if not turns or any(not isinstance(t, dict) or not isinstance(t.get("content"), str) for t in turns):
        raise bad("is a list, but not of {\"role\": ..., \"content\": \"text\"} turns")
    if roles[-1] != "user" or roles.count("user") != 1 or set(roles) - {"system", "user"} or roles[0] != (
            "system" if len(turns) == 2 else "user") or len(turns) > 2:
        raise bad(f"is a conversation of turns {roles} (not a system turn then one user turn)")
    return turns[-1]["content"], (turns[0]["content"] if len(turns) == 2 else None)


def _check_tests(tests: Any, bad) -> None:
    shape = 'a list of {"input": [arg, ...], "output": expected} objects'
    if not isinstance(tests, list):
        raise bad(f"must be {shape}, got {type(tests).__name__}")
    for i, case in enumerate(tests):
        if not isinstance(case, dict) or "input" not in case or "output" not in case:
            raise bad(f"item {i} must be an object with keys 'input' and 'output', got {case!r:.80}")
        if not isinstance(case["input"], list):
            raise bad(f"item {i}: 'input' must be the list of arguments, got {type(case['input']).__name__}")


def unique(problems: list[Problem], places: list[str], source: str) -> list[Problem]:
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
