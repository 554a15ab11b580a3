"""The student's modules a LoRA adapts, checked before any work from the weights' file headers on disk
(no torch): target names that match nothing, and a target whose weight the model ties between its input
embeddings and its output head."""
from __future__ import annotations

from pathlib import Path

from pipeline.config.base import ConfigError
from pipeline.config.schema import Config
from pipeline.engines.model import lora_matches, tied_targets_error


def check_lora_targets(cfg: Config) -> None:
    """student.lora.target_modules against the student's modules, by PEFT's rule for a list (a module whose
    name is the entry or ends with '.' and the entry): none matching fails here (it failed at the first
    update, after sampling and judging, paid with an API judge); some entries matching nothing are said
    (PEFT adapts the others: the default names a Llama's seven projections, and a Phi has four of them).
    The module names come from the weights' file headers on disk (no torch, milliseconds); a model whose
    weights are not on disk yet (a Hub id not downloaded, the embedded model before its first conversion)
    is not read."""
    names = _weight_modules(cfg.student.model)
    if not names:
        from pipeline.engines import model
        if cfg.student.model == model.EMBEDDED:   # before its first conversion: SmolLM2 ties its head
            check_tied_targets(cfg, {"model.embed_tokens"})
        return
    targets = cfg.student.lora.target_modules
    check_tied_targets(cfg, names)
    names.add("lm_head")   # a causal LM's head, whose weight a tied model's file does not hold
    missing = [t for t in targets if not any(lora_matches(n, t) for n in names)]
    if not missing:
        return
    kinds = ", ".join(sorted({n.rsplit(".", 1)[-1] for n in names if not n.rsplit(".", 1)[-1].isdigit()}))
    if len(missing) == len(targets):
        raise ConfigError(f"student.lora.target_modules: {', '.join(map(repr, missing))} name no module of "
                          f"{cfg.student.model}; its modules with weights are {kinds}")
    import logging
    logging.getLogger("rlaif").warning(
        "student.lora.target_modules: %s name no module of %s, so LoRA adapts only %s (its modules with weights: %s)",
        ", ".join(map(repr, missing)), cfg.student.model, ", ".join(t for t in targets if t not in missing), kinds)


EMBEDDINGS = ("embed_tokens", "wte", "embed_in", "word_embeddings")


def check_tied_targets(cfg: Config, names: set[str]) -> None:
    """A LoRA on the output head or the input embeddings of a model that ties them (one weight): trained
    apart, merged (for sampling, sample.merge_lora, and by `rlaif export`) into the weight both share, so
    the sampled and exported policy would not be the trained one. Tied: the config says so, or, where it
    is silent, the weights hold no lm_head."""
    import json
    d = _weights_dir(cfg.student.model)
    try:
        conf = json.loads((d / "config.json").read_text()) if d is not None else {}
    except (OSError, ValueError):
        conf = {}
    tied = conf.get("tie_word_embeddings", "lm_head" not in names)
    emb = {n for n in names if n.rsplit(".", 1)[-1] in EMBEDDINGS}
    both = [t for t in cfg.student.lora.target_modules if t == "lm_head" or any(lora_matches(n, t) for n in emb)]
    if tied and both:
        raise ConfigError(tied_targets_error(both, cfg.student.model))


def _weights_dir(model_id: str) -> Path | None:
    """The directory on disk holding `model_id`'s safetensors (a local path, the converted embedded model,
    or the Hub cache's snapshot); None when they are not on disk (nothing is downloaded or converted)."""
    from pipeline.engines import model
    if model_id == model.EMBEDDED:
        if not model.embedded_converted():
            return None
        model_id = model.resolve(model_id)
    d = Path(model_id).expanduser()
    if d.is_dir():
        return d
    try:
        from huggingface_hub import try_to_load_from_cache
        hit = next((p for f in ("model.safetensors.index.json", "model.safetensors")
                    if isinstance(p := try_to_load_from_cache(model_id, f), str)), None)
    except Exception:
        return None
    return Path(hit).parent if hit is not None else None


def _weight_modules(model_id: str) -> set[str]:
    """The names of the modules that hold weights in `model_id`'s safetensors files, from their JSON headers
    (or the shards' index): {'model.layers.0.self_attn.q_proj', ...}; empty when none is on disk."""
    import json
    import struct
    d = _weights_dir(model_id)
    if d is None:
        return set()
    params: list[str] = []
    try:
        index = d / "model.safetensors.index.json"
        if index.is_file():
            params = list(json.loads(index.read_text())["weight_map"])
        elif (d / "model.safetensors").is_file():
            with open(d / "model.safetensors", "rb") as f:
                size = struct.unpack("<Q", f.read(8))[0]
                params = [k for k in json.loads(f.read(size)) if k != "__metadata__"]
    except (OSError, ValueError, KeyError, struct.error):
        return set()
    return {p.rsplit(".", 1)[0] for p in params if "." in p}
