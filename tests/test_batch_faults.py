"""Batches against the faults between us and the provider, through the real SDKs and the local fake server
(batch creations counted there): a gateway's 504 after the batch was created, a journal line torn by a
kill, a journaled batch the provider no longer knows, a results download cut mid-stream."""
from __future__ import annotations

import logging

import pytest

from judges.batch_records import BatchTimeout, Journal
from judges.cache import JudgeCache
from judges.retries import JudgeAPIError
from tests.fakeapi import FakeAPI
from tests.test_api_judges import PROBLEM, REF, answer
from tests.test_batch import KINDS, batched, make

CREATE = {"anthropic": "/messages/batches", "openai": "/v1/batches"}
RESULTS = {"anthropic": "/results", "openai": "/content"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_gateways_504_after_the_batch_was_created_is_not_sent_again(tmp_path, kind):
    """The provider created the batch, then a gateway answered 504: sending the creation again would pay
    for a second batch. It is not resent; OpenAI's rerun finds the batch by its uploaded file and reads it.
    A 529 (overloaded, refused up front) is retried."""
    with FakeAPI(batch_delay=0.05) as api:
        judge = make(kind, api)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(4)]
        cache = JudgeCache(tmp_path / "c")
        api.fail_path(CREATE[kind], "done_then_status", status=504)
        with pytest.raises(JudgeAPIError, match="may have been created"):
            batched(cache, judge, items, tmp_path / "w")
        assert api.batch_creates[kind] == 1
        if kind == "openai":
            results, stats = batched(cache, judge, items, tmp_path / "w")
            assert all(results) and stats.resumed == 1 and api.batch_creates[kind] == 1
            assert sorted(api.batch_items.values()) == [1] * 4
        api.fail_path(CREATE[kind], 529)
        more = [judge.score_item(PROBLEM, answer(i), REF) for i in range(10, 12)]
        results, _ = batched(cache, judge, more, tmp_path / "w2")
        assert all(results) and api.batch_creates[kind] == 2
        cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_journal_line_torn_by_a_kill_does_not_swallow_the_next_one(tmp_path, kind):
    """A kill mid-write leaves a line without its end; the next run's submit line must not be glued to it
    (it was, and lost as unreadable JSON: the batch it journaled was then submitted and paid again)."""
    with FakeAPI(batch_delay=600.0) as api:   # the batch ends when the test says, after the timeout
        judge = make(kind, api)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(3)]
        work = tmp_path / "w"
        work.mkdir()
        (work / "batches.jsonl").write_text('{"event": "submit", "local": "torn", "keys": ["ab')
        cache = JudgeCache(tmp_path / "c")
        with pytest.raises(BatchTimeout):
            batched(cache, judge, items, work, timeout_s=0.1)
        for b in api.batches.values():
            b.delay = 0.05
        results, stats = batched(cache, judge, items, work)
        assert all(results) and stats.resumed == 1 and api.batch_creates[kind] == 1
        assert sorted(api.batch_items.values()) == [1] * 3
        assert set(Journal(work).entries()) - {"torn"}
        cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_journaled_batch_the_provider_no_longer_knows_is_abandoned_not_a_wall(tmp_path, kind, caplog):
    """A journaled batch deleted in the console (or past its retention) answers 404: every rerun stopped
    on it. It is abandoned with a warning and its requests submitted again, once."""
    with FakeAPI(batch_delay=0.05) as api:
        judge = make(kind, api)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(3)]
        journal = Journal(tmp_path / "w")
        journal.write({"event": "submit", "local": "gone", "provider": kind, "base_url": judge.base_url,
                       "model": judge.model, "role": "judge", "keys": [it.key for it in items]})
        journal.write({"event": "created", "local": "gone", "batch_id": "batch_deleted_in_the_console"})
        cache = JudgeCache(tmp_path / "c")
        with caplog.at_level(logging.WARNING, logger="rlaif"):
            results, stats = batched(cache, judge, items, tmp_path / "w")
        assert all(results) and stats.resumed == 0 and api.batch_creates[kind] == 1
        assert "batch_deleted_in_the_console" in caplog.text and "not found" in caplog.text
        assert "abandoned" in journal.entries()["gone"]["events"]
        _, stats = batched(cache, judge, items, tmp_path / "w")
        assert stats.cache_hits == 3 and api.batch_creates[kind] == 1
        cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_results_download_cut_mid_stream_is_read_again(tmp_path, kind):
    """The connection lost halfway through the results file: read again (what was cached before the cut
    is a hit), not a traceback from the HTTP library."""
    with FakeAPI(batch_delay=0.05) as api:
        judge = make(kind, api)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(20)]
        cache = JudgeCache(tmp_path / "c")
        api.fail_path(RESULTS[kind], "cut")
        results, stats = batched(cache, judge, items, tmp_path / "w")
        assert all(results) and len(cache) == 20 and api.batch_creates[kind] == 1
        assert api.by_path and sum(n for p, n in api.by_path.items() if p.endswith(RESULTS[kind])) == 2
        cache.close()


def test_openai_finds_a_killed_runs_batch_past_the_first_page(tmp_path):
    """A kill between the upload and the batch id, then other runs of the organisation create 150 batches
    before the rerun: the batch over the journaled file is on the second page of the list, and found there
    (the first page alone missed it: a second batch created over the same file, paid twice)."""
    import asyncio
    import json as _json
    from judges.openai import ENDPOINT
    with FakeAPI(batch_delay=0.05) as api:
        judge = make("openai", api)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(2)]

        async def go():
            client = await judge._client()
            noted: dict = {}
            mine = await judge.batch_submit(client, items, noted.update)
            data = b"".join(_json.dumps(judge.batch_line(it)).encode() + b"\n" for it in items)
            other = await client.files.create(file=("o.jsonl", data, "application/jsonl"), purpose="batch")
            for _ in range(150):
                await client.batches.create(input_file_id=other.id, endpoint=ENDPOINT, completion_window="24h")
            return mine, await judge.find_batch(client, noted["file_id"])
        mine, found = asyncio.run(go())
        assert found == mine and api.batch_creates["openai"] == 151
