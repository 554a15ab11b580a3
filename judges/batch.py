"""Judge and teacher requests through the providers' batch APIs: half the price, still never paid twice.

`run_batched` answers jobs as `run_cached` does (cache first; the same keys; the same values, read
by the same parser, priced at the batch rate) but sends the misses as batches, one per provider
size limit, and polls them with backoff until they end.

Never paid twice, across kill -9:
- Before a batch is submitted, its keys are appended to the stage's journal (`batches.jsonl` in
  the stage's work directory, fsynced); the batch id is appended the moment the submission
  returns (and, for OpenAI, the uploaded file's id between upload and creation).
- A rerun reads the journal first: a journaled batch whose keys are still missing from the cache
  is polled again (its results ingested), never submitted again. An OpenAI submission killed
  between upload and the batch id is found again by its file (or created over the same file).
- The one window left: a kill after the provider accepted a batch and before its id reached the
  journal (milliseconds). That submission is lost (paid, never read); the rerun submits its
  requests again. docs/guides/judges-and-cost.md says so.
- Across processes sharing the cache: a submission is claimed in the registry (batch_registry.py)
  before it is sent; another process missing its keys waits for them, or polls the batch once its
  owner is dead.

Items that come back expired, canceled, or errored with a retryable error (or not at all) follow
`failed`: "live" (answered live, at the live price), "batch" (one more batch), "missing" (left
unanswered and counted). Non-retryable errors (an invalid request) are always left missing and
counted. A result line that is not JSON scores None with its raw text, like an unreadable live
answer. `timeout_s` stops the wait cleanly: everything ingested is in the cache, the batches keep
running at the provider, and a rerun resumes polling them.

The budget check counts each batch's worst case (every request at its max tokens, batch price)
before submitting it; batches that do not fit are not submitted (BudgetExceeded after the ones
that fit are in).
"""
from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from typing import Any, Callable

from judges.cache import JudgeCache
from judges.batch_records import BatchItem, BatchTimeout, Journal, Outcome, chunks as _chunks, kinds as _kinds
from judges.batch_registry import Registry
from judges.batch_steps import _ingest, _known, _over_upload, _recover, _submit
from judges.cached import BudgetExceeded, RunStats, _cost, run_cached

log = logging.getLogger("rlaif")


async def run_batched(cache: JudgeCache, judge: Any, items: list[BatchItem], journal: Journal, *,
                      budget_usd: float = 0.0, spent_usd: float = 0.0, poll_s: float = 30.0,
                      max_poll_s: float = 600.0, timeout_s: float = 0.0, failed: str = "live",
                      max_in_flight: int = 64, progress: Callable[[int], Any] | None = None,
                      status: Callable[[str], Any] | None = None,
                      on_paid: Callable[[str, float], Any] | None = None) -> tuple[list[dict | None], RunStats]:
    """Answer every item from the cache or through batches; results in item order (None = left missing).

    poll_s: first wait between status checks, growing 1.5x per check up to max_poll_s.
    timeout_s: 0 = wait as long as the batches run (they end within 24 hours).
    failed: live | batch | missing, for expired, canceled and retryably errored items.
    progress: called with the number of jobs just answered; status: with the provider's counts.
    on_paid: called with (key, dollars) as each paid answer is read (run_cached's).
    """
    if failed not in ("live", "batch", "missing"):
        raise ValueError(f"failed must be live, batch or missing, got {failed!r}")
    results: list[dict | None] = [None] * len(items)
    stats = RunStats()
    by_key: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        by_key.setdefault(it.key, []).append(i)
    item_of = {it.key: it for it in items}

    def answer(key: str, value: dict, paid: bool, ledgered: bool = False) -> None:
        idx = by_key.get(key)
        if paid:
            stats.cost_usd += _cost(value)
            if on_paid is not None and not ledgered:
                on_paid(key, _cost(value))
        if not idx or results[idx[0]] is not None:
            return
        for i in idx:
            results[i] = value
        stats.api_calls += paid
        free = len(idx) - paid
        stats.cache_hits += free
        stats.saved_usd += free * _cost(value)
        if progress is not None:
            progress(len(idx))

    misses = []
    for key in by_key:
        found = cache.get(key)
        if found is not None:
            answer(key, found, paid=False)
        else:
            misses.append(key)
    if not misses:
        return results, stats

    reg = Registry(cache.directory, lambda k: cache.get(k) is not None)   # the others' batches in flight
    try:
        return await _run(cache, judge, items, journal, reg, misses, by_key, item_of, results, stats, answer,
                          budget_usd, spent_usd, poll_s, max_poll_s, timeout_s, failed, max_in_flight, status,
                          on_paid)
    finally:
        reg.close()


async def _run(cache, judge, items, journal, reg, misses, by_key, item_of, results, stats, answer, budget_usd,
               spent_usd, poll_s, max_poll_s, timeout_s, failed, max_in_flight, status, on_paid):
    client = await judge._client()
    running: dict[str, tuple[str, list[str], str]] = {}  # local id -> (batch id, keys, role)
    waiting: dict[str, set[str]] = {}   # another process's submission (local id) -> the keys wanted from it
    taken: set[str] = set()   # the dead holders' submissions polled here
    missing_now = set(misses)

    # 1. a killed run's batches: poll them again, never submit their keys again (another process polling
    # one already, having taken it over: its answers are waited for)
    for local, e in journal.entries().items():
        done = {"ended", "abandoned"} & set(e["events"])
        if not done and "keys" not in e and e.get("batch_id"):
            log.warning("%s: batch %s has no submit line (a damaged journal): its requests cannot be told and may be "
                        "submitted again", journal.path, e["batch_id"])
        if done or e.get("provider") != judge.kind or e.get("base_url") != judge.base_url:
            continue
        if not missing_now & set(e["keys"]):
            continue
        with reg.locked():
            theirs, alive = reg.state(local)
            if alive:
                waiting[local] = missing_now & set(e["keys"])
                missing_now -= set(e["keys"])
                continue
            bid = e.get("batch_id") or (theirs or {}).get("batch_id")   # (the claim's, where a kill beat the journal)
            file_id = e.get("file_id") or (theirs or {}).get("file_id")
            entry = {**_entry(judge, local, e["keys"], e.get("role", "judge"), bid), **({"file_id": file_id} if file_id else {})}
            reg.hold(entry)
        if bid and not e.get("batch_id"):
            journal.write({"event": "created", "local": local, "batch_id": bid})
        if bid is None and file_id and hasattr(judge, "find_batch"):
            # OpenAI, killed between upload and the batch id: the batch over that file, or a new one over it
            sent = max((e, theirs or {}), key=lambda x: x.get("creating_at", 0))   # (the journal's, or the claim's)
            bid = await _over_upload(judge, client, cache, stats, file_id, e["keys"], sent, lambda d: (
                reg.note(entry, **d), journal.write({"event": "file", "local": local, **d})))
            if bid is not None:
                reg.note(entry, batch_id=bid)
                journal.write({"event": "created", "local": local, "batch_id": bid})
        if bid is None:
            journal.write({"event": "abandoned", "local": local, "reason": "killed before its id was journaled"})
            log.warning("a batch of %d requests was submitted by a killed run before its id was journaled: if "
                        "%s received it, it is paid and cannot be read (docs/guides/judges-and-cost.md, Batches). Submitting its requests "
                        "again.", len(e["keys"]), judge.kind)
            reg.lost(local)
            continue
        if not await _known(judge, client, journal, local, bid, len(e["keys"])):
            reg.lost(local)
            continue
        log.info("resuming %s batch %s (%d requests) submitted by an earlier run", judge.kind, bid, len(e["keys"]))
        running[local] = (bid, e["keys"], e.get("role", "judge"))
        stats.resumed += 1
        missing_now -= set(e["keys"])

    def estimate(key: str) -> float:
        it = item_of.get(key)
        return judge.estimate_body_usd(it.body, batch=True) if it is not None else 0.0

    async def ask_live(retry: list[str]) -> bool:
        """Items a batch did not answer, asked live (live price); whether the budget stopped them."""
        paid_now: set[str] = set()   # (an answer another process paid for arrives unpaid here)

        def paid_live(k: str, usd: float) -> None:
            paid_now.add(k)
            if on_paid is not None:
                on_paid(k, usd)   # each paid live answer in the ledger as it arrives
        stopped = False
        try:
            live, _ = await run_cached(cache, [(k, item_of[k].live) for k in retry], budget_usd=budget_usd,
                                       spent_usd=spent_usd + stats.cost_usd, max_in_flight=max_in_flight,
                                       estimate_usd=lambda i: judge.estimate_body_usd(item_of[retry[i]].body),
                                       on_paid=paid_live)
        except BudgetExceeded as e:
            live, stopped = e.results or [], True
        for k, v in zip(retry, live):
            if v is not None:
                answer(k, v, paid=k in paid_now, ledgered=True)
        return stopped

    # worst case of what is already submitted and not yet read
    reserved = sum(estimate(k) for _, keys, _ in running.values() for k in keys)
    over_budget = resubmitted = False
    t0 = time.monotonic()
    to_submit = [k for k in misses if k in missing_now]
    left_missing: dict[str, str] = {}
    attempt = 0
    while True:   # failed=batch's one more batch; keys another process's claim freed (a few times); the budget's rounds
        # 2. submit what is missing and no other process has in flight, as far as the budget's worst case allows
        fit: list[str] = []
        recover: list[dict] = []
        with reg.locked():
            for k, v in [(k, cache.get(k)) for k in to_submit]:   # answered meanwhile (another's batch)
                if v is not None:
                    answer(k, v, paid=False)
            to_submit = [k for k in to_submit if results[by_key[k][0]] is None]
            for e, alive in reg.others(judge.kind, judge.base_url, set(to_submit)):
                mine = set(e["keys"]) & set(to_submit)
                if alive:   # its holder polls it: its answers reach the cache
                    waiting[e["local"]] = mine
                else:       # its holder was killed: polled here (its answers count as paid here)
                    _take_over(reg, judge, running, taken, stats, e, recover)
                    reserved += e.get("usd") or sum(estimate(k) for k in e["keys"])
                to_submit = [k for k in to_submit if k not in mine]
            for k in to_submit:
                est = estimate(k)
                if budget_usd > 0 and spent_usd + stats.cost_usd + reserved + est > budget_usd:
                    over_budget = True
                    break
                fit.append(k)
                reserved += est
            chunks = [(uuid.uuid4().hex[:12], c) for c in _chunks(judge, [item_of[k] for k in fit])]
            entries = {local: _entry(judge, local, [it.key for it in c], c[0].role, usd=sum(
                estimate(it.key) for it in c)) for local, c in chunks}
            for entry in entries.values():
                reg.hold(entry)   # claimed before submitted: another process waits for them
            reg.let_go()   # (only now: a process waiting on the kept claims finds the new ones)
        late = await _recover(judge, client, cache, reg, running, stats, recover)
        for local, chunk in chunks:
            bid = await _submit(judge, client, journal, chunk, local, lambda d: reg.note(entries[local], **d))
            running[local] = (bid, [it.key for it in chunk], chunk[0].role)   # (refused or lost: claim unlocked)
            stats.batches += 1
        # 3. poll with backoff until every batch has ended, then read its results
        fails, freed = await _wait_and_ingest(judge, client, cache, journal, running, answer, stats, results,
                                              poll_s, max_poll_s, t0, timeout_s, status, item_of, reg, waiting, taken,
                                              early=attempt < 3 and not over_budget, retrying=failed != "missing")
        freed += late
        reserved = sum(estimate(k) for _, keys, _ in running.values() for k in keys)   # (still running: an early return)
        retry = [k for k, o in fails.items() if o.retryable and k in by_key]
        for k, o in fails.items():
            if k in by_key and not o.retryable:
                left_missing[k] = o.raw
        again = [k for k in freed if k in by_key]
        if failed == "batch" and not resubmitted and retry and not over_budget:
            log.warning("%d batch requests came back %s; submitting them in a new batch", len(retry),
                        _kinds(fails, retry))
            again, retry, resubmitted = again + retry, [], True
        if failed == "live" and retry and not over_budget:
            log.warning("%d batch requests came back %s; asking them live (live price)", len(retry),
                        _kinds(fails, retry))
            over_budget = await ask_live(retry) or over_budget
        else:
            left_missing.update({k: fails[k].raw for k in retry})
        # the budget's worst case held some back: with this round's batches read (each cost about a quarter of its
        # worst case), what now fits goes in another round, as live calls go on while the next one fits
        rest = [k for k in to_submit if k not in fit and results[by_key[k][0]] is None]
        if over_budget and fit and rest and spent_usd + stats.cost_usd + reserved + estimate(rest[0]) <= budget_usd:
            over_budget, to_submit = False, again + rest
            continue   # (each such round submits one more at least: it ends)
        if not again or over_budget or attempt == 3:
            left_missing.update({k: "another process's claim of it ended before its batch was read" for k in again})
            break
        to_submit = again
        attempt += 1
    reg.let_go()
    if left_missing:
        example = next(iter(left_missing.values()))
        log.warning("%d batch requests left unanswered and counted as missing (e.g. %s)", len(left_missing),
                    example[:200])
    stats.missing = sum(len(by_key[k]) for k in by_key if results[by_key[k][0]] is None)
    stats.parse_failures = sum(1 for v in results if isinstance(v, dict) and "value" in v and v["value"] is None)
    if over_budget:
        answered = sum(v is not None for v in results)
        held = [k for k in to_submit if results[by_key[k][0]] is None]
        raise BudgetExceeded(spent_usd + stats.cost_usd, budget_usd, answered, len(items) - answered, results, stats,
                             next_usd=estimate(held[0]) if held else 0.0)
    return results, stats


def _entry(judge: Any, local: str, keys: list[str], role: str, batch_id: str | None = None, usd: float = 0.0) -> dict:
    """A submission as the registry tells the other processes of it (usd: its worst case, for a taker's budget)."""
    return {"local": local, "provider": judge.kind, "base_url": judge.base_url, "model": judge.model,
            "role": role, "keys": keys, "batch_id": batch_id, "usd": usd}


def _take_over(reg: Registry, judge: Any, running: dict, taken: set, stats: RunStats, e: dict,
               recover: list[dict]) -> None:
    """A dead holder's batch, polled by this process from now on (under reg.locked()); one it uploaded
    without the batch id (OpenAI) goes to `recover`, found or created over its file by _recover."""
    log.info("polling %s batch %s (%d requests), submitted by a process that has stopped", judge.kind,
             e.get("batch_id") or f"over file {e.get('file_id')}", len(e["keys"]))
    reg.hold(e)
    taken.add(e["local"])
    stats.resumed += 1
    if e.get("batch_id"):
        running[e["local"]] = (e["batch_id"], e["keys"], e.get("role", "judge"))
    else:
        recover.append(e)


async def _wait_and_ingest(judge, client, cache, journal, running, answer, stats, results, poll_s, max_poll_s,
                           t0, timeout_s, status, item_of, reg, waiting, taken,
                           early=False, retrying=False) -> tuple[dict[str, Outcome], list[str]]:
    """Poll every running batch until it ends, ingest each as it ends, and wait for the keys another
    process's batches hold (`waiting`: taken over if it dies). Returns the items that failed, and the keys
    to submit again: those of another process's claim that never reached its provider, or that the
    provider no longer knows (a taken-over batch's 404); with `early`, as soon as there are any."""
    from judges.retries import JudgeAPIError
    fails: dict[str, Outcome] = {}
    freed: list[str] = []
    interval = poll_s
    deadline = t0 + timeout_s if timeout_s > 0 else math.inf
    while running or waiting:
        for local, keys in list(waiting.items()):
            for k, v in [(k, cache.get(k)) for k in keys]:
                if v is not None:
                    answer(k, v, paid=False)
                    keys.discard(k)
            if keys:
                recover: list[dict] = []
                with reg.locked():
                    e, alive = reg.state(local)
                    if e is not None and not alive and (e.get("batch_id") or e.get("file_id")):   # polled here
                        _take_over(reg, judge, running, taken, stats, e, recover)
                    elif e is None:   # read (or let go unread) by its holder: is another claim on them now?
                        for o, live in reg.others(judge.kind, judge.base_url, keys):
                            mine = keys & set(o["keys"])
                            if live:
                                waiting.setdefault(o["local"], set()).update(mine)
                            elif o["local"] not in taken:   # a dead one's batch: polled here, as in phase 2
                                _take_over(reg, judge, running, taken, stats, o, recover)
                            else:
                                continue
                            keys -= mine
                freed += [k for k in await _recover(judge, client, cache, reg, running, stats, recover)
                          if k in item_of]
                if alive:
                    continue
                if e is not None and not (e.get("batch_id") or e.get("file_id")):   # died before any id: ours
                    freed += [k for k in keys if cache.get(k) is None and k in item_of]
                elif e is None:   # what its holder left unanswered follows `failed`, as here
                    lost = {k: Outcome(k, "missing", "another process's batch ended without it")
                            for k in keys if cache.get(k) is None}
                    fails.update(lost)
                    stats.failed += len(lost)
                    for k in keys - set(lost):
                        answer(k, cache.get(k), paid=False)
            waiting.pop(local, None)
        counts: dict[str, int] = {}
        done = total = 0
        for local, (bid, keys, role) in list(running.items()):
            try:
                st = await judge.batch_status(client, bid)
            except JudgeAPIError as e:
                if e.status != 404 or local not in taken:
                    raise
                log.warning("%s batch %s, taken over from a process that stopped, is not found (HTTP 404): "
                            "submitting its requests again", judge.kind, bid)
                del running[local]
                reg.lost(local)   # (held until its keys are claimed again)
                freed += [k for k in keys if cache.get(k) is None and k in item_of]
                stats.resumed -= 1
                continue
            for k, v in st.counts.items():
                counts[k] = counts.get(k, 0) + v
            done, total = done + st.done, total + st.total
            if st.ended:  # a download cut short is read again (what it cached already is then a hit)
                lost = await judge.with_retries(lambda: _ingest(judge, client, cache, journal, local, bid, keys, role,
                                                                st, answer, stats, item_of))
                fails.update(lost)
                del running[local]
                held = retrying and any(o.retryable and k in item_of for k, o in lost.items())
                reg.keep(local) if held else reg.release(local)   # (held while those are asked again)
        if status is not None:
            status(f"{len(running)} batches running, {done}/{total} done "
                   + (f"({len(waiting)} more another process polls) " if waiting else "") +
                   " ".join(f"{k}={v}" for k, v in counts.items()))
        if not running and not waiting or (freed and early):   # (freed: claimed and submitted now, not after
            break                                                 # the rest: a holder waiting on them meanwhile)
        now = time.monotonic()
        if now >= deadline:
            raise BatchTimeout(timeout_s, [bid for bid, _, _ in running.values()] +
                               [f"{local} (another process's)" for local in waiting], results, stats)
        await asyncio.sleep(min(interval, deadline - now))
        interval = min(interval * 1.5, max(max_poll_s, poll_s))
    return fails, freed
