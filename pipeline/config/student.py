"""The config's `run` section (names, seeds, devices) and `student` (the model and its LoRA)."""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from pipeline.config.base import RUNTIME, HomePath, Section, not_empty


class RunConfig(Section):
    name: str = Field("default", description="Run name; artifacts go to <run.dir>/<run.name>/ (one folder name: no `/`, not starting with `.`).")
    dir: HomePath = Field("runs", description="Directory holding all runs (a leading ~ is your home).")
    seed: int = Field(0, description="Base seed: prompt order, sampling and the update derive theirs from it and the epoch.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field("INFO", description="Logging level (runtime only, not fingerprinted).")
    trackers: list[Literal["tensorboard", "wandb"]] = Field(default_factory=list, description="Also log each epoch's metrics to these trackers (accelerate's; tensorboard writes under <run>/trackers). Runtime only.")
    checkpoint_every: int = Field(10, ge=0, description="The update saves a resume checkpoint every this many optimizer steps (0 = never). Runtime only.")
    device: str = Field("auto", description="Where every model of the run lives (sample, logprobs, update, eval, the warm-start, the hf judge and teacher): auto = the first GPU when torch sees one, else the CPU; cpu; cuda; cuda:N. Runtime only: artifacts and fingerprints do not depend on it. With several processes (`--processes N`, `accelerate launch`), auto and cuda mean each rank's own GPU (cuda:LOCAL_RANK).", json_schema_extra=RUNTIME)
    dist_timeout_s: float = Field(86400.0, gt=0, description="With several processes: how long a rank waits for the others (e.g. while rank 0 judges through a batch API) before giving up. Runtime only.", json_schema_extra=RUNTIME)

    @field_validator("device")
    @classmethod
    def _device(cls, v: str) -> str:
        if not re.fullmatch(r"auto|cpu|cuda(:[0-9]+)?", v):
            raise ValueError(f"{v!r} is no device here: auto, cpu, cuda or cuda:N (the GPU's index)")
        return v

    @field_validator("name")
    @classmethod
    def _one_folder(cls, v: str) -> str:
        if not v or "/" in v or "\\" in v or v.startswith("."):
            raise ValueError("a run name is one folder name: not empty, no / or \\, not starting with a dot")
        return v

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v):
        return v.upper() if isinstance(v, str) else v


class LoraConfig(Section):
    r: int = Field(16, ge=1, description="LoRA rank.")
    alpha: int = Field(32, ge=1, description="LoRA alpha (scaling = alpha / r).")
    dropout: float = Field(0.0, ge=0.0, lt=1.0, description="LoRA dropout. 0 keeps the logprobs of sampling and update identical.")
    target_modules: list[str] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        description="Module names LoRA adapts (PEFT target_modules). Checked before any work against the student's weights on disk: none matching is refused, some matching said; lm_head or the input embeddings of a model that ties them (tie_word_embeddings) are refused, as their merge would reach both layers.")


class StudentConfig(Section):
    model: str = Field("smollm2-135m-instruct", description="Student model: 'smollm2-135m-instruct' (embedded, no network), a Hub id, or a local path.")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field("auto", description="Weights dtype. auto: bfloat16 on CUDA (float16 where the GPU has no bf16), float32 on the CPU. Runtime only (not in any fingerprint).", json_schema_extra=RUNTIME)
    lora: LoraConfig = Field(default_factory=LoraConfig, description="LoRA adapter settings.")
    system_prompt: str = Field(
        "You are a helpful Python programmer. Answer with one ```python code block.",
        description="System message put before every prompt through the chat template ('' for none).")
    prompt_format: Literal["chat", "raw"] = Field("chat", description="How a problem's prompt becomes the student's tokens. chat: through the tokenizer's chat template (student.system_prompt as the system turn, the prompt as the user's, the assistant's turn opened), for instruct/chat models. raw: the prompt's text as it is (after student.system_prompt and a blank line, when that is set), tokenized as TRL tokenizes a standard (non-conversational) prompt, `tokenizer(text)`: for a base model without a chat template (\"zero RL\": RL straight from a pretrained model). A raw prompt is only what the model continues: write your data's prompts so that the answer follows, e.g. ending with a function's signature and docstring: the judges score an answer continuing the prompt's own def (its body) as the whole function, the prompt from that def on before it, as HumanEval's harness scores prompt + completion.")
    chat_template_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra variables for the tokenizer's chat template (apply_chat_template's keyword arguments; TRL's "
                    "chat_template_kwargs), e.g. {enable_thinking: false} for a Qwen3 student, whose answers otherwise "
                    "open with a thinking block that sample.max_new_tokens cuts off. Every prompt the student reads "
                    "(sampling, logprobs, the update, the warm-start, the eval) is built with them.")

    @field_validator("model")
    @classmethod
    def _named(cls, v: str) -> str:
        return not_empty(v, "name the student (smollm2-135m-instruct, a Hub id such as "
                            "Qwen/Qwen2.5-Coder-1.5B-Instruct, or a local model directory)")
