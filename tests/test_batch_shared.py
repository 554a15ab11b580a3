"""Two processes sharing a judge cache and missing the same keys pay for one batch: the second waits for the
first's batches while their owner lives, and polls them itself once it is killed (judges/batch_registry.py).
Real processes, the real SDKs, the local fake server counting batch creations and submitted items."""
from __future__ import annotations

import asyncio
import json
import os
import threading
import time

import pytest

from judges.batch import run_batched
from judges.batch_records import Journal
from judges.cache import JudgeCache
from judges.retries import JudgeAPIError
from tests.fakeapi import FakeAPI, Fault
from tests.test_api_judges import PROBLEM, REF, answer
from tests.test_batch import FAST, KINDS, LIVE, POLL, _kill, _spawn, make_for_url

N = 6   # two batches of at most 5


class Second:
    """The second process's run (here, in a thread: its own cache handle, its own stage journal)."""

    def __init__(self, kind, api, tmp_path, work="w2", idx=range(N), poll=POLL):
        self.paid: list[float] = []
        self.out = self.error = None
        judge = make_for_url(kind, api.url)
        items = [judge.score_item(PROBLEM, answer(i), REF) for i in idx]

        def run():
            cache = JudgeCache(tmp_path / "c")
            try:   # (a batch_timeout: a run that would hang fails instead)
                self.out = asyncio.run(run_batched(cache, judge, items, Journal(tmp_path / work), **poll,
                                                   timeout_s=90, on_paid=lambda k, usd: self.paid.append(usd)))
            except BaseException as e:
                self.error = e
            finally:
                cache.close()
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def result(self, timeout=120.0):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the run did not end"
        if self.error is not None:
            raise self.error
        return self.out


def _first(kind, api, tmp_path):
    """The first process, a real one, with its two batches created and running (they end when told)."""
    proc = _spawn(kind, api, tmp_path, N)
    journal = tmp_path / "w" / "batches.jsonl"
    deadline = time.monotonic() + 30
    while not (journal.exists() and journal.read_text().count('"created"') == 2) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    return proc


def _dropped_upload(api, tmp_path) -> JudgeCache:
    """A first run (OpenAI) over answer(0..2) whose batch creation got no answer: it stopped, its claim
    holding the uploaded file and no batch id. Returns the cache, open."""
    judge = make_for_url("openai", api.url)
    items = [judge.score_item(PROBLEM, answer(i), REF) for i in range(3)]
    api.fail_path("/v1/batches", "drop")
    cache = JudgeCache(tmp_path / "c")
    with pytest.raises(JudgeAPIError, match="may have been created"):
        asyncio.run(run_batched(cache, judge, items, Journal(tmp_path / "w"), **POLL))
    return cache


def _end_batches(api):
    for b in api.batches.values():
        b.delay = 0.05


@pytest.mark.parametrize("kind", KINDS)
def test_a_second_process_waits_for_the_firsts_batches_instead_of_paying_again(tmp_path, kind):
    with FakeAPI(batch_delay=600) as api:
        first = _first(kind, api, tmp_path)
        second = Second(kind, api, tmp_path)
        time.sleep(0.5)   # long enough for it to have submitted, were it going to
        assert api.batch_creates[kind] == 2 and second.thread.is_alive()
        _end_batches(api)
        out, err = first.communicate(timeout=60)
        assert first.returncode == 0 and "finished 2 0 6" in out, err
        results, stats = second.result()
        assert all(results) and (stats.batches, stats.resumed, stats.api_calls, stats.cache_hits) == (0, 0, 0, N)
        assert second.paid == [] and stats.cost_usd == 0
        assert api.batch_creates[kind] == 2 and sorted(api.batch_items.values()) == [1] * N
        assert not list((tmp_path / "c" / "batches").glob("*.json"))   # each read batch's claim is gone


@pytest.mark.parametrize("moment", ["before", "while"])
def test_a_killed_processs_batches_are_polled_by_the_other_and_paid_once(tmp_path, moment):
    """Killed before the second starts, or while it waits: the second polls the dead one's batches by their
    ids and counts their answers as paid (the dead one never read them); a rerun of the first then finds
    every answer in the cache and submits nothing."""
    kind = "anthropic"
    with FakeAPI(batch_delay=600) as api:
        first = _first(kind, api, tmp_path)
        if moment == "before":
            _kill(first, lambda: True)
        second = Second(kind, api, tmp_path)
        if moment == "while":
            time.sleep(0.3)
            assert api.batch_creates[kind] == 2 and second.thread.is_alive()
            _kill(first, lambda: True)
        _end_batches(api)
        results, stats = second.result()
        assert all(results) and (stats.batches, stats.resumed, stats.api_calls) == (0, 2, N)
        assert sum(second.paid) == pytest.approx(stats.cost_usd) and stats.cost_usd > 0
        assert api.batch_creates[kind] == 2 and sorted(api.batch_items.values()) == [1] * N
        results, stats = Second(kind, api, tmp_path, work="w").result()   # the first, rerun on its journal
        assert all(results) and (stats.batches, stats.api_calls, stats.cache_hits) == (0, 0, N)
        assert api.batch_creates[kind] == 2


def test_a_claim_whose_holder_died_before_the_batch_id_frees_its_keys_to_be_submitted(tmp_path):
    """The first process is killed while its batch's creation hangs: its claim has no id. The second,
    waiting on it, submits those requests itself in a batch (not live, not left missing)."""
    kind = "anthropic"
    with FakeAPI(batch_delay=0.05) as api:
        api.script([Fault(kind="hang", hang_s=30.0)])
        first = _spawn(kind, api, tmp_path, N)
        deadline = time.monotonic() + 30
        while api.by_path["/v1/messages/batches"] < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        second = Second(kind, api, tmp_path)
        time.sleep(0.3)
        assert second.thread.is_alive() and api.by_path["/v1/messages/batches"] == 1   # it waits on the claim
        _kill(first, lambda: True)
        results, stats = second.result()
        assert all(results) and (stats.batches, stats.api_calls) == (2, N) and api.by_path[LIVE[kind]] == 0


def test_the_killed_processs_rerun_waits_for_the_one_that_took_its_batches_over(tmp_path):
    kind = "openai"
    with FakeAPI(batch_delay=600) as api:
        first = _first(kind, api, tmp_path)
        _kill(first, lambda: True)
        second = Second(kind, api, tmp_path)
        deadline = time.monotonic() + 30
        while len(list((tmp_path / "c" / "batches").glob(f"*.{os.getpid()}.json"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)   # (the taken-over batches' claims, held by this process now)
        rerun = Second(kind, api, tmp_path, work="w")   # the first, rerun on its own journal
        time.sleep(0.3)
        _end_batches(api)
        results, stats = second.result()
        assert all(results) and (stats.resumed, stats.api_calls) == (2, N)
        results, stats = rerun.result()
        assert all(results) and (stats.batches, stats.resumed, stats.api_calls, stats.cache_hits) == (0, 0, 0, N)
        assert api.batch_creates[kind] == 2 and sorted(api.batch_items.values()) == [1] * N


def test_an_openai_upload_whose_creation_got_no_answer_is_created_once_over_its_file(tmp_path):
    """The first process uploaded its requests, the creation got no answer (a dropped connection) and it
    stopped: its claim holds the file and no batch id. The second creates the batch over that file (as the
    first's rerun would), submits only its own other requests, and the first's rerun then waits for it."""
    kind = "openai"
    with FakeAPI(batch_delay=600) as api:
        _dropped_upload(api, tmp_path).close()
        second = Second(kind, api, tmp_path)   # answer(0..5): the first's three and three more
        deadline = time.monotonic() + 20
        while api.batch_creates[kind] < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        rerun = Second(kind, api, tmp_path, work="w")
        time.sleep(0.5)
        _end_batches(api)
        (r2, s2), (r1, s1) = second.result(), rerun.result()
        assert all(r2) and all(r1) and api.batch_creates[kind] == 2 and sorted(api.batch_items.values()) == [1] * N
        assert (s2.resumed, s2.batches) == (1, 2) and (s1.batches, s1.api_calls) == (0, 0)


def test_a_waiter_whose_holder_lets_its_claim_go_unread_waits_for_the_holders_new_batch(tmp_path):
    """The first process's rerun holds its journaled batch while the provider answers slowly, then 404:
    it lets the claim go and submits those requests anew. The second, waiting on that claim, waits for
    the new one instead of asking them live (which paid them twice)."""
    kind = "anthropic"
    with FakeAPI(batch_delay=0.3) as api:
        judge = make_for_url(kind, api.url)
        keys = [judge.score_item(PROBLEM, answer(i), REF).key for i in range(3)]
        (tmp_path / "w").mkdir()
        (tmp_path / "w" / "batches.jsonl").write_text(
            json.dumps({"event": "submit", "local": "L1", "provider": kind, "base_url": judge.base_url,
                        "model": judge.model, "role": "judge", "keys": keys}) + "\n" +
            json.dumps({"event": "created", "local": "L1", "batch_id": "msgbatch_gone"}) + "\n")
        api.fail_path("/msgbatch_gone", "hang", hang_s=1.0)
        first = Second(kind, api, tmp_path, work="w")
        deadline = time.monotonic() + 30
        while not list((tmp_path / "c" / "batches").glob("L1.*.json")) and time.monotonic() < deadline:
            time.sleep(0.01)   # (the first holds its journaled batch's claim)
        second = Second(kind, api, tmp_path)
        first.result()
        results, stats = second.result()
        assert all(results) and api.by_path[LIVE[kind]] == 0 and sorted(api.batch_items.values()) == [1] * N


def test_a_taken_over_batch_the_provider_no_longer_knows_is_submitted_again(tmp_path):
    kind = "anthropic"
    with FakeAPI(batch_delay=0.1) as api:
        judge = make_for_url(kind, api.url)
        keys = [judge.score_item(PROBLEM, answer(i), REF).key for i in range(3)]
        d = tmp_path / "c" / "batches"
        d.mkdir(parents=True)
        (d / "L1.99999.json").write_text(json.dumps({"local": "L1", "provider": kind, "base_url": judge.base_url,
                                                     "model": judge.model, "role": "judge", "keys": keys,
                                                     "batch_id": "msgbatch_gone", "pid": 99999}))
        results, stats = Second(kind, api, tmp_path).result()
        assert all(results) and sorted(api.batch_items.values()) == [1] * N and stats.resumed == 0
        assert not list(d.glob("*.json"))


def test_two_runs_sharing_a_run_dir_pay_for_one_teacher_batch(tiny_config, tmp_path, monkeypatch):
    """As a user starts them: two runs in one run.dir (so one judge cache), their teacher (openai, batches
    on) asked for the same problems at once, `rlaif epoch 1 --only teacher` in two processes. One batch is
    created; the second run's teacher stage pays nothing and reads the first's answers."""
    import subprocess
    import sys
    from pipeline.cli.main import main
    from tests.test_batch import ROOT
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeAPI(batch_delay=600) as api:
        over = tiny_config + ["teacher.kind=openai", "teacher.model=fake-model", f"teacher.base_url={api.openai_url}",
                              "judge.prices={fake-model: {input: 3.0, output: 15.0, batch_input: 1.5, batch_output: 7.5}}",
                              "teacher.batch=true", "judge.batch_poll_s=0.02", "judge.batch_max_poll_s=0.05"]
        runs = {name: over + [f"run.name={name}"] for name in ("a", "b")}
        for o in runs.values():
            assert main(["epoch", "1", "--only", "prompts", *o]) == 0

        def start(name):
            return subprocess.Popen([sys.executable, "-m", "pipeline.cli", "epoch", "1", "--only", "teacher", *runs[name]],
                                    cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        a = start("a")
        deadline = time.monotonic() + 60
        while api.batch_creates["openai"] < 1 and time.monotonic() < deadline and a.poll() is None:
            time.sleep(0.02)
        b = start("b")
        lock = tmp_path / "runs" / "b" / ".lock"   # (written when b takes its run: its teacher stage comes next)
        while not (lock.exists() and lock.read_text().strip() == str(b.pid)) and b.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(1.5)
        assert api.batch_creates["openai"] == 1 and b.poll() is None, b.communicate() if b.poll() is not None else ""
        _end_batches(api)
        for p in (a, b):
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
        assert api.batch_creates["openai"] == 1 and set(api.batch_items.values()) == {1}
        figures = {name: json.loads((tmp_path / "runs" / name / "epoch-001" / "teacher" / "manifest.json").read_text())
                   ["figures"] for name in runs}
        assert figures["a"]["teacher/api_calls"] > 0 and figures["a"]["teacher/cost_usd"] > 0
        assert figures["b"]["teacher/api_calls"] == 0 and figures["b"]["teacher/cost_usd"] == 0


def test_a_rerun_holds_a_lost_batchs_claim_until_it_has_claimed_its_requests_anew(tmp_path):
    """A rerun finds its two journaled batches unknown to the provider (404, slowly). It let the first's claim go
    at once and claimed its requests anew only after the second's check: a process waiting on it meanwhile
    found them unclaimed and asked them live, while the rerun batched them too (paid twice)."""
    kind = "anthropic"
    with FakeAPI(batch_delay=0.1) as api:
        judge = make_for_url(kind, api.url)
        keys = [judge.score_item(PROBLEM, answer(i), REF).key for i in range(N)]
        (tmp_path / "w").mkdir()
        (tmp_path / "w" / "batches.jsonl").write_text("".join(
            json.dumps({"event": "submit", "local": local, "provider": kind, "base_url": judge.base_url,
                        "model": judge.model, "role": "judge", "keys": ks}) + "\n" +
            json.dumps({"event": "created", "local": local, "batch_id": bid}) + "\n"
            for local, bid, ks in (("L1", "msgbatch_gone", keys[:3]), ("L2", "msgbatch_slow", keys[3:]))))
        api.fail_path("/msgbatch_gone", "hang", hang_s=1.0)
        api.fail_path("/msgbatch_slow", "hang", hang_s=2.5)
        rerun = Second(kind, api, tmp_path, work="w")
        deadline = time.monotonic() + 30
        while not list((tmp_path / "c" / "batches").glob("L1.*.json")) and time.monotonic() < deadline:
            time.sleep(0.01)
        waiter = Second(kind, api, tmp_path)
        (r1, s1), (r2, s2) = rerun.result(), waiter.result()
        assert all(r1) and all(r2) and api.by_path[LIVE[kind]] == 0 and sorted(api.batch_items.values()) == [1] * N
        assert s1.api_calls + s2.api_calls == N   # (the waiter batches what was unclaimed when it looked: 3..5)


def test_two_processes_each_holding_a_lost_batchs_claim_do_not_wait_on_each_other(tmp_path):
    """W took over T2 (its holder dead) and waits on T1 (alive); T1's holder dies, A takes T1 over and waits on
    T2. Both batches are lost (404): each held its lost claim until all else it polled had ended, each
    waiting on the other's: forever (batch_timeout 0, the default). Now the lost batch's keys are claimed
    anew at once, and both end."""
    import fcntl
    kind = "anthropic"
    with FakeAPI(batch_delay=0.1) as api:
        judge = make_for_url(kind, api.url)
        kx, ky = (judge.score_item(PROBLEM, answer(i), REF).key for i in (0, 1))
        d = tmp_path / "c" / "batches"
        d.mkdir(parents=True)
        for local, key, pid in (("T1", kx, 11111), ("T2", ky, 22222)):
            (d / f"{local}.{pid}.json").write_text(json.dumps(
                {"local": local, "provider": kind, "base_url": judge.base_url, "model": judge.model, "role": "judge",
                 "keys": [key], "batch_id": f"msgbatch_gone_{local}", "pid": pid}))
        fd = os.open(d / "T1.11111.json", os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)   # T1's holder alive, for now
        api.fail_path("/msgbatch_gone_T2", "hang", hang_s=2.0)   # W's poll of T2: 404 after 2 s
        w = Second(kind, api, tmp_path, "ww", idx=(0, 1), poll={"poll_s": 3.0, "max_poll_s": 3.0})
        deadline = time.monotonic() + 30
        while not list(d.glob(f"T2.{os.getpid()}.json")) and time.monotonic() < deadline:
            time.sleep(0.01)   # (W took T2 over)
        os.close(fd)   # T1's holder dies
        a = Second(kind, api, tmp_path, "wa", idx=(0, 1))
        (rw, _), (ra, _) = w.result(60), a.result(60)
        assert all(rw) and all(ra) and sorted(api.batch_items.values()) == [1, 1]
        assert not list(d.glob("*.json"))   # no claim left, lost or read


@pytest.mark.parametrize("modes", [("live", "batch"), ("batch", "live")])
def test_a_holder_keeps_its_claim_while_it_asks_again_what_its_batch_did_not_answer(tmp_path, modes):
    """A fuzz of two processes found it: the holder let its claim go as soon as its batch was read, then asked
    its expired item again (live or in a new batch); the waiter, finding the claim gone, asked it too."""
    from tests.fakeapi import request_text
    kind, (held, waited) = "anthropic", modes
    with FakeAPI(batch_delay=0.3) as api:
        api.batch_outcomes = lambda body: "expired" if "ITEM-0000" in request_text(body) and \
            sum(api.batch_creates.values()) == 1 else None
        holder = Second(kind, api, tmp_path, "h", idx=range(3), poll={"poll_s": 0.05, "max_poll_s": 0.05,
                                                                       "failed": held})
        deadline = time.monotonic() + 30
        while not list((tmp_path / "c" / "batches").glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.002)
        waiter = Second(kind, api, tmp_path, "w", idx=range(3), poll={"poll_s": 0.005, "max_poll_s": 0.005,
                                                                       "failed": waited})
        (r1, _), (r2, _) = holder.result(60), waiter.result(60)
        k0 = make_for_url(kind, api.url).score_item(PROBLEM, answer(0), REF).key
        live0 = sum("ITEM-0000" in request_text(r.body) for r in api.requests if r.path == LIVE[kind])
        assert all(r1) and all(r2) and api.batch_items[k0] - 1 + live0 == 1   # (the first copy expired: unbilled)


def test_an_upload_some_of_whose_answers_came_since_is_not_created_over(tmp_path):
    """A fuzz found it: an OpenAI upload whose creation got no answer, then some of its requests answered by
    another way (its batch lost since, and asked anew): creating over the file paid those again. The rest
    are submitted anew instead."""
    kind = "openai"
    with FakeAPI(batch_delay=0.05) as api:
        cache = _dropped_upload(api, tmp_path)
        items = [make_for_url(kind, api.url).score_item(PROBLEM, answer(i), REF) for i in range(3)]
        cache.set(items[0].key, {"value": 1.0, "cost_usd": 0.0})   # answered since, another way
        cache.close()
        results, stats = Second(kind, api, tmp_path, idx=range(3)).result()
        assert all(results) and api.batch_items[items[0].key] == 0
        assert [api.batch_items[it.key] for it in items[1:]] == [1, 1] and api.batch_creates[kind] == 1


@pytest.mark.parametrize("who", ["rerun", "taker"])
def test_an_openai_creation_in_flight_at_the_kill_is_found_once_it_lands(tmp_path, who, monkeypatch):
    """The first process is killed while its batch's creation is in flight; OpenAI creates it a moment later.
    Its rerun, or another process taking its claim over, finds no batch over the upload yet: it looks again
    once that creation would have landed (the killed one's judge.timeout_s after it was sent, whatever the
    rerun's own) instead of creating a second."""
    kind = "openai"
    monkeypatch.setitem(FAST, "timeout_s", 0.5)   # this process's judges (the killed one's: 5 s)
    with FakeAPI(batch_delay=0.05) as api:
        api.script([Fault(kind="pass"), Fault(kind="hang", hang_s=1.0)])   # the upload, then the creation
        first = _spawn(kind, api, tmp_path, 3)
        _kill(first, lambda: api.by_path["/v1/batches"] == 1)
        landed = time.monotonic() + 1.2
        results, stats = Second(kind, api, tmp_path, work="w" if who == "rerun" else "w2", idx=range(3)).result()
        time.sleep(max(0.0, landed - time.monotonic()))   # (the killed one's creation has landed by now)
        assert all(results) and stats.batches == 0 and stats.api_calls == 3
        assert api.batch_creates[kind] == 1 and sorted(api.batch_items.values()) == [1] * 3


def test_a_reruns_creation_over_an_upload_is_journaled_for_the_next_rerun(tmp_path, monkeypatch):
    """A rerun creating the batch over a killed run's upload notes that creation in the stage's journal too,
    not only in its claim: killed in flight, its claim gone (taken over by a process killed in turn; no
    flock), the next rerun still waits for it to land instead of creating a second batch over the file."""
    kind = "openai"
    monkeypatch.setitem(FAST, "timeout_s", 0.3)   # this process's judges (the spawned rerun's: 5 s)
    with FakeAPI(batch_delay=0.05) as api:
        _dropped_upload(api, tmp_path).close()   # its creation dropped, never made; noted 0.3 s
        time.sleep(0.4)
        seen = api.by_path["/v1/batches"]
        api.script([Fault(kind="pass"), Fault(kind="hang", hang_s=1.0)])   # the rerun's find_batch, its creation
        rerun = _spawn(kind, api, tmp_path, 3)
        _kill(rerun, lambda: api.by_path["/v1/batches"] == seen + 2)
        for claim in (tmp_path / "c" / "batches").glob("*.json"):
            claim.unlink()
        landed = time.monotonic() + 1.2
        results, stats = Second(kind, api, tmp_path, work="w", idx=range(3)).result()
        time.sleep(max(0.0, landed - time.monotonic()))
        assert all(results) and stats.batches == 0
        assert api.batch_creates[kind] == 1 and sorted(api.batch_items.values()) == [1] * 3
