"""Whether a finished stage is still what this run would make: its code (`older_code`: the harnesses, the
rubric, a reward function's file that changed since) and its inputs' contents (`stale_inputs`).

A stage's fingerprint hashes its config and its inputs' fingerprints, not their contents: an input remade
at the same fingerprint (a file of it was missing or corrupted, and a runtime-only setting such as
sample.engine, or another machine's kernels, made it anew) may hold other rows than the ones a later
stage read. So each stage's manifest records its inputs' content digests (`input_digests`), and a stage
whose input moved since is remade, not reused."""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.store.artifacts import content_digest, load_complete

if TYPE_CHECKING:
    from pipeline.config.schema import Config
    from pipeline.stages import Stage


def reusable(d: Path, fp: str, inputs: dict[str, Path | None]) -> tuple[dict | None, list[str]]:
    """(the finished, intact output d's manifest at fingerprint fp, else None; its inputs that moved since it
    read them, which make it None too)."""
    m = load_complete(d, fp)
    stale = stale_inputs(m, inputs) if m is not None else []
    return (None if stale else m), stale


def stale_inputs(m: dict, inputs: dict[str, Path | None]) -> list[str]:
    """The inputs of finished stage `m` whose contents moved since it read them (remade at the same
    fingerprint); [] for a manifest from before digests were recorded."""
    then = m.get("input_digests") or {}
    return [k for k, v in then.items() if k in inputs and content_digest(inputs[k]) not in (None, v)]


def older_code(cfg, st, m: dict | None, memo: dict | None = None) -> dict[str, tuple]:
    """What of a finished stage's code (Stage.code: the harnesses, the rubric, a reward function's file)
    differs from this version's: {part: (then, now)}; {} when nothing does, or it cannot be told (a
    reward function that no longer imports: the run says so when it needs it). memo: this version's
    code per Stage.code, kept by a caller that asks for many epochs (`rlaif status`)."""
    old = (m or {}).get("code")
    if not st.code or old is None:
        return {}
    memo = {} if memo is None else memo
    if st.code not in memo:
        try:
            module, name = st.code.split(":")
            memo[st.code] = getattr(importlib.import_module(module), name)(cfg)
        except Exception:   # noqa: BLE001  a reading command must not fail on what only a run needs
            memo[st.code] = None
    now = memo[st.code]
    if now is None:
        return {}
    return {k: (old.get(k), v) for k, v in now.items() if old.get(k) != v}


def made_otherwise(cfg: Config, st: Stage, m: dict | None) -> list[str]:
    """What stage `st`'s output (its manifest `m`) was made with otherwise than this config and code: 'key
    old -> new' for each config field, and 'the judge stage's code (version 1 -> 2)'. None of them: its
    inputs changed (another policy, a stage before it), or it was never made. Every message that says
    why a stage is stale, remade or refused says it with these words."""
    moved = _moved_from(cfg, st, m)
    if (m or {}).get("version") not in (None, st.version):
        moved.append(f"the {st.name} stage's code (version {m['version']} -> {st.version})")
    return moved


def _moved_from(cfg: Config, st: Stage, m: dict | None) -> list[str]:
    old = (m or {}).get("config") or {}
    now = json.loads(json.dumps({f: cfg.get(f) for f in st.fields}, default=str))
    # eval_judge holds the judge's own keys (judge.python.weights): said as those, which a user can type
    return list(dict.fromkeys(_typed(x.removeprefix("eval_judge.")) for k in now if k in old for x in _moved(k, old[k], now[k])))


def _typed(said: str) -> str:
    """A fingerprint's derived field said as what a user sets: judge_panel is judge.models; an SDK's endpoint
    (judge_endpoints, teacher_endpoint) its environment variable."""
    if said.startswith("judge_panel"):   # (None: no member of its own, judge.models={})
        return "judge.models" + said.removeprefix("judge_panel").replace(" None -> ", " {} -> ").removesuffix(" -> None") + (
            " -> {}" if said.endswith(" -> None") else "")
    for field, who in (("judge_endpoints", "judge"), ("teacher_endpoint", "teacher")):
        if said.startswith(field + "."):
            kind, _, rest = said.removeprefix(field + ".").partition(" ")
            return f"{kind.upper()}_BASE_URL (the {who}'s endpoint) {rest}"
        if said.startswith(field):
            return f"ANTHROPIC_BASE_URL/OPENAI_BASE_URL (the {who}'s endpoints){said.removeprefix(field)}"
    return said


def _moved(key: str, old: Any, new: Any) -> list[str]:
    """'key old -> new' for each leaf that differs (a section's keys one by one)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [x for k in sorted(set(old) | set(new)) for x in _moved(f"{key}.{k}", old.get(k), new.get(k))]
    return [] if old == new else [f"{key} {old!r} -> {new!r}"]
