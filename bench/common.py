"""Shared bits of the benchmarks: machine/version header and appending to bench/RESULTS.md."""
from __future__ import annotations

import datetime as dt
import os
import platform
from importlib.metadata import version
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
PACKAGES = ("torch", "transformers", "peft", "trl", "accelerate", "datasets")


def cpu() -> str:
    """The CPU's model name and the matrix extensions its bf16 kernels use (amx_bf16, avx512_bf16):
    the machines this bench runs on differ, and with them every CPU figure."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown CPU"
    name = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "unknown CPU")
    flags = next((ln.split(":", 1)[1].split() for ln in info.splitlines() if ln.startswith("flags")), [])
    ext = [f for f in ("amx_bf16", "avx512_bf16") if f in flags]
    return f"{name} ({', '.join(ext) or 'no bf16 matrix extension'})"


def header(title: str) -> str:
    vers = ", ".join(f"{p} {version(p)}" for p in PACKAGES)
    return (f"## {title}\n\n{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}; {platform.machine()}, "
            f"{os.cpu_count()} cores, {cpu()}, Python {platform.python_version()}; {vers}\n\n")


def epoch_table(rows: list[dict], cols: list[str]) -> list[str]:
    """Markdown lines: one row per epoch's metrics.json, `-` where a metric is missing."""
    lines = ["| epoch | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for m in rows:
        lines.append(f"| {m['epoch']} | " + " | ".join(
            f"{m[c]:.4f}" if isinstance(m.get(c), (int, float)) else "-" for c in cols) + " |")
    return lines


def record(title: str, lines: list[str], *paragraphs: str) -> None:
    """Print and append to RESULTS.md (or to the file $RLAIF_BENCH_RESULTS names): the header, a table
    (its lines), then paragraphs."""
    body = "\n\n".join(["\n".join(lines), *paragraphs])
    text = header(title) + body.rstrip() + "\n\n"
    print(text)
    with open(os.environ.get("RLAIF_BENCH_RESULTS") or RESULTS, "a") as f:
        f.write(text)
