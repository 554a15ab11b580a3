"""The base model's dropout is off (pipeline/engines/model.py `no_dropout`): a student whose config carries
dropout gives the update (train mode) the logprobs the logprobs stage (eval mode) gave; LoRA's own
dropout (student.lora.dropout) keeps its rate."""
from __future__ import annotations

import json
import shutil

import torch

from pipeline.config.file import load_config
from pipeline.engines.model import load_student, no_dropout


def test_a_student_with_dropout_in_its_config_trains_on_its_eval_logprobs(tmp_path, tiny_model):
    from transformers import AutoModelForCausalLM
    leaky = tmp_path / "leaky"
    shutil.copytree(tiny_model, leaky)
    conf = json.loads((leaky / "config.json").read_text())
    conf["attention_dropout"] = 0.5
    (leaky / "config.json").write_text(json.dumps(conf))
    ids = torch.tensor([[5, 6, 7, 8, 9, 10, 11, 12]])
    plain = AutoModelForCausalLM.from_pretrained(leaky).train()   # transformers' own load: dropout on in training
    torch.manual_seed(0)
    with torch.no_grad():
        assert not torch.equal(plain(input_ids=ids).logits, plain(input_ids=ids).logits)
    cfg = load_config(None, [f"student.model={leaky}", "student.lora.r=4", "student.lora.dropout=0.1"])
    model = load_student(cfg.student, trainable=True)
    with torch.no_grad():
        model.eval()
        want = model(input_ids=ids).logits
        model.train()
        assert torch.equal(model(input_ids=ids).logits, want) and torch.equal(model(input_ids=ids).logits, want)
    lora = [m.p for n, m in model.named_modules() if isinstance(m, torch.nn.Dropout) and "lora_dropout" in n]
    assert lora and set(lora) == {0.1}   # the adapter's dropout is the config's


def test_no_dropout_zeroes_dropout_modules_and_attention_rates():
    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attention_dropout = 0.3
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5), Attention())
    no_dropout(model)
    assert model[1].p == 0.0 and model[2].attention_dropout == 0.0
