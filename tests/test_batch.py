"""Judge and teacher requests through the batch APIs, driven through the real anthropic and openai SDKs
against the local fake server: the same keys and values as live calls at the batch price, size
limits, failed items, polling, timeout, budget, and kill -9 at the worst moments (batch creations
and submitted items counted at the server)."""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judges.anthropic import AnthropicJudge
from judges.batch import run_batched
from judges.batch_records import BatchTimeout, Journal
from judges.cache import JudgeCache
from judges.cached import BudgetExceeded, run_cached
from judges.llm import cost_usd
from judges.openai import OpenAIJudge
from tests.fakeapi import FakeAPI, Fault
from tests.test_api_judges import PROBLEM, REF, answer

ROOT = Path(__file__).resolve().parents[1]
PRICES = {"fake-model": {"input": 3.0, "output": 15.0, "batch_input": 1.5, "batch_output": 7.5}}
FAST = {"backoff_s": 0.01, "max_backoff_s": 0.05, "timeout_s": 5.0, "api_key": "test-key", "prices": PRICES}
POLL = {"poll_s": 0.02, "max_poll_s": 0.05}
KINDS = ["anthropic", "openai"]
LIVE = {"anthropic": "/v1/messages", "openai": "/v1/chat/completions"}


def make(kind: str, api: FakeAPI, **kw):
    opts = {**FAST, "batch": True, **kw}
    if kind == "anthropic":
        return AnthropicJudge("fake-model", base_url=api.anthropic_url, **opts)
    return OpenAIJudge("fake-model", base_url=api.openai_url, **opts)


@pytest.fixture
def api():
    with FakeAPI(batch_delay=0.1) as a:
        yield a


def batched(cache, judge, items, work, **kw):
    return asyncio.run(run_batched(cache, judge, items, Journal(work), **{**POLL, **kw}))


@pytest.mark.parametrize("kind", KINDS)
def test_batch_answers_land_under_live_keys_at_the_batch_price(api, tmp_path, kind):
    judge = make(kind, api)
    cache = JudgeCache(tmp_path / "c")
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(6)] + [judge.generate_item(PROBLEM)]
    items.append(items[0])  # a duplicate key is asked once
    results, stats = batched(cache, judge, items, tmp_path / "w")
    assert api.batch_creates[kind] == 1 and sorted(api.batch_items.values()) == [1] * 7
    assert api.by_path[LIVE[kind]] == 0 and stats.batches == 1 and stats.api_calls == 7 and stats.cache_hits == 1
    assert len(cache) == 7 and results[-1] == results[0]
    for r in results[:6]:
        assert r["cost_usd"] == pytest.approx(cost_usd(r["usage"], "fake-model", PRICES, batch=True))
        assert r["cost_usd"] == pytest.approx(cost_usd(r["usage"], "fake-model", PRICES) / 2)
        assert r["batch_id"] and judge.parse_score(r["raw"], batch=True).to_json() == {
            k: v for k, v in r.items() if k not in ("batch_id", "parser")}  # the raw answer re-parses to the same value
    assert results[6]["text"] == api.teacher and stats.cost_usd == pytest.approx(sum(r["cost_usd"] for r in results[:7]))

    # interchangeable with live answers: the same requests asked live are cache hits, the same scores
    live_judge = make(kind, api, batch=False)
    again, lstats = asyncio.run(run_cached(cache, [(it.key, it.live) for it in items]))
    assert lstats.api_calls == 0 and api.by_path[LIVE[kind]] == 0 and again == results
    fresh = JudgeCache(tmp_path / "live")
    live, _ = asyncio.run(run_cached(fresh, [live_judge.score_job(PROBLEM, answer(i), REF) for i in range(6)]))
    assert [r["value"] for r in live] == [r["value"] for r in results[:6]]
    assert [r["breakdown"] for r in live] == [r["breakdown"] for r in results[:6]]
    # and a batch run over live answers submits nothing
    _, bstats = batched(fresh, judge, items[:6], tmp_path / "w2")
    assert bstats.batches == 0 and api.batch_creates[kind] == 1
    cache.close()
    fresh.close()


@pytest.mark.parametrize("kind", KINDS)
def test_batches_split_at_the_size_limits(api, tmp_path, kind):
    cache = JudgeCache(tmp_path / "c")
    judge = make(kind, api, batch_max_requests=3)
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(8)]
    _, stats = batched(cache, judge, items, tmp_path / "w")
    assert stats.batches == api.batch_creates[kind] == 3 and sorted(api.batch_items.values()) == [1] * 8
    one = len(json.dumps(judge.batch_line(items[0]))) + 1
    judge = make(kind, api, batch_max_bytes=2 * one + 10)  # two requests per batch by size
    items = [judge.score_item(PROBLEM, answer(100 + i), REF) for i in range(5)]
    _, stats = batched(cache, judge, items, tmp_path / "w")
    assert stats.batches == 3 and api.batch_creates[kind] == 6 and len(cache) == 13
    cache.close()


OUTCOMES = {"ITEM-0001": "expired", "ITEM-0002": "errored", "ITEM-0003": "invalid", "ITEM-0004": "malformed"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("failed", ["live", "batch", "missing"])
def test_failed_items_follow_batch_failed(api, tmp_path, kind, failed):
    def outcome(body: dict) -> str | None:  # the scripted failures happen in the first batch only
        from tests.fakeapi import request_text
        first = sum(api.batch_creates.values()) == 1
        return next((o for sub, o in OUTCOMES.items() if sub in request_text(body)), None) if first else None

    api.batch_outcomes = outcome
    judge = make(kind, api)
    cache = JudgeCache(tmp_path / "c")
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(6)]
    paid: list[str] = []
    results, stats = batched(cache, judge, items, tmp_path / "w", failed=failed, on_paid=lambda k, usd: paid.append(k))
    assert sorted(paid) == sorted(set(paid)) and len(paid) == len(cache)  # each paid answer once in the ledger
    assert stats.failed == 3  # expired, errored (retryable), invalid (not); the malformed line is an answer
    assert results[4]["value"] is None and "parse_error" in results[4]["breakdown"]
    assert items[4].key in results[4]["raw"] and stats.parse_failures == 1  # the raw line itself, kept
    assert results[3] is None  # an invalid request is never asked again
    retried = {"live": api.by_path[LIVE[kind]], "batch": api.batch_creates[kind] - 1}
    if failed == "live":
        assert retried == {"live": 2, "batch": 0} and results[1] and results[2] and stats.missing == 1
        assert results[1]["cost_usd"] == pytest.approx(cost_usd(results[1]["usage"], "fake-model", PRICES))
    elif failed == "batch":
        assert retried == {"live": 0, "batch": 1} and results[1] and results[2] and stats.missing == 1
        assert api.batch_items[items[1].key] == 2 and api.batch_items[items[0].key] == 1
    else:
        assert retried == {"live": 0, "batch": 0} and results[1] is None and results[2] is None
        assert stats.missing == 3
    assert len(cache) == 6 - stats.missing  # nothing unanswered is cached
    cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_items_of_a_batch_cancelled_in_the_console_are_asked_live(tmp_path, kind):
    # a batch left alone ends after 60 s; cancelled, its items are asked live in about a second
    with FakeAPI(batch_delay=60.0) as api:
        judge = make(kind, api)
        cache = JudgeCache(tmp_path / "c")
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(4)]

        async def go():
            async def cancel():
                while not api.batches:
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.05)
                await judge.batch_cancel(await judge._client(), next(iter(api.batches)))
            return (await asyncio.gather(run_batched(cache, judge, items, Journal(tmp_path / "w"), **POLL),
                                         cancel()))[0]

        t0 = time.monotonic()
        results, stats = asyncio.run(go())
        assert time.monotonic() - t0 < 30 and all(r is not None for r in results)
        assert stats.failed == 4 and api.by_path[LIVE[kind]] == 4 and api.batch_creates[kind] == 1
        cache.close()


def test_polling_backs_off_and_reports_the_providers_counts(tmp_path, monkeypatch):
    """The waits between status checks grow 1.5x from poll_s up to max_poll_s: read from the waits the
    loop asks for, not from the wall clock (a loaded machine stretches any gap; this test once failed so)."""
    import judges.batch

    waits: list[float] = []

    class Recording:   # judges.batch's asyncio, its sleep recorded (the fake server's own loop untouched)
        def __getattr__(self, name):
            return getattr(asyncio, name)

        async def sleep(self, seconds, *a, **kw):
            waits.append(seconds)
            return await asyncio.sleep(seconds, *a, **kw)

    monkeypatch.setattr(judges.batch, "asyncio", Recording())
    with FakeAPI(batch_delay=0.5) as api:
        judge = make("openai", api)
        cache = JudgeCache(tmp_path / "c")
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(5)]
        lines: list[str] = []
        done: list[int] = []
        results, _ = batched(cache, judge, items, tmp_path / "w", poll_s=0.02, max_poll_s=0.1,
                             status=lines.append, progress=done.append)
        assert len([r for r in api.requests if r.path.startswith("/v1/batches/")]) >= 3
        assert len(waits) >= 3 and waits[0] == pytest.approx(0.02), waits
        assert all(b == pytest.approx(min(a * 1.5, 0.1)) for a, b in zip(waits, waits[1:])), waits
        assert any("completed=" in ln and "/5 done" in ln for ln in lines) and "5/5 done" in lines[-1]
        assert len({ln for ln in lines}) >= 3  # the counts moved while it ran
        assert sum(done) == 5 and all(results)
        cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_batch_timeout_stops_cleanly_and_a_rerun_resumes_the_same_batch(tmp_path, kind):
    # the batch ends only when the test says (a delay that a loaded machine cannot outrun), the timeout first
    with FakeAPI(batch_delay=600.0) as api:
        judge = make(kind, api)
        cache = JudgeCache(tmp_path / "c")
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(4)]
        t0 = time.monotonic()
        with pytest.raises(BatchTimeout, match="Rerun the same command to resume") as e:
            batched(cache, judge, items, tmp_path / "w", timeout_s=0.15)
        assert time.monotonic() - t0 < 10 and len(e.value.pending) == 1 and len(cache) == 0
        for b in api.batches.values():
            b.delay = 0.05
        results, stats = batched(cache, judge, items, tmp_path / "w")
        assert stats.resumed == 1 and stats.batches == 0 and api.batch_creates[kind] == 1
        assert sorted(api.batch_items.values()) == [1] * 4 and all(results) and len(cache) == 4
        _, stats = batched(cache, judge, items, tmp_path / "w")  # a finished batch is not polled again
        assert stats.resumed == 0 and stats.cache_hits == 4
        cache.close()


@pytest.mark.parametrize("kind", KINDS)
def test_budget_counts_each_batchs_worst_case_before_submitting(api, tmp_path, kind):
    judge = make(kind, api, max_tokens=60)
    cache = JudgeCache(tmp_path / "c")
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(10)]
    worst = [judge.estimate_body_usd(it.body, batch=True) for it in items]
    assert worst[0] == pytest.approx(judge.estimate_body_usd(items[0].body) / 2)
    budget = sum(worst[:4]) + worst[4] / 2  # room for 4 worst cases, not 5
    with pytest.raises(BudgetExceeded) as e:
        batched(cache, judge, items, tmp_path / "w", budget_usd=budget)
    rounds = sorted(api.batches.values(), key=lambda b: b.created)
    assert [cid for cid, _ in rounds[0].items] == [it.key for it in items[:4]]   # the first: 4 worst cases fit
    # each batch read back cost less than its worst case: what fits then goes in another round, as live calls go on
    assert len(rounds) >= 2 and e.value.done == sum(len(b.items) for b in rounds) > 4
    assert e.value.spent <= budget and e.value.remaining == 10 - e.value.done
    results, stats = batched(cache, judge, items, tmp_path / "w", budget_usd=1.0)
    assert stats.api_calls == 10 - e.value.done and all(results) and sorted(api.batch_items.values()) == [1] * 10
    cache.close()


def test_a_batch_needs_batch_prices(api):
    with pytest.raises(ValueError, match=r"no batch price for model 'fake-model'.*batch_input.*or set judge.batch=false \(teacher.batch=false"):
        make("anthropic", api, prices={"fake-model": {"input": 3.0, "output": 15.0}})


KILL_SCRIPT = textwrap.dedent("""
    import asyncio, sys
    from judges.batch import run_batched
    from judges.batch_records import Journal
    from judges.cache import JudgeCache
    from tests.test_batch import make_for_url, PROBLEM, REF, answer
    kind, url, cache_dir, work, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    judge = make_for_url(kind, url)
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(n)]
    results, stats = asyncio.run(run_batched(JudgeCache(cache_dir), judge, items, Journal(work), poll_s=0.02,
                                             max_poll_s=0.05))
    print("finished", stats.batches, stats.resumed, sum(r is not None for r in results), flush=True)
""")


def make_for_url(kind: str, url: str):
    opts = {**FAST, "batch": True, "batch_max_requests": 5}
    return AnthropicJudge("fake-model", base_url=url, **opts) if kind == "anthropic" else \
        OpenAIJudge("fake-model", base_url=url + "/v1", **opts)


def _spawn(kind, api, tmp_path, n):
    return subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, kind, api.url, str(tmp_path / "c"),
                             str(tmp_path / "w"), str(n)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True)


def _rerun(kind, api, tmp_path, n):
    """The same run again, in this process: (results, stats)."""
    judge = make_for_url(kind, api.url)
    cache = JudgeCache(tmp_path / "c")
    try:
        return batched(cache, judge, [judge.score_item(PROBLEM, answer(i), REF) for i in range(n)], tmp_path / "w")
    finally:
        cache.close()


def _kill(proc, until, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not until() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.parametrize("kind", KINDS)
def test_kill_9_while_batches_run_then_rerun_polls_them_instead_of_paying_again(tmp_path, kind):
    with FakeAPI(batch_delay=1.0) as api:
        n = 12  # 3 batches of at most 5
        proc = _spawn(kind, api, tmp_path, n)
        journal = tmp_path / "w" / "batches.jsonl"
        _kill(proc, lambda: journal.exists() and journal.read_text().count('"created"') == 3)
        assert api.batch_creates[kind] == 3 and sum(api.batch_items.values()) == n
        results, stats = _rerun(kind, api, tmp_path, n)
        assert (stats.batches, stats.resumed, stats.api_calls) == (0, 3, n) and all(results)
        assert api.batch_creates[kind] == 3 and sorted(api.batch_items.values()) == [1] * n
        assert api.by_path[LIVE[kind]] == 0


@pytest.mark.parametrize("kind", KINDS)
def test_kill_9_between_submission_and_journaled_id(tmp_path, kind, caplog):
    """The one window: the provider has the batch, the journal has its keys but not its id. Anthropic
    loses that one submission (submitted again, as README says); OpenAI finds the batch by its
    uploaded file and pays nothing twice."""
    with FakeAPI(batch_delay=0.2) as api:
        n = 4
        # the create request hangs, then creates the batch: the process is killed while it waits
        api.script(([Fault(kind="pass")] if kind == "openai" else []) + [Fault(kind="hang", hang_s=0.5)])
        proc = _spawn(kind, api, tmp_path, n)
        creating = "/v1/batches" if kind == "openai" else "/v1/messages/batches"
        _kill(proc, lambda: api.by_path[creating] == 1)
        journal = (tmp_path / "w" / "batches.jsonl").read_text()
        assert '"submit"' in journal and '"created"' not in journal
        time.sleep(0.6)  # the server creates the batch after the client is gone
        assert api.batch_creates[kind] == 1
        results, stats = _rerun(kind, api, tmp_path, n)
        assert all(results)
        if kind == "anthropic":
            assert "before its id was journaled" in caplog.text
            assert (stats.batches, stats.resumed) == (1, 0)
            assert api.batch_creates[kind] == 2 and sorted(api.batch_items.values()) == [2] * n  # one lost submission
        else:
            assert (stats.batches, stats.resumed) == (0, 1)
            assert api.batch_creates[kind] == 1 and sorted(api.batch_items.values()) == [1] * n
            assert api.by_path["/v1/files"] == 1  # not uploaded again either
