"""What a run has paid for API calls: its spend ledger (spend.jsonl, every paid call as it returns) and the
finished stages' figures; what judge.budget_usd is held to and what the report and `rlaif status` print."""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Callable

from pipeline.config.errors import RunError
from pipeline.store.artifacts import read_manifest


SPEND_LEDGER = "spend.jsonl"
"""The run's paid calls, one JSON line each ({"stage", "key", "usd"}), appended as each answer arrives;
its first line ({"baseline": {stage: usd}}) holds what finished stages had paid before it existed."""


def manifest_spend(run_dir: Path) -> dict[str, float]:
    """Dollars per stage (judge, teacher) in the figures of every finished output: a stage stopped
    by the budget, an error or Ctrl-C left no manifest, and a recomputed one replaced its own."""
    out: dict[str, float] = {}
    for m in run_dir.glob("epoch-*/[!.]*/manifest.json"):   # not a killed rename's .tmp-/.trash- copy
        fig = (read_manifest(m.parent) or {}).get("figures", {})
        for stage, key in (("judge", "judge/cost_usd"), ("teacher", "teacher/cost_usd"), ("judge", "eval/judge_cost_usd")):
            if fig.get(key):   # (the eval's judgements of its problems without tests are the judge's spend)
                out[stage] = out.get(stage, 0.0) + float(fig[key])
    return out


def run_spend(run_dir: Path) -> dict[str, float]:
    """Dollars this run has paid, per stage: its spend ledger where it has one (every paid call, the
    stages that did not finish included), else its finished outputs' figures."""
    path = run_dir / SPEND_LEDGER
    if not path.exists():
        return manifest_spend(run_dir)
    out: dict[str, float] = {}
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1 or not line.endswith("}"):
                continue  # a line cut by a kill: its call is in the cache, its dollars are a few cents
            raise RunError(f"{path}: line {i + 1} is not JSON; the run's spend cannot be read. Fix or delete "
                           "that line (deleting the file falls back to the finished stages' figures)") from None
        if "done" in rec:
            continue   # an output's attempts settled (settle), not a call
        for stage, usd in (rec.get("baseline") or {rec.get("stage", "judge"): rec.get("usd", 0.0)}).items():
            out[stage] = out.get(stage, 0.0) + float(usd)
    return out


def spent_usd(run_dir: Path) -> float:
    """Dollars this run has paid so far (judge and teacher), what judge.budget_usd is held to."""
    return sum(run_spend(run_dir).values())


def _append(run_dir: Path, recs: list[dict]) -> None:
    """Appends records to the run's ledger, which starts with what the finished stages paid before it existed."""
    path = run_dir / SPEND_LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab+") as f:   # appends; reads from anywhere
        # one writer at a time (`rlaif judge` beside a running epoch): the baseline line written once
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0, os.SEEK_END)
        lines = [] if f.tell() else [{"baseline": manifest_spend(run_dir)}]
        cut = False
        if f.tell():
            f.seek(-1, 2)
            cut = f.read(1) != b"\n"   # a line a kill cut short stays a line of its own (run_spend skips it)
        f.write((("\n" if cut else "") + "".join(json.dumps(x) + "\n" for x in lines + recs)).encode())


def spend_ledger(run_dir: Path, stage: str, out: str | None = None) -> Callable[[str, float], None]:
    """on_paid for run_cached/run_batched: appends each paid call to the run's ledger, marked with the
    output it was paid for (out: 'epoch-003/judge@<fingerprint[:16]>'; None for `rlaif judge`'s own calls)."""
    def paid(key: str, usd: float) -> None:
        _append(run_dir, [{"stage": stage, "key": key[:16], "usd": usd, **({"out": out} if out else {})}])
    return paid


def _unsettled(run_dir: Path, out: str) -> tuple[float, bool]:
    """(dollars of the ledger's calls for `out` since it was last settled, whether there are any)."""
    path = run_dir / SPEND_LEDGER
    paid, any_ = 0.0, False
    for line in (path.read_text().splitlines() if path.exists() else []):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue   # a line cut by a kill (run_spend says so where it matters)
        if rec.get("done") == out:
            paid, any_ = 0.0, False
        elif rec.get("out") == out:
            paid, any_ = paid + float(rec.get("usd", 0.0)), True
    return paid, any_


def settle(run_dir: Path, out: str, cost_usd: float, saved_usd: float) -> tuple[float, float]:
    """An output's (cost, saved) dollars over every attempt that made it: a killed or budget-stopped
    attempt's paid calls come back to the rerun as cache hits, which are its cost, not savings. Reads the
    ledger's calls for `out` since it was last settled (`settled`, once the output is on disk: a --force
    remake then starts anew). out names the output and the fingerprint it is made at, so an attempt
    under other settings is not this output's."""
    cost = max(cost_usd, _unsettled(run_dir, out)[0])
    # (saved to the nano-dollar, below any token's price: what it took back leaves no float residue)
    return cost, max(0.0, round(saved_usd - (cost - cost_usd), 9))


def settled(run_dir: Path, out: str) -> None:
    """Marks output `out`'s attempts settled: called once it is on disk (Ctx.on_success), so a kill
    before its manifest leaves them to the rerun. Nothing to mark (no paid call): nothing written."""
    if _unsettled(run_dir, out)[1]:
        _append(run_dir, [{"done": out}])
