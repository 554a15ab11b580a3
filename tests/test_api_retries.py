"""API judges against a fake HTTP server, through the real SDKs: which failures are retried and how
(retry-after, 5xx, timeouts, drops), rate limits, requests really in flight at once, cache-hit latency.
Scores, dedup, budget, kill -9, replay and cache keys: test_api_judges.py."""
from __future__ import annotations

import asyncio
import json
import time

import pytest

from judges.base import Score
from judges.cache import JudgeCache
from judges.cached import run_cached
from judges.limits import RateLimiter
from judges.retries import JudgeAPIError
from tests.fakeapi import FakeAPI, Fault
from tests.test_api_judges import KINDS, PROBLEM, REF, answer, make


@pytest.fixture
def api():
    with FakeAPI() as a:
        yield a


# -- retries ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_429_storm_honours_retry_after(api, kind):
    api.fail(429, times=3, retry_after=0.2)
    judge = make(kind, api, attempts=5)
    t0 = time.monotonic()
    s = asyncio.run(judge.ascore(PROBLEM, answer(1), REF))
    assert s.value is not None and api.total == 4
    gaps = [b.t - a.t for a, b in zip(api.requests, api.requests[1:])]
    assert all(g >= 0.2 for g in gaps), gaps
    assert time.monotonic() - t0 >= 0.6

    api.reset_counts()
    api.fail(429, times=1, retry_after_ms=300, retry_after=5)  # retry-after-ms is the precise one
    asyncio.run(judge.ascore(PROBLEM, answer(2), REF))
    assert 0.3 <= api.requests[1].t - api.requests[0].t < 2.0


@pytest.mark.parametrize("kind", KINDS)
def test_429_storm_longer_than_attempts_fails_clearly(api, kind):
    api.fail(429, times=10, retry_after=0.05)
    judge = make(kind, api, attempts=3)
    with pytest.raises(JudgeAPIError, match=r"gave up after 3 attempts; last error: HTTP 429") as e:
        asyncio.run(judge.ascore(PROBLEM, answer(1), REF))
    assert e.value.status == 429 and api.total == 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_retry_after_of_hours_fails_at_once_and_says_why(api, kind):
    """A daily quota's 429 asking for 86400 s held the stage that long for each of its attempts."""
    api.fail(429, times=3, retry_after=86400)
    t0 = time.monotonic()
    with pytest.raises(JudgeAPIError, match=r"HTTP 429 .*asking to wait 86400 s \(retry-after\).*quota") as e:
        asyncio.run(make(kind, api, attempts=3).ascore(PROBLEM, answer(1), REF))
    assert e.value.status == 429 and api.total == 1 and time.monotonic() - t0 < 30


@pytest.mark.parametrize("kind", KINDS)
def test_5xx_and_overloaded_are_retried(api, kind):
    for status in (500, 529, 503, 502):
        api.fail(status)
    s = asyncio.run(make(kind, api, attempts=5).ascore(PROBLEM, answer(1), REF))
    assert s.value is not None and api.total == 5


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_never_retried(api, kind, status):
    api.fail(status, times=5)
    with pytest.raises(JudgeAPIError, match=rf"HTTP {status} .*not retried") as e:
        asyncio.run(make(kind, api, attempts=5).ascore(PROBLEM, answer(1), REF))
    assert e.value.status == status and api.total == 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_servers_x_should_retry_decides_but_never_for_a_400_401_or_403(api, kind):
    api.fail(404, headers={"x-should-retry": "true"})
    assert asyncio.run(make(kind, api, attempts=3).ascore(PROBLEM, answer(1), REF)).value is not None
    assert api.total == 2
    for status in (400, 401, 403):   # the request, the key or the account is refused: no retry can help
        api.reset_counts()
        api.fail(status, headers={"x-should-retry": "true"})
        with pytest.raises(JudgeAPIError, match=rf"HTTP {status} ") as e:
            asyncio.run(make(kind, api, attempts=3).ascore(PROBLEM, answer(10 + status), REF))
        assert api.total == 1, status
        assert status == 400 or "(the key the SDK reads from the environment)" in str(e.value)   # no key in config
    api.reset_counts()
    api.fail(503, headers={"x-should-retry": "false"})   # the server's error, not the request's
    with pytest.raises(JudgeAPIError, match=r"the server asked not to retry it \(x-should-retry: false\)"):
        asyncio.run(make(kind, api, attempts=3).ascore(PROBLEM, answer(2), REF))
    assert api.total == 1


def test_spend_limit_429_is_not_retried(api):
    api.fail(429, times=5, error_code="enforced_spend_limit_reached")
    with pytest.raises(JudgeAPIError, match="spend limit"):
        asyncio.run(make("anthropic", api, attempts=5).ascore(PROBLEM, answer(1), REF))
    assert api.total == 1


@pytest.mark.parametrize("kind", KINDS)
def test_timeouts_drops_and_malformed_bodies_are_retried(api, kind):
    # a hang not cut would take 60 s; cut at 0.3 s, the four requests took 1.2 s here (20 s leaves a loaded machine room)
    api.fail("hang", hang_s=60)
    api.fail("drop")
    api.fail("malformed")
    judge = make(kind, api, attempts=4, timeout_s=0.3)
    t0 = time.monotonic()
    s = asyncio.run(judge.ascore(PROBLEM, answer(1), REF))
    assert s.value is not None and api.total == 4 and time.monotonic() - t0 < 20

    api.reset_counts()
    api.fail("hang", times=2, hang_s=60)
    with pytest.raises(JudgeAPIError, match="gave up after 2 attempts; last error: timed out after 0.3s"):
        asyncio.run(make(kind, api, attempts=2, timeout_s=0.3).ascore(PROBLEM, answer(1), REF))
    assert api.total == 2


def test_one_refused_request_is_left_out_and_counted_a_refused_setting_stops(api, tmp_path, caplog):
    """A 400 about one request (a content filter, a prompt too long) leaves that one out, counted, not
    cached (a rerun asks again); the others are answered. Most requests refused is the run's error."""
    judge = make("openai", api, limiter=RateLimiter(max_in_flight=1))
    cache = JudgeCache(tmp_path / "c")
    api.script([Fault(kind="pass")] * 3 + [Fault(status=400)])
    jobs = [judge.score_job(PROBLEM, answer(i), REF) for i in range(12)]
    results, stats = asyncio.run(run_cached(cache, jobs, max_in_flight=1))
    assert [r is None for r in results] == [i == 3 for i in range(12)]
    assert stats.missing == 1 and stats.api_calls == 11 and len(cache) == 11 and "1 requests were refused" in caplog.text
    # the rerun asks for the refused one alone: refused again, it is still one request of twelve
    api.script([Fault(status=400)])
    again, stats = asyncio.run(run_cached(cache, jobs, max_in_flight=1))
    assert again == results and stats.missing == 1 and stats.api_calls == 0 and api.total == 13
    # fast refusals settling before any answer are no run error
    api.clear_faults()
    api.script([Fault(status=400)] * 2)
    jobs = [judge.score_job(PROBLEM, answer(50 + i), REF) for i in range(6)]
    _, stats = asyncio.run(run_cached(cache, jobs, max_in_flight=6))
    assert stats.missing == 2 and stats.api_calls == 4
    api.fail(400, times=50)
    jobs = [judge.score_job(PROBLEM, answer(100 + i), REF) for i in range(12)]
    with pytest.raises(JudgeAPIError, match="HTTP 400"):
        asyncio.run(run_cached(cache, jobs, max_in_flight=1))
    cache.close()


# -- limits and speed ---------------------------------------------------------------------
def test_rate_limiter_rpm_tpm_and_in_flight():
    async def burst(limiter: RateLimiter, n: int, est: float = 1, actual: float | None = None, hold: float = 0.0):
        async def one():
            async with limiter.slot(est) as slot:
                await asyncio.sleep(hold)
                if actual is not None:
                    slot.used(actual)
        t0 = time.monotonic()
        await asyncio.gather(*(one() for _ in range(n)))
        return time.monotonic() - t0

    rpm = RateLimiter(rpm=1200)  # 20/s, a bucket of 20
    assert 0.9 <= asyncio.run(burst(rpm, 40)) < 2.5  # upper bounds are loose: a busy CI machine
    # tpm with correction: estimates of 500 but 100 used; without give-back 10 calls would need ~4 s
    assert asyncio.run(burst(RateLimiter(tpm=60_000), 10, est=500, actual=100)) < 3.0
    lim = RateLimiter(max_in_flight=3)
    assert 0.2 <= asyncio.run(burst(lim, 9, hold=0.1)) < 0.85 and lim.peak_in_flight == 3


def test_calls_really_overlap_up_to_max_in_flight(tmp_path):
    """Structure, not speed: with k allowed in flight the server sees exactly k requests open at once
    (a lock or a blocking write on the way would keep it at 1), and never more. The throughput figures
    (requests/s against in-flight/latency) come from bench/judge.py, not from a timed unit test."""
    with FakeAPI(latency=0.6) as api:  # long enough that even a starved event loop opens all k first
        for k in (1, 8, 32):
            judge = make("anthropic", api, limiter=RateLimiter(max_in_flight=k))
            cache = JudgeCache(tmp_path / f"c{k}")
            jobs = [judge.score_job(PROBLEM, answer(10_000 * k + i), REF) for i in range(2 * k)]
            api.reset_counts()
            _, stats = asyncio.run(run_cached(cache, jobs, max_in_flight=k))
            assert stats.api_calls == len(jobs) == api.total
            assert api.max_active == k, (k, api.max_active)
            cache.close()


def test_cache_hit_latency(tmp_path):
    cache = JudgeCache(tmp_path / "c")
    raw = json.dumps({"content": [{"type": "tool_use", "input": {"rationale": "x" * 400, "overall": 7}}]}) + " " * 1500
    keys = [f"{i:064x}" for i in range(2000)]
    for k in keys:
        cache.set(k, Score(0.7, {"overall": 0.7}, raw, {"input_tokens": 900, "output_tokens": 40}, 0.0033).to_json())
    lat = []
    for k in keys:
        t0 = time.perf_counter()
        assert cache.get(k) is not None
        lat.append(time.perf_counter() - t0)
    lat.sort()
    p50, p99 = lat[len(lat) // 2], lat[int(len(lat) * 0.99)]

    async def noop() -> dict:
        raise AssertionError("a hit must not call")

    t0 = time.perf_counter()
    _, stats = asyncio.run(run_cached(cache, [(k, noop) for k in keys]))
    per_job = (time.perf_counter() - t0) / len(keys)
    print(f"\ncache hit: p50 {p50 * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us; run_cached all-hit {per_job * 1e6:.0f} us/job")
    assert stats.cache_hits == 2000 and stats.api_calls == 0
    assert p99 < 0.05
    cache.close()


# -- answers of unforeseen shapes ---------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_of_any_shape_is_kept_once_paid(kind, tmp_path):
    """A grade too large for a float raised OverflowError after the call was paid: nothing cached, nothing in
    the ledger, every rerun paid again. Now it is an unscored answer, cached with its price."""
    paid = []
    with FakeAPI(scores=lambda body: 10**400) as big:
        judge, cache = make(kind, big), JudgeCache(tmp_path / "c")
        for _ in range(2):
            (v,), _ = asyncio.run(run_cached(cache, [judge.score_job(PROBLEM, answer(1), REF)],
                                             on_paid=lambda k, usd: paid.append(usd)))
            assert v["value"] is None and "overall" in v["breakdown"]["parse_error"]
        assert big.total == 1 and len(paid) == 1 and paid[0] > 0
    for data in ({"choices": ["x"]}, {"content": [{"type": "text", "text": None}]}):  # odd shapes, read whole
        s = judge.parse_score(json.dumps({**data, "usage": {}}))
        assert s.value is None and "parse_error" in s.breakdown


@pytest.mark.parametrize("kind", KINDS)
def test_a_parser_change_reads_cached_answers_again_without_paying(kind, tmp_path, monkeypatch):
    """The parser version was in every key: a parser fix asked (and paid) for every cached judgement again,
    or, not bumped, left the cached parse failures unscored for good. The cached raw response is read again."""
    from judges import rubric
    with FakeAPI() as api:
        api.fail("bad_schema")   # an answer this parser cannot read ("excellent", "11/10")
        judge, cache = make(kind, api), JudgeCache(tmp_path / "c")
        key, call = judge.score_job(PROBLEM, answer(1), REF)
        (v,), _ = asyncio.run(run_cached(cache, [(key, call)]))
        assert v["value"] is None and judge.fresh(v) == v and v["cost_usd"] > 0
        old = rubric.parse
        monkeypatch.setattr(rubric, "PARSER_VERSION", "parser-2")   # a parser that reads those words
        monkeypatch.setattr(rubric, "parse", lambda obj: (0.9, {"overall": 0.9}) if any(
            w in str(obj) for w in ("excellent", "11/10")) else old(obj))
        again = judge.score_job(PROBLEM, answer(1), REF)
        assert again[0] == key
        (v2,), stats = asyncio.run(run_cached(cache, [again]))
        read = judge.fresh(v2)
        assert read["value"] == 0.9 and read["cost_usd"] == v["cost_usd"] and read["parser"] == "parser-2"
        assert api.total == 1 and stats.cache_hits == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_teachers_error_calls_it_the_teacher(api, kind, tmp_path, monkeypatch):
    """The same client writes the teacher's answers: its errors name it so (they said 'openai judge')."""
    from pipeline.config.file import load_config
    from pipeline.stages.judging import make_model
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    url = api.anthropic_url if kind == "anthropic" else api.openai_url
    cfg = load_config(None, [f"run.dir={tmp_path}", f"teacher.kind={kind}", "teacher.model=fake-model",
                             f"teacher.base_url={url}", f"judge.base_url={url}", "judge.attempts=1", "judge.prices={fake-model: {input: 1, output: 1}}"])
    api.fail(404, times=2)
    for teacher, said in ((True, f"{kind} teacher fake-model at"), (False, f"{kind} judge fake-model at")):
        model = make_model(kind, "fake-model", cfg, teacher=teacher)
        with pytest.raises(JudgeAPIError, match=said):
            asyncio.run(model.agenerate(PROBLEM) if teacher else model.ascore(PROBLEM, answer(1), REF))
