"""The typed config: unknown keys and bad values fail before any work, naming the key."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.base import ConfigError
from pipeline.config.file import describe, load_config
from pipeline.config.schema import Config
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_config_is_valid_and_overrides_apply():
    cfg = load_config(ROOT / "config.yaml", ["update.lr=5e-6", 'sample.stop=["```\\n"]', "student.lora.r=4"])
    assert cfg.update.lr == 5e-6 and cfg.sample.stop == ["```\n"] and cfg.student.lora.r == 4
    assert cfg.student.model == "smollm2-135m-instruct" and cfg.judge.kind == "execution"


@pytest.mark.parametrize("override, words", [
    ("update.lrr=1", ["update.lrr", "unknown key"]),
    ("nosuch.key=1", ["nosuch", "unknown key"]),
    ("update.lr=-1", ["update.lr", "greater than or equal to 0"]),
    ("sample.num_samples=zero", ["sample.num_samples", "integer"]),
    ("judge.mode=offline", ["judge.mode", "live", "replay"]),
    ("select.top_k=1", ["select.top_k", "select.advantage=raw"]),
    ("update.lr", ["key.sub=value"]),
    # a judge's grading weights, refused when the config loads, not by the judge after sampling
    ("judge.execution.tests_weight=0.8", ["judge.execution's weights must be >= 0 and sum to 1, not 1.15", "judge.execution.static_weight=0.2",
                                         "judge.execution.tests_weight=1 and the other three 0"]),
    ("judge.ocaml.compile_weight=0", ["judge.ocaml's weights must be >= 0 and sum to 1, not 0.9", "judge.ocaml.tests_weight=0.65"]),
    ("judge.ocaml.libraries=[Unix]", ["judge.ocaml.libraries", "['Unix'] are not library names"]),
    ("judge.mix={execution: 1, anthropic: -0.5}", ["judge.mix", "anthropic: -0.5 are not shares"]),
])
def test_bad_values_name_the_key(override, words):
    with pytest.raises(ConfigError) as e:
        load_config(None, [override])
    for w in words:
        assert w in str(e.value)


def test_one_completion_a_prompt_needs_raw_advantages_and_the_zero_spread_groups_kept():
    """select.top_k=1 with advantage=raw (what the error asked for) still trained on nothing: one reward has
    no spread, so drop_zero_std dropped every group and every update was empty."""
    with pytest.raises(ConfigError, match="select.drop_zero_std=false"):
        load_config(None, ["select.top_k=1", "select.advantage=raw"])
    assert load_config(None, ["select.top_k=1", "select.advantage=raw", "select.drop_zero_std=false"]).select.top_k == 1


def test_bad_yaml_file_names_the_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("update: [unclosed\n")
    with pytest.raises(ConfigError, match="c.yaml"):
        load_config(p)
    p.write_text("update:\n  lr: 1e-5\n  bogus: 3\n")
    with pytest.raises(ConfigError, match="update.bogus"):
        load_config(p)


def test_cli_rejects_bad_config_before_work(tmp_path, capsys):
    assert main(["epoch", "1", f"run.dir={tmp_path}", "update.kl_coef=-1"]) == 2
    assert "update.kl_coef" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was started


def test_config_reference_documents_every_key():
    """docs/reference/config.md has every key's row as `rlaif config show --doc` describes it
    (tests/test_docs.py checks the whole page against pipeline/cli/docs_gen.py)."""
    from pipeline.cli.docs_gen import config_page
    page = (ROOT / "docs" / "reference" / "config.md").read_text()
    missing = [k for k, _, _ in describe() if f"| `{k}` |" not in page]
    stale = [row for row in config_page().splitlines() if row.startswith("| `") and row not in page.splitlines()]
    assert not missing and not stale, (f"docs/reference/config.md lacks {missing} and has out-of-date rows {stale}; "
                                       "run `make docs` or `python -m pipeline.cli.docs_gen`")


def test_every_key_with_a_fixed_set_of_values_lists_them_all():
    """A key whose type is a Literal (or a list of one, or one or None) lists each value it takes in its doc,
    as `config show --doc` and the reference print it: a user reading the page needs no error to learn them."""
    import typing
    from pipeline.config.file import _choices
    docs = {k: doc for k, _, doc in describe()}
    assert docs["update.sampler_correction"].endswith(
        "One of: `none`, `token_truncate`, `token_mask`, `sequence_truncate`, `sequence_mask`.")
    assert docs["data.difficulties"].endswith("Each one of: `easy`, `medium`, `hard`.")
    assert "One of" not in docs["data.validation_size"] and "One of" not in docs["update.lr"]  # open-ended: none listed

    def leaves(model, prefix=""):
        for name, f in model.model_fields.items():
            if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel):
                yield from leaves(f.annotation, f"{prefix}{name}.")
            else:
                yield f"{prefix}{name}", f.annotation
    fixed = {k: _choices(ann) for k, ann in leaves(Config) if _choices(ann)}
    assert len(fixed) >= 25 and fixed["judge.kind"] == list(typing.get_args(Config.model_fields["judge"].annotation
                                                                             .model_fields["kind"].annotation))
    for key, values in fixed.items():
        assert all(f"`{v}`" in docs[key] for v in values), (key, values, docs[key][-150:])


def test_config_show_prints_effective_config(capsys):
    assert main(["config", "show", "update.lr=3e-6"]) == 0
    assert "lr: 3.0e-06" in capsys.readouterr().out


def test_update_options_added_later_move_no_fingerprint_at_their_defaults():
    """update.delta and sapo's temperatures, added after runs existed: at their defaults the update's
    config as its fingerprint hashes it is what it was before them (no key for them), so no finished
    update recomputes; set, they are in it."""
    from pipeline.config.schema import NEUTRAL_IN_SECTION
    from pipeline.config.file import load_config as load
    from pipeline.stages import STAGES
    update = next(st for st in STAGES if st.name == "update")
    plain = load(None, []).stage_config(update.fields)["update"]
    assert not set(k.split(".", 1)[1] for k in NEUTRAL_IN_SECTION) & set(plain)
    for key, value in (("delta", 4.0), ("sapo_temperature_neg", 1.2)):
        assert load(None, [f"update.{key}={value}"]).stage_config(update.fields)["update"][key] == value


def test_a_dict_override_replaces_a_dotted_one_sets_and_a_config_files_quirks_are_said(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("judge:\n  kind: mix\n  model: gpt-5-mini\n  mix: {execution: 0.5, openai: 0.5}\nupdate:\n  # lr: 1e-4\n")
    assert load_config(f, ["judge.mix={execution: 1}"]).judge.mix == {"execution": 1.0}   # the openai part gone
    assert load_config(f, ["judge.mix.execution=0.7"]).judge.mix == {"execution": 0.7, "openai": 0.5}
    assert load_config(f).update.lr == load_config(None).update.lr   # a section of comments is an empty one
    # onto a section, {...} sets the keys it names and keeps the file's others
    f.write_text("judge:\n  execution: {memory_mb: 999}\n  prices:\n    m1: &p {input: 1.0, output: 2.0}\n"
                 "    m2: {<<: *p, output: 3.0}\nupdate:\n  kl_coef: 0.07\n")
    cfg = load_config(f, ["judge.execution={timeout_s: 5}", "update={lr: 1e-4}"])
    assert (cfg.judge.execution.memory_mb, cfg.judge.execution.timeout_s, cfg.update.kl_coef, cfg.update.lr) == \
        (999, 5, 0.07, 1e-4)
    assert cfg.judge.prices["m2"] == {"input": 1.0, "output": 3.0}   # a YAML merge key
    assert set(load_config(f, ["judge.prices={m3: {input: 1, output: 1}}"]).judge.prices) == {"m3"}
    f.write_text("run:\n  name: a\nrun:\n  name: b\n")
    with pytest.raises(ConfigError, match="'run' is given twice"):
        load_config(f)
    f.write_bytes(b"run:\n  name: caf\xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(f)
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    assert load_config(None, ["run.log_level=debug"]).run.log_level == "DEBUG"
    for bad, words in (("run.log_level=verbose", "'DEBUG', 'INFO'"), ("run.name=../elsewhere", "one folder name"),
                       ("run.name=", "one folder name"), ("run.name=2024", "quote it to keep it text: run.name='2024'")):
        with pytest.raises(ConfigError, match=re.escape(words)):
            load_config(None, [bad])


def test_a_min_reward_that_drops_what_the_shaping_penalises_is_warned_about(capsys):
    """select.min_reward (0 by default) is applied to the shaped reward: a length or overlong penalty
    pushes answers below it and select removes them instead of penalising them. Said once, as a line."""
    import warnings
    with pytest.warns(UserWarning, match=r"select.min_reward=0.0 drops .* down to -0.1.*select.min_reward=-1.1"):
        load_config(None, ["reward.length_penalty=0.1"])
    with pytest.warns(UserWarning, match=r"reward.none_as=-0.5 puts every unscored answer below it"):
        load_config(None, ["reward.none_as=-0.5"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config(None, ["reward.length_penalty=0.1", "reward.overlong_buffer=20", "select.min_reward=-2"])
        load_config(None)
        load_config(None, ["select.min_reward=0.2"])   # no shaping: a threshold meant as one
    from pipeline.cli.main import main
    import sys
    with warnings.catch_warnings():
        warnings.simplefilter("always")   # shown as Python shows it outside pytest, through our format
        warnings.showwarning = lambda m, c, f, n, file=None, line=None: sys.stderr.write(warnings.formatwarning(m, c, f, n))
        assert main(["config", "show", "reward.overlong_buffer=20"]) == 0
    err = capsys.readouterr().err
    assert "warning: select.min_reward=0.0 drops" in err and "down to -0.5" in err and "UserWarning" not in err
    before = warnings.formatwarning
    assert main(["config", "show"]) == 0 and warnings.formatwarning is before   # installed once, not wrapped again


def test_chat_template_kwargs_reach_the_template_and_move_fingerprints_only_when_set(tiny_model):
    """student.chat_template_kwargs (TRL's; Qwen3's enable_thinking) are variables of the chat template
    every prompt goes through; unset, no stage's fingerprint moves (a finished run stays finished)."""
    from pipeline.engines.hf import chat_prompt
    from pipeline.engines.model import load_tokenizer
    from pipeline.run.lineage import Lineage
    base = [f"student.model={tiny_model}"]
    off = load_config(None, [*base, "student.chat_template_kwargs={enable_thinking: false}"])
    assert off.student.chat_template_kwargs == {"enable_thinking": False}
    tok = copy.deepcopy(load_tokenizer(off.student))   # the loaded one is shared by the process: not to be changed
    tok.chat_template = ("{% if enable_thinking is defined and not enable_thinking %}/no_think {% endif %}"
                         "{% for m in messages %}{{ m['content'] }}{% endfor %}")
    plain = load_config(None, base)
    assert tok.decode(chat_prompt(tok, off, "x")).startswith("/no_think ")
    assert not tok.decode(chat_prompt(tok, plain, "x")).startswith("/no_think")
    fps = lambda cfg: [fp for _, fp, _, _ in Lineage(cfg).plan(1)]  # noqa: E731
    assert fps(plain) == fps(load_config(None, [*base, "student.chat_template_kwargs={}"])) != fps(off)


def test_an_empty_stop_string_is_refused():
    """Every completion holds "": it ended every answer after its first token (and one whose first token
    was the end raised StopIteration)."""
    with pytest.raises(ConfigError, match=r"sample.stop: an empty string.*remove it"):
        load_config(None, ['sample.stop=["\\n```\\n", ""]'])


def test_a_system_prompt_asking_for_another_language_than_the_problems_is_warned_about():
    """docs/guides/ocaml.md's Hub line over the shipped config kept its Python system prompt: the OCaml judge
    skips a ```python block, so a student doing as asked scored 0, silently."""
    import warnings
    with pytest.warns(UserWarning, match=r"asks for a ```python block, but the problems are ocaml .*scores 0"):
        load_config(None, ["data.source=my.jsonl", "data.language=ocaml"])
    with pytest.warns(UserWarning, match=r"asks for a ```ocaml block, but the problems are python.*data.language=ocaml if"):
        load_config(None, ["student.system_prompt=Answer with one ```ocaml code block."])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_config(Path(__file__).resolve().parents[1] / "configs/ocaml.yaml")
        load_config(Path(__file__).resolve().parents[1] / "configs/ocaml.yaml", ["data.source=my.jsonl", "data.language=ocaml"])
        load_config(None)


@pytest.mark.parametrize("overrides, key", [
    (["judge.kind=anthropic", "judge.model=claude-haiku-4-5", "judge.temperature=0.2"], "judge.temperature=0.2"),
    (["judge.kind=mix", "judge.model=claude-haiku-4-5", "judge.temperature=0"], "judge.temperature=0"),
    (["teacher.kind=anthropic", "teacher.model=claude-sonnet-4-5", "teacher.temperature=1"], "teacher.temperature=1"),
])
def test_a_temperature_for_claude_is_refused_naming_its_key(overrides, key):
    """The Messages API has no temperature: set for any anthropic judge, mix component or teacher, the config
    says which key to unset when it loads, not the judge stage after sampling."""
    with pytest.raises(ConfigError, match=rf"{re.escape(key)} with .*takes no temperature; unset {key.split('=')[0]}"):
        load_config(None, overrides)
    load_config(None, ["judge.kind=openai", "judge.model=gpt-5-mini", "judge.temperature=0.2"])   # OpenAI takes one


def test_a_temperature_a_local_model_would_ignore_is_refused():
    """An hf judge or teacher decodes greedily: a temperature set for it changed nothing but the fingerprints."""
    for over, key in ((["judge.kind=hf", "judge.model=m", "judge.temperature=0.5"], "judge.temperature=0.5"),
                      (["teacher.kind=hf", "teacher.model=m", "teacher.temperature=0.5"], "teacher.temperature=0.5")):
        with pytest.raises(ConfigError, match=rf"{re.escape(key)} with .*greedily.*unset it"):
            load_config(None, over)
    # beside an openai component the key is that judge's
    load_config(None, ["judge.kind=mix", "judge.mix={hf: 0.5, openai: 0.5}", "judge.models={hf: m, openai: gpt-5-mini}",
                       "judge.temperature=0.5"])
