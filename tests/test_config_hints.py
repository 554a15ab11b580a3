"""What a new user's config mistakes are told: `config show`'s file round-trips with another data.source,
TRL names with no key of their own name what does their work, `{a:1}` overrides, settings of a judge
not in use, a misspelled mapping of a required field, a run directory that is not there, a union key's
and a boolean number's wording, a file's unknown split."""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
import yaml

from data.loaders import check_source, load_problems, load_source
from data.rows import DataError
from pipeline.cli.main import main
from pipeline.config import trl_names
from pipeline.config.base import ConfigError
from pipeline.config.file import describe, load_config, parse_overrides

ROOT = Path(__file__).resolve().parents[1]


def _show(tmp_path: Path, capsys, monkeypatch, *over: str) -> Path:
    """`rlaif config show ... > full.yaml` where there is no ./config.yaml (the defaults); the file's path."""
    monkeypatch.chdir(tmp_path)
    assert main(["config", "show", f"run.dir={tmp_path}", *over]) == 0
    out = tmp_path / "full.yaml"
    out.write_text(capsys.readouterr().out)
    return out


# ---------------------------------------------------------------- 1. config show round-trips

def test_config_show_keeps_auto_so_another_data_source_gets_its_own_eval(tmp_path, capsys, monkeypatch):
    full = _show(tmp_path, capsys, monkeypatch)
    text = full.read_text()
    dumped = yaml.safe_load(text)
    assert dumped["data"]["validation_size"] == "auto" and dumped["eval"]["sources"] is None
    # a comment says what they mean with this data.source, and the file still loads as written
    assert '# data.validation_size: auto means 0 with data.source=builtin:train' in text
    assert '# eval.sources: null means ["builtin:heldout"] with data.source=builtin:train' in text
    assert load_config(full).model_dump() == load_config(None, [f"run.dir={tmp_path}"]).model_dump()
    # reused with the user's own data: a validation split, scored by the eval, as without the file
    mine = [f"run.dir={tmp_path}", f"data.source={tmp_path / 'mine.jsonl'}"]
    reused = load_config(full, mine[1:])
    assert reused.data.validation_size == "auto" and reused.eval.sources == ["validation"]
    assert reused.model_dump() == load_config(None, mine).model_dump()


def test_config_show_keeps_what_the_user_wrote(tmp_path, capsys, monkeypatch):
    """An explicit data.validation_size=0 stays 0 (auto would carve a split on other data); sources as set."""
    full = _show(tmp_path, capsys, monkeypatch, "data.validation_size=0")
    assert yaml.safe_load(full.read_text())["data"]["validation_size"] == 0
    over = [f"data.source={tmp_path / 'mine.jsonl'}"]
    assert (load_config(full, over).model_dump()
            == load_config(None, [f"run.dir={tmp_path}", "data.validation_size=0", *over]).model_dump())
    full = _show(tmp_path, capsys, monkeypatch, "eval.sources=[bank:heldout]")
    assert "eval.sources" not in full.read_text().split("run:")[0]    # as written: no comment
    assert load_config(full, over).eval.sources == ["bank:heldout"]


# ---------------------------------------------------------------- 2. TRL names with no key of their own

@pytest.mark.parametrize("typed, want, not_want", [
    ("update.num_train_epochs=3", "rlaif epoch N", "sft_epochs"),
    ("update.num_train_epochs=3", "update.planned_epochs", "sft_epochs"),
    ("sample.use_vllm=true", "sample.engine=vllm", "did you mean"),
    ("run.save_steps=50", "TRL's save_steps is run.checkpoint_every here", "run.seed"),
    ("update.max_steps=100", "update.planned_epochs", "warmup_steps"),
    ("run.logging_steps=1", "once an epoch", "did you mean"),
    ("run.bf16=true", "student.dtype", "did you mean"),
    ("student.fp16=true", "student.dtype", "did you mean"),
    ("sample.repetition_penalty=1.1", "left out on purpose", "did you mean"),
    ("sample.min_p=0.05", "left out on purpose", "top_p?"),
    ("sample.vllm_gpu_memory_utilization=0.5", "is sample.vllm_memory here", "did you mean"),
])
def test_trl_names_without_a_key_name_what_does_their_work(typed, want, not_want):
    with pytest.raises(ConfigError) as e:
        load_config(None, [typed])
    assert want in str(e.value) and not_want not in str(e.value), str(e.value)


def test_every_trl_name_is_trls_and_every_key_it_names_is_ours():
    trl = pytest.importorskip("trl")
    import dataclasses
    theirs = {f.name for f in dataclasses.fields(trl.GRPOConfig)}
    nearest = set(trl_names.nearest())
    assert {"num_train_epochs", "max_steps", "use_vllm", "save_steps", "logging_steps", "bf16",
            "repetition_penalty"} <= nearest | set(trl_names.names())
    assert nearest <= theirs and not nearest & set(trl_names.names())
    assert {n for n in trl_names.names() if n != "reward_funcs"} <= theirs   # reward_funcs: the trainer's argument
    keys = {k for k, _, _ in describe()}
    named = {k for _, _, text in trl_names.NEAREST for k in re.findall(r"\b[a-z_]+(?:\.[a-z_]+)+\b", text)
             if not k.endswith(".md")}
    assert named and named <= keys, named - keys
    page = (ROOT / "docs/guides/from-trl.md").read_text()
    assert trl_names.table() in page and "| `use_vllm` |" in page


# ---------------------------------------------------------------- 3. {a:1}: no space after the colon

@pytest.mark.parametrize("typed, fix", [
    ("judge.mix={execution:1.0}", "'judge.mix={execution: 1.0}'"),
    ("data.mapping={prompt:question, entry_point: fn}", "'data.mapping={prompt: question, entry_point: fn}'"),
    ("judge.prices={m: {input:1, output: 2}}", "'judge.prices={m: {input: 1, output: 2}}'"),
])
def test_a_dict_override_without_a_space_after_the_colon_says_to_write_one(typed, fix):
    with pytest.raises(ConfigError, match="a colon needs a space after it") as e:
        parse_overrides([typed])
    assert f"write {fix}" in str(e.value) and "valid number" not in str(e.value)
    assert parse_overrides(["data.source=hf:org/name:test"]) == {"data": {"source": "hf:org/name:test"}}


def test_the_same_in_a_config_file_gets_the_hint(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("judge:\n  kind: mix\n  mix: {execution:1.0}\n")
    with pytest.raises(ConfigError, match=r"judge.mix.execution:1.0: .*write \{execution: 1.0\} \(a space after"):
        load_config(f)


# ---------------------------------------------------------------- 4. settings of a judge not in use

def test_a_reward_function_no_judge_calls_is_warned():
    with pytest.warns(UserWarning, match=r"judge.python.function=my.py:reward is not called: judge.kind=execution"):
        load_config(None, ["judge.python.function=my.py:reward"])
    with pytest.warns(UserWarning, match=r"judge.mix=\{execution: 1, openai: 1\}, no python component"):
        load_config(None, ["judge.kind=mix", "judge.mix={execution: 1, openai: 1}", "judge.model=gpt-5-mini",
                           "judge.python.function=[a.py:f, b.py:g]"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config(None, ["judge.kind=python", "judge.python.function=my.py:reward"])
        load_config(None, ["judge.kind=mix", "judge.mix={execution: 0.5, python: 0.5}",
                           "judge.python.function=my.py:reward"])


@pytest.mark.parametrize("kind", ["execution", "mix"])
def test_an_unknown_mix_component_is_an_error_whatever_the_kind(kind):
    with pytest.raises(ConfigError, match=r"judge.mix: names pyton: .*\(did you mean python\?\)"):
        load_config(None, [f"judge.kind={kind}", "judge.mix={pyton: 1.0}"])


@pytest.mark.parametrize("path", ["config.yaml", *sorted(str(p) for p in (ROOT / "configs").glob("*.yaml"))])
def test_the_shipped_configs_raise_no_warning(path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config(ROOT / path)


# ---------------------------------------------------------------- 5. a misspelled mapping of a required field

def test_a_misspelled_mapping_of_a_required_field_names_the_rows_columns(tmp_path):
    f = tmp_path / "mine.jsonl"
    f.write_text(json.dumps({"id": "a", "question": "Write f.", "fn": "f"}) + "\n")
    with pytest.raises(DataError) as e:
        load_problems(f, {"prompt": "qestion", "entry_point": "fn"})
    msg = str(e.value)
    assert "line 1: field 'prompt' (column 'qestion') is missing" in msg
    assert "the row's columns: id, question, fn" in msg and "data.mapping.prompt" in msg
    assert [p.prompt for p in load_problems(f, {"prompt": "question", "entry_point": "fn"})] == ["Write f."]


# ---------------------------------------------------------------- 6. compare-evals of a run that is not there

def test_compare_evals_of_a_run_directory_that_does_not_exist_says_so(tmp_path, capsys):
    gone = tmp_path / "nonexistent" / "run"
    assert main(["compare-evals", f"{gone}@0", f"{gone}@1", f"run.dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert f"the run directory {gone} does not exist" in err and "has no finished eval" not in err
    assert "<run.dir>/<run.name>" in err and f"{tmp_path / 'default'}@0" in err
    (tmp_path / "default").mkdir()   # there, with no eval: the eval is what it lacks
    assert main(["compare-evals", f"{tmp_path / 'default'}@0", f"{tmp_path / 'default'}@1", f"run.dir={tmp_path}"]) == 2
    assert "has no finished eval" in capsys.readouterr().err


# ---------------------------------------------------------------- 7. wording of a union key, booleans, splits

@pytest.mark.parametrize("typed, want", [
    ("data.validation_size=-1", "data.validation_size: give a whole number >= 0 or auto (got -1)"),
    ("sample.batch_size=0", "sample.batch_size: give a whole number >= 1 or auto (got 0)"),
    ("judge.python.function={a: 1}", "judge.python.function: give text or a list (got {'a': 1})"),
    ("update.kl_coef=true", "update.kl_coef: give a number, not true (the default is 0.05) (got True)"),
    ("sample.num_samples=false", "sample.num_samples: give a number, not false (the default is 8)"),
    ("data.validation_size=true", "data.validation_size: give a number or auto, not true (got True)"),
    # the curriculum's section lives in curriculum/ (no pipeline import there): the same rule
    ("curriculum.band_low=true", "curriculum.band_low: give a number, not true (the default is 0.2) (got True)"),
    ("curriculum.history_window=false", "curriculum.history_window: give a number, not false (the default is 3)"),
    ("curriculum.linear_start=[true, 0.3, 0.1]", "curriculum.linear_start: give numbers, not true/false"),
    ("judge.python.weights=[true, 0.5]", "judge.python.weights: give numbers, not true/false"),
    # the right kind (a list), a wrong item in it: that item is named, not the union
    ("judge.python.function=[1, a]", "judge.python.function.0: Input should be a valid string (got 1)"),
    # no number key takes inf or NaN (update.lr=.inf passed, and the first step diverged)
    ("update.lr=.inf", "update.lr: Input should be a finite number (got inf)"),
    ("sample.temperature=.nan", "sample.temperature: Input should be a finite number (got nan)"),
    # YAML reads `a: b` as a mapping: the hint quotes it back as the text it was
    ("student.system_prompt=Note: answer", "quote it to keep it text, student.system_prompt='\"Note: answer\"'"),
    # an unclosed list or mapping (the hint nested it in another list: =[[easy,medium])
    ("data.difficulties=[easy,medium", "the list opened with '[' is not closed; write data.difficulties=[easy,medium]"),
    ("data.mapping={prompt: q", "the mapping opened with '{' is not closed; write data.mapping={prompt: q}"),
    ("=3", "override '=3' has no key before '='"),
    ("sample.num_samples.x=3", "sample.num_samples takes one value, no keys under it: write sample.num_samples=<value>"),
])
def test_a_bad_value_is_said_in_one_line_without_pydantics_tags(typed, want):
    with pytest.raises(ConfigError) as e:
        load_config(None, [typed])
    msg = str(e.value)
    assert want in msg and "constrained-int" not in msg and "literal[" not in msg and "Value error" not in msg, msg


def test_numbers_written_as_yaml_ints_and_real_booleans_still_load(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("update:\n  lr: 0\n  kl_coef: 1\n  share_prompt: true\nsample:\n  temperature: 1\n"
                 "curriculum:\n  band_low: 0\n  linear_start: [1, 0, 0]\n")
    cfg = load_config(f)
    assert (cfg.update.lr, cfg.update.kl_coef, cfg.update.share_prompt, cfg.sample.temperature) == (0, 1.0, True, 1.0)
    assert (cfg.curriculum.band_low, cfg.curriculum.linear_start) == (0.0, [1.0, 0.0, 0.0])


def test_an_unknown_split_of_a_file_that_exists_names_the_splits(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("mine.jsonl").write_text(json.dumps({"id": "a", "prompt": "Write f.", "entry_point": "f"}) + "\n")
    for call in (lambda: check_source("mine.jsonl:validation"), lambda: load_source("mine.jsonl:validation")):
        with pytest.raises(DataError) as e:
            call()
        msg = str(e.value)
        assert "unknown split 'validation' of mine.jsonl" in msg and "train, heldout, tune" in msg, msg
        assert "no such file" not in msg and "data.validation_size" in msg
    with pytest.raises(DataError, match="data.source: unknown data source 'mine.jsonl:validation'"):
        check_source("mine.jsonl:validation")
    with pytest.raises(DataError, match="no such file"):     # a file that is not there is still said so
        check_source("other.jsonl:validation")
    assert [p.id for p in load_source("mine.jsonl:train")] == ["a"]


def test_a_key_without_its_section_a_single_value_for_a_list_and_a_dashed_setting(capsys):
    """`lr: 1e-5` at the top, `data.difficulties: easy`, `--lr 1e-5` and `rlaif epoch 1 my.yaml`: each told what
    to write instead (it was a bare 'unknown key', 'a valid list', 'unrecognized arguments', 'not key.sub=value')."""
    for over, want in (("lr=1e-5", "lr: unknown key (did you mean update.lr?)"),
                       ("data.difficulties=easy", "a list, even of one: data.difficulties=[easy]"),
                       ("my.yaml", "a config file goes after --config"),
                       ("run.device=gpu", "auto, cpu, cuda or cuda:N")):
        with pytest.raises(ConfigError, match=re.escape(want)):
            load_config(None, [over])
    with pytest.raises(SystemExit):
        main(["epoch", "1", "--lr", "1e-5"])
    assert "key=value overrides without dashes, e.g. update.lr=1e-5, not --lr" in capsys.readouterr().err
    for typed, said in ((["epoch", "1", "--dry-runn"], "(did you mean --dry-run?)"),
                        (["report", "--forse"], "unrecognized arguments: --forse (config settings are"),
                        (["epoch", "2", "--forse"], "(did you mean --force?)")):
        with pytest.raises(SystemExit):
            main(typed)
        err = capsys.readouterr().err   # the command's own usage, not the top level's
        assert err.startswith(f"usage: rlaif {typed[0]} ") and f"rlaif {typed[0]}: error: " in err and said in err, err


def test_a_one_value_list_hint_reads_back_as_typed():
    """sample.stop=``` (backticks are no plain YAML): the suggested form, quoted for the shell, is read back as the
    one value; a plain word keeps the plain form (the suggestion was sample.stop=[```], refused in turn)."""
    import shlex
    with pytest.raises(ConfigError) as e:
        load_config(None, ["sample.stop=```"])
    hint = str(e.value).rsplit("a list, even of one: ", 1)[1].split()[0]
    assert hint == "'sample.stop=[\"```\"]'", str(e.value)
    assert load_config(None, shlex.split(hint)).sample.stop == ["```"]
    with pytest.raises(ConfigError, match=re.escape("a list, even of one: data.difficulties=[easy]")):
        load_config(None, ["data.difficulties=easy"])


@pytest.mark.parametrize("typed,want", [
    ("run.trackers=none", "run.trackers: Input should be a valid list (got 'none'); write 'run.trackers=[]' for no tracker"),
    ("run.trackers=[none]", "run.trackers.0: Input should be 'tensorboard' or 'wandb' (got 'none'); write 'run.trackers=[]'"),
    ("select.scale_rewards=true", "(got True); write select.scale_rewards=group (TRL's scale_rewards=true")])
def test_trls_values_typed_as_ours_get_the_value_to_write(typed, want):
    """TRL's report_to=none and scale_rewards=true, typed as a TRL user would: the value that works here
    (the list hint `run.trackers=[none]` was itself refused)."""
    with pytest.raises(ConfigError) as e:
        load_config(None, [typed])
    assert want in str(e.value) and "even of one" not in str(e.value), str(e.value)
