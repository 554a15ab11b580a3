"""student.prompt_format=raw: a base model without a chat template reads each prompt's text as it is (after
student.system_prompt and a blank line, when set), tokenized as TRL's GRPOTrainer tokenizes a standard
(non-conversational) prompt; the default, chat, still refuses such a model, saying what to set."""
from __future__ import annotations

import types
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.engines.hf import chat_prompt
from pipeline.engines.model import ModelError, load_tokenizer
from pipeline.run.lineage import Lineage
from pipeline.store.tables import load_table


def test_a_base_model_is_refused_as_chat_and_read_raw_as_trl_reads_a_text_prompt(base_model):
    from trl import GRPOTrainer
    with pytest.raises(ModelError, match="no chat template.*student.prompt_format=raw"):
        load_tokenizer(load_config(None, [f"student.model={base_model}"]).student)
    prompt = "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n"
    for system in ("", "Complete the Python function."):
        cfg = load_config(None, [f"student.model={base_model}", "student.prompt_format=raw",
                                 f"student.system_prompt={system}"])
        tok = load_tokenizer(cfg.student)
        text = f"{system}\n\n{prompt}" if system else prompt
        # TRL 1.16's own tokenization of a standard prompt (GRPOTrainer._tokenize_prompts, its text branch)
        trl = types.SimpleNamespace(processing_class=tok, _is_vlm=False, environment_factories=None)
        want = GRPOTrainer._tokenize_prompts(trl, [text])[0][0]
        assert chat_prompt(tok, cfg, prompt) == list(want)
        assert tok.decode(chat_prompt(tok, cfg, prompt), skip_special_tokens=True) == text


def test_raw_prompts_move_the_stages_that_read_prompts_and_chat_moves_nothing(tiny_model):
    plan = lambda over: {st.name: fp for st, fp, _, _ in Lineage(load_config(None, over)).plan(1)}  # noqa: E731
    chat, raw = plan([f"student.model={tiny_model}"]), plan([f"student.model={tiny_model}", "student.prompt_format=raw"])
    assert chat == plan([f"student.model={tiny_model}", "student.prompt_format=chat"])   # the default: no change
    assert raw["sample"] != chat["sample"] and raw["update"] != chat["update"] and raw["prompts"] == chat["prompts"]


@pytest.mark.slow
def test_an_epoch_of_a_base_model_on_raw_prompts_as_typed(base_model, tiny_config):
    """`rlaif epoch 1 student.prompt_format=raw` on the base model: every stage runs, and the samples were
    drawn from the prompts' own tokens (no template around them)."""
    args = [*tiny_config, f"student.model={base_model}", "student.prompt_format=raw", "student.system_prompt="]
    assert main(["epoch", "1", *args]) == 0
    edir = Path(tiny_config[0].split("=", 1)[1]) / "default" / "epoch-001"
    tok = load_tokenizer(load_config(None, args).student)
    prompts = {p["problem_id"]: p["problem"]["prompt"] for p in load_table(edir / "prompts", json_cols=("problem",))}
    samples = load_table(edir / "sample")
    assert samples and all(s["prompt_ids"] == tok(prompts[s["problem_id"]])["input_ids"] for s in samples)
    assert any(edir.glob("update-*/manifest.json")) and any(edir.glob("eval-*/manifest.json"))
