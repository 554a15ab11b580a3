"""The report's metrics table: epochs as columns, a sparkline and a first -> last change per metric.

A training metric's trend reads the RL epochs (1, 2, ...) when there are two of them: epoch 0 is the
supervised warm-start (its loss, entropy and learning rate are of SFT on the teacher's answers), as
the flags read it (pipeline/metrics/flags.py). eval/* rows keep epoch 0, the base model's eval, as
their baseline. A row is "flat" only when every value is the same; a change is better or worse only
for a metric with a good direction, and where an interval says so (`words`) its verdict instead.
"""
from __future__ import annotations

import json
import math
from typing import Any

from pipeline.metrics.doc import METRICS, as_number, metric_info


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool) or isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if v == int(v) and abs(v) < 1e6:
            return str(int(v))
        return f"{v:,.0f}" if abs(v) >= 10000 else f"{v:.4g}"
    if isinstance(v, (dict, list)):   # a judge.mix component's breakdown: JSON, as `rlaif judge` prints it
        return json.dumps(v, default=str, separators=(", ", ": "))
    return str(v)


_SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float | None]) -> str:
    nums = [v for v in values if v is not None]
    if not nums:
        return ""
    lo, hi = min(nums), max(nums)
    flat = _same(lo, hi)   # the same figure summed in another order (1e-16 apart) draws flat, as the text says
    return "".join("·" if v is None else _SPARK[3] if flat else _SPARK[round((v - lo) / (hi - lo) * 7)]
                   for v in values)


def stage_times(ms: list[dict], order: list[str] = ()) -> list[str]:
    """time/<stage>_s keys present, in stage order (then the rest, sorted)."""
    present = {k for m in ms for k in m if k.startswith("time/") and k.endswith("_s") and k != "time/epoch_s"}
    first = [f"time/{name}_s" for name in order if f"time/{name}_s" in present]
    return first + sorted(present - set(first))


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def rl_only(key: str, epochs: list[int], values: list[float | None]) -> bool:
    """Whether `key`'s trend leaves epoch 0 out: a training metric (not eval/*) with values at epoch 0
    and at two RL epochs or more."""
    has = {e for e, v in zip(epochs, values) if v is not None}
    return not key.startswith("eval/") and 0 in has and len(has - {0}) >= 2


def trend(key: str, values: list[float | None], words: dict[str, str] | None = None,
          epochs: list[int] | None = None) -> tuple[str, str]:
    """(sparkline, 'first -> last' change with arrow and better/worse when the metric has a direction;
    words[key], where given, replaces better/worse: an interval's verdict, e.g. within noise).
    epochs: the values' epochs (default 0, 1, ...); a training metric's trend leaves epoch 0 out
    (`rl_only`). A series that moved and came back says where it peaked or dipped, not 'flat'."""
    epochs = list(range(len(values))) if epochs is None else list(epochs)
    spark = None
    if rl_only(key, epochs, values):   # epoch 0 is drawn as not read (·), the RL epochs scaled alone
        epochs, values = zip(*[(e, v) for e, v in zip(epochs, values) if e >= 1])
        spark = "·" + sparkline(list(values))
    pts = [(e, v) for e, v in zip(epochs, values) if v is not None]
    spark = spark or sparkline(list(values))
    if len(pts) < 2:
        return spark, "-"
    (_, a), (_, b) = pts[0], pts[-1]
    if all(_same(v, a) for _, v in pts):
        return spark, f"flat at {_fmt(a)}"
    if _same(a, b):   # moved and came back: say where to
        (e_lo, lo), (e_hi, hi) = min(pts, key=lambda p: p[1]), max(pts, key=lambda p: p[1])
        where = (f"peaks at epoch {e_hi} ({_fmt(hi)})" if _same(lo, a) else
                 f"dips at epoch {e_lo} ({_fmt(lo)})" if _same(hi, a) else
                 f"between {_fmt(lo)} (epoch {e_lo}) and {_fmt(hi)} (epoch {e_hi})")
        return spark, f"{_fmt(a)} → {_fmt(b)}, {where}"
    arrow = "↑" if b > a else "↓"
    share = 100 * (b - a) / abs(a) if a and a * b >= 0 else None   # across 0 (a policy loss's sign) a share means nothing
    pct = "" if share is None else f" ({share:+.0f}%)" if abs(share) >= 0.5 else f" ({share:+.1g}%)"   # not "-0%"
    info = metric_info(key)
    verdict = ""
    if words and key in words:
        verdict = f" {words[key]}"
    elif info and info.good in ("higher", "lower"):
        verdict = " better" if (b > a) == (info.good == "higher") else " worse"
    return spark, f"{_fmt(a)} → {_fmt(b)} {arrow}{pct}{verdict}"


def table_keys(ms: list[dict], stage_order: list[str] = ()) -> list[str]:
    """The rows: documented metrics in the glossary's order, stage times in stage order, then the rest.
    Keys starting with "_" are annotations, not metrics."""
    keys = [k for k in METRICS if any(k in m for m in ms)]
    stages = stage_times(ms, stage_order)
    keys = [k for k in keys if k != "time/epoch_s"] + stages + (["time/epoch_s"] if any("time/epoch_s" in m for m in ms) else [])
    return keys + sorted({k for m in ms for k in m if k != "epoch" and k not in keys and not k.startswith("_")})


def metrics_table(ms: list[dict], max_epochs: int = 12, stage_order: list[str] = (),
                  words: dict[str, str] | None = None) -> str:
    """Metrics as rows, epochs as columns (the first and the last max_epochs-1 when there are many)."""
    shown = ms if len(ms) <= max_epochs else [ms[0], *ms[-(max_epochs - 1):]]
    cols = [str(m["epoch"]) for m in shown]
    if len(ms) > max_epochs:
        cols[1] = "… " + cols[1]
    lines = ["| metric | good | " + " | ".join(cols) + " | trend | first → last |",
             "|---|---|" + "---:|" * len(cols) + "---|---|"]
    epochs = [int(m["epoch"]) for m in ms]
    for k in table_keys(ms, stage_order):
        info = metric_info(k)
        spark, change = trend(k, [as_number(m.get(k)) for m in ms], words, epochs)
        lines.append(f"| `{k}` | {(info.good if info else '') or '-'} | "
                     + " | ".join(_fmt(m.get(k)) for m in shown) + f" | {spark or '-'} | {change} |")
    return "\n".join(lines)


def legend(ms: list[dict]) -> str:
    """The words above the table: how to read it, and which epochs a trend reads."""
    text = ("Rows are metrics, columns epochs; `good` says which way is better (glossary at the end). `flat` means "
            "every epoch alike; a row that moved and came back says where it peaked or dipped. A row's `better` or "
            "`worse` is its change's direction alone, with no interval behind it; the eval and reward rows that "
            "have one give its verdict instead (`within noise`).")
    epochs = [int(m["epoch"]) for m in ms]
    if 0 in epochs and sum(e >= 1 for e in epochs) >= 2:
        text += (" The trend and first → last of a training metric read the RL epochs (1, 2, ...) only: epoch 0 "
                 "is the supervised warm-start, whose loss, entropy and learning rate are of SFT on the teacher's "
                 "answers (its sparkline shows epoch 0 as ·, like a missing value); `eval/*` rows start at epoch "
                 "0, the base model's eval.")
    return text
