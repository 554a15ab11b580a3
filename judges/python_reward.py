"""Your own reward function as the judge (judge.kind=python): TRL's reward function contract.

A function `reward(prompts, completions, **kwargs) -> list[float | None]`, named by
`judge.python.function` as `path/to/file.py:name` or `package.module:name`, is called on a batch of
answers, as TRL's GRPOTrainer calls its `reward_funcs`: `prompts` and `completions` are lists (strings,
or with judge.python.format=conversational the message lists TRL's conversational datasets give), and
every other column of the problem comes as a keyword argument holding one value per answer (id,
entry_point, reference, tests, difficulty, and the dataset's own extra columns), with `truncated` (the
answer hit max_new_tokens). A function that takes only some of these names gets only those.

Each result is cached like any other judgement, keyed by the function's name (not the file's path: a
teammate's cache fits), the text of the file named and of the file that defines it when that is another
(a package re-exporting it; an edit scores everything again), judge.python.version (bump it when the score
changes through other files), judge.python.format, the problem, the answer and whether it was truncated
(and, in the conversational format, the system message its prompts open with, when there is one). None
means the function could not score that answer: it is counted as unscored and asked again on the next run.
Several functions (TRL's reward_funcs with reward_weights) are judges/python_rewards.py.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable

from judges.base import Score
from judges.hashing import canonical, sha256_text

NOT_OFFERED = {
    "completion_ids": "the answers' token ids are not passed (teacher answers have none); reward.overlong_buffer "
                      "and reward.overlong_penalty give DAPO's soft overlong punishment",
    "trainer_state": "no trainer state is passed: a score that changes with the step would make the cache lie",
    "environments": "no environments are passed (TRL's environment_factory): score from the answer's text and the "
                    "problem's columns",
}
RESERVED = ("prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments")
"""Names TRL passes itself: a data column of that name never replaces them."""
LOGGERS = ("log_extra", "log_metric")
"""TRL's logging callbacks, passed as no-ops (a function that calls them runs unchanged; nothing is logged)."""


def _no_log(*args, **kwargs) -> None:
    return None


class RewardFunctionError(ValueError):
    """The function cannot be found, called or read; the message says which and what to do."""


def split_ref(ref: str) -> tuple[str, str]:
    module, sep, name = ref.rpartition(":")
    if not sep or not module or not name.isidentifier():
        raise RewardFunctionError(f"judge.python.function={ref!r}: name it as path/to/file.py:function or "
                                  "package.module:function")
    return module, name


def _is_file(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module


def source_file(ref: str) -> Path | None:
    """The file that defines the function, found without running it (None: a module with no source file)."""
    module, _ = split_ref(ref)
    if _is_file(module):
        path = Path(module).expanduser()
        if not path.is_file():
            raise RewardFunctionError(f"judge.python.function={ref!r}: {path.resolve()} is not a file (a relative "
                                      "path is read from the working directory)")
        return path.resolve()
    with _cwd_on_path():
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError) as e:
            raise RewardFunctionError(f"judge.python.function={ref!r}: {e}") from None
    if spec is None:
        raise RewardFunctionError(f"judge.python.function={ref!r}: no module {module!r} on the path (nor in the "
                                  "working directory); install it, or name its file as path/to/file.py:function")
    return Path(spec.origin).resolve() if spec.origin and Path(spec.origin).is_file() else None


def code_hash(ref: str) -> str:
    """sha256 of the named module's file bytes: the function's code version in every cache key."""
    path = source_file(ref)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path else ""


def defining_file(fn: Callable) -> Path | None:
    """The file whose code `fn` runs (a function, a partial's function, a callable instance's class), or None."""
    target = inspect.unwrap(fn)
    while isinstance(target, functools.partial):
        target = inspect.unwrap(target.func)
    if not (inspect.isfunction(target) or inspect.ismethod(target) or inspect.isclass(target)):
        target = type(target)
    try:
        found = inspect.getsourcefile(target)
    except TypeError:
        return None
    return Path(found).resolve() if found and Path(found).is_file() else None


_FILES: dict[Path, tuple[str, Any]] = {}
"""Modules loaded from a file path: (file hash, module), so one process imports an unchanged file once."""


class _cwd_on_path:
    """The working directory (or `folder`) first on sys.path while importing, as `python -m` (or
    `python folder/file.py`) has it."""

    def __init__(self, folder: str | None = None):
        self.folder = folder or os.getcwd()

    def __enter__(self):
        self.added = self.folder not in sys.path
        if self.added:
            sys.path.insert(0, self.folder)

    def __exit__(self, *exc):
        if self.added and self.folder in sys.path:
            sys.path.remove(self.folder)


def load(ref: str) -> Callable:
    """The function itself: its module imported (a file by its path), the name looked up."""
    module, name = split_ref(ref)
    try:
        if _is_file(module):
            path = source_file(ref)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if _FILES.get(path, ("",))[0] == digest:
                mod = _FILES[path][1]
            else:   # its own folder first on the path while it imports: its sibling modules import
                modname = "rlaif_reward_" + sha256_text(str(path))[:12]
                spec = importlib.util.spec_from_file_location(modname, path)
                mod = importlib.util.module_from_spec(spec)
                sys.modules[modname] = mod
                with _cwd_on_path(str(path.parent)):
                    spec.loader.exec_module(mod)
                _FILES[path] = (digest, mod)
        else:
            with _cwd_on_path():
                mod = importlib.import_module(module)
    except RewardFunctionError:
        raise
    except Exception as e:  # the user's module failed while importing: say where
        raise RewardFunctionError(f"judge.python.function={ref!r}: importing {module} failed: "
                                  f"{type(e).__name__}: {e}{shadow_hint(e)}") from e
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise RewardFunctionError(f"judge.python.function={ref!r}: {module} has no function {name!r}"
                                  + (f" (it has {type(fn).__name__} there)" if fn is not None else ""))
    return fn


OURS = ("pipeline", "judges", "data", "curriculum")
"""This tool's top-level packages: imported under these names before any reward function is."""


def shadow_hint(e: BaseException) -> str:
    """A user's own package named as one of ours (a `data` package beside the reward function) is never
    imported: `data` is this tool's already. Said when the error is about one of those names."""
    if isinstance(e, ImportError):
        top = (e.name or "").split(".")[0]
    else:   # AttributeError: module 'data' has no attribute 'clean' (theirs expected, ours found)
        top = next((t for t in OURS if f"module '{t}'" in str(e) or f"module '{t}." in str(e)), "")
    if top not in OURS:
        return ""
    return (f"; `{top}` names this tool's own package ({', '.join(OURS)} are its top-level packages, imported "
            f"before your code), so a package of yours by that name is never imported: rename it (my_{top})")


def arguments(fn: Callable, ref: str) -> tuple[set[str] | None, set[str]]:
    """(the keyword names fn takes, None for **kwargs; the names it requires)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None, set()
    takes_all = any(p.kind is p.VAR_KEYWORD for p in params)
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    required = {p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    positional = [p.name for p in params if p.kind is p.POSITIONAL_ONLY and p.default is p.empty]
    if positional or not (takes_all or named):   # it is called with keywords only: it could never see an answer
        raise RewardFunctionError(
            f"judge.python.function={ref!r} " + (f"requires {positional} positionally (before a /)" if positional
                                                  else "takes no keyword arguments")
            + ", but it is called as TRL calls reward_funcs, with keywords only: fn(prompts=[...], "
            "completions=[...], **columns); define it as def name(prompts, completions, **kwargs) returning one "
            "float (or None) per completion")
    for name in required & NOT_OFFERED.keys():
        raise RewardFunctionError(f"judge.python.function={ref!r} requires {name!r}: {NOT_OFFERED[name]}")
    return (None if takes_all else named), required


class PythonReward:
    """The configured function behind the cache: `key` per answer, `score` per batch of answers."""

    def __init__(self, ref: str, version: str = "", fmt: str = "standard", fn: Callable | None = None,
                 system: str = "", label: str = ""):
        """system: student.system_prompt, the leading system message of conversational prompts ('' for none).
        label: how errors name the function (judge.python.function[1]='b.py:f' in a list)."""
        self.ref, self.version, self.format = ref, version, fmt
        self.system = system if fmt == "conversational" else ""
        plain = f"judge.python.function={ref!r}"
        self.label = label or plain
        try:
            self.fn = fn or load(ref)
            self.code = code_hash(ref)
            named, defining = source_file(ref), defining_file(self.fn)
            if defining and defining != named:   # re-exported (a package's __init__, trl.rewards): its code counts
                self.code = sha256_text(self.code + hashlib.sha256(defining.read_bytes()).hexdigest())
            self.takes, self.required = arguments(self.fn, ref)
        except RewardFunctionError as e:
            if self.label == plain:
                raise
            raise RewardFunctionError(str(e).replace(plain, self.label, 1)) from e.__cause__
        module, name = split_ref(ref)   # a file by its text, not its path: the same file elsewhere hits the cache
        function = f"file:{name}" if _is_file(module) else ref
        self.ingredients = {"kind": "python", "function": function, "code": self.code, "version": version,
                            "format": fmt}
        if self.system:   # only then: the keys of a run without a system prompt stay as they were
            self.ingredients["system"] = sha256_text(self.system)

    def key(self, problem, completion: str, truncated: bool) -> str:
        from judges.cache import cache_key
        return cache_key({**self.ingredients, "problem": sha256_text(canonical(problem.to_json())),
                          "completion": sha256_text(completion), "truncated": truncated})

    def _kwargs(self, items: list[tuple[Any, str, bool]]) -> dict[str, Any]:
        rows = [{**{k: v for k, v in p.meta.items() if k not in RESERVED},
                 **{k: v for k, v in p.to_json().items() if k not in ("meta", "prompt")},
                 "truncated": tr} for p, _, tr in items]
        names = set().union(*rows) if rows else set()
        if self.format == "conversational":
            system = [{"role": "system", "content": self.system}] if self.system else []
            prompts = [[*system, {"role": "user", "content": p.prompt}] for p, _, _ in items]
            completions = [[{"role": "assistant", "content": c}] for _, c, _ in items]
        else:
            prompts, completions = [p.prompt for p, _, _ in items], [c for _, c, _ in items]
        kw = {"prompts": prompts, "completions": completions,
              **{n: [r.get(n) for r in rows] for n in sorted(names)}, **{n: _no_log for n in LOGGERS}}
        missing = self.required - kw.keys()   # **kwargs or not: a required name must be there
        if missing:
            raise RewardFunctionError(
                f"{self.label} requires {sorted(missing)}, which no problem has; it is "
                f"passed prompts, completions and the problems' columns ({', '.join(sorted(names))}); give "
                "them defaults or add the columns to your data")
        if self.takes is not None:
            kw = {k: v for k, v in kw.items() if k in self.takes}
            if not kw.keys() - set(LOGGERS):   # nothing per answer: it could not return one score per completion
                raise RewardFunctionError(
                    f"{self.label} takes none of the arguments it is passed (its own: {', '.join(sorted(self.takes))}; "
                    f"passed: prompts, completions and the problems' columns, {', '.join(sorted(names))}); define it "
                    "as def name(prompts, completions, **kwargs) returning one float (or None) per completion")
        return kw

    def check_columns(self, problems: list) -> None:
        """The problems' columns hold every argument the function requires: RewardFunctionError if not."""
        self._kwargs([(p, "", False) for p in problems])

    def score(self, items: list[tuple[Any, str, bool]]) -> list[Score]:
        """One call of the function on these (problem, answer, truncated) items: a Score each."""
        kw = self._kwargs(items)
        out = self.fn(**kw)
        if inspect.isawaitable(out):   # an async reward function, as TRL allows
            out = asyncio.run(_wait(out))
        try:
            if isinstance(out, (str, bytes, dict)):
                raise TypeError
            values = list(out)
        except TypeError:
            raise RewardFunctionError(f"{self.label}{_defined(self.fn)} returned {type(out).__name__}; it must "
                                      "return a list of floats (None where it cannot score), one per completion") from None
        if len(values) != len(items):
            raise RewardFunctionError(f"{self.label}{_defined(self.fn)} returned {len(values)} rewards for "
                                      f"{len(items)} completions; it must return exactly one per completion")
        scores = []
        for (p, _, _), v in zip(items, values):
            if v is None:
                scores.append(Score(value=None, raw=f"{self.ref} returned None"))
                continue
            try:
                if isinstance(v, (str, bytes)):   # TRL's torch.tensor refuses text: so does this
                    raise TypeError
                value = float(v)
            except (TypeError, ValueError):
                raise RewardFunctionError(f"{self.label}{_defined(self.fn)} returned {v!r} for problem {p.id}; "
                                          "each reward must be a number or None") from None
            if value != value or value in (float("inf"), float("-inf")):
                scores.append(Score(value=None, raw=f"{self.ref} returned {value}"))
            else:
                scores.append(Score(value=value, breakdown={}, raw=""))
        return scores

    def score_all(self, cache, items: list[tuple[Any, str, bool]], live: bool = True, batch_size: int = 64,
                  progress: Callable[[int], None] | None = None) -> tuple[list[Score | None], int, int]:
        """(a Score per item, None where it is not in the cache and `live` is off; calls made; cache hits).
        The misses go to the function batch_size at a time, each batch's scores cached as it returns, so
        an error in the function loses nothing done before it. An answer the function returned None for
        is cached as unscored: a live run asks the function again, a replay (`live` off) gives it unscored
        as the live run did, so an epoch whose functions skip some answers replays whole."""
        keys = [self.key(*it) for it in items]
        found = [cache.get(k) for k in keys]
        out: list[Score | None] = [Score.from_json(v) if v is not None else None for v in found]
        # a None the function returned is cached too: live asks it again, a replay reproduces it
        todo = [i for i, s in enumerate(out) if s is None or (live and s.value is None)]
        hits, calls, kept = len(items) - len(todo), 0, 0
        if progress and hits:
            progress(hits)
        if not live:
            return out, 0, hits
        for start in range(0, len(todo), batch_size):
            chunk = todo[start:start + batch_size]
            try:
                scores = self.score([items[i] for i in chunk])
            except RewardFunctionError:
                raise
            except Exception as e:
                ids = sorted({items[i][0].id for i in chunk})
                raise RewardFunctionError(
                    f"{self.label} raised {type(e).__name__}: {e}{_where(e)} (on a batch of {len(chunk)} "
                    f"answers to {', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}); "
                    + (f"the {kept} scores before it are cached" if kept else "no answer was scored before it")
                    + f": fix the function and rerun{self._format_hint(e)}") from e
            for i, s in zip(chunk, scores):
                out[i] = s
                cache.set(keys[i], s.to_json())   # a None too (see above)
                kept += s.value is not None
            calls += len(chunk)
            if progress:
                progress(len(chunk))
        return out, calls, hits

    def _format_hint(self, e: BaseException) -> str:
        """A function written for the other shape of completions (TRL's conversational datasets give message
        lists, its standard ones strings) fails on its first line: which key changes the shape."""
        text = str(e)
        if self.format != "conversational" and ("string indices" in text or "'str' object" in text):
            return ("; the completions it is passed are strings (judge.python.format=standard): a function written "
                    "for TRL's conversational datasets (completion[0][\"content\"]) wants judge.python.format=conversational")
        if self.format == "conversational" and ("'list' object" in text or "got 'list'" in text or "not list" in text):
            return ("; with judge.python.format=conversational each completion is a list of messages "
                    "([{\"role\": \"assistant\", \"content\": ...}]): for plain strings set judge.python.format=standard")
        return shadow_hint(e)


def _defined(fn: Callable) -> str:
    """Where the user's function is defined, as ' (defined at rw.py:3)'; '' where Python cannot tell (a builtin)."""
    try:
        return f" (defined at {os.path.basename(inspect.getsourcefile(fn) or '')}:{inspect.getsourcelines(fn)[1]})"
    except (TypeError, OSError):
        return ""


def _where(e: BaseException) -> str:
    """Where in the user's code an exception was raised: the innermost frames outside this module (their
    function's, and what it called: a helper, a library), as ' at rw.py:3 in score (`return 1 / 0`)'."""
    import sysconfig
    import traceback
    here = {os.path.realpath(__file__), os.path.realpath(__file__.replace("python_reward.py", "python_rewards.py"))}
    paths = sysconfig.get_paths()
    stdlib = os.path.realpath(paths["stdlib"]) + os.sep
    installed = tuple({os.path.realpath(paths[k]) + os.sep for k in ("purelib", "platlib")})   # (inside stdlib's, often)
    frames = [f for f in traceback.extract_tb(e.__traceback__) if os.path.realpath(f.filename) not in here]
    # not the standard library's frames between us and it (asyncio running an async function), where others are
    frames = [f for f in frames if not (p := os.path.realpath(f.filename)).startswith(stdlib)
              or p.startswith(installed)] or frames
    if not frames:
        return ""
    said = [f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}" for f in frames[-3:]]
    line = frames[-1].line.strip()[:80] if frames[-1].line else ""
    return (" at " + said[-1] + (f" (`{line}`)" if line else "")
            + (", called through " + " -> ".join(said[:-1]) if len(said) > 1 else ""))


async def _wait(awaitable):
    return await awaitable
