"""The commands that read a run and its variants, as a user types them: sweep's checks before any
training, compare's columns, promote by prefix, compare-evals on the chosen policy, the cache's import
and export refusing what they cannot read, and the arguments' own checks."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from judges.cache import JudgeCache
from pipeline.cli.commands_train import sweep_grid
from pipeline.cli.main import main
from pipeline.config.base import ConfigError
from tests.test_report import _eval_dir, _stage_dir, fake_run  # noqa: F401  (fixture)


def demo(run) -> list[str]:
    return [f"run.dir={run.run_dir.parent}", f"run.name={run.run_dir.name}"]


def test_a_sweep_checks_its_whole_grid_and_its_epoch_before_anything(tmp_path, capsys):
    with pytest.raises(ConfigError, match="already an axis"):
        sweep_grid(["update.lr=1e-4,2e-4", "update.lr=3e-4"])
    with pytest.raises(ConfigError, match="repeated"):
        sweep_grid(["update.lr=1e-4,1e-4"])
    with pytest.raises(ConfigError, match="one `rlaif update N select.KEY"):
        sweep_grid(["select.top_k=2,4"])
    assert main(["sweep", "1", "--grid", "update.lr=1e-4,oops", f"run.dir={tmp_path}"]) == 2
    assert "--grid update.lr=oops" in capsys.readouterr().err
    assert main(["sweep", "1", "--grid", "update.lr=1e-4,2e-4", f"run.dir={tmp_path}"]) == 2
    assert "has not run" in capsys.readouterr().err and not (tmp_path / "default").exists()


def test_compare_shows_the_settings_that_tell_variants_apart_and_promote_takes_a_prefix(fake_run, capsys):
    (first, m) = fake_run.chosen_update(4)
    fp = "ab12" + "0" * 60
    other = first.parent / f"update-{fp[:8]}"
    _stage_dir(other, fp, config={"update": {"lr": 2e-5, "kl_coef": 0.05, "clip_eps": 0.1}}, stage="update")
    _stage_dir(first, m["fingerprint"], config={"update": {"lr": 2e-5, "kl_coef": 0.05, "clip_eps": 0.2}},
               stage="update")
    assert main(["compare", "4", *demo(fake_run)]) == 0
    out = capsys.readouterr().out
    assert "update.clip_eps" in out and "update.lr" not in out   # the key that differs, not the ones that do not
    assert main(["promote", "4", "ab12", *demo(fake_run)]) == 0   # a fingerprint prefix
    assert fake_run.chosen_update(4)[0] == other
    assert "it has no eval (killed, or made without one): `rlaif eval 4`" in capsys.readouterr().out
    _eval_dir(fake_run, 4, fp, [0.5] * 4)
    assert main(["promote", "4", "ab12", *demo(fake_run)]) == 0 and "no eval" not in capsys.readouterr().out
    assert main(["promote", "4", "update-", *demo(fake_run)]) == 2
    assert "ambiguous" in capsys.readouterr().err
    assert main(["promote", "4", "ab12", f"run.dir={fake_run.run_dir.parent}", "run.name=nothere"]) == 2
    assert "no run at" in capsys.readouterr().err and not (fake_run.run_dir.parent / "nothere").exists()


def test_compare_evals_reads_the_chosen_policys_eval_and_says_what_it_cannot(fake_run, capsys, tmp_path):
    chosen = fake_run.chosen_update(4)[1]["fingerprint"]
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), [0.25, 0.5, 0.75] * 4)
    _eval_dir(fake_run, 4, chosen, [0.5, 0.75, 1.0] * 4)
    import shutil
    late = fake_run.epoch_dir(4) / "eval-late"   # another variant's eval, made later
    shutil.copytree(fake_run.epoch_dir(4) / f"eval-{4:08d}", late)
    m = json.loads((late / "manifest.json").read_text())
    m.update(inputs={"update": "f" * 64}, started_at="9")
    (late / "manifest.json").write_text(json.dumps(m))
    run = str(fake_run.run_dir)
    assert main(["compare-evals", f"{run}@0", f"{run}@4"]) == 0
    assert f"B: {fake_run.epoch_dir(4) / f'eval-{4:08d}'}" in capsys.readouterr().out
    assert main(["compare-evals", "0", "4", *demo(fake_run)]) == 0   # epoch numbers alone: this config's run
    assert f"B: {fake_run.epoch_dir(4) / f'eval-{4:08d}'}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["compare-evals", f"{run}@0", f"{run}@4", "--confidence", "95"])
    assert "between 0 and 1" in capsys.readouterr().err
    # a chosen update without an eval of its own is said, not stood in for by another variant's
    fp = "cd34" + "0" * 60
    _stage_dir(fake_run.epoch_dir(4) / f"update-{fp[:8]}", fp, stage="update")
    (fake_run.epoch_dir(4) / "chosen.json").write_text(json.dumps({"update": f"update-{fp[:8]}"}))
    assert main(["compare-evals", f"{run}@0", f"{run}@4"]) == 2
    assert "has no finished eval" in capsys.readouterr().err
    empty = fake_run.epoch_dir(3) / "eval-empty"
    _eval_dir(fake_run, 3, "e" * 64, [])
    (fake_run.epoch_dir(3) / f"eval-{3:08d}").rename(empty)
    assert main(["compare-evals", f"{run}@0", str(empty)]) == 2
    assert "holds no problem" in capsys.readouterr().err
    # `@1` read the working directory as the run; a path that is not there was "not a finished eval directory"
    assert main(["compare-evals", "@1", f"{run}@4"]) == 2
    assert "'@1': no run directory before @; write RUN_DIR@1" in capsys.readouterr().err
    assert main(["compare-evals", str(tmp_path / "gone"), f"{run}@4"]) == 2
    assert f"{tmp_path / 'gone'}: no such directory" in capsys.readouterr().err


def test_cache_import_adds_nothing_from_a_bad_file_and_export_writes_what_import_reads(tmp_path, capsys):
    over = [f"judge.cache_dir={tmp_path / 'c'}"]
    assert main(["cache", "stats", *over]) == 2
    assert "no judge cache at" in capsys.readouterr().err and not (tmp_path / "c").exists()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"key": "k1", "value": {"value": 1.0}}) + "\n" + json.dumps({"key": "k2", "value": 3}) + "\n")
    assert main(["cache", "import", str(bad), *over]) == 2
    assert "entry 'k2'" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()   # the refused import made no empty cache
    c = JudgeCache(tmp_path / "c")
    assert len(c) == 0   # the good first row was not added either
    c.set("k0", {"value": 0.0})
    c.close()
    (tmp_path / "f.jsonl").write_text("")
    for name, err in (("x.csv", ".jsonl or a .parquet"), ("nodir/x.jsonl", "does not exist"),
                      ("f.jsonl/x.jsonl", f"{tmp_path / 'f.jsonl'} is a file, not a directory")):
        assert main(["cache", "export", str(tmp_path / name), *over]) == 2
        assert err in capsys.readouterr().err
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    assert main(["cache", "import", str(gz), *over]) == 2
    assert "not text" in capsys.readouterr().err
    assert main(["cache", "import", str(bad.with_suffix(".parquet")), *over]) == 2  # no such file
    (tmp_path / "p.parquet").write_bytes(b"not parquet")
    assert main(["cache", "import", str(tmp_path / "p.parquet"), *over]) == 2
    assert "not a cache export" in capsys.readouterr().err


def test_counts_and_epochs_are_not_negative(fake_run, capsys):
    for option, k in (("--worst", "-2"), ("--worst", "0"), ("--best", "0")):   # 0 printed a header alone
        with pytest.raises(SystemExit) as exit_:
            main(["samples", "4", option, k, *demo(fake_run)])
        assert exit_.value.code == 2 and f"argument {option}: {k} is less than 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["samples", "-1", *demo(fake_run)])
    assert "is negative" in capsys.readouterr().err


def test_cache_export_replaces_an_existing_file_only_with_force(tmp_path, capsys):
    """It overwrote whatever FILE was, in place; now it refuses, and with --force writes it whole beside it first."""
    over = [f"judge.cache_dir={tmp_path / 'c'}"]
    c = JudgeCache(tmp_path / "c")
    c.set("k0", {"value": 0.0})
    c.close()
    for name in ("mine.jsonl", "mine.parquet"):
        out = tmp_path / name
        out.write_text("my own notes\n")
        out.chmod(0o664)   # (a team's file: replaced with its group and permissions, not the umask's)
        if os.geteuid() == 0:
            os.chown(out, -1, 1)
        assert main(["cache", "export", str(out), *over]) == 2
        err = capsys.readouterr().err
        assert f"cache export {out}: the file exists" in err and "--force" in err, err
        assert out.read_text() == "my own notes\n"
        assert main(["cache", "export", str(out), "--force", *over]) == 0
        assert out.stat().st_mode & 0o777 == 0o664 and (os.geteuid() != 0 or out.stat().st_gid == 1)
        assert main(["cache", "import", str(out), *over]) == 0   # what export writes, import reads
        assert "imported 0 judgements" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c", "mine.jsonl", "mine.parquet"]   # no temp file left
    (tmp_path / f".new.jsonl.tmp{os.getpid()}").mkdir()   # where the export is written first: unwritable, even as root
    assert main(["cache", "export", str(tmp_path / "new.jsonl"), *over]) == 2
    assert f"cache export {tmp_path / 'new.jsonl'}: Is a directory; the cache itself is unchanged" in capsys.readouterr().err


def test_a_replay_past_the_runs_last_update_says_which_epochs_can_be_replayed(tmp_path, fake_run, capsys):
    """`rlaif replay N` where epoch N-1 has no policy: the epochs a replay can remake are named, not only
    that epoch N-1 has no update."""
    assert main(["replay", "3", f"run.dir={tmp_path / 'empty'}"]) == 2
    err = capsys.readouterr().err
    assert "epoch 3" in err and "cannot be replayed" in err and "no epoch has an update yet" in err, err
    done = sorted(n for n in fake_run.epochs() if n > 0 and fake_run.chosen_update(n) is not None)
    assert done, "the fake run has updates"
    assert main(["replay", str(done[-1] + 2), *demo(fake_run)]) == 2
    err = capsys.readouterr().err
    assert f"epochs with an update: {', '.join(map(str, done))}" in err and f"`rlaif replay {done[-1]}`" in err, err


def test_an_update_rerun_at_the_schedules_tail_is_warned(tmp_path):
    """`rlaif update N` / `rlaif sweep N` with the carried schedule: epoch N starts at epoch N-1's last
    learning rate; below half the peak, a variant's settings move it little, and that is said."""
    from pipeline.cli.commands_train import schedule_tail
    from pipeline.config.file import load_config
    from pipeline.run.runner import Runner
    cfg = load_config(None, [f"run.dir={tmp_path}"])
    r = Runner(cfg)
    for n, last in ((2, 1.6e-4), (3, 3.5e-5)):
        r.epoch_dir(n).mkdir(parents=True)
        (r.epoch_dir(n) / "metrics.json").write_text(json.dumps({"optim/lr": 2e-4, "optim/lr_last": 1e-4, "optim/lr_next": last}))
    assert schedule_tail(r, cfg, 3) is None                      # epoch 3 starts at 80% of the peak
    note = schedule_tail(r, cfg, 4)
    assert note and "starts at 18% of the peak" in note and "optim/lr_next 3.5e-05 of 0.0002" in note, note
    (r.epoch_dir(3) / "metrics.json").write_text(json.dumps({"optim/lr": 2e-4, "optim/lr_last": 3.5e-5}))   # an older record
    assert "optim/lr_last 3.5e-05 of 0.0002" in schedule_tail(r, cfg, 4)
    assert schedule_tail(r, load_config(None, [f"run.dir={tmp_path}", "update.scheduler=constant"]), 4) is None
    assert schedule_tail(r, cfg, 7) is None                      # no metrics of epoch 6: nothing to say


def test_variant_commands_on_epochs_without_variants_say_why_and_compare_keeps_its_columns(fake_run, capsys):
    """compare 0 (the warm-start has no variants), promote of an epoch that has not run, a compare whose
    key is wider than its column, and a comparison over too few problems for an interval."""
    from pipeline.metrics.significance import compare
    from tests.test_report import _stage_dir
    assert main(["compare", "0", *demo(fake_run)]) == 2
    assert "epoch 0 (the supervised warm-start) of run" in capsys.readouterr().err
    assert main(["promote", "9", "abc", *demo(fake_run)]) == 2
    err = capsys.readouterr().err
    assert "epoch 9 of run" in err and "has no finished update (epochs with one: 1, 2, 3, 4)" in err, err
    edir = fake_run.epoch_dir(4)
    for lr, coef in ((2e-5, 4.0), (1e-5, 0.5)):
        _stage_dir(edir / f"update-{int(lr * 1e6):08d}", f"{int(lr * 1e6):08d}" + "0" * 56, stage="update",
                   config={"update": {"lr": lr, "teacher_sft_coef": coef}})
    assert main(["compare", "4", *demo(fake_run)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert " update.lr " in head and " update.teacher_sft_coef " in head, head
    p = compare([{"a": 0.0, "b": 1.0, "c": 0.0}], [{"a": 1.0, "b": 1.0, "c": 1.0}])
    assert "[no interval: too few problems (3; 5 at least" in p.line() and "inf" not in p.line()


@pytest.mark.skipif(os.geteuid() != 0 or not __import__("shutil").which("setpriv"),
                    reason="another user's cache needs root to make, and setpriv to act as that user")
def test_a_cache_another_user_owns_is_read_when_readable_and_refused_by_name_when_not(tmp_path):
    """sqlite opens a cache read-write even to read it: a read-only cache (a colleague's run, a read-only mount)
    is read from a private copy, and a cache this user may not enter is an error line naming it, not a traceback."""
    import shutil
    import subprocess
    import sys
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="rlaif-perm-"))   # (pytest's tmp_path is root's alone)
    try:
        top.chmod(0o755)
        mine, theirs = top / "mine" / ".judge-cache", top / "theirs" / ".judge-cache"
        for d in (mine, theirs):
            c = JudgeCache(d)
            c.set("k0", {"value": 0.5})
            c.close()
            d.parent.chmod(0o755)
        for f in [theirs, *theirs.rglob("*")]:
            os.chown(f, 65534, 65534)
            f.chmod(0o500 if f.is_dir() else 0o400)   # theirs, and read-only even to them
        before = sorted((p.name, p.stat().st_mtime_ns) for p in theirs.iterdir())

        def as_nobody(*args):
            return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                   "-m", "pipeline.cli", "cache", *args], cwd=top, capture_output=True, text=True,
                                  timeout=120,
                                  env={**os.environ, "HOME": str(top), "PYTHONPATH": str(Path.cwd())})
        res = as_nobody("stats", f"run.dir={top / 'theirs'}")
        assert res.returncode == 0 and json.loads(res.stdout)["entries"] == 1, res.stderr
        (top / "out").mkdir()
        os.chown(top / "out", 65534, 65534)
        res = as_nobody("export", str(top / "out" / "x.jsonl"), f"run.dir={top / 'theirs'}")
        assert res.returncode == 0, res.stderr
        assert [json.loads(x) for x in (top / "out" / "x.jsonl").read_text().splitlines()] == [{"key": "k0", "value": {"value": 0.5}}, {"rows": 1}]
        assert sorted((p.name, p.stat().st_mtime_ns) for p in theirs.iterdir()) == before   # untouched
        res = as_nobody("stats", f"run.dir={top / 'mine'}")   # root's 0700 cache
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
        assert f"judge cache {mine} cannot be read by this user (permission denied)" in res.stderr
        assert not [p for p in Path(tempfile.gettempdir()).glob("rlaif-cache-copy-*") if p.owner() == "nobody"]
    finally:
        shutil.rmtree(top)


def test_a_report_of_a_run_with_no_finished_epoch_and_a_config_that_is_not_yaml_say_so(tmp_path, capsys):
    """`rlaif report` printed only "wrote report.md" for a run with no finished epoch; a YAML error named
    the file once and then `"<unicode string>"` at each of its marks."""
    (tmp_path / "default" / "epoch-001").mkdir(parents=True)
    assert main(["report", f"run.dir={tmp_path}"]) == 0
    assert f"no epoch of {tmp_path / 'default'} has finished yet" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text("run:\n  name: x\n student: [\n")
    assert main(["config", "show", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: not valid YAML" in err and "at line 3, column 2" in err and "unicode string" not in err, err


def test_samples_eval_shows_the_evals_answers_by_their_score(epoch1_config, capsys, tmp_path, monkeypatch):
    """`rlaif samples N --eval`: the answers the eval of epoch N's chosen policy drew, worst first, each with its
    score and whether it passes its tests; --prompt takes a problem id; the base model's eval is epoch 0's."""
    from pipeline.config.file import load_config
    from pipeline.metrics.evals import load_eval
    from pipeline.run.runner import Runner
    monkeypatch.chdir(tmp_path)
    r = Runner(load_config(None, epoch1_config))
    d, _ = r.eval_of(1, r.chosen_update(1)[1]["fingerprint"])
    rows = sorted(load_eval(d), key=lambda x: (x["values"][0], x["problem_id"]))
    assert main(["samples", "1", "--eval", "--worst", "1", *epoch1_config]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"epoch 1's eval ({d.name}, of {r.chosen_update(1)[0].name}): {len(rows)} answers to "
                          f"{len(rows)} problems; pass@1 "), out
    shown = out.split("#### ")[1].split(" #0: score ")[0]   # the lowest score's answer, its text as the eval drew it
    first = next(x for x in rows if f"{x['source']}:{x['problem_id']}" == shown)
    assert first["values"][0] == rows[0]["values"][0] and first["texts"][0].strip() in out, out
    assert ("fails its tests" if not first["passed"][0] else "passes its tests") in out
    last = rows[-1]
    assert main(["samples", "1", "--eval", "--prompt", last["problem_id"], *epoch1_config]) == 0
    assert f"#### {last['source']}:{last['problem_id']} #0" in capsys.readouterr().out
    assert main(["samples", "1", "--eval", "--prompt", "nope", *epoch1_config]) == 2
    assert "epoch 1's eval has no problem 'nope'; its problems: " in capsys.readouterr().err
    assert main(["samples", "0", "--eval", *epoch1_config]) == 2
    assert "epoch 0 has no eval of the base model; `rlaif eval 0` makes one" in capsys.readouterr().err
