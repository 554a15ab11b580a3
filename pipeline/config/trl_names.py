"""TRL's `GRPOConfig` option names and the rlaif keys that do their work: one table, read by the
config's errors (a TRL name typed as a key gets the key to use) and written into
docs/guides/from-trl.md by `python -m pipeline.cli.docs_gen` (tests/test_docs.py holds the page to it).
Defaults as of TRL 1.16 on transformers 5."""
from __future__ import annotations

import re

# (TRL options, TRL default, rlaif keys, rlaif default): the n-th option maps to the n-th key (or to
# the only one)
ROWS: list[tuple[tuple[str, ...], str, tuple[str, ...], str]] = [
    (("learning_rate",), "`1e-6`", ("update.lr",), "`2e-4` (a LoRA adapter; full fine-tuning wants far less)"),
    (("beta",), "`0.0`", ("update.kl_coef",), "`0.05`"),
    (("num_generations",), "`8`", ("sample.num_samples",), "`8`"),
    (("max_completion_length",), "`512`", ("sample.max_new_tokens",), "`160`"),
    (("epsilon",), "`0.2`", ("update.clip_eps",), "`0.2`"),
    (("epsilon_high",), "`None` (= epsilon)", ("update.clip_eps_high",), "`None` (= clip_eps)"),
    (("num_iterations",), "`1`", ("update.epochs",), "`1`"),
    (("loss_type",), "`dapo`", ("update.loss_type",), "`grpo` (grpo, bnpo, dapo, dr_grpo, cispo, sapo, luspo)"),
    (("delta",), "`None`", ("update.delta",), "`None`"),
    (("sapo_temperature_pos", "sapo_temperature_neg"), "`1.0` / `1.05`",
     ("update.sapo_temperature_pos", "update.sapo_temperature_neg"), "`1.0` / `1.05`"),
    (("scale_rewards",), "`group`", ("select.scale_rewards",), "`group` (`none` is `select.advantage: mean`)"),
    (("importance_sampling_level",), "`token`", ("update.importance_sampling_level",), "`token`"),
    (("mask_truncated_completions",), "`False`", ("update.mask_truncated_completions",), "`False`"),
    (("top_entropy_quantile",), "`1.0`", ("update.top_entropy_quantile",), "`1.0` (off; the paper's `0.2`)"),
    (("temperature",), "`1.0`", ("sample.temperature",), "`0.7`"),
    (("top_p", "top_k"), "`1.0`, `0`", ("sample.top_p", "sample.top_k"), "`1.0`, `0`"),
    (("use_bias_correction_kl",), "`True`", ("update.kl_ratio",), "`True`"),
    (("report_to",), "`none`", ("run.trackers",), "`[]` (`tensorboard`, `wandb`)"),
    (("per_device_train_batch_size", "gradient_accumulation_steps"), "`8` / `1`",
     ("update.micro_batch_size", "update.grad_accum"), "`4` / `2`"),
    (("warmup_steps",), "`0` (transformers 5 has no `warmup_ratio`: a value below 1 is the ratio)",
     ("update.warmup_steps", "update.warmup_ratio"), "`None`, then `update.warmup_ratio` `0.1`; a ratio goes in "
     "`update.warmup_ratio`, `update.warmup_steps` takes whole steps"),
    (("lr_scheduler_type",), "`linear`", ("update.scheduler",), "`cosine`"),
    (("max_grad_norm",), "`1.0`", ("update.max_grad_norm",), "`1.0`"),
    (("weight_decay",), "`0.0`", ("update.weight_decay",), "`0.0`"),
    (("vllm_importance_sampling_correction", "vllm_importance_sampling_mode"), "on with vLLM",
     ("update.sampler_correction",), "`none`"),
    (("vllm_importance_sampling_clip_min", "vllm_importance_sampling_clip_max"), "`None` / `3.0`",
     ("update.sampler_correction_min", "update.sampler_correction_max"), "`None` / `3.0`"),
    (("seed",), "`42`", ("run.seed",), "`0`"),
    (("save_steps",), "`500`", ("run.checkpoint_every",),
     "`10` (a resume checkpoint within an epoch's update; every epoch's policy is kept whole anyway)"),
    (("vllm_gpu_memory_utilization",), "`0.3`", ("sample.vllm_memory",),
     "`0.0` (auto: 0.85 x the share free when sampling starts; with `sample.engine: vllm`)"),
    (("sync_ref_model",), "`False`", ("update.kl_reference",),
     "`start` (`previous`: the reference is synced to the policy once an epoch, alpha 1)"),
    (("reward_funcs",), "(`GRPOTrainer`'s argument: a function or a list of them)", ("judge.python.function",),
     "`''`; with `judge.kind: python`, `path/file.py:name` or a list of them, each cached on its own "
     "([reward functions](reward-functions.md#several-functions))"),
    (("reward_weights",), "`None` (each function 1.0)", ("judge.python.weights",),
     "`[]` (each function 1.0); the weighted sum skips a function's `None`, as TRL's `nansum`. Beside the execution "
     "or an LLM judge: `judge.kind: mix` with a `python` component"),
    (("gradient_checkpointing",), "`True`", ("update.activation_checkpointing",),
     "`False` (turn it on for a 3B-7B student on one GPU)"),
    (("chat_template_kwargs",), "`None`", ("student.chat_template_kwargs",), "`{}`"),
    (("num_generations_eval",), "`num_generations`", ("eval.num_samples",), "`1` (greedy)"),
]

# TRL options with no key of their own here: (TRL options, TRL default, what does their work here). Typed as a
# key, the error says this instead of a look-alike key's name (update.num_train_epochs is not update.sft_epochs)
NEAREST: list[tuple[tuple[str, ...], str, str]] = [
    (("num_train_epochs",), "`3.0`",
     "no key: `rlaif epoch N` trains up to epoch N, one generation batch an epoch; `update.planned_epochs` is the "
     "RL epochs the LR schedule spans (`update.epochs` is `num_iterations`)"),
    (("max_steps",), "`-1`",
     "no key: an epoch takes `ceil(ceil(rows / update.micro_batch_size) / update.grad_accum)` optimizer steps "
     "(rows: its answers and teacher rows), x `update.epochs`, and `rlaif epoch N` says how many epochs; `update.planned_epochs` sizes the LR schedule"),
    (("use_vllm",), "`False`", "`sample.engine=vllm` (`eval.engine=vllm` for the eval too)"),
    (("logging_steps",), "`10`",
     "no key: the metrics are recorded once an epoch, over its update's steps (`rlaif report`, "
     "`run.trackers`); `run.log_level` is the console's verbosity"),
    (("bf16", "fp16"), "`None` (on, unless fp16) / `False`",
     "`student.dtype` (`auto`: bfloat16 on CUDA; `bfloat16`, `float16`, `float32`)"),
    (("optim", "adam_beta1", "adam_beta2", "adam_epsilon"), "`adamw_torch_fused` / `0.9` / `0.999` / `1e-08`",
     "no key: the update's optimizer is torch's AdamW at TRL's betas (0.9, 0.999) and epsilon (1e-08); `update.lr`, "
     "`update.weight_decay`, `update.max_grad_norm` and `update.scheduler` are its settings"),
    (("eval_strategy", "eval_steps"), "`no` / `None`",
     "no key: the eval runs once an epoch, after its update (`eval.*`; `eval.sources=[]` turns it off)"),
    (("disable_dropout",), "`False`",
     "always on here: the base model's dropout is off in every stage, so the update's logprobs match the "
     "sampler's; `student.lora.dropout` is the adapter's own (default 0)"),
    (("vllm_mode",), "`colocate`",
     "`sample.engine=vllm` runs vLLM in the stage's own process, on the same GPU (TRL's colocate); no server mode"),
    (("steps_per_generation", "generation_batch_size"), "`None` / `None`",
     "no key: an epoch's generation batch is split into optimizer steps of `update.micro_batch_size` x "
     "`update.grad_accum` sequences, `update.epochs` passes over it"),
    (("entropy_coef", "use_adaptive_entropy", "entropy_target"), "`0.0` / `False` / `0.2`",
     "not offered: entropy is watched, not rewarded (`policy/entropy`, the report's `entropy_collapse` flag); "
     "`sample.temperature` and `update.top_entropy_quantile` are the levers on it"),
    (("off_policy_mask_threshold",), "`None`",
     "not offered: the sampler-trainer mismatch it masks is `update.sampler_correction`'s (TRL's truncated "
     "importance sampling)"),
    (("ref_model_mixup_alpha", "ref_model_sync_steps"), "`0.6` / `512`",
     "not offered: `update.kl_reference=previous` syncs the reference to the policy once an epoch (alpha 1)"),
    (("cast_lm_head_to_fp32",), "`False`", "always on here, with no key: a bf16/fp16 student's logprobs come from a "
     "float32 LM head"),
    (("push_to_hub", "hub_model_id"), "`False` / `None`",
     "no key: `rlaif export N OUT` writes epoch N's policy merged, with its tokenizer; `hf upload USER/NAME OUT` "
     "puts it on the Hub"),
    (("repetition_penalty", "min_p", "generation_kwargs"), "`1.0` / `None` / `None`",
     "left out on purpose: tokens are drawn from softmax(logits / `sample.temperature`), with `sample.top_p` / "
     "`sample.top_k` only when set, so without them the update's logprobs are those of the policy that sampled "
     "(with them the update recomputes at `sample.temperature` alone: `logprobs/sampler_gap` shows the difference)"),
]

# a value of TRL's that rlaif spells with another key: (key, value) -> what to write instead
VALUES = {("select.scale_rewards", "none"): "select.advantage=mean (TRL's scale_rewards=none: no std division)",
          ("select.scale_rewards", "false"): "select.advantage=mean (TRL's scale_rewards=false: no std division)",
          ("select.scale_rewards", "true"): "select.scale_rewards=group (TRL's scale_rewards=true: each group's std)",
          ("run.trackers", "none"): "'run.trackers=[]' for no tracker (TRL's report_to=none)"}


def names() -> dict[str, str]:
    """{TRL option: rlaif key}."""
    out = {}
    for trl, _, keys, _ in ROWS:
        for i, name in enumerate(trl):
            out[name] = keys[i] if len(keys) == len(trl) else keys[0]
    return out


def nearest() -> dict[str, str]:
    """{TRL option with no key of its own: what does its work here}."""
    return {name: text for trl, _, text in NEAREST for name in trl}


def hint(key: str) -> str:
    """' (TRL's beta is update.kl_coef here)' for an unknown key whose last part is a TRL option
    (`update.beta`, `beta`, `trainer.num_generations`), ' (TRL's use_vllm: ...)' for one with no key of its
    own (NEAREST), else ''."""
    name = key.rsplit(".", 1)[-1]
    to = names().get(name)
    if to and to != key:
        return f" (TRL's {name} is {to} here)"
    text = nearest().get(name)
    return f" (TRL's {name}: {text.replace('`', '')})" if text else ""


def value_hint(key: str, value) -> str:
    """' (use select.advantage=mean ...)' for a TRL value rlaif spells with another key, else ''."""
    key = re.sub(r"\.\d+$", "", key)   # an item of a list: run.trackers.0
    to = VALUES.get((key, str(value).lower()))
    if key == "update.warmup_steps" and isinstance(value, float) and 0 < value < 1:   # transformers 5's ratio spelling
        to = f"update.warmup_ratio={value} (a warmup below one step is a ratio of the steps)"
    return f"; write {to}" if to else ""


def table() -> str:
    """The Markdown tables of docs/guides/from-trl.md: TRL's options and their keys, then those with no key."""
    lines = ["| TRL `GRPOConfig` | TRL default | rlaif key | rlaif default |", "|---|---|---|---|"]
    for trl, trl_default, keys, default in ROWS:
        lines.append(f"| {' / '.join(f'`{n}`' for n in trl)} | {trl_default} | "
                     f"{' / '.join(f'`{k}`' for k in keys)} | {default} |")
    lines += ["", "TRL options with no key of their own here, and what does their work (typed as a key, the error "
              "says the same):", "", "| TRL `GRPOConfig` | TRL default | in rlaif |", "|---|---|---|"]
    lines += [f"| {' / '.join(f'`{n}`' for n in trl)} | {trl_default} | {text} |" for trl, trl_default, text in NEAREST]
    return "\n".join(lines)
