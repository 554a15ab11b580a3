"""What the dry run refuses or says before any work, which a new user once met only after an epoch had
run: rows without tests under a mix with the execution judge, an eval whose problems have no tests (and who
scores them),
prompts too long for data.max_prompt_tokens or the model's context, a tracker whose package is not
installed, a reward function that cannot take the arguments it is given."""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.run.preflight import check_data, check_model, check_prompt_lengths, student_tokenizer

ROW = {"prompt": "Write a Python function `def f(x: int) -> int:` that returns x.", "entry_point": "f",
       "reference": "def f(x):\n    return x\n", "tests": [{"input": [1], "output": 1}]}
BARE = {k: v for k, v in ROW.items() if k != "tests"}


def rows(path: Path, row: dict, n: int = 6) -> Path:
    path.write_text("".join(json.dumps({**row, "id": f"p{i}"}) + "\n" for i in range(n)))
    return path


def reward_file(tmp_path: Path, source: str, name: str = "rw.py") -> Path:
    (tmp_path / name).write_text(source)
    return tmp_path / name


def dry(tiny_config, *more: str) -> int:
    return main(["epoch", "1", "--dry-run", *tiny_config, *more])


# 1. judge.mix with an execution component, rows without tests

def test_a_mix_with_the_execution_judge_refuses_rows_without_tests_naming_judge_mix(tmp_path, tiny_config, capsys):
    src = rows(tmp_path / "bare.jsonl", BARE)
    fn = reward_file(tmp_path, "def rw(prompts, completions, **kw):\n    return [1.0] * len(completions)\n")
    mix = ["judge.kind=mix", "judge.mix={execution: 0.8, python: 0.2}", f"judge.python.function={fn}:rw"]
    assert dry(tiny_config, f"data.source={src}", *mix) == 2
    err = capsys.readouterr().err
    assert re.search(r"training problems have no tests \(p\d", err), err
    assert "judge.mix's execution component" in err and "take execution out of judge.mix=" in err, err
    assert not (tmp_path / "runs").exists()
    # the python judge alone scores them: that passes (the eval's problems without tests are only said)
    assert dry(tiny_config, f"data.source={src}", "judge.kind=python", f"judge.python.function={fn}:rw") == 0
    # and so does the mix on rows with tests
    assert dry(tiny_config, f"data.source={rows(tmp_path / 'ok.jsonl', ROW)}", *mix) == 0


# 2. the eval's problems without tests: the run's judge scores them where it needs no tests, else said

def test_eval_problems_without_tests_are_said_with_what_to_do(tmp_path, tiny_config, caplog):
    src = rows(tmp_path / "bare.jsonl", BARE, n=12)
    fn = reward_file(tmp_path, "def rw(completions, **kw):\n    return [1.0] * len(completions)\n")
    judge = ["judge.kind=python", f"judge.python.function={fn}:rw"]
    with caplog.at_level("INFO", logger="rlaif"):   # the reward function scores them: said, no warning
        assert dry(tiny_config, f"data.source={src}", "data.validation_size=2", *judge) == 0
    said = [r for r in caplog.records if "have no tests" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "INFO", caplog.text
    assert "2 of the eval's 2 problems have no tests (2 of validation" in said[0].getMessage()
    assert "with judge.kind=python (eval/score; eval/pass@1 counts only problems with tests)" in said[0].getMessage()
    caplog.clear()
    # the execution judge has nothing to run on a held-out file without tests: warned, with what to do
    tested, heldout = rows(tmp_path / "ok.jsonl", ROW, n=12), rows(tmp_path / "heldout.jsonl", {**BARE, "prompt": "held out"}, n=2)
    with caplog.at_level("WARNING", logger="rlaif"):
        assert dry(tiny_config, f"data.source={tested}", "data.validation_size=0", f"eval.sources=[{heldout}]") == 0
    said = [r.getMessage() for r in caplog.records if "have no tests" in r.getMessage()]
    assert len(said) == 1 and "2 of the eval's 2 problems have no tests" in said[0], caplog.text
    assert "execution judge" in said[0] and "eval.sources=[]" in said[0] and "tests (or test_code)" in said[0]
    caplog.clear()
    with caplog.at_level("INFO", logger="rlaif"):   # the eval off on purpose, or held-out problems with tests
        assert dry(tiny_config, f"data.source={src}", "data.validation_size=2", "eval.sources=[]", *judge) == 0
        heldout = rows(tmp_path / "heldout2.jsonl", {**ROW, "prompt": ROW["prompt"] + " (held out)"}, n=2)
        assert dry(tiny_config, f"data.source={src}", "data.validation_size=0", f"eval.sources=[{heldout}]", *judge) == 0
    assert "have no tests" not in caplog.text


def test_training_on_assertion_style_tests_is_said_with_what_to_do(tmp_path, tiny_config, caplog):
    """A problem tested by test_code runs its check beside the answer, which can fool it (GUARANTEES); RL would
    reward the fooling: training on such problems is said, input/expected tests are not."""
    asserted = {**BARE, "test_code": "def check(candidate):\n    assert candidate(1) == 1\n"}
    with caplog.at_level("WARNING", logger="rlaif"):
        assert dry(tiny_config, f"data.source={rows(tmp_path / 'he.jsonl', asserted)}") == 0
    said = [r.getMessage() for r in caplog.records if "tested by test_code" in r.getMessage()]
    assert len(said) == 1 and re.match(r"(\d) of \1 training problems", said[0]) and "input/expected" in said[0], caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):
        assert dry(tiny_config, f"data.source={rows(tmp_path / 'ok.jsonl', ROW)}") == 0
    assert "tested by test_code" not in caplog.text


# 3. prompt lengths: the sample stage's check, before any work

def test_a_dry_run_refuses_prompts_over_data_max_prompt_tokens_as_the_sample_stage_does(tmp_path, tiny_config, capsys):
    src = rows(tmp_path / "p.jsonl", ROW)
    assert dry(tiny_config, f"data.source={src}", "data.max_prompt_tokens=20") == 2
    err = capsys.readouterr().err
    assert re.search(r"error: 5 prompts are longer than data.max_prompt_tokens=20 \(first: p\d of data.source, \d+ tokens; then (p\d of data.source, ){3}p\d of data.source\); "
                     r"raise data.max_prompt_tokens or drop those problems", err), err
    assert not (tmp_path / "runs").exists()
    # a long system prompt, with the warm-start on: refused before epoch 0 (its teacher answers) runs
    long_system = "student.system_prompt=" + " ".join(["Think about the edge cases first."] * 100)
    assert dry(tiny_config, f"data.source={src}", long_system, "update.warm_start=true") == 2
    assert "prompts are longer than data.max_prompt_tokens=512" in capsys.readouterr().err
    assert dry(tiny_config, f"data.source={src}") == 0


def test_the_models_context_is_checked_for_the_sample_and_the_eval(tmp_path, tiny_config, capsys):
    src = rows(tmp_path / "p.jsonl", ROW)
    # the tiny model's context is 1024 tokens
    assert dry(tiny_config, f"data.source={src}", "sample.max_new_tokens=1020") == 2
    assert "plus sample.max_new_tokens=1020 exceeds the model's context of 1024 tokens" in capsys.readouterr().err
    assert dry(tiny_config, f"data.source={src}", "eval.max_new_tokens=1020") == 2
    assert re.search(r"the longest prompt \(\S+:p\d, \d+ tokens\) plus eval.max_new_tokens=1020 exceeds the model's "
                     "context of 1024 tokens", capsys.readouterr().err)
    # a command that does not sample (rlaif eval, update, sweep) is not held to the training prompts' limit
    cfg = load_config(None, [*tiny_config, f"data.source={src}", "data.max_prompt_tokens=16"])
    check_prompt_lengths(cfg, sampling=False)
    with pytest.raises(RunError, match="data.max_prompt_tokens=16"):
        check_prompt_lengths(cfg)
    with pytest.raises(RunError, match="eval.max_new_tokens=1020 exceeds"):
        check_prompt_lengths(load_config(None, [*tiny_config, f"data.source={src}", "eval.max_new_tokens=1020"]),
                             sampling=False)


def test_a_warm_start_yet_to_run_is_not_started_under_a_prompt_too_long(tmp_path, tiny_config, capsys):
    """`rlaif epoch 1` with the warm-start on: a prompt the sample stage would refuse stops the command
    before epoch 0 trains (nothing of it written), not at epoch 1's sample stage after it."""
    src = rows(tmp_path / "p.jsonl", ROW)
    assert main(["epoch", "1", *tiny_config, f"data.source={src}", "update.warm_start=true",
                 "data.max_prompt_tokens=20"]) == 2
    assert "prompts are longer than data.max_prompt_tokens=20" in capsys.readouterr().err
    assert not list((tmp_path / "runs").rglob("epoch-000/*/manifest.json"))


def test_a_malformed_row_is_still_said_by_the_data_check_with_its_key(tmp_path, tiny_config, capsys):
    """The prompt check reads the problems before check_data does: a row it cannot read is left to
    check_data, whose error names the key, the file and the line."""
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps({**ROW, "id": "a"}) + "\n" + json.dumps({**ROW, "id": "b", "prompt": 3}) + "\n")
    assert dry(tiny_config, f"data.source={src}", "data.max_prompt_tokens=20") == 2
    err = capsys.readouterr().err
    assert "data.source:" in err and "bad.jsonl" in err and "line 2" in err, err


def test_the_embedded_model_not_yet_converted_is_checked_with_its_tokenizer_alone(tmp_path, monkeypatch):
    """Before its one-time conversion to safetensors, the embedded model's prompts are checked with the
    tokenizer saved from its GGUF: no weights are read or written, and the context is left to the stages."""
    from pipeline.engines.model import embedded_tokenizer_dir
    saved = embedded_tokenizer_dir()   # once per machine, in the real cache
    cache = tmp_path / "cache"
    shutil.copytree(saved, cache / "models" / saved.name)
    monkeypatch.setenv("RLAIF_CACHE", str(cache))
    src = rows(tmp_path / "p.jsonl", ROW)
    cfg = load_config(None, [f"run.dir={tmp_path / 'runs'}", f"data.source={src}", "student.model=smollm2-135m-instruct"])
    tok, context = student_tokenizer(cfg)
    assert context is None and tok.chat_template
    with pytest.raises(RunError, match=r"5 prompts are longer than data.max_prompt_tokens=20"):
        check_prompt_lengths(cfg.model_copy(update={"data": cfg.data.model_copy(update={"max_prompt_tokens": 20})}))
    check_prompt_lengths(cfg)
    assert sorted(p.name for p in (cache / "models").iterdir()) == [saved.name]   # no model converted


# 4. run.trackers' packages

@pytest.mark.skipif(importlib.util.find_spec("wandb") is not None, reason="wandb is installed here")
def test_a_tracker_whose_package_is_missing_is_refused_in_the_dry_run(tmp_path, tiny_config, capsys):
    src = rows(tmp_path / "p.jsonl", ROW)
    assert dry(tiny_config, f"data.source={src}", "run.trackers=[wandb]") == 2
    err = capsys.readouterr().err
    assert "run.trackers includes wandb" in err and "pip install -e '.[trackers]'" in err and "pip install wandb" in err, err
    assert not (tmp_path / "runs").exists()
    if importlib.util.find_spec("tensorboard") or importlib.util.find_spec("tensorboardX"):
        assert dry(tiny_config, f"data.source={src}", "run.trackers=[tensorboard]") == 0


# 5. a reward function's signature

@pytest.mark.parametrize("source, said", [
    ("def reward():\n    return 1.0\n", "takes no keyword arguments"),
    ("def reward(*args):\n    return [1.0] * len(args[1])\n", "takes no keyword arguments"),
    ("def reward(prompts, completions, /, **kw):\n    return [1.0] * len(completions)\n",
     "requires ['prompts', 'completions'] positionally"),
])
def test_a_reward_function_that_cannot_take_keywords_is_refused_at_load(tmp_path, tiny_config, capsys, source, said):
    fn = reward_file(tmp_path, source)
    src = rows(tmp_path / "p.jsonl", ROW)
    args = [f"data.source={src}", "judge.kind=python", f"judge.python.function={fn}:reward"]
    assert dry(tiny_config, *args) == 2
    err = capsys.readouterr().err
    assert f"judge.python.function='{fn}:reward' {said}" in err, err
    assert "def name(prompts, completions, **kwargs)" in err and "fn(prompts=[...], completions=[...], **columns)" in err
    with pytest.raises(RunError, match=re.escape(said)):
        check_model(load_config(None, [*tiny_config, *args]))


def test_a_reward_function_that_takes_none_of_the_arguments_passed_is_refused_with_the_data(tmp_path, tiny_config, capsys):
    """Which names are passed depends on the data's columns: a function that takes only names no problem
    has (each with a default) is refused by check_data, before any work."""
    fn = reward_file(tmp_path, "def reward(answer_key=None):\n    return [1.0]\n")
    src = rows(tmp_path / "p.jsonl", ROW)
    cfg = load_config(None, [*tiny_config, f"data.source={src}", "judge.kind=python", f"judge.python.function={fn}:reward"])
    check_model(cfg)   # it can take keywords
    with pytest.raises(RunError, match=r"takes none of the arguments it is passed \(its own: answer_key; passed: "):
        check_data(cfg)
    # one that takes a column the rows hold, or only the completions, is fine
    for source in ("def reward(entry_point):\n    return [1.0] * len(entry_point)\n",
                   "def reward(completions):\n    return [1.0] * len(completions)\n"):
        reward_file(tmp_path, source)
        assert dry(tiny_config, f"data.source={src}", "judge.kind=python", f"judge.python.function={fn}:reward") == 0
    capsys.readouterr()


# 7. what a run found only at the stage that reads it: a misspelt early-stop metric, a warm-start with no
# teacher answers, a curriculum's band upside down

def test_a_misspelt_early_stop_metric_is_refused_with_the_names_near_it(tmp_path, tiny_config, capsys):
    assert dry(tiny_config, "eval.early_stop_metric=eval/scroe", "eval.patience=1") == 2
    err = capsys.readouterr().err
    assert "eval.early_stop_metric='eval/scroe' is no metric an epoch writes" in err and "did you mean eval/score" in err
    assert dry(tiny_config, "eval.early_stop_metric=eval/scroe") == 0   # patience 0: early stopping is off, unread
    for name in ("eval/pass@1", "eval/pass@4", "reward/mean", "eval/builtin:heldout/pass@1"):
        assert dry(tiny_config, f"eval.early_stop_metric={name}", "eval.patience=2") == 0, name
    (tmp_path / "sub").mkdir()   # a source whose path holds '/': its figures are eval/<that path>/<figure>
    held = rows(tmp_path / "sub" / "held.jsonl", {**ROW, "prompt": ROW["prompt"] + " (held out)"}, n=2)
    assert dry(tiny_config, f"eval.sources=[{held}]", f"eval.early_stop_metric=eval/{held}/pass@1", "eval.patience=1") == 0
    assert dry(tiny_config, f"eval.sources=[{held}]", f"eval.early_stop_metric=eval/{held}/pas@1", "eval.patience=1") == 2


def test_a_warm_start_with_no_teacher_answer_is_refused_before_any_work(tmp_path, tiny_config, capsys):
    src = rows(tmp_path / "noref.jsonl", {k: v for k, v in ROW.items() if k != "reference"}, n=8)
    assert dry(tiny_config, f"data.source={src}", "update.warm_start=true") == 2
    err = capsys.readouterr().err
    assert "update.warm_start=true learns the teacher's answers" in err and "update.warm_start=false" in err, err
    assert dry(tiny_config, f"data.source={src}", "update.warm_start=false") == 0
    assert not (tmp_path / "runs").exists()


def test_a_curriculum_band_upside_down_is_a_config_error(tiny_config, capsys):
    assert dry(tiny_config, "curriculum.strategy=adaptive", "curriculum.band_low=0.9", "curriculum.band_high=0.1") == 2
    err = capsys.readouterr().err
    assert "curriculum.band_low=0.9 is above curriculum.band_high=0.1" in err and "Traceback" not in err, err
    assert dry(tiny_config, "curriculum.easy_below=0.8", "curriculum.hard_above=0.2") == 2   # the default buckets'
    assert "curriculum.easy_below=0.8 is above curriculum.hard_above=0.2" in capsys.readouterr().err


def test_a_misspelt_lora_target_is_refused_with_the_models_layers(tiny_config, capsys, caplog):
    """None matching fails before any work (it failed at the first update); some matching is said, as PEFT
    adapts the rest (the default's seven Llama names on a Phi, which has four of them)."""
    assert dry(tiny_config, "student.lora.target_modules=[q_prj, v_prj]") == 2
    err = capsys.readouterr().err
    assert "student.lora.target_modules: 'q_prj', 'v_prj' name no module of" in err and "q_proj" in err, err
    with caplog.at_level("WARNING", logger="rlaif"):
        assert dry(tiny_config, "student.lora.target_modules=[q_prj, v_proj]") == 0
    assert "'q_prj' name no module of" in caplog.text and "LoRA adapts only v_proj" in caplog.text, caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):   # PEFT's suffix rule
        assert dry(tiny_config, "student.lora.target_modules=[self_attn.q_proj, v_proj]") == 0
    assert "name no module" not in caplog.text


def test_a_lora_on_a_weight_the_model_ties_is_refused(tiny_config, tiny_model, tmp_path, capsys):
    """The tiny model ties its head to its input embeddings (as SmolLM2 does): a LoRA on either was trained
    apart and merged, for sampling and export, into the weight both share (measured: logits 20-130 off the
    trained policy's). Untied (the config says so), lm_head is a layer of its own."""
    for target in ("lm_head", "embed_tokens"):
        assert dry(tiny_config, f"student.lora.target_modules=[q_proj, {target}]") == 2
        err = capsys.readouterr().err
        assert f"student.lora.target_modules: '{target}' adapt a layer" in err and "tie_word_embeddings" in err, err
    untied = tmp_path / "untied"
    shutil.copytree(tiny_model, untied)
    conf = json.loads((untied / "config.json").read_text())
    (untied / "config.json").write_text(json.dumps({**conf, "tie_word_embeddings": False}))
    from pipeline.run.lora_targets import check_lora_targets
    check_lora_targets(load_config(None, [f"student.model={untied}", "student.lora.target_modules=[q_proj, lm_head]"]))
    # a model first downloaded by the run (no files for the preflight to read): refused where the LoRA is made
    from pipeline.engines.model import ModelError, load_student
    tied = load_config(None, [f"student.model={tiny_model}", "student.lora.target_modules=[q_proj, lm_head]"])
    with pytest.raises(ModelError, match="'lm_head' adapt a layer .*tie_word_embeddings"):
        load_student(tied.student, trainable=True, device="cpu")
