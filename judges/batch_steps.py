"""The provider-facing steps of a batch (judges/batch.py runs them): submitting one with its keys journaled
first, telling whether the provider still knows a journaled one, and reading one that ended into the cache."""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from judges.batch_records import BatchItem, Journal, Outcome

log = logging.getLogger("rlaif")


async def _known(judge: Any, client: Any, journal: Journal, local: str, bid: str, n: int) -> bool:
    """Whether the provider still knows a journaled batch. One it answers 404 for (deleted in the console,
    past its retention, another workspace behind the same URL) can never be read: abandoned in the journal,
    its requests submitted again, rather than every rerun stopping on it."""
    from judges.retries import JudgeAPIError
    try:
        await judge.batch_status(client, bid)
        return True
    except JudgeAPIError as e:
        if e.status != 404:
            raise
    journal.write({"event": "abandoned", "local": local, "batch_id": bid, "reason": "not found (404) on resume"})
    log.warning("%s batch %s (%d requests, submitted by an earlier run) is not found at %s (HTTP 404: deleted, "
                "expired, or another account's): its answers cannot be read; submitting its requests again",
                judge.kind, bid, n, judge.base_url)
    return False


async def _submit(judge: Any, client: Any, journal: Journal, chunk: list[BatchItem], local: str,
                  on_note: Callable[..., Any] = lambda d: None) -> str:
    """The batch id: the keys journaled first, the id the moment the provider returns it. on_note gets the
    uploaded file's id (OpenAI) and the batch id too (the registry's claim; the id there first, which a rerun
    reads where a kill kept it from the journal)."""
    from judges.retries import JudgeAPIError, maybe_received
    journal.write({"event": "submit", "local": local, "provider": judge.kind, "base_url": judge.base_url,
                   "model": judge.model, "role": chunk[0].role, "keys": [it.key for it in chunk]})
    try:
        bid = await judge.batch_submit(client, chunk, lambda d: (on_note(d),   # (the claim first, as for the id)
                                                                 journal.write({"event": "file", "local": local, **d})))
    except JudgeAPIError as e:
        if not maybe_received(e.status):  # refused (400, 429, 529...): nothing was created, nothing to resume
            journal.write({"event": "abandoned", "local": local, "reason": str(e)[:300]})
            raise
        raise JudgeAPIError(f"{e} The batch submission got no answer that says it was refused, so it may have "
                            "been created (not sent again); a rerun submits its requests again unless it can find "
                            "it (OpenAI: by its uploaded file)", e.status, e.attempts) from e
    try:
        on_note({"batch_id": bid})
    finally:   # (a claim that could not be written: the journal still has the id)
        journal.write({"event": "created", "local": local, "batch_id": bid})
    log.info("submitted %s batch %s: %d requests", judge.kind, bid, len(chunk))
    return bid


async def _ingest(judge, client, cache, journal, local, bid, keys, role, st, answer, stats,
                  item_of) -> dict[str, Outcome]:
    """Read one ended batch's results as they are: each answer cached under its key (never over one
    already there), priced at the batch rate. Returns the items that did not succeed."""
    from judges.base import Score
    fails: dict[str, Outcome] = {}
    seen: set[str] = set()
    expected = set(keys)
    async for out in judge.batch_results(client, bid):
        key = out.custom_id
        if key is None or key not in expected:
            log.warning("%s batch %s: a result line names no request of this batch: %.200s", judge.kind, bid, out.raw)
            continue
        seen.add(key)
        found = cache.get(key)
        if found is not None:  # read by an earlier, killed run
            answer(key, found, paid=False)
            continue
        kind_role = item_of[key].role if key in item_of else role
        if out.kind == "succeeded":
            try:
                value = judge.value(kind_role, out.raw, batch=True)
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                if kind_role != "judge":
                    fails[key] = Outcome(key, "malformed", out.raw)
                    continue
                value = Score(None, {"parse_error": f"batch result unreadable: {e}"[:200]}, out.raw).to_json()
        elif out.kind == "malformed" and kind_role == "judge":
            value = Score(None, {"parse_error": "batch result line is not JSON"}, out.raw).to_json()
        else:
            fails[key] = out
            continue
        value["batch_id"] = bid
        answer(key, value, paid=True)   # in the ledger first, as a live answer is: a kill between the two over-counts
        cache.set(key, value)
    why = f"not in the results of batch {bid} ({st.status}{': ' + st.error if st.error else ''})"
    for key in expected - seen:
        if cache.get(key) is None:
            fails[key] = Outcome(key, "missing", why, retryable=st.status != "failed")
    stats.failed += len(fails)
    journal.write({"event": "ended", "local": local, "batch_id": bid, "status": st.status,
                   "answered": len(seen) - len(fails), "failed": len(fails)})
    return fails


async def _recover(judge: Any, client: Any, cache: Any, reg: Any, running: dict, stats: Any,
                   recover: list[dict]) -> list[str]:
    """The batches of taken-over claims that hold an uploaded file and no id, as the holder's rerun would
    find them: the batch over that file, or a new one over it (claimed first: no other process makes one).
    A file some of whose answers are cached meanwhile (its batch lost since) is not created over: its claim
    is lost, and the keys still missing are returned, to be submitted anew."""
    freed: list[str] = []
    for e in recover:
        bid = await _over_upload(judge, client, cache, stats, e["file_id"], e["keys"], e, lambda d: reg.note(e, **d))
        if bid is None:
            reg.lost(e["local"])
            freed += [k for k in e["keys"] if cache.get(k) is None]
            continue
        reg.note(e, batch_id=bid)
        running[e["local"]] = (bid, e["keys"], e.get("role", "judge"))
    recover.clear()
    return freed


async def _over_upload(judge: Any, client: Any, cache: Any, stats: Any, file_id: str, keys: list[str], sent: dict,
                       note: Callable[[dict], Any]) -> str | None:
    """The batch over an upload whose creation's answer was lost (a kill, a dropped connection): the one that
    landed (_find_landed), else one created over the file now (`note` gets its moment) -- unless some of its
    keys were answered since (its batch lost, those asked anew): None then, the rest to be submitted anew
    (creating over the file would pay those twice)."""
    bid = await _find_landed(judge, client, file_id, sent)
    if bid is None and not any(cache.get(k) is not None for k in keys):
        bid = await judge.batch_submit(client, [], note, file_id=file_id)
        stats.batches += 1
    return bid


async def _find_landed(judge: Any, client: Any, file_id: str, sent: dict) -> str | None:
    """The batch over an OpenAI upload whose creation's answer was lost (a kill, a dropped connection).
    A creation sent less than its request timeout ago (sent: creating_at and timeout_s, as noted before it
    was sent) may still land: when none is found yet, it is looked for once more after that moment, rather
    than a second batch created over the same file. (A creation that lands later than its own timeout, or
    one noted by an older version, is not waited for.)"""
    bid = await judge.find_batch(client, file_id)
    limit = float(sent.get("timeout_s") or judge.timeout_s)
    wait = min(float(sent.get("creating_at") or 0) + limit - time.time(), limit)   # (a clock set back: bounded)
    if bid is None and wait > 0:
        log.info("%s: no batch over upload %s yet, and its creation was sent %.1fs ago; looking again in %.1fs, "
                 "when it would have landed", judge.kind, file_id, limit - wait, wait)
        await asyncio.sleep(wait)
        bid = await judge.find_batch(client, file_id)
    return bid
