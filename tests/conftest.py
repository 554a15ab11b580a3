"""Shared fixtures: a tiny randomly initialised Llama with the SmolLM2 tokenizer (seconds, not minutes)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

# keep tests off the network and on the machine's cores
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
torch.set_num_threads(min(2, os.cpu_count() or 1))


def build_tiny_model(out: Path) -> Path:
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pipeline.model import embedded_tokenizer_dir
    if (out / "config.json").exists():
        return out
    tok = AutoTokenizer.from_pretrained(embedded_tokenizer_dir())
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=True,
                      # a wide init makes the output distribution peaky, so a toy reward on one token has signal
                      initializer_range=0.6)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, out)
    return out


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    from pipeline.model import cache_root
    return str(build_tiny_model(cache_root() / "models" / "tiny-llama-smollm2-tok-v2"))


@pytest.fixture
def tiny_config(tmp_path, tiny_model):
    """Overrides for a tiny, fast epoch in a temp run dir."""
    return [f"run.dir={tmp_path / 'runs'}", f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
            "data.prompts_per_epoch=3", "sample.num_samples=3", "sample.max_new_tokens=24",
            "update.micro_batch_size=3", "update.grad_accum=1", "judge.execution.timeout_s=5",
            "eval.max_problems=3", "eval.max_new_tokens=16"]
