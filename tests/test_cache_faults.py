"""The judge cache and the spend ledger when something else is wrong: a cache write that fails after the
provider billed, a cache another process holds locked, a cache on a read-only mount, an import file whose
entries read as no answer, two processes writing a new ledger at once."""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from judges.cache import CacheCorrupted, CacheError, JudgeCache
from judges.cached import run_cached
from pipeline.stages.spend import spend_ledger, spent_usd

ROOT = Path(__file__).resolve().parents[1]


class _WriteFails(JudgeCache):
    """The storage fault under test: every write fails (a lock held past its timeout, a full disk)."""

    def set(self, key, value):
        raise CacheError("judge cache: a write failed")


def test_a_paid_call_whose_cache_write_fails_is_in_the_ledger(tmp_path):
    """The provider billed the call, then the cache write failed: the ledger (what judge.budget_usd is held
    to) has its price; it had nothing, so a rerun's budget did not count what was paid."""
    async def call():
        return {"value": 0.7, "cost_usd": 0.5}
    with pytest.raises(CacheError):
        asyncio.run(run_cached(_WriteFails(tmp_path / "c"), [("k1", call)], on_paid=spend_ledger(tmp_path, "judge")))
    assert spent_usd(tmp_path) == pytest.approx(0.5)


def test_a_cache_another_process_holds_locked_is_not_called_corrupted(tmp_path):
    """A write lock held past the connection's timeout raised diskcache's bare Timeout; the advice must not
    be to move a whole cache aside (its paid judgements with it)."""
    cache = JudgeCache(tmp_path / "c")
    cache.set("a", {"value": 1.0})
    holder = sqlite3.connect(tmp_path / "c" / "cache.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    cache._cache._timeout = 0.2   # (60 s in use) a fresh thread's connection waits this long
    err: list[BaseException] = []
    t = threading.Thread(target=lambda: _catch(err, lambda: cache.set("b", {"value": 0.5})))
    t.start()
    t.join()
    holder.execute("ROLLBACK")
    assert err and isinstance(err[0], CacheError) and not isinstance(err[0], CacheCorrupted)
    assert "another process holds it" in str(err[0]) and "whole" in str(err[0])
    assert cache.get("a") == {"value": 1.0}


def _catch(out: list, fn) -> None:
    try:
        fn()
    except BaseException as e:   # noqa: BLE001 - the test reads it
        out.append(e)


def test_a_cache_on_a_read_only_mount_says_so(tmp_path):
    """A teammate's cache on a read-only mount: a chmod traceback, then 'corrupted, move it aside'."""
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs a mount namespace (unshare -m) for a read-only bind mount")
    JudgeCache(tmp_path / "c").close()
    script = ("import sys; sys.path.insert(0, '.'); from judges.cache import JudgeCache, CacheError, CacheCorrupted\n"
              f"try:\n    JudgeCache({str(tmp_path / 'c')!r})\nexcept CacheCorrupted as e:\n    print('CORRUPTED', e)\n"
              "except CacheError as e:\n    print('NOTUSABLE', e)\nelse:\n    print('OPENED')\n")
    out = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind -o ro {tmp_path / 'c'} {tmp_path / 'c'} && "
                          f"mount -o remount,bind,ro {tmp_path / 'c'} && python -c \"$0\"", script],
                         capture_output=True, text=True, cwd=ROOT, env={"PATH": _venv_path()})
    assert out.stdout.startswith("NOTUSABLE"), out.stdout + out.stderr
    assert "read-only mount" in out.stdout and "judge.cache_dir" in out.stdout, out.stdout


def _venv_path() -> str:
    import os
    import sys
    return os.path.dirname(sys.executable) + ":" + os.environ.get("PATH", "")


def test_a_user_made_cache_directory_keeps_its_mode(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o770)
    shared.chmod(0o770)
    JudgeCache(shared).close()
    assert shared.stat().st_mode & 0o777 == 0o770
    JudgeCache(tmp_path / "mine").close()
    assert (tmp_path / "mine").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("value, why", [({}, "neither a `value` nor a `text`"), ({"value": "0.9"}, "not a number"),
                                        ({"value": float("nan")}, "NaN or infinite")])
def test_an_import_whose_entries_read_as_no_answer_adds_nothing(tmp_path, value, why):
    """Imported rows are kept for good (import never overwrites): `{}` crashed every judge stage after it,
    a NaN or a string score poisoned the rewards."""
    good = {"key": "a" * 64, "value": {"value": 0.5, "breakdown": {}}}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({"key": "b" * 64, "value": value}) + "\n")
    cache = JudgeCache(tmp_path / "c")
    with pytest.raises(CacheCorrupted, match=why):
        cache.import_(path)
    assert len(cache) == 0
    path.write_text(json.dumps(good) + "\n" + json.dumps({"key": "t" * 64, "value": {"text": "def f(): pass"}}) + "\n")
    assert cache.import_(path) == (2, 0)


def _pay(run_dir, barrier) -> None:
    barrier.wait()
    spend_ledger(run_dir, "judge")("k", 1.0)


def test_two_processes_starting_a_ledger_write_one_baseline(tmp_path):
    """`rlaif judge` beside a running epoch: both saw an empty ledger and both wrote its baseline line
    (what finished stages had paid), counted twice against the budget."""
    from pipeline.store.artifacts import write_manifest
    d = tmp_path / "epoch-001" / "judge"
    d.mkdir(parents=True)
    write_manifest(d, {"stage": "judge", "fingerprint": "f" * 64, "figures": {"judge/cost_usd": 0.5}, "config": {},
                       "inputs": {}})
    for trial in range(4):
        (tmp_path / "spend.jsonl").unlink(missing_ok=True)
        ctx = multiprocessing.get_context("fork")
        barrier = ctx.Barrier(2)
        ps = [ctx.Process(target=_pay, args=(tmp_path, barrier)) for _ in range(2)]
        for p in ps:
            p.start()
        for p in ps:
            p.join()
        lines = (tmp_path / "spend.jsonl").read_text().splitlines()
        assert sum('"baseline"' in x for x in lines) == 1, lines
        assert spent_usd(tmp_path) == pytest.approx(2.5)


def test_an_output_settles_what_its_stopped_attempts_paid_once(tmp_path):
    """A stage stopped by a kill or the budget and rerun: the first attempt's paid answers are the rerun's
    cache hits; the finished stage's cost counts them (not its saved dollars), and a later --force
    remake of the same output does not count them again."""
    from pipeline.stages.spend import run_spend, settle, settled
    out = "epoch-001/judge@0123456789abcdef"
    spend_ledger(tmp_path, "judge", out)("a", 0.25)                                  # the killed attempt
    spend_ledger(tmp_path, "judge", "epoch-002/judge@0123456789abcdef")("b", 1.0)    # another output's
    spend_ledger(tmp_path, "judge", "epoch-001/judge@fedcba9876543210")("d", 2.0)    # other settings' attempt
    spend_ledger(tmp_path, "judge", out)("c", 0.5)                                   # the rerun's own call
    # the rerun paid 0.5 and saw "a" as a hit worth 0.25 (+0.125 from an earlier run's answer)
    assert settle(tmp_path, out, 0.5, 0.375) == (0.75, 0.125)
    assert settle(tmp_path, out, 0.5, 0.375) == (0.75, 0.125)   # not settled until its output is on disk
    settled(tmp_path, out)
    assert settle(tmp_path, out, 0.0, 0.75) == (0.0, 0.75)   # --force: all hits, nothing paid
    assert run_spend(tmp_path) == {"judge": 3.75}
    settled(tmp_path / "free", out)   # a stage that paid nothing (the execution judge) writes no ledger
    assert not (tmp_path / "free").exists()


def test_two_processes_missing_one_key_pay_once(tmp_path):
    """`rlaif judge` twice at once on one answer (as beside an epoch's judge stage, or two runs asking a
    teacher for the same problems): the second waits on the first's call through the cache directory's
    lock and reads its answer; the API sees one request, the ledger one paid call."""
    import os
    import sys
    from pipeline.config.file import load_config
    from pipeline.stages.problems import source_problems
    from tests.fakeapi import FakeAPI
    p = source_problems(load_config(None, []), "builtin:train")[0]
    (tmp_path / "a.md").write_text(f"```python\n{p.reference}\n```\n")
    with FakeAPI(latency=1.0) as api:
        args = [sys.executable, "-m", "pipeline.cli", "judge", "--problem", p.id, "--completion", str(tmp_path / "a.md"),
                f"run.dir={tmp_path}", "judge.kind=anthropic", "judge.model=fake-model", f"judge.base_url={api.anthropic_url}",
                "judge.prices={fake-model: {input: 3.0, output: 15.0}}"]
        env = {**os.environ, "ANTHROPIC_API_KEY": "k"}
        procs = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [pr.communicate(timeout=300) for pr in procs]
        assert [pr.returncode for pr in procs] == [0, 0], [o[1][-800:] for o in outs]
        assert api.total == 1, [o[1][-800:] for o in outs]
    paid = [json.loads(x) for x in next(tmp_path.rglob("spend.jsonl")).read_text().splitlines()]
    assert len([x for x in paid if "usd" in x]) == 1, paid


def test_a_file_system_without_locks_calls_without_one(tmp_path, monkeypatch):
    """NFS without lockd, some FUSE mounts: lockf fails with ENOLCK. The call goes ahead without the
    cross-process lock (two processes may then both pay), not with an error."""
    import errno
    import judges.cached as cached

    def no_locks(*a, **kw):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(cached.fcntl, "lockf", no_locks)

    async def call():
        return {"value": 0.5, "cost_usd": 0.25}
    cache = JudgeCache(tmp_path / "nolocks")
    results, stats = asyncio.run(run_cached(cache, [("k1", call), ("k2", call)]))
    assert [r["value"] for r in results] == [0.5, 0.5] and stats.api_calls == 2
    cache.close()


def test_a_refused_import_leaves_what_others_wrote_meanwhile(tmp_path, monkeypatch, capsys):
    """`rlaif cache import` of a bad file into a cache not there yet: another process (here, a write made while
    the file's rows are checked) made the cache and wrote a judgement meanwhile; the refusal keeps it (it removed
    the whole directory, and with it another import's entries or a paid judgement)."""
    import judges.cache as cache_mod
    from pipeline.cli.main import main
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"key": "b" * 64, "value": {"value": "0.9"}}) + "\n" + json.dumps({"rows": 1}) + "\n")
    real = cache_mod._not_an_answer

    def meanwhile(v):
        other = JudgeCache(tmp_path / "c")
        other.set("k" * 64, {"value": 1.0, "breakdown": {}})
        other.close()
        return real(v)
    monkeypatch.setattr(cache_mod, "_not_an_answer", meanwhile)
    assert main(["cache", "import", str(path), f"judge.cache_dir={tmp_path / 'c'}", f"run.dir={tmp_path}"]) == 2
    assert "nothing was imported" in capsys.readouterr().err
    kept = JudgeCache(tmp_path / "c")
    assert kept.get("k" * 64) == {"value": 1.0, "breakdown": {}}
    kept.close()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(json.dumps({"key": "a" * 64, "value": {"value": 0.5}}) + "\n" + '{"key": "b')
    with pytest.raises(CacheCorrupted, match=r"cut.jsonl, line 2: the file ends inside a row \(a truncated copy\?\)"):
        cache_mod.read_export(cut)


def test_an_export_cut_at_a_rows_end_is_found_short(tmp_path, caplog):
    """A .jsonl export ends with its row count: a copy cut exactly at a row's end (which reads as rows) imported
    as a partial cache without a word."""
    c = JudgeCache(tmp_path / "c")
    for k in "abc":
        c.set(k * 64, {"value": 0.5, "breakdown": {}})
    assert c.export(tmp_path / "all.jsonl") == 3
    c.close()
    lines = (tmp_path / "all.jsonl").read_text().splitlines(keepends=True)
    assert json.loads(lines[-1]) == {"rows": 3}
    (tmp_path / "cut.jsonl").write_text("".join(lines[:2] + lines[-1:]))
    fresh = JudgeCache(tmp_path / "d")
    with pytest.raises(CacheCorrupted, match=r"cut.jsonl: 2 rows, but it was written with 3 \(a copy cut short\?\)"):
        fresh.import_(tmp_path / "cut.jsonl")
    assert len(fresh) == 0 and fresh.import_(tmp_path / "all.jsonl") == (3, 0)
    (tmp_path / "old.jsonl").write_text("".join(lines[:-1]))   # an export written before the count: as it was, said
    with caplog.at_level("WARNING", logger="rlaif"):
        assert fresh.import_(tmp_path / "old.jsonl") == (0, 3)
    assert "old.jsonl ends without the row count" in caplog.text and "a copy cut short at a row's end" in caplog.text
    fresh.close()


def test_status_says_what_rlaif_judge_paid_before_any_epoch(tmp_path, capsys):
    """`rlaif judge` pays into the run's spend ledger before any epoch: `rlaif status` said only "no epochs yet"."""
    from pipeline.cli.main import main
    spend_ledger(tmp_path / "default", "judge")("k", 0.0102)   # as `rlaif judge` records a paid call
    assert main(["status", f"run.dir={tmp_path}"]) == 0
    out = capsys.readouterr().out
    assert "no epochs yet" in out and "money spent so far: $0.0102 (judge $0.0102; `rlaif judge`'s calls)" in out, out
