"""Command-line entry points a user hits first: scoring one answer, missing models, bad data."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.engines.model import ModelError, load_student


def test_judge_one_answer_prints_json_and_caches(tmp_path, capsys):
    good = tmp_path / "good.md"
    good.write_text("```python\ndef add(a, b):\n    return a + b\n```\n")
    from data.loaders import load_builtin
    p = load_builtin("train")[0]
    (tmp_path / "ref.md").write_text(f"```python\n{p.reference}\n```\n")
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 1.0 and out["breakdown"]["passed"] == out["breakdown"]["total"] > 0
    assert out["cache_hit"] is False
    assert main(["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    assert json.loads(capsys.readouterr().out)["cache_hit"] is True
    assert main(["judge", "--problem", p.id, "--completion", str(good), f"run.dir={tmp_path}", "--truncated"]) == 0
    wrong = json.loads(capsys.readouterr().out)
    assert wrong["value"] < 0.3 and wrong["breakdown"]["truncated"]
    assert main(["judge", "--problem", "no-such-id", "--completion", str(good), f"run.dir={tmp_path}"]) == 2
    assert "no-such-id" in capsys.readouterr().err
    # a problem of data.rl_sources is found, and the error names the key
    assert main(["judge", "--problem", "no-such-id", "--completion", str(good), f"run.dir={tmp_path}",
                 "data.rl_sources=[bank:train]"]) == 2
    assert "data.rl_sources=['bank:train']" in capsys.readouterr().err


def test_judge_finds_a_bank_problem_as_a_user_types_it(tmp_path, capsys):
    """`rlaif judge --problem py-basics-001` with the shipped config: the bank (and HumanEval) are found
    though no config key names them, scored by the execution judge through the run's cache."""
    (tmp_path / "ans.md").write_text("```python\ndef f():\n    return 1\n```\n")
    for pid in ("py-basics-001", "HumanEval/0"):
        assert main(["judge", "--problem", pid, "--completion", str(tmp_path / "ans.md"), f"run.dir={tmp_path}"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["problem"] == pid and out["judge"] == "execution" and out["value"] < 1.0
        assert out["breakdown"]["total"] > 0 and out["cache_hit"] is False
    from data.loaders import load_source
    b = load_source("bank")[0]
    (tmp_path / "ref.md").write_text(f"```python\n{b.reference}\n```\n")
    assert main(["judge", "--problem", b.id, "--completion", str(tmp_path / "ref.md"), f"run.dir={tmp_path}"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 1.0
    assert (tmp_path / ".judge-cache" / "cache.db").exists()


def test_judge_scores_with_the_configured_llm_judge_through_the_cache(tmp_path, capsys):
    """judge.kind=anthropic: the judgement is looked up under the judge stage's key (replay: nothing is
    sent); judge.kind=mix combines it with the execution judge's, each found in the cache on its own."""
    from data.loaders import load_source
    from judges.cache import JudgeCache
    from pipeline.stages.judging import as_answer, cache_dir, make_model
    p = load_source("bank")[0]
    answer = f"```python\n{p.reference}\n```\n"
    (tmp_path / "ref.md").write_text(answer)
    over = [f"run.dir={tmp_path}", "judge.kind=anthropic", "judge.model=claude-haiku-4-5", "judge.mode=replay"]
    cmd = ["judge", "--problem", p.id, "--completion", str(tmp_path / "ref.md")]
    assert main([*cmd, *over]) == 2
    assert "judge.mode=replay: 1 of 1 judgements are not in the cache" in capsys.readouterr().err
    cfg = load_config(None, over)
    key = make_model("anthropic", cfg.judge.model, cfg).key(p, answer, as_answer(p.reference, p.language))
    cache = JudgeCache(cache_dir(cfg))
    cache.set(key, {"value": 0.5, "breakdown": {"rubric": 5}, "raw": "", "cost_usd": 0.01})
    cache.close()
    assert main([*cmd, *over]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["judge"], out["value"], out["breakdown"], out["cache_hit"]) == ("anthropic", 0.5, {"rubric": 5}, True)
    assert main([*cmd, f"run.dir={tmp_path}"]) == 0      # the execution judge's, made live (replay would refuse it)
    assert json.loads(capsys.readouterr().out)["cache_hit"] is False
    assert main([*cmd, *over, "judge.kind=mix", "judge.mix={execution: 0.5, anthropic: 0.5}"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 0.75 and out["breakdown"]["execution"]["value"] == 1.0
    assert out["breakdown"]["anthropic"]["value"] == 0.5 and out["cache_hit"] is True


def test_missing_model_says_what_was_tried(tmp_path):
    cfg = load_config(None, [f"student.model={tmp_path / 'nope'}"])
    try:
        load_student(cfg.student)
    except ModelError as e:
        msg = str(e)
    else:
        raise AssertionError("a missing model loaded")
    assert "local path" in msg and "Hub id" in msg and "smollm2-135m-instruct" in msg


def test_missing_model_fails_the_epoch_cleanly(tmp_path, capsys, monkeypatch):
    """A model directory that is not there fails before any stage (its config is checked first), with
    nothing written."""
    rc = main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"student.model={tmp_path / 'nope'}",
               "data.prompts_per_epoch=1"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "cannot load student.model" in err and "no directory" in err and "Hugging Face Hub id" not in err, err
    assert not (tmp_path / "runs").exists()
    monkeypatch.chdir(tmp_path)   # a path that cannot be a Hub id is not said to have been tried as one
    assert main(["epoch", "1", "--dry-run", "student.model=./models/x"]) == 2
    assert f"no directory {tmp_path}/models/x (a relative path is read from the working directory" in capsys.readouterr().err


def test_a_model_directory_without_weights_fails_before_any_stage(tmp_path, tiny_config, capsys):
    """A directory with config and tokenizer and no weights passed the dry run, and failed at the sample stage."""
    import shutil
    model = next(x.split("=", 1)[1] for x in tiny_config if x.startswith("student.model="))
    bare = Path(shutil.copytree(model, tmp_path / "bare"))
    for f in bare.glob("*.safetensors"):
        f.unlink()
    over = [x for x in tiny_config if not x.startswith(("student.model=", "run.dir="))]
    assert main(["epoch", "1", "--dry-run", *over, f"run.dir={tmp_path / 'runs'}", f"student.model={bare}"]) == 2
    err = capsys.readouterr().err
    assert "has a config.json but no weights (*.safetensors" in err and "save_pretrained" in err, err
    assert not (tmp_path / "runs").exists()


def test_malformed_dataset_row_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"id": "a", "prompt": "x", "entry_point": "f", "tests": [{"input": [1], "output": 1}]}\n{oops\n')
    runs = tmp_path / "runs"
    assert main(["epoch", "1", f"run.dir={runs}", f"data.source={bad}"]) == 2
    cap = capsys.readouterr()
    assert "data.source: " in cap.err and "p.jsonl" in cap.err and "line 2" in cap.err
    assert not runs.exists() and "running" not in cap.out   # before any work: no run directory, lock or cache


@pytest.mark.parametrize("argv", [["epoch", "1"], ["epoch", "1", "--dry-run"], ["update", "1"], ["replay", "1"],
                                  ["eval", "0"]])
def test_a_run_dir_that_is_a_file_is_one_line_before_any_work(tmp_path, capsys, argv, tiny_config):
    afile = tmp_path / "afile"
    afile.write_text("")
    over = [x for x in tiny_config if not x.startswith("run.dir=")]
    for key, value in (("run.dir", afile), ("run.name", "afile")):
        extra = [f"run.dir={afile}"] if key == "run.dir" else [f"run.dir={tmp_path}", "run.name=afile"]
        assert main([*argv, *over, *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{key}: {afile} is a file, not a directory" in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]        # nothing written beside it


def test_update_of_an_epoch_that_has_not_run_says_to_run_it_first(tmp_path, capsys, tiny_config):
    runs = tmp_path / "runs"
    over = [x for x in tiny_config if not x.startswith("run.dir=")]
    for argv in (["update", "1", "update.lr=1e-5"], ["update", "1", "--dry-run"]):
        assert main([*argv, *over, f"run.dir={runs}"]) == 2
        err = capsys.readouterr().err
        assert "epoch 1 of run" in err and "has not run" in err and "run `rlaif epoch 1` first" in err, err
    assert not runs.exists()                                   # no lock, no run directory


def test_a_dry_run_writes_nothing(tmp_path, capsys, tiny_config):
    """epoch, update and replay --dry-run: what would run and what is missing from the cache, with no
    run directory, lock or judge cache made; epoch 0 (the warm-start) lists no judge."""
    runs = tmp_path / "runs"
    over = [x for x in tiny_config if not x.startswith("run.dir=")] + [f"run.dir={runs}"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert "to run" in out and "judge (execution):" in out and "judgements missing" in out
    assert main(["replay", "1", "--dry-run", *over]) == 0
    assert "to run" in capsys.readouterr().out
    assert main(["epoch", "0", "--dry-run", *over, "update.warm_start=true"]) == 0
    out = capsys.readouterr().out
    assert "teacher  to run" in out and "judge" not in out
    assert not runs.exists()


def test_judge_of_a_missing_completion_file_says_so(tmp_path, capsys):
    missing = tmp_path / "answer.md"
    assert main(["judge", "--problem", "py-easy-001", "--completion", str(missing), f"run.dir={tmp_path}"]) == 2
    captured = capsys.readouterr()
    assert f"--completion {missing}: cannot read it" in captured.err and "stdin" in captured.err
    assert not captured.out


def test_cache_import_of_a_missing_file_says_so_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "judgements.jsonl"
    assert main(["cache", "import", str(missing), f"run.dir={tmp_path / 'runs'}"]) == 2
    captured = capsys.readouterr()
    assert f"cache import {missing}: no such file" in captured.err and "rlaif cache export" in captured.err
    assert not captured.out and not (tmp_path / "runs").exists()  # no empty cache left behind


def _rows(n: int, prefix: str = "mine") -> str:
    import dataclasses
    from data.loaders import load_builtin
    return "".join(json.dumps({**dataclasses.asdict(p), "id": f"{prefix}-{i:03d}"}) + "\n"
                   for i, p in enumerate(load_builtin("train")[:n]))


def test_a_tilde_in_a_path_is_the_home_directory(tmp_path, capsys, monkeypatch):
    """data.source=~/x.jsonl, --config=~/my.yaml (no shell expands a ~ after =), an eval source and a
    local student.model under ~ all read from $HOME."""
    from data.loaders import load_source
    from pipeline.engines.model import resolve
    from pipeline.stages.eval import eval_problems
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "x.jsonl").write_text(_rows(12))
    (tmp_path / "held.jsonl").write_text(_rows(3, "held"))
    (tmp_path / "my.yaml").write_text("run:\n  name: from-home\n")
    assert len(load_source("~/x.jsonl")) == 12
    assert resolve("~/models/x") == str(tmp_path / "models" / "x")
    assert resolve("HuggingFaceTB/SmolLM2-135M-Instruct") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert main(["--config=~/my.yaml", "config", "show"]) == 0
    out = capsys.readouterr().out
    assert f"# config file: {tmp_path / 'my.yaml'}" in out and "name: from-home" in out
    cfg = load_config(None, ["data.source=~/x.jsonl", "eval.sources=[validation, ~/held.jsonl]"])
    assert {p.id for _, p in eval_problems(cfg)} >= {"held-000", "held-001", "held-002"}
    runs = tmp_path / "runs"
    assert main(["epoch", "1", "--dry-run", f"run.dir={runs}", "data.source=~/x.jsonl", "eval.sources=[~/held.jsonl]",
                 "update.warm_start=false"]) == 0, capsys.readouterr().err
    assert "prompts  to run" in capsys.readouterr().out


def test_a_tilde_in_run_dir_and_cache_dir_is_the_home_directory(tmp_path, capsys, monkeypatch):
    """run.dir=~/runs and judge.cache_dir=~/cache: under $HOME, never a directory named '~' here."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, ["run.dir=~/runs", "judge.cache_dir=~/cache"])
    assert (cfg.run.dir, cfg.judge.cache_dir) == (str(tmp_path / "home" / "runs"), str(tmp_path / "home" / "cache"))
    assert main(["status", "run.dir=~/runs"]) == 2
    assert str(tmp_path / "home" / "runs") in capsys.readouterr().err
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize("argv", [["epoch", "1"], ["epoch", "1", "--dry-run"], ["epoch", "3"], ["eval", "0"]])
@pytest.mark.parametrize("key", ["data.source", "eval.sources"])
def test_a_missing_data_file_fails_before_the_run_exists(tmp_path, capsys, argv, key):
    """A data file that is not there is named before any work: no run directory, no lock, no epoch-001
    (a missing eval file would otherwise surface after the epoch's sampling and update)."""
    missing = tmp_path / "nope.jsonl"
    over = [f"data.source={missing}"] if key == "data.source" else [f"eval.sources=[{missing}]"]
    assert main(argv + [f"run.dir={tmp_path / 'runs'}", *over]) == 2
    err = capsys.readouterr().err
    assert f"{key}={missing}: no such file" in err and ".jsonl" in err, err
    assert not (tmp_path / "runs").exists()


def test_a_misspelt_split_of_a_shipped_set_names_its_key_and_set(tmp_path, capsys):
    """`eval.sources=[bank:heldot]` said "unknown split 'heldot' for the builtin set", naming no key and the
    wrong set; `data.source=~/nope.jsonl` called an absolute path relative."""
    assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}", "eval.sources=[bank:heldot]"]) == 2
    err = capsys.readouterr().err
    assert ("eval.sources=bank:heldot: the bank set has no split 'heldot' (did you mean bank:heldout?); write "
            "bank:train, bank:heldout, bank:tune, or bank") in err, err
    assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}", "data.source=~/nope-rlaif.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "relative path" not in err, err
    # only the bank has a tune split (builtin:trian suggested builtin:tune); humaneval has none; a directory is
    # said to be one (each was "no such file"); `rlaif judge` names the key too
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "a.jsonl").write_text("")
    for source, want in (("builtin:trian", "data.source=builtin:trian: the builtin set has no split 'trian' (did you "
                          "mean builtin:train?); write builtin:train, builtin:heldout, or builtin for all of it"),
                         ("humaneval:train", "data.source=humaneval:train: humaneval has no splits"),
                         (str(tmp_path / "mine"), f"data.source={tmp_path / 'mine'}: is a directory; point data.source "
                          "at one .jsonl, .jsonl.gz, .json or .parquet file in it (a.jsonl)")):
        for argv in (["epoch", "1", "--dry-run"],
                     ["judge", "--problem", "x", "--completion", str(tmp_path / "mine" / "a.jsonl")]):
            assert main([*argv, f"run.dir={tmp_path / 'runs'}", f"data.source={source}"]) == 2
            err = capsys.readouterr().err
            assert want in err, err
    from data.loaders import SET_SPLITS, load_source
    for name, splits in SET_SPLITS.items():   # the splits said are the files' own
        assert sorted({p.split for p in load_source(name)}) == sorted(splits)


def test_a_hub_model_that_cannot_be_reached_fails_in_seconds_before_any_stage(tmp_path):
    """As typed, with a Hub that refuses connections (HF_ENDPOINT on a closed local port): one error,
    no retries, in seconds, nothing written; the same offline (HF_HUB_OFFLINE=1, not in the cache)."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path
    rlaif = Path(sys.executable).parent / "rlaif"
    runs = tmp_path / "runs"
    for env in ({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}, {"HF_HUB_OFFLINE": "1"}):
        for argv in (["epoch", "1"], ["epoch", "1", "--dry-run"]):
            t = time.time()
            r = subprocess.run([str(rlaif), *argv, f"run.dir={runs}", "student.model=no-such-org/no-such-model"],
                               cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, **env})
            assert r.returncode == 2 and time.time() - t < 30, (r.returncode, r.stderr[-2000:])
            assert "cannot load student.model='no-such-org/no-such-model'" in r.stderr
            assert "Retrying" not in r.stderr and r.stderr.count("error:") == 1, r.stderr[-2000:]
    assert not runs.exists()
    for env, want in (({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}, "could not reach the Hub for dataset"),
                      ({"HF_HUB_OFFLINE": "1"}, "not in the local Hugging Face cache (HF_HUB_OFFLINE=1)")):
        # a Hub dataset likewise: one request, no retries (datasets' own took about 25 s to fail)
        r = subprocess.run([str(rlaif), "epoch", "1", "--dry-run", f"run.dir={runs}", "data.source=hf:no-org/no-set"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, **env})
        assert r.returncode == 2 and want in r.stderr and "Retrying" not in r.stderr, r.stderr[-2000:]
        assert r.stderr.count("error:") == 1 and "no-org/no-set" in r.stderr, r.stderr[-2000:]


def _write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROW = {"prompt": "def f(x):", "entry_point": "f", "reference": "def f(x):\n    return x",
       "tests": [{"input": [1], "output": 1}]}


def test_a_dry_run_refuses_training_rows_the_execution_judge_cannot_score(tmp_path, capsys):
    """Rows without tests give judge.kind=execution nothing to run: the dry run says so, naming the rows,
    before any sample is drawn; the same rows under an LLM judge pass that check."""
    src = _write_rows(tmp_path / "p.jsonl", [{**ROW, "id": f"t{i}"} for i in range(3)]
                + [{k: v for k, v in ROW.items() if k != "tests"} | {"id": f"bare{i}"} for i in range(2)])
    runs = tmp_path / "runs"
    assert main(["epoch", "1", "--dry-run", f"run.dir={runs}", f"data.source={src}"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"2 of [45] training problems have no tests \(bare0, bare1\)", err) and "judge.kind=execution" in err, err
    assert not runs.exists()
    ok = _write_rows(tmp_path / "ok.jsonl", [{**ROW, "id": f"t{i}"} for i in range(3)])
    assert main(["epoch", "1", "--dry-run", f"run.dir={runs}", f"data.source={ok}"]) == 0


def test_a_reference_teacher_without_references_is_said(tmp_path, caplog):
    src = _write_rows(tmp_path / "p.jsonl", [{**ROW, "id": "a"}, {k: v for k, v in ROW.items() if k != "reference"} | {"id": "b"}])
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}", f"data.source={src}"]) == 0
    assert "1 of 2 training problems have no reference answer (b)" in caplog.text


@pytest.mark.parametrize("who", ["judge", "teacher"])
def test_a_dry_run_checks_an_hf_judges_and_teachers_model(tmp_path, capsys, who):
    """judge.kind=hf / teacher.kind=hf with a model that is not there fail before any work, as a missing
    student does, naming the key."""
    runs = tmp_path / "runs"
    rc = main(["epoch", "1", "--dry-run", f"run.dir={runs}", f"{who}.kind=hf", f"{who}.model={tmp_path / 'nope'}"])
    err = capsys.readouterr().err
    assert rc == 2 and f"cannot load {who}.model=" in err and "no directory" in err, err
    assert not runs.exists()


def test_a_warm_start_source_the_eval_scores_is_refused_by_the_dry_run(tmp_path, capsys):
    runs = tmp_path / "runs"
    rc = main(["epoch", "1", "--dry-run", f"run.dir={runs}", "update.warm_start=true",
               "data.warm_start_sources=[builtin:heldout]"])
    err = capsys.readouterr().err
    assert rc == 2 and "data.warm_start_sources: builtin:heldout holds problem" in err and "the eval scores" in err, err
    assert not runs.exists()


def test_a_split_no_row_has_is_named(tmp_path, capsys):
    src = _write_rows(tmp_path / "one.jsonl", [{**ROW, "id": f"t{i}"} for i in range(3)])
    assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}", f"data.source={src}:heldout"]) == 2
    err = capsys.readouterr().err
    assert "no row of" in err and "has split 'heldout'" in err and "train (3)" in err, err


@pytest.mark.parametrize("who,kind,model", [("judge", "openai", "gpt-5-mini"), ("judge", "anthropic", "claude-haiku-4-5"),
                                            ("teacher", "hf", "Qwen/"), ("teacher", "openai", "gpt-5-mini")])
def test_a_model_kind_without_a_model_gets_an_example_of_its_own_kind(capsys, who, kind, model):
    assert main(["config", "show", f"{who}.kind={kind}"]) == 2
    assert f"(e.g. {who}.model={model}" in capsys.readouterr().err


@pytest.mark.slow
def test_a_small_file_with_a_wrong_reference_is_said_before_and_during_the_run(tiny_config, tmp_path, caplog):
    """Two problems: auto holds none out, so the eval would score nothing (said by the dry run); one
    reference fails its own test, so the ratio reward would divide by its partial score (said by the
    judge stage, and counted)."""
    rows = [{"id": "a1", "prompt": "Write `def add(a, b)` returning a + b.", "entry_point": "add",
             "tests": [{"input": [1, 2], "output": 3}], "reference": "def add(a, b):\n    return a - b\n"},
            {"id": "a2", "prompt": "Write `def neg(a)` returning -a.", "entry_point": "neg",
             "tests": [{"input": [1], "output": -1}], "reference": "def neg(a):\n    return -a\n"}]
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    over = [*tiny_config, f"data.source={src}", "data.prompts_per_epoch=2"]
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *over]) == 0
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "the eval has no problems to score" in said and "holds none of data.source's 2 problems out" in said
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", *over, "eval.sources=[]"]) == 0
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "the eval has no problems" not in said                    # turned off on purpose: no warning
    assert "1 of 2 reference answers fail their own tests (a1: " in said
    cfg = load_config(None, [*over, "eval.sources=[]"])
    metrics = json.loads((tmp_path / "runs" / cfg.run.name / "epoch-001" / "metrics.json").read_text())
    assert metrics["judge/reference_failures"] == 1
