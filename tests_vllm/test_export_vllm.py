"""`rlaif export`'s merged directory served by vLLM as a plain model (no LoRA, no rlaif): its greedy
answer is transformers' on the same directory (vLLM's CPU build, `make test-vllm`)."""
from __future__ import annotations

import pytest

pytest.importorskip("vllm", reason="the vLLM tests run in .venv-vllm: `make test-vllm`")

import torch  # noqa: E402

from pipeline.cli.main import main  # noqa: E402


def test_the_exported_policy_loads_in_vllm_and_answers_as_in_transformers(vllm_tiny_model, tmp_path):
    over = [f"run.dir={tmp_path / 'runs'}", f"student.model={vllm_tiny_model}", "student.lora.r=4",
            "student.lora.alpha=8", "data.prompts_per_epoch=2", "sample.num_samples=2", "sample.max_new_tokens=16",
            "update.micro_batch_size=2", "update.grad_accum=1", "eval.max_problems=2", "eval.max_new_tokens=8",
            "sample.dtype=float32", "update.warm_start=false", "select.drop_zero_std=false",
            "select.advantage=mean", "reward.none_as=0.0", "update.lr=0.02"]
    assert main(["epoch", "1", *over]) == 0
    out = tmp_path / "exported"
    assert main(["export", "1", str(out), *over]) == 0

    from transformers import AutoModelForCausalLM, AutoTokenizer
    from vllm import LLM, SamplingParams
    tok = AutoTokenizer.from_pretrained(out)
    ids = tok.apply_chat_template([{"role": "user", "content": "Write is_even(n)."}], add_generation_prompt=True,
                                  return_tensors="pt", return_dict=True)["input_ids"]
    with torch.no_grad():
        want = AutoModelForCausalLM.from_pretrained(out).eval().generate(ids, max_new_tokens=8, do_sample=False)
    llm = LLM(model=str(out), dtype="float32", max_model_len=512, gpu_memory_utilization=0.1)
    try:
        got = llm.generate({"prompt_token_ids": ids[0].tolist()}, SamplingParams(temperature=0, max_tokens=8))
    finally:
        llm.llm_engine.engine_core.shutdown()
    assert list(got[0].outputs[0].token_ids) == want[0][ids.shape[1]:].tolist()
