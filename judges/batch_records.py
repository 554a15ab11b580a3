"""What a batch of judge or teacher requests keeps: the requests (BatchItem), a provider's status
and result lines (BatchStatus, Outcome), and the stage's journal of submissions that makes a batch
never paid twice across kill -9 (Journal; judges/batch.py says how). The providers' batch clients
(anthropic.py, openai.py) speak in these; batch.py runs them."""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from judges.cached import RunStats


@dataclass
class BatchItem:
    """One request: its cache key (the batch's custom_id), the body live and batch calls both send,
    whose answer it is (judge | teacher), and the same request made live."""
    key: str
    body: dict
    role: str
    live: Callable[[], Awaitable[dict]]


@dataclass
class BatchStatus:
    ended: bool
    status: str
    counts: dict[str, int]
    """The provider's own request counts (Anthropic: processing/succeeded/errored/canceled/expired;
    OpenAI: completed/failed)."""
    done: int
    total: int
    files: list[str] = field(default_factory=list)
    """OpenAI: the output and error files to read."""
    error: str = ""
    """Why the whole batch failed (OpenAI's validation errors), if it did."""


@dataclass
class Outcome:
    """One result line."""
    custom_id: str | None
    kind: str
    """succeeded | errored | expired | canceled | malformed"""
    raw: str
    """succeeded: the response JSON, read like a live one; otherwise the error or the line itself."""
    retryable: bool = True


_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def custom_id_of(line: str) -> str | None:
    """The custom_id of a result line that is not valid JSON, when it can still be read."""
    m = _CUSTOM_ID.search(line)
    return m.group(1) if m else None


class BatchTimeout(RuntimeError):
    def __init__(self, timeout_s: float, pending: list[str], results: list, stats: RunStats):
        super().__init__(f"batch_timeout={timeout_s:g}s reached with {len(pending)} batches still running "
                         f"({', '.join(pending)}); {stats.api_calls} answers of this run are in the cache. "
                         "Rerun the same command to resume polling them (nothing is submitted again)")
        self.timeout_s, self.pending, self.results, self.stats = timeout_s, pending, results, stats


class Journal:
    """Append-only JSON lines of batch events in a stage's work directory; each line fsynced before
    `write` returns. Events: submit (keys, before the submission), file (OpenAI upload), created
    (the batch id), ended (ingested), abandoned (rejected or lost)."""

    def __init__(self, directory: str | Path):
        self.path = Path(directory) / "batches.jsonl"

    def write(self, record: dict) -> None:
        new = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+b") as f:
            # a line torn by a kill mid-write is ended first, so this record is not read as part of it
            end = f.seek(0, os.SEEK_END)
            torn = end > 0 and f.seek(end - 1) >= 0 and f.read(1) != b"\n"
            f.write((("\n" if torn else "") + json.dumps({**record, "t": time.time()}) + "\n").encode())
            f.flush()
            os.fsync(f.fileno())
        if new:  # the file's directory entry must survive a crash too
            fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def entries(self) -> dict[str, dict]:
        """local id -> the merged events of one submission, in journal order."""
        out: dict[str, dict] = {}
        if not self.path.exists():
            return out
        for line in self.path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:  # a line torn by a kill mid-write: its event did not happen
                continue
            e = out.setdefault(rec["local"], {})
            e.update({k: v for k, v in rec.items() if k != "event"})
            e.setdefault("events", []).append(rec["event"])
        return out


def chunks(judge: Any, items: list[BatchItem]) -> list[list[BatchItem]]:
    """Split at the provider's documented limits on requests and bytes per batch."""
    out: list[list[BatchItem]] = [[]]
    size = 0
    for it in items:
        n = len(json.dumps(judge.batch_line(it))) + 1
        if out[-1] and (len(out[-1]) >= judge.batch_max_requests or size + n > judge.batch_max_bytes):
            out.append([])
            size = 0
        out[-1].append(it)
        size += n
    return [c for c in out if c]


def kinds(fails: dict[str, Outcome], keys: list[str]) -> str:
    kinds: dict[str, int] = {}
    for k in keys:
        kinds[fails[k].kind] = kinds.get(fails[k].kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
