"""The export's merge: the base model loaded in its checkpoint's dtype, each LoRA delta added in float32 and
rounded once; bit for bit what merging a float32 copy of the whole model gives (half the memory for a bf16
checkpoint), for float32 and bfloat16 checkpoints and exports."""
from __future__ import annotations

import pytest
import torch

from pipeline.run.export import merge_lora


def _adapter(model_dir, out, targets=("q_proj", "v_proj", "down_proj")):
    """A LoRA adapter over the model whose B is not 0 (a fresh one merges to the base exactly)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(model_dir),
                           LoraConfig(r=4, lora_alpha=8, target_modules=list(targets)))
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name or "lora_embedding_B" in name:
                p.normal_(0, 0.05)
    model.save_pretrained(out)
    return out


def _float32_merge(model_dir, adapter, want):
    """What the export did before: the whole model in float32, PEFT's merge, then the export's dtype."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    return PeftModel.from_pretrained(base, str(adapter)).merge_and_unload().to(want)


@pytest.mark.parametrize("stored, want", [(torch.float32, torch.float32), (torch.bfloat16, torch.bfloat16),
                                          (torch.float32, torch.bfloat16), (torch.bfloat16, torch.float16)])
def test_merged_weights_equal_a_float32_merge_bit_for_bit(tmp_path, tiny_model, stored, want):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM
    model_dir = tmp_path / "base"
    AutoModelForCausalLM.from_pretrained(tiny_model, dtype=stored).save_pretrained(model_dir)
    adapter = _adapter(model_dir, tmp_path / "adapter")
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=stored)
    assert base.dtype == stored
    got = merge_lora(PeftModel.from_pretrained(base, str(adapter)), want).state_dict()
    ref = _float32_merge(model_dir, adapter, want).state_dict()
    assert got.keys() == ref.keys() and not any("lora" in k for k in got)
    for k in ref:
        assert got[k].dtype == want and torch.equal(got[k], ref[k]), k
    plain = AutoModelForCausalLM.from_pretrained(model_dir, dtype=want).state_dict()
    moved = [k for k in ref if not torch.equal(plain[k], ref[k])]
    assert moved and all(("q_proj" in k or "v_proj" in k or "down_proj" in k) for k in moved), moved


def test_a_weight_two_adapted_layers_share_is_rounded_once(tmp_path, tiny_model):
    """The tiny model ties its input embeddings and LM head: an adapter on both (and on q_proj) adds both
    deltas to the one weight in float32 before rounding it, as the float32 merge does."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM
    base = AutoModelForCausalLM.from_pretrained(tiny_model)
    assert base.get_input_embeddings().weight is base.get_output_embeddings().weight
    adapter = _adapter(tiny_model, tmp_path / "adapter", ("embed_tokens", "lm_head", "q_proj"))
    got = merge_lora(PeftModel.from_pretrained(base, str(adapter)), torch.bfloat16).state_dict()
    ref = _float32_merge(tiny_model, adapter, torch.bfloat16).state_dict()
    assert got.keys() == ref.keys()
    for k in ref:
        assert torch.equal(got[k], ref[k]), k
    plain = AutoModelForCausalLM.from_pretrained(tiny_model, dtype=torch.bfloat16).state_dict()
    assert not torch.equal(plain["model.embed_tokens.weight"], got["model.embed_tokens.weight"])
