"""Bad inputs are rejected before work starts, with a message that says what to do; a failed
write (disk full) fails the stage cleanly and loses nothing earlier."""
from __future__ import annotations

import errno
import json
import re
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.engines.model import ModelError, load_student, load_tokenizer
from pipeline.config.errors import RunError
from pipeline.run.runner import Runner


def test_model_without_chat_template_is_rejected(base_model):
    with pytest.raises(ModelError, match="no chat template"):
        load_tokenizer(load_config(None, [f"student.model={base_model}"]).student)


def test_adapter_from_another_base_is_rejected(tmp_path, tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=2"])
    model = load_student(cfg.student, trainable=True)
    model.save_pretrained(tmp_path / "adapter")
    meta = json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())
    meta["base_model_name_or_path"] = "someone/other-model"
    (tmp_path / "adapter" / "adapter_config.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="other-model"):
        load_student(cfg.student, adapter=tmp_path / "adapter")


def test_prompt_longer_than_limit_is_rejected_before_generation(tiny_config, capsys):
    assert main(["epoch", "1", *tiny_config, "data.max_prompt_tokens=16"]) == 2
    err = capsys.readouterr().err
    assert "data.max_prompt_tokens=16" in err and "tokens" in err


def test_duplicate_ids_and_empty_dataset_fail_before_work(tmp_path, capsys):
    row = {"id": "a", "prompt": "p", "entry_point": "f", "tests": [{"input": [1], "output": 1}]}
    dup = tmp_path / "dup.jsonl"
    dup.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    assert main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"data.source={dup}"]) == 2
    assert "dup.jsonl" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"data.source={empty}"]) == 2
    assert "empty.jsonl" in capsys.readouterr().err


def test_disk_full_fails_the_stage_cleanly(tiny_config, monkeypatch):
    cfg = load_config(None, tiny_config)
    r = Runner(cfg)
    r.run_epoch(1, echo=lambda _: None)
    e1 = r.epoch_dir(1)
    before = {p.name: (p / "manifest.json").read_text() for p in e1.iterdir() if (p / "manifest.json").exists()}

    import datasets

    def full(*a, **k):  # what a full disk does to the first table write
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(datasets.Dataset, "save_to_disk", full)
    from pipeline.config.errors import RunError
    with pytest.raises(RunError, match="no space left on the device writing stage prompts of epoch 1"):
        r.run_epoch(1, echo=lambda _: None, force=True)
    after = {p.name: (p / "manifest.json").read_text() for p in e1.iterdir() if (p / "manifest.json").exists()}
    assert after == before  # the finished stages are intact
    assert not [p for p in e1.iterdir() if p.name.startswith((".tmp-", ".trash-"))]


def test_prompt_plus_generation_beyond_model_context_is_rejected(tiny_config, capsys):
    # the tiny model's context is 1024 tokens
    assert main(["epoch", "1", *tiny_config, "sample.max_new_tokens=1020"]) == 2
    assert "exceeds the model's context of 1024 tokens" in capsys.readouterr().err


def test_a_data_file_edited_under_a_finished_run_is_said(tmp_path, caplog):
    """The prompts and eval tables keep the problems they were made with: a test fixed in the file
    afterwards would silently not reach them. The run records each local file's content and says
    when it changed (once: the record follows the file)."""
    from pipeline.run.preflight import check_data_files
    data = tmp_path / "mine.jsonl"
    data.write_text('{"id": "a", "prompt": "p", "tests": ["assert f(1) == 1"]}\n')
    cfg = load_config(None, [f"data.source={data}", f"eval.sources=[{data}:heldout]"])
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    warnings, record = check_data_files(cfg, run_dir)
    assert warnings == []
    record()
    data.write_text('{"id": "a", "prompt": "p", "tests": ["assert f(1) == 2"]}\n')
    assert check_data_files(cfg, run_dir)[0] != []   # said, not recorded: a dry run or a refused command
    (w,), record = check_data_files(cfg, run_dir)
    assert "data.source" in w and str(data) in w and "--force" in w and w in caplog.text
    assert "validation split (data.validation_size=auto) is drawn from the file's rows" in w   # a row can move it
    record()   # the command ran
    assert check_data_files(cfg, run_dir)[0] == []


def test_an_eval_file_edited_under_a_finished_eval_is_said_by_rlaif_eval(tmp_path, tiny_config, caplog, capsys):
    """`rlaif eval N` reuses a finished eval as `rlaif epoch` does, and says so as it does when the eval's
    file changed since (it said nothing: the eval kept the old tests without a word); --force makes it again."""
    held = tmp_path / "held.jsonl"
    row = {"prompt": "Write a Python function `def f(x: int) -> int:` that returns x.", "entry_point": "f",
           "tests": [{"input": [1], "output": 1}]}
    held.write_text("".join(json.dumps({**row, "id": f"h{i}"}) + "\n" for i in range(2)))
    over = [*tiny_config, f"eval.sources=[{held}]"]
    assert main(["eval", "0", *over]) == 0 and "changed since" not in caplog.text
    held.write_text(held.read_text().replace('"output": 1', '"output": 2'))
    assert main(["eval", "0", *over]) == 0
    assert f"eval.sources: {held} changed since this run last read it" in caplog.text
    capsys.readouterr()
    assert main(["eval", "0", *over]) == 0 and "eval     reused" in (reused := capsys.readouterr().out)
    assert main(["eval", "0", *over, "--force"]) == 0 and "eval     running" in (made := capsys.readouterr().out)
    assert re.search(r"  eval     done     \d+\.\ds \(\d+ rows\)", made), made   # made or reused: one order of figures
    assert made.splitlines()[-1] == reused.splitlines()[-1] and made.splitlines()[-1].startswith("eval/pass@1=")
    assert main(["status", *over]) == 0   # epoch 0 holds the base model's eval alone: not a warm-start's dashes
    assert "  epoch   0  no warm-start; the base model's eval\n" in capsys.readouterr().out


def test_the_evals_own_files_read_as_data_source_and_never_score_its_training_problems(tmp_path, capsys):
    """eval.sources on your own file reads it with data.mapping and data.language, as data.source is read
    (an OCaml held-out split without `language` fields was judged as Python; a mapped file refused); a
    data.source that trains on what the eval scores is refused before any work, unless it is meant
    (eval.allow_trained: a positive control)."""
    from pipeline.run.preflight import check_data
    from pipeline.stages.problems import eval_problems
    rows = [json.loads(x) for x in (Path(__file__).parents[1] / "data/problems/ocaml.jsonl").read_text().splitlines()]
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps({"task_id": r["id"], "question": r["prompt"],
                                        **{k: r[k] for k in ("entry_point", "difficulty", "split", "tests", "signature")}}) + "\n"
                            for r in [r for r in rows if r["split"] == "train"][:6] + [r for r in rows if r["split"] == "heldout"][:3]))
    over = [f"data.source={mine}:train", f"eval.sources=[{mine}:heldout]", "data.language=ocaml",
            "data.mapping={id: task_id, prompt: question}"]
    cfg = load_config(None, over)
    probs = [p for _, p in eval_problems(cfg)]
    assert len(probs) == 3 and {p.language for p in probs} == {"ocaml"}
    check_data(cfg)
    both = load_config(None, [f"data.source={mine}", *over[1:], "data.validation_size=0"])
    with pytest.raises(RunError, match="trains on 3 problem") as e:
        check_data(both)
    assert f"train on a split ({mine}:train" in str(e.value)    # the user's own file, named
    check_data(both.model_copy(update={"eval": both.eval.model_copy(update={"allow_trained": True})}))
    with pytest.raises(RunError, match=r"train on its training split \(data.source=builtin:train\)"):
        check_data(load_config(None, ["data.source=builtin"]))   # a shipped set: its own split named, not a file
    # another file in our own layout beside a mapped data.source, numbering its ids as the first does:
    # read as it is (the mapping fits only data.source's own file), and not the same problems
    ours = tmp_path / "ours.jsonl"
    ours.write_text("".join(json.dumps({"id": r["task_id"], "prompt": r["question"] + " (another)",
                                        **{k: r[k] for k in ("entry_point", "difficulty", "tests", "signature")}})
                            + "\n" for r in map(json.loads, mine.read_text().splitlines())))
    other = load_config(None, [f"data.source={mine}:train", f"eval.sources=[{ours}]", *over[2:]])
    check_data(other)
    assert len(eval_problems(other)) == 9


def test_a_mapping_to_a_column_no_row_has_is_named(tmp_path):
    from data.loaders import load_source
    from data.rows import DataError
    f = tmp_path / "m.jsonl"
    f.write_text(json.dumps({"task_id": "a", "question": "Write f.", "solution": "def f():\n    pass\n",
                             "tests": [{"input": [], "output": None}], "entry_point": "f"}) + "\n")
    with pytest.raises(DataError, match=r"column 'soluton' \(data.mapping.reference\) is in no row; its columns: "
                                        r"entry_point, question, solution"):
        load_source(str(f), {"id": "task_id", "prompt": "question", "reference": "soluton"})
    assert load_source(str(f), {"id": "task_id", "prompt": "question", "reference": "solution"})[0].reference


def test_a_path_that_cannot_be_made_is_one_line_naming_it(tmp_path, epoch1_config, capsys):
    """An export directory below a file, a judge cache below a file: `error:` and the path, exit 2, no traceback;
    the finished epoch untouched."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    epoch = lambda: sorted((str(p), p.stat().st_mtime_ns) for p in (tmp_path / "runs").rglob("epoch-001/**/*"))
    before = epoch()
    assert before and main(["export", "1", str(afile / "sub"), "--adapter", *epoch1_config]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and str(afile) in err and "Traceback" not in err, err
    assert main(["cache", "export", str(tmp_path / "c.jsonl"), *epoch1_config]) == 0
    capsys.readouterr()
    assert main(["cache", "import", str(tmp_path / "c.jsonl"), *epoch1_config,
                 f"judge.cache_dir={afile / 'cache'}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(afile / "cache") in err and "Traceback" not in err, err
    assert epoch() == before


def test_the_eval_command_with_the_eval_off_says_so(epoch1_config, capsys):
    assert main(["eval", "1", *epoch1_config, "eval.sources=[]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: eval.sources is empty") and "eval.sources=[builtin:heldout]" in err, err


def test_epoch_0_typed_for_another_is_refused_or_said(epoch1_config, capsys):
    """Epoch 0 is the supervised warm-start: replaying or sweeping it is refused; making it under RL epochs
    that sampled from the base model would leave them off the run's line, so the real run refuses that
    without --force (the dry run says it) and makes nothing."""
    r = Runner(load_config(None, epoch1_config))
    assert r.chosen_update(1) is not None and r.chosen_update(0) is None
    assert main(["replay", "0", *epoch1_config]) == 2
    assert "epoch 0 is the supervised warm-start, which calls no judge: there is nothing to replay" in capsys.readouterr().err
    assert main(["sweep", "0", "--grid", "update.lr=1e-5,2e-5", *epoch1_config]) == 2
    assert "which has no RL update to sweep" in capsys.readouterr().err
    said = ("epoch 1 of this run sampled from the base model (no warm-start); once epoch 0 is made, epoch 1 samples "
            "from it instead: that epoch is no longer the run's line, and `rlaif epoch 1` would remake it")
    assert main(["epoch", "0", "--dry-run", *epoch1_config]) == 0
    assert f"warning: {said} (the real run refuses without --force)" in capsys.readouterr().out
    assert main(["epoch", "0", *epoch1_config]) == 2
    assert f"error: {said}. `rlaif epoch 0 --force` makes it anyway" in capsys.readouterr().err
    assert not r.epoch_dir(0).exists() and r.chosen_update(1) is not None


def test_another_base_model_under_a_finished_epoch_fails_before_any_work(epoch1_config, tiny_model, tmp_path, capsys):
    """Epoch 2 starts from epoch 1's adapter: another student.model is said by the dry run and by the run
    before any stage (the run wrote epoch 2's prompts first, the dry run planned the epoch)."""
    import shutil
    other = shutil.copytree(tiny_model, tmp_path / "another-model")   # the same weights under another name
    for dry in (["--dry-run"], []):
        assert main(["epoch", "2", *dry, *epoch1_config, f"student.model={other}"]) == 2
        err = capsys.readouterr().err
        assert f"was trained on base model '{tiny_model}', but student.model resolves to '{other}'" in err, err
        assert f"(student.model={tiny_model})" in err
    assert not Runner(load_config(None, epoch1_config)).epoch_dir(2).exists()
