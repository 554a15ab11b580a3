"""The model's generation_config.json never reaches vLLM's sampler: a checkpoint that ships
repetition_penalty, top_k and top_p (as Qwen2.5 Instruct does) samples from softmax(z / T) alone,
the distribution the trainer's logprobs are computed under."""
from __future__ import annotations

import json
import shutil

from pipeline.engines import hf as engine_hf

from pipeline.engines import vllm as engine_vllm
from pipeline.engines.forward import rollout_logprobs
from pipeline.engines.model import load_student, load_tokenizer
from pipeline.stages.logprobs import sampler_gap
from tests_vllm.test_engine_vllm import QUESTIONS, config


def test_the_models_generation_config_does_not_reach_the_sampler(vllm_tiny_model, tmp_path):
    model = tmp_path / "penalised"
    shutil.copytree(vllm_tiny_model, model)
    gen = json.loads((model / "generation_config.json").read_text()) if (model / "generation_config.json").exists() else {}
    gen.update({"repetition_penalty": 1.8, "top_k": 2, "top_p": 0.5, "temperature": 0.1, "do_sample": True})
    (model / "generation_config.json").write_text(json.dumps(gen))
    cfg = config(str(model))
    tok = load_tokenizer(cfg.student)
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in QUESTIONS]
    with engine_vllm.kept(cfg, max_model_len=1024, max_lora_rank=8):
        llm = engine_vllm._KEPT[-1][0]
        defaults = llm.get_default_sampling_params()
        assert defaults.repetition_penalty == 1.0 and defaults.top_k in (0, -1) and defaults.top_p == 1.0
        rows = [{**r, "prompt_ids": prompts[r["group"]]} for r in engine_vllm.sample(cfg, tok, prompts, None, seed=5)]
    old, _ = rollout_logprobs(load_student(cfg.student), rows, cfg.sample.temperature, tok.pad_token_id,
                              policy_is_reference=True)
    # the trainer's softmax(z / 0.7): a repetition penalty or a top-k of 2 would move these far apart
    assert sampler_gap(rows, old)["logprobs/sampler_gap"] < 1e-3
