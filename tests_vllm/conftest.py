"""Fixtures of the vLLM tests (`make test-vllm`, in .venv-vllm): a tiny random Llama vLLM's CPU
attention accepts (head_dim 32: its kernels take 32, 64, 80, ...; the main suite's tiny model has
16), and a LoRA adapter with non-zero B on it."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
torch.set_num_threads(min(2, os.cpu_count() or 1))


def build_vllm_tiny_model(out: Path) -> Path:
    """2 layers, 64 wide, 2 heads of 32 (1 KV head), the SmolLM2 tokenizer, seeded; a wide init makes
    its next-token distribution peaky, so short completions differ from one seed to the next but
    repeat under one."""
    if (out / "config.json").exists():
        return out
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pipeline.engines.model import embedded_tokenizer_dir
    tok = AutoTokenizer.from_pretrained(embedded_tokenizer_dir())
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=1024,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=True, initializer_range=0.6)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, out)
    return out


@pytest.fixture(scope="session")
def vllm_tiny_model() -> str:
    from pipeline.store.paths import cache_root
    return str(build_vllm_tiny_model(cache_root() / "models" / "tiny-llama-hd32-v1"))


@pytest.fixture(scope="session")
def lora_adapter(vllm_tiny_model, tmp_path_factory) -> Path:
    """A rank-8 PEFT adapter on every projection with B drawn at random (a fresh LoRA has B = 0 and
    would change nothing): strong enough to change the greedy tokens."""
    from peft import get_peft_model

    from pipeline.config.file import load_config
    from pipeline.engines.model import load_student, lora_config
    cfg = load_config(None, [f"student.model={vllm_tiny_model}", "student.lora.r=8", "student.lora.alpha=16"])
    model = get_peft_model(load_student(cfg.student), lora_config(cfg.student))
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)
    out = tmp_path_factory.mktemp("adapter")
    model.save_pretrained(out)
    return out
