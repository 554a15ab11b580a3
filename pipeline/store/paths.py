"""Where this tool keeps what outlives a run: the cache of models and kernels (RLAIF_CACHE,
default ~/.cache/rlaif; the judge cache is <run.dir>/.judge-cache, shared by the runs there, or judge.cache_dir).
Nothing but the standard library, so that `make setup` can build the CPU kernels before the rest
of the dependencies are installed."""
from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    return Path(os.environ.get("RLAIF_CACHE", Path.home() / ".cache" / "rlaif"))
