"""Shared bits of the benchmarks: machine/version header and appending to bench/RESULTS.md."""
from __future__ import annotations

import datetime as dt
import os
import platform
from importlib.metadata import version
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
PACKAGES = ("torch", "transformers", "peft", "trl", "accelerate", "datasets")


def header(title: str) -> str:
    vers = ", ".join(f"{p} {version(p)}" for p in PACKAGES)
    return (f"## {title}\n\n{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}; {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}; {vers}\n\n")


def record(title: str, body: str) -> None:
    text = header(title) + body.rstrip() + "\n\n"
    print(text)
    with open(RESULTS, "a") as f:
        f.write(text)
