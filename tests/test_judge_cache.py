"""The judge cache: JSON values, no eviction, 0700, key ingredients, one call per key, no pickle."""
from __future__ import annotations

import pickle
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from data.loaders import load_builtin
from judges.cache import CacheCorrupted, JudgeCache, cache_key
from pipeline.config.file import load_config
from pipeline.stages.judging import Judging, as_answer


def test_key_ignores_dict_order_and_changes_with_each_ingredient():
    base = {"kind": "execution", "model": "m", "base_url": "u", "rubric": "r1", "parser": "1",
            "params": {"temperature": 0.0, "max_tokens": 10}, "prompt": "p", "completion": "c", "reference": "x"}
    reordered = dict(reversed(list(base.items())))
    reordered["params"] = {"max_tokens": 10, "temperature": 0.0}
    assert cache_key(base) == cache_key(reordered)
    for k in base:
        changed = {**base, k: (base[k] + "!" if isinstance(base[k], str) else {**base[k], "temperature": 1.0})}
        assert cache_key(changed) != cache_key(base), k


def test_cache_is_json_0700_and_never_evicts(tmp_path):
    c = JudgeCache(tmp_path / "cache")
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700
    assert c._cache.eviction_policy == "none"
    c.set("k", {"value": 0.5, "breakdown": {"tests": 1.0}})
    assert c.get("k") == {"value": 0.5, "breakdown": {"tests": 1.0}}
    c.close()


def test_planted_pickle_never_executes(tmp_path):
    c = JudgeCache(tmp_path / "cache")
    c.set("good", {"value": 1.0})
    c.close()
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (Path.write_text, (marker, "owned"))

    db = sqlite3.connect(tmp_path / "cache" / "cache.db")
    assert db.execute("UPDATE Cache SET mode = 4, value = ?", (pickle.dumps(Evil()),)).rowcount == 1
    db.commit()
    db.close()
    c = JudgeCache(tmp_path / "cache")
    with pytest.raises(CacheCorrupted, match="pickle"):
        c.get("good")
    c.close()
    assert not marker.exists()


def test_concurrent_misses_compute_once(tmp_path):
    c = JudgeCache(tmp_path / "cache")
    calls = []
    gate = threading.Barrier(8)

    def compute():
        calls.append(1)
        return {"value": 1.0}

    def worker():
        gate.wait()
        c.get_or_compute("same", compute)

    ts = [threading.Thread(target=worker) for _ in range(8)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert len(calls) == 1
    c.close()


def test_execution_judging_is_cached_and_replayable(tmp_path):
    cfg = load_config(None, [f"run.dir={tmp_path}"])
    p = load_builtin("train")[0]
    items = [(p, as_answer(p.reference), False), (p, "```python\ndef nope():\n    return 1\n```", False)]
    j = Judging(cfg)
    first = j.score_all(items)
    assert (j.calls, j.hits) == (2, 0)
    assert first[0].value == pytest.approx(1.0) and first[1].value < 0.5
    j.cache.close()
    j = Judging(cfg)
    again = j.score_all(items + [(p, as_answer(p.reference), True)])  # truncation changes the key
    assert (j.calls, j.hits) == (1, 2)
    assert [s.to_json() for s in again[:2]] == [s.to_json() for s in first]
    j.cache.close()
    replay = Judging(load_config(None, [f"run.dir={tmp_path}", "judge.mode=replay"]))
    assert [s.value for s in replay.score_all(items)] == [s.value for s in first]
    from pipeline.config.errors import RunError
    with pytest.raises(RunError, match="1 of 1 judgements are not in the cache"):
        replay.score_all([(p, "```python\ndef other():\n    pass\n```", False)])
    replay.cache.close()


def test_export_import_merges_without_overwriting(tmp_path, capsys):
    from pipeline.cli.main import main
    a = JudgeCache(tmp_path / "a")
    a.set("k1", {"value": 0.1})
    a.set("k2", {"value": 0.2})
    a.close()
    for ext in ("jsonl", "parquet"):
        out = tmp_path / f"export.{ext}"
        assert main(["cache", "export", str(out), f"judge.cache_dir={tmp_path / 'a'}"]) == 0
        b = JudgeCache(tmp_path / f"b-{ext}")
        b.set("k2", {"value": 0.9})  # a local judgement is never overwritten
        b.close()
        assert main(["cache", "import", str(out), f"judge.cache_dir={tmp_path / f'b-{ext}'}"]) == 0
        assert "imported 1 judgements" in capsys.readouterr().out
        b = JudgeCache(tmp_path / f"b-{ext}")
        assert b.get("k1") == {"value": 0.1} and b.get("k2") == {"value": 0.9}
        b.close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "x", "value": {}}\nnot json\n')
    assert main(["cache", "import", str(bad), f"judge.cache_dir={tmp_path / 'a'}"]) == 2
    assert "bad.jsonl, line 2" in capsys.readouterr().err


def test_corrupted_cache_database_is_refused_not_used(tmp_path, capsys):
    from pipeline.cli.main import main
    c = JudgeCache(tmp_path / "cache")
    c.set("k", {"value": 1.0})
    c.close()
    db = tmp_path / "cache" / "cache.db"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 3])  # truncated, as by a full disk or a bad copy
    with pytest.raises(CacheCorrupted, match="is corrupted"):
        JudgeCache(tmp_path / "cache")
    assert main(["cache", "stats", f"judge.cache_dir={tmp_path / 'cache'}"]) == 2
    assert "mv " in capsys.readouterr().err


def test_cache_keys_of_existing_judgements_never_change(tmp_path):
    """Pinned keys of judgements users have paid for (execution: Python and OCaml; an Anthropic
    rubric judge and teacher): moving code between modules must leave every one of them as it was,
    or a rerun would pay for them again. A grading change bumps its harness version, and with it
    its key, on purpose (execution: exec-5, bare code followed by prose cut where it compiles; ocaml-2, the results on stderr)."""
    from data.loaders import load_source
    from pipeline.stages.judging import make_model
    keys = {}
    for path in ("config.yaml", "configs/ocaml.yaml"):
        cfg = load_config(path, [f"run.dir={tmp_path}"])
        first = load_source(cfg.data.source, None, cfg.data.language)[0]
        keys[path] = Judging(cfg).key(first, "def f(): pass", False)[:16]
    llm = make_model("anthropic", "claude-haiku-4-5", load_config("config.yaml", [
        "judge.kind=anthropic", "judge.model=claude-haiku-4-5", "judge.mode=replay"]))
    first = load_source("builtin", None, "python")[0]
    keys["anthropic"] = llm.key(first, "x = 1", "ref")[:16]
    keys["anthropic teacher"] = llm.teacher_key(first)[:16]
    assert keys == {"config.yaml": "f4d242e3000194a2", "configs/ocaml.yaml": "46f109f631970725",
                    "anthropic": "57235172cb25c637", "anthropic teacher": "092f9b2949328e4b"}


def test_a_judge_error_is_not_kept_and_a_test_code_change_is_a_new_judgement(tmp_path):
    """A judgement the sandbox could not make (here: a problem with nothing to run) is not cached, so
    the next run judges it again; tests=[] runs the test code (judges/execution.run_tests), so the test
    code is what the key holds."""
    import dataclasses
    cfg = load_config(None, [f"run.dir={tmp_path}"])
    p = load_builtin("train")[0]
    bare = dataclasses.replace(p, tests=None, test_code=None)
    j = Judging(cfg)
    ok, err = j.score_all([(p, as_answer(p.reference), False), (bare, as_answer(p.reference), False)])
    assert ok.value == pytest.approx(1.0) and err.value is None and "judge error" in err.raw
    assert len(j.cache) == 1 and j.calls == 2
    again = j.score_all([(bare, as_answer(p.reference), False)])
    assert again[0].value is None and (j.calls, j.hits) == (3, 0) and len(j.cache) == 1
    one = dataclasses.replace(p, tests=[], test_code="def check(f):\n    assert f(1) == 1\n")
    two = dataclasses.replace(one, test_code="def check(f):\n    assert f(1) == 2\n")
    assert j.key(one, "x", False) != j.key(two, "x", False)
    j.cache.close()


def test_replay_with_skip_missing_counts_the_execution_judges_misses(tmp_path):
    from pipeline.config.errors import RunError
    p = load_builtin("train")[0]
    items = [(p, as_answer(p.reference), False), (p, "```python\ndef nope():\n    return 1\n```", False)]
    live = Judging(load_config(None, [f"run.dir={tmp_path}"]))
    live.score_all(items[:1])
    live.cache.close()
    replay = Judging(load_config(None, [f"run.dir={tmp_path}", "judge.mode=replay"]))
    with pytest.raises(RunError, match="judge.skip_missing=true"):
        replay.score_all(items)
    replay.cache.close()
    skip = Judging(load_config(None, [f"run.dir={tmp_path}", "judge.mode=replay", "judge.skip_missing=true"]))
    got = skip.score_all(items)
    assert got[0].value == pytest.approx(1.0) and got[1].value is None and "not in the cache" in got[1].raw
    assert (skip.skipped, skip.calls, skip.hits) == (1, 0, 1) and len(skip.cache) == 1
    skip.cache.close()
