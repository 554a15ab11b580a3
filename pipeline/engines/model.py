"""Loading the student: the embedded SmolLM2 default (pipeline/engines/embedded.py), a Hub id or a
local path; LoRA on top."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from pipeline.config.student import StudentConfig
from pipeline.engines.embedded import (EMBEDDED, ModelError, embedded_converted,  # noqa: F401 (re-exported)
                                       embedded_tokenizer_dir, ensure_embedded)


@contextmanager
def _peft_quiet():
    """peft 0.21 reads transformers' deprecated `is_gradient_checkpointing` on every model it wraps: a
    FutureWarning in every log that is peft's to change, not the user's (whose own deprecations still show)."""
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        yield


def resolve(model: str) -> str:
    """Local path or Hub id for `student.model` (a Hub id never starts with ~, so ~/models/x is a path)."""
    if model == EMBEDDED:
        return str(ensure_embedded())
    return os.path.expanduser(model)


_TOKENIZERS: dict[str, object] = {}


def load_tokenizer(cfg: StudentConfig):
    """student.model's tokenizer, read once a process (each stage asks for it; shared: callers must
    not change it), left-padded, its pad token the eos where the model has none."""
    name = resolve(cfg.model)
    if name not in _TOKENIZERS:
        _TOKENIZERS[name] = _read_tokenizer(cfg.model, name)
    if _TOKENIZERS[name].chat_template is None and getattr(cfg, "prompt_format", "chat") == "chat":
        raise ModelError(f"student.model={cfg.model}: the tokenizer has no chat template; use an instruct/chat model "
                         "(e.g. smollm2-135m-instruct), or set student.prompt_format=raw to give this (base) model "
                         "each prompt's text as it is")
    return _TOKENIZERS[name]


def _read_tokenizer(model: str, name: str):
    from transformers import AutoTokenizer
    try:
        tok = AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise ModelError(_missing(model, e)) from None
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "left"  # generation appends on the right
    return tok


# the weight files save_pretrained writes (one file, or shards with their index), as transformers looks for them
_WEIGHTS = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json", "pytorch_model.bin.index.json")


def check_model(model: str, key: str = "student.model") -> None:
    """A model's config and tokenizer can be read (not the weights), in seconds, before any stage
    (`key` names the setting: student.model, or an hf judge's or teacher's model): the embedded model
    and a local directory on disk; a Hub id in the local Hugging Face cache, or with one request a file
    and no retries (a Hub that cannot be reached fails once, not after minutes of backoff). A
    ModelError saying what was tried otherwise."""
    if model == EMBEDDED:
        return
    local = Path(model).expanduser()
    if local.exists():
        if not (local / "config.json").is_file():
            raise ModelError(f"{key}={model}: {local.resolve()} has no config.json; point it at a model "
                             "directory (save_pretrained's output) or a Hub id")
        if not any(next(local.glob(pat), None) for pat in _WEIGHTS):
            raise ModelError(f"{key}={model}: {local.resolve()} has a config.json but no weights ("
                             + ", ".join(_WEIGHTS) + "); save the model there with save_pretrained, or point it at "
                             "the directory that holds them")
        return
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url, try_to_load_from_cache
    from huggingface_hub.errors import HFValidationError
    try:
        cached = {name: try_to_load_from_cache(model, name) for name in ("config.json", "tokenizer_config.json")}
    except HFValidationError:                                  # not a Hub id: a path that is not there
        relative = "" if local.is_absolute() else f" (a relative path is read from the working directory, {Path.cwd()})"
        raise ModelError(f"cannot load {key}={model!r}: no directory {local.resolve()}{relative}; point it at a "
                         "model directory (save_pretrained's output), a Hub id (owner/name), or "
                         f"'{EMBEDDED}' (embedded, no network)") from None
    for name in ("config.json", "tokenizer_config.json"):
        if isinstance(cached[name], str):
            continue
        if constants.HF_HUB_OFFLINE:
            raise ModelError(_missing(model, OSError(f"{name} is not in the local Hugging Face cache"), key))
        try:
            get_hf_file_metadata(hf_hub_url(model, name), timeout=15)
        except Exception as e:  # noqa: BLE001 - any failure to reach it is the user's to fix, said once
            raise ModelError(_missing(model, e, key)) from None


def _missing(model: str, err: Exception, key: str = "student.model") -> str:
    local = Path(model).expanduser()
    tried = [f"local path {local.resolve()} (exists: {local.exists()})",
             f"Hugging Face Hub id {model!r} (HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE', '0')})"]
    return (f"cannot load {key}={model!r}. Tried: " + "; ".join(tried) +
            f". Error: {str(err).splitlines()[0] if str(err) else type(err).__name__}. "
            f"Use '{EMBEDDED}' (embedded, no network), a local model directory, or a Hub id with network access.")


def resolve_device(spec: str = "auto"):
    """run.device -> torch.device. auto: the first GPU when torch sees one, else the CPU. Asking
    for a GPU that is not there fails here, before any work."""
    import torch

    from pipeline.store import dist
    several = dist.world_size() > 1
    if spec == "auto":
        return torch.device("cuda", dist.local_rank() if several else 0) if torch.cuda.is_available() else torch.device("cpu")
    if several and spec.startswith("cuda"):
        spec = f"cuda:{dist.local_rank()}"  # one GPU per rank (accelerate launch / torchrun set LOCAL_RANK)
    dev = torch.device(spec)
    if dev.type == "cuda":
        n = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if n == 0:
            raise ModelError(f"run.device={spec}, but torch {torch.__version__} sees no CUDA GPU "
                             f"(built for CUDA {torch.version.cuda or 'none'}); use run.device=auto or cpu, "
                             "or install a CUDA build of torch on a machine with a GPU")
        if (dev.index or 0) >= n:
            raise ModelError(f"run.device={spec}, but torch sees {n} GPU(s) (cuda:0..cuda:{n - 1})")
        dev = torch.device("cuda", dev.index or 0)
    return dev


def resolve_dtype(spec: str, device):
    """student.dtype -> torch dtype. auto: bf16 on CUDA (fp16 where the GPU lacks bf16), fp32 on the CPU."""
    import torch
    if spec != "auto":
        return getattr(torch, spec)
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


def load_student(cfg: StudentConfig, adapter: str | Path | None = None, trainable: bool = False,
                 device: str = "auto"):
    """Base model + LoRA adapter (the given one, or a fresh one when trainable and none given), a
    copy of its own. The stages share one copy per process instead: `Student`.

    Returns a PeftModel when an adapter is involved; a base-model KL reference is the same model
    under `model.disable_adapter()`, and a warm-start reference a second adapter loaded beside the
    policy's (pipeline.stages.logprobs.run), so no second copy of the weights lives in memory.
    """
    from peft import PeftModel, get_peft_model
    model = _load_base(cfg, resolve_device(device) if isinstance(device, str) else device)
    if adapter is not None:
        check_adapter_base(adapter, resolve(cfg.model))
        with _peft_quiet():
            model = PeftModel.from_pretrained(model, str(adapter), is_trainable=trainable)
    elif trainable:
        check_tied(model, cfg)
        with _peft_quiet():
            model = get_peft_model(model, lora_config(cfg))
    if not trainable:
        model.eval()
    return model


def check_tied(model, cfg: StudentConfig) -> None:
    """ModelError for a LoRA target on a weight the model ties between its input embeddings and its output
    head: trained apart, merged (sampling, export) into the one weight both layers share. The preflight says
    so from the files on disk; this, from the loaded model, covers a model first downloaded by this run."""
    out, inp = model.get_output_embeddings(), model.get_input_embeddings()
    if out is None or inp is None or out.weight is not inp.weight:
        return
    names = {n for n, mod in model.named_modules() if mod is out or mod is inp}
    both = [t for t in cfg.lora.target_modules if any(lora_matches(n, t) for n in names)]
    if both:
        raise ModelError(tied_targets_error(both, cfg.model))


def lora_matches(name: str, target: str) -> bool:
    """PEFT's rule for a target_modules list: a module whose name is the entry or ends with '.' + entry."""
    return name == target or name.endswith("." + target)


def tied_targets_error(targets: list[str], model: str) -> str:
    return (f"student.lora.target_modules: {', '.join(map(repr, targets))} adapt a layer of {model} whose weight it "
            "shares between its input embeddings and its output head (tie_word_embeddings): merged for sampling and "
            "export, the change would reach both layers, a policy other than the one trained; leave it out of the list")


def lora_config(cfg: StudentConfig):
    from peft import LoraConfig
    lc = cfg.lora
    return LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout, target_modules=list(lc.target_modules),
                      task_type="CAUSAL_LM")


def _load_base(cfg: StudentConfig, device):
    from transformers import AutoModelForCausalLM
    name = resolve(cfg.model)
    try:
        model = AutoModelForCausalLM.from_pretrained(name, dtype=resolve_dtype(cfg.dtype, device), device_map=None)
    except (OSError, ValueError) as e:
        raise ModelError(_missing(cfg.model, e)) from None
    no_dropout(model)
    if device.type == "cuda":
        import torch
        torch.cuda.set_device(device)  # accelerate and generate pick the current GPU
    return model.to(device)


def no_dropout(model) -> None:
    """The base model's dropout off: its nn.Dropout modules and the attention's own rate (TRL's disable_dropout
    misses the latter). The update runs in train mode, the logprobs stage and the sampler in eval mode: a
    model's dropout would part the update's logprobs from the old policy's (a ratio off 1 before any step).
    Done before any adapter: student.lora.dropout keeps its rate."""
    import torch
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        if isinstance(getattr(module, "attention_dropout", None), float):
            module.attention_dropout = 0.0


class Student:
    """The student's base weights, loaded once per process; adapters are switched on top of them
    (peft load_adapter / add_adapter / set_adapter / delete_adapter). Within one `rlaif epoch`,
    `update`, `sweep` or `eval`, the sample, logprobs, update and eval stages (and the warm-start)
    share this one copy instead of each loading the weights again."""

    _current: "Student | None" = None

    def __init__(self, cfg: StudentConfig, device):
        self.key = (resolve(cfg.model), cfg.dtype, str(device))
        self.cfg, self.device = cfg, device
        self.base = _load_base(cfg, device)
        self.peft = None  # the PeftModel wrapping self.base once an adapter is in
        self._names = 0

    @classmethod
    def get(cls, cfg: StudentConfig, device: str = "auto") -> "Student":
        """This process's student for cfg.model on run.device (loaded on first use; another model
        replaces it)."""
        dev = resolve_device(device)
        key = (resolve(cfg.model), cfg.dtype, str(dev))
        if cls._current is None or cls._current.key != key:
            cls._current = None  # let the old weights go before the new ones arrive
            cls._current = cls(cfg, dev)
        cls._current.cfg = cfg  # same weights; the LoRA settings may differ
        return cls._current

    @classmethod
    def release(cls) -> None:
        cls._current = None

    def use(self, adapter: str | Path | None = None, trainable: bool = False,
            extra: dict[str, Path] | None = None, checkpointing: bool = False):
        """The model with `adapter` active (trainable or frozen), or a fresh LoRA (trainable=True and
        no adapter), or the bare base model (neither). `extra`: further adapters loaded beside it by
        name (the KL reference). Every adapter of an earlier use is dropped."""
        from peft import PeftModel, get_peft_model
        if adapter is None and not trainable:
            if extra:
                raise ValueError("extra adapters need an active adapter beside them")
            if self.peft is not None:
                self.base, self.peft = self.peft.unload(), None  # LoRA layers out, base weights untouched
            self._gradient_checkpointing(False)
            return self.base.eval()
        if adapter is not None:
            check_adapter_base(adapter, self.key[0])
        else:   # a fresh LoRA
            check_tied(self.base, self.cfg)
        self._names += 1
        name = f"policy{self._names}"
        if self.peft is None:
            with _peft_quiet():
                self.peft = (PeftModel.from_pretrained(self.base, str(adapter), adapter_name=name, is_trainable=trainable)
                             if adapter is not None else get_peft_model(self.base, lora_config(self.cfg), adapter_name=name))
        else:
            old = list(self.peft.peft_config)
            if adapter is not None:
                self.peft.load_adapter(str(adapter), adapter_name=name, is_trainable=trainable)
            else:
                self.peft.add_adapter(name, lora_config(self.cfg))
            self.peft.set_adapter(name, inference_mode=not trainable)
            for o in old:
                self.peft.delete_adapter(o)
        for n, path in (extra or {}).items():
            check_adapter_base(path, self.key[0])
            self.peft.load_adapter(str(path), adapter_name=n, is_trainable=False)
        self.peft.set_adapter(name, inference_mode=not trainable)
        self._gradient_checkpointing(trainable and checkpointing)
        return self.peft.train() if trainable else self.peft.eval()

    def _gradient_checkpointing(self, on: bool) -> None:
        # transformers 5.20 renamed gradient_checkpointing_* to activation_checkpointing_*; the vllm
        # extras (vLLM 0.32: transformers<5.20) get 5.19, which has only the old names
        m = self.base
        new = hasattr(m, "activation_checkpointing_enable")
        if on:
            # non-reentrant: LoRA weights inside a checkpointed layer get their gradients without
            # enable_input_require_grads
            if new:
                m.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
            else:
                m.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        elif m.is_activation_checkpointing if new else m.is_gradient_checkpointing:
            m.activation_checkpointing_disable() if new else m.gradient_checkpointing_disable()


def student_model(cfg, adapter: str | Path | None = None, trainable: bool = False,
                  extra: dict[str, Path] | None = None):
    """The stages' way to the student: this process's one copy of the weights (`Student`) on
    run.device, with `adapter` switched in."""
    return Student.get(cfg.student, cfg.run.device).use(adapter, trainable, extra,
                                                         checkpointing=cfg.update.activation_checkpointing)


def save_adapter(model, out: Path, state_dict: dict | None = None) -> None:
    """The active adapter as a standard PEFT adapter directory (`PeftModel.from_pretrained(out)`
    loads it); peft puts an adapter not named "default" into a subdirectory of its name.
    state_dict: the model's full state dict where its own parameters are shards (FSDP, DeepSpeed
    ZeRO-3: `accelerator.get_state_dict`)."""
    import shutil
    name = model.active_adapter
    model.save_pretrained(out, selected_adapters=[name], **({"state_dict": state_dict} if state_dict else {}))
    if name != "default" and (out / name).is_dir():
        for f in (out / name).iterdir():
            shutil.move(str(f), out / f.name)
        (out / name).rmdir()


@contextmanager
def merged(model):
    """Generation on W + BA instead of W x + B(A x): peft merges the active adapter into the base
    weights for the duration, then unmerges and puts the exact base weights back (an unmerge alone
    leaves bf16 rounding in them, which would drift the base a little with every merge). The copy
    of the adapted weights is kept on the CPU. A model without an adapter is used as it is."""
    import torch
    from peft.tuners.tuners_utils import BaseTunerLayer
    if not hasattr(model, "merge_adapter"):
        yield model
        return
    layers = [m.get_base_layer() for m in model.modules() if isinstance(m, BaseTunerLayer)]
    saved = [layer.weight.detach().to("cpu", copy=True) for layer in layers]
    model.merge_adapter()
    try:
        yield model
    finally:
        model.unmerge_adapter()
        with torch.no_grad():
            for layer, w in zip(layers, saved):
                layer.weight.copy_(w)


def check_adapter_base(adapter: str | Path, base_name: str) -> None:
    import json
    cfg_path = Path(adapter) / "adapter_config.json"
    if not cfg_path.exists():
        raise ModelError(f"{adapter}: not a PEFT adapter (no adapter_config.json)")
    recorded = json.loads(cfg_path.read_text()).get("base_model_name_or_path")
    if recorded and Path(recorded).name != Path(base_name).name and recorded != base_name:
        raise ModelError(f"{adapter} was trained on base model {recorded!r}, but student.model resolves to "
                         f"{base_name!r}; use the same student.model as the run that made it (student.model={recorded})")
