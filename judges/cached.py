"""Cache, then call: answer jobs from the judge cache, with one live call per distinct missing key.

- Lookups first; one call per distinct missing key (also across concurrent runs in this
  process, and across processes sharing the cache directory: a lock per key in its
  `inflight.lock`, held while the call is in flight, so `rlaif judge` beside an epoch, or two
  runs asking a teacher for the same problems, pay once), each result written to the cache the
  moment it arrives (a kill -9 loses nothing already paid; the kernel drops a dead process's lock).
- A budget that stops issuing calls before it would be exceeded (BudgetExceeded once the calls
  in flight are cached), and replay mode that never calls (ReplayMiss).

The batch path (judges/batch.py) answers misses through the providers' batch APIs instead and
writes the same values under the same keys; processes sharing the cache tell each other their
batches in flight through judges/batch_registry.py, so the same keys go in one batch.
"""
from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import fcntl
import hashlib
import logging
import os
import threading
from dataclasses import asdict, dataclass
from typing import Any, Awaitable, Callable

from judges.cache import JudgeCache

log = logging.getLogger("rlaif")
REFUSED_STATUS = (400, 413, 422)
"""What the API refuses about one request (a content filter, a prompt too long), not about the run: that
request is left out and counted, the others go on, unless more than half of the stage's distinct
requests are refused (a setting every request carries, such as a parameter the model rejects, is the
run's error)."""

Job = tuple[str, Callable[[], Awaitable[dict]]]
"""(cache key, async call returning the JSON value to cache, with `cost_usd`)."""


class BudgetExceeded(RuntimeError):
    def __init__(self, spent: float, budget: float, done: int, remaining: int,
                 results: list[dict | None] | None = None, stats: "RunStats | None" = None, next_usd: float = 0.0):
        super().__init__(f"judge budget reached: spent ${spent:.4f} of ${budget:.4f}; {done} answered, {remaining} "
                         f"left unasked (everything paid for is cached). Raise judge.budget_usd and rerun to finish.")
        self.spent, self.budget, self.done, self.remaining = spent, budget, done, remaining
        self.results, self.stats = results, stats
        self.next_usd = next_usd
        """The worst case of the next call, the one that did not fit (0: not known)."""


class ReplayMiss(RuntimeError):
    def __init__(self, count: int, total: int, directory: Any = "", missing: list[int] | None = None):
        super().__init__(f"judge.mode=replay: {count} of {total} judgements are not in the cache {directory}; run with "
                         "judge.mode=live, import a teammate's cache (rlaif cache import FILE), or skip them "
                         "(skip_missing) and they are counted as missing")
        self.count, self.total = count, total
        self.missing = missing or []
        """The jobs' indices that are not in the cache, in order."""



@dataclass
class RunStats:
    api_calls: int = 0
    """Calls paid for in this run (distinct keys; retries of one call count once)."""
    cache_hits: int = 0
    """Jobs answered without a new call (in the cache, a duplicate key, or another run's call)."""
    cost_usd: float = 0.0
    """Dollars of this run's new calls."""
    saved_usd: float = 0.0
    """Dollars the answered-without-a-call jobs cost when they were paid for."""
    parse_failures: int = 0
    """Answers whose value is None (the judge's output could not be read)."""
    missing: int = 0
    """Jobs left unanswered and counted: replay with skip_missing (not in the cache), or batch items
    that failed and were not retried (judge.batch_failed)."""
    batches: int = 0
    """Batches submitted in this run."""
    resumed: int = 0
    """Batches a killed run had submitted, polled again instead of paid again."""
    failed: int = 0
    """Batch items that came back expired, errored or canceled (or not at all), before retrying them."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# (cache directory, key) -> the call in flight, shared by concurrent run_cached calls in this process
_IN_FLIGHT: dict[tuple[str, str], concurrent.futures.Future] = {}
_IN_FLIGHT_LOCK = threading.Lock()


async def _call_once(cache: JudgeCache, key: str, call: Callable[[], Awaitable[dict]],
                     on_paid: Callable[[str, float], Any] | None = None) -> tuple[dict, bool]:
    """(value, paid). One call per key in this process; the value is cached before anyone sees it, and its
    price handed to `on_paid` before that (a cache write that fails has still paid)."""
    slot = (str(cache.directory), key)
    with _IN_FLIGHT_LOCK:
        fut = _IN_FLIGHT.get(slot)
        owner = fut is None
        if owner:
            found = cache.get(key)  # under the lock: a finished call is either here or still in _IN_FLIGHT
            if found is not None:
                return found, False
            fut = _IN_FLIGHT[slot] = concurrent.futures.Future()
            fut.set_running_or_notify_cancel()  # a cancelled waiter must not cancel the shared call
    if not owner:
        return await asyncio.wrap_future(fut), False
    off = None
    try:
        off, found = await _key_lock(cache, key)   # another process calling it: its answer, not a second call
        if found is None and off is not None:
            found = cache.get(key)   # it answered between our lookup and the lock
        if found is not None:
            fut.set_result(found)
            return found, False
        value = await call()
        if not isinstance(value, dict):
            raise TypeError(f"a judge job must return a JSON dict, got {type(value).__name__}")
        if on_paid is not None:
            on_paid(key, _cost(value))
        cache.set(key, value)  # WAL commit, ~0.1 ms: cheaper inline than a thread hop under load
        fut.set_result(value)
        return value, True
    except BaseException as e:
        fut.set_exception(e)
        raise
    finally:
        _unlock(cache, off)
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.pop(slot, None)


# cache directory -> this process's descriptor of its inflight.lock, open for the process's life: closing
# any descriptor of a file drops every POSIX lock the process holds on it
_LOCK_FILES: dict[str, int | None] = {}


def _lock_fd(cache: JudgeCache) -> int | None:
    d = str(cache.directory)
    with _IN_FLIGHT_LOCK:
        if d not in _LOCK_FILES:
            try:
                # (0666 less the umask: a team's group-writable cache lets every member lock)
                _LOCK_FILES[d] = os.open(os.path.join(d, "inflight.lock"), os.O_RDWR | os.O_CREAT, 0o666)
            except OSError:   # a read-only cache (replay): nothing is called, nothing to lock
                _LOCK_FILES[d] = None
        return _LOCK_FILES[d]


async def _key_lock(cache: JudgeCache, key: str) -> tuple[int | None, dict | None]:
    """(the locked byte's offset, None) once this process holds key's lock in the cache directory's
    inflight.lock (a byte range per key: two processes missing one key take turns), or (None, value) as
    soon as another process's call for it is in the cache. (None, None): no lock file to hold."""
    fd = _lock_fd(cache)
    if fd is None:
        return None, None
    off = int(hashlib.sha256(key.encode()).hexdigest()[:12], 16)   # the same byte in every process
    wait = 0.02
    while True:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, off)
            return off, None
        except (BlockingIOError, PermissionError):   # another process is calling it
            found = cache.get(key)
            if found is not None:
                return None, found
            await asyncio.sleep(wait)
            wait = min(0.5, wait * 2)
        except OSError as e:   # a file system without locks (NFS without lockd, some FUSE mounts): none held
            log.debug("judge cache %s: no per-key lock (%s); concurrent processes may both pay", cache.directory, e)
            with _IN_FLIGHT_LOCK:
                _LOCK_FILES[str(cache.directory)] = None
            return None, None


def _unlock(cache: JudgeCache, off: int | None) -> None:
    fd = _LOCK_FILES.get(str(cache.directory))
    if off is not None and fd is not None:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, off)


def _cost(v: dict | None) -> float:
    return float(v.get("cost_usd") or 0.0) if isinstance(v, dict) else 0.0


async def run_cached(cache: JudgeCache, jobs: list[Job], *, mode: str = "live", budget_usd: float = 0.0,
                     estimate_usd: float | Callable[[int], float] = 0.0, spent_usd: float = 0.0,
                     max_in_flight: int = 64, skip_missing: bool = False,
                     progress: Callable[[int], Any] | None = None,
                     on_paid: Callable[[str, float], Any] | None = None) -> tuple[list[dict | None], RunStats]:
    """Answer every job from the cache or with one call per distinct missing key.

    jobs: (cache key, async call returning a JSON dict with `cost_usd`). estimate_usd: dollars a
    call may cost, a number or a function of the job index (an upper bound keeps the budget).
    budget_usd: 0 = no limit; otherwise no call is issued when spent_usd + this run's spend +
    estimates of calls in flight + its own estimate would exceed it, and BudgetExceeded is raised
    once the calls in flight are done and cached. max_in_flight: calls issued at once (match the
    judge limiter's; it also bounds what still goes out after an error or a budget stop).
    mode="replay": never calls; misses raise ReplayMiss, or with skip_missing are None and counted.
    progress: called with the number of jobs just answered (tqdm's `update` fits).
    on_paid: called with (key, dollars) as each paid answer arrives, before anything else can fail
    (the run's spend ledger: a stage stopped by the budget, an error or Ctrl-C has still paid).
    """
    results: list[dict | None] = [None] * len(jobs)
    stats = RunStats()
    by_key: dict[str, list[int]] = {}
    for i, (key, _) in enumerate(jobs):
        by_key.setdefault(key, []).append(i)

    def answer(key: str, value: dict, paid: bool) -> None:
        idx = by_key[key]
        for i in idx:
            results[i] = value
        if paid:   # (its price went to on_paid as it arrived, before the cache write)
            stats.api_calls += 1
            stats.cost_usd += _cost(value)
        free = len(idx) - paid
        stats.cache_hits += free
        stats.saved_usd += free * _cost(value)
        if progress is not None:
            progress(len(idx))

    misses: collections.deque[str] = collections.deque()
    for key in by_key:
        found = cache.get(key)
        if found is not None:
            answer(key, found, paid=False)
        else:
            misses.append(key)

    if misses and mode == "replay":
        stats.missing = sum(len(by_key[k]) for k in misses)
        if not skip_missing:
            raise ReplayMiss(stats.missing, len(jobs), cache.directory, sorted(i for k in misses for i in by_key[k]))
        misses.clear()
    elif mode not in ("live", "replay"):
        raise ValueError(f"mode must be live or replay, got {mode!r}")

    estimate = estimate_usd if callable(estimate_usd) else (lambda i: float(estimate_usd))
    pending: dict[asyncio.Future, tuple[str, float]] = {}
    reserved = 0.0
    error: BaseException | None = None
    over_budget = False

    refused: list[BaseException] = []

    def settle(task: asyncio.Future) -> None:
        nonlocal reserved, error
        key, est = pending.pop(task)
        reserved -= est
        exc = task.exception()
        if exc is not None and getattr(exc, "status", None) in REFUSED_STATUS:
            refused.append(exc)   # results stay None for this key's jobs
            stats.missing += len(by_key[key])
            if len(refused) > len(by_key) / 2:
                error = error or refused[0]   # most refused: a setting they all carry, not one request
            if progress is not None:
                progress(len(by_key[key]))
        elif exc is not None:
            error = error or exc
        else:
            answer(key, *task.result())

    try:
        while True:
            while misses and error is None and not over_budget and len(pending) < max(1, max_in_flight):
                key = misses[0]
                est = estimate(by_key[key][0])
                if budget_usd > 0 and spent_usd + stats.cost_usd + reserved + est > budget_usd:
                    if pending:
                        break  # wait: a call finishing below its estimate may leave room
                    over_budget = True
                    break
                misses.popleft()
                reserved += est
                pending[asyncio.ensure_future(_call_once(cache, key, jobs[by_key[key][0]][1], on_paid))] = (key, est)
            if not pending:
                break
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                settle(t)
    finally:
        if pending:  # cancelled from outside: stop the calls in flight too (what already arrived is cached)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    stats.parse_failures = sum(1 for v in results if isinstance(v, dict) and "value" in v and v["value"] is None)
    if error is not None:
        raise error
    if refused:
        log.warning("%d requests were refused and are left out, counted (a rerun asks for them again); the first: %s",
                    len(refused), refused[0])
    if over_budget or misses:
        answered = sum(v is not None for v in results)
        raise BudgetExceeded(spent_usd + stats.cost_usd, budget_usd, answered, len(jobs) - answered, results, stats,
                             next_usd=estimate(by_key[misses[0]][0]) if misses else 0.0)
    return results, stats
