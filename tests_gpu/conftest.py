"""The CUDA suite (`make test-gpu`): what CI cannot run. Every test here skips, saying why, on a
machine without a CUDA GPU, so the suite exits 0 there. It has not yet run on a GPU.

The fixtures are the CPU suite's (tests/conftest.py): the tiny random Llama with the SmolLM2
tokenizer, and a tiny epoch's overrides, here with run.device=cuda."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.conftest import build_tiny_model, tiny_model  # noqa: F401  (fixtures)

NO_GPU = "no CUDA GPU on this machine: the GPU suite runs where torch.cuda.is_available() (an H100/H200)"


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    here = str(Path(__file__).parent)
    for item in items:  # only this suite's tests: a run that also collects tests/ keeps those
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.skip(reason=NO_GPU))


@pytest.fixture
def cuda_config(tmp_path, tiny_model):  # noqa: F811
    """A tiny epoch on the GPU, in a temp run dir (bf16: student.dtype auto on CUDA)."""
    return [f"run.dir={tmp_path / 'runs'}", f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
            "data.prompts_per_epoch=3", "sample.num_samples=3", "sample.max_new_tokens=24",
            "update.micro_batch_size=3", "update.grad_accum=1", "judge.execution.timeout_s=5",
            "eval.max_problems=3", "eval.max_new_tokens=16", "update.warm_start=false", "run.device=cuda",
            "select.drop_zero_std=false", "select.advantage=mean", "reward.none_as=0.0"]
