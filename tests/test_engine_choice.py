"""sample.engine / eval.engine (hf | vllm): runtime only, a clear error without vLLM, and the
sampler-vs-trainer logprob gap. vLLM itself is tested in tests_vllm/ (`make test-vllm`, .venv-vllm)."""
from __future__ import annotations

import importlib.util

import pytest
import torch

from pipeline.config.epoch import ReportConfig
from pipeline.config.file import load_config
from pipeline.stages.logprobs import sampler_gap
from pipeline.metrics.flags import analyse


def test_engine_is_runtime_only(tiny_config):
    from pipeline.run.runner import Runner

    def fps(*over):
        cfg = load_config(None, [*tiny_config, *over])
        return {st.name: fp for st, fp, _, _ in Runner(cfg).plan(1)}

    base = fps()
    assert fps("sample.engine=vllm", "eval.engine=vllm", "sample.vllm_memory=0.5") == base
    with pytest.raises(Exception, match="sample.engine"):
        load_config(None, ["sample.engine=sglang"])


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
@pytest.mark.parametrize("key,cmd", [("sample.engine", "epoch"), ("eval.engine", "eval")])
def test_vllm_engine_without_vllm_fails_before_any_work(tiny_config, tmp_path, capsys, key, cmd):
    from pipeline.cli.main import main
    rc = main([cmd, "1", *tiny_config, f"{key}=vllm"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{key}=vllm needs vLLM" in err and "pip install -e '.[vllm]'" in err, err
    assert not (tmp_path / "runs").exists()  # nothing was started, not even the run directory


def test_update_only_rerun_does_not_need_the_sampling_engine(tiny_config, capsys):
    """`rlaif update` samples nothing: sample.engine=vllm does not stop it (it fails later here only
    because epoch 1 has not run)."""
    from pipeline.cli.main import main
    rc = main(["update", "1", *tiny_config, "sample.engine=vllm"])
    assert "needs vLLM" not in capsys.readouterr().err and rc != 0


def test_sampler_gap_and_its_flag():
    rows = [{"sampler_logprobs": [-1.0, -2.0]}, {"sft": True}, {"sampler_logprobs": [-0.5]}, {"completion_ids": [1]}]
    old = {0: torch.tensor([-1.1, -2.0]), 2: torch.tensor([-0.2]), 3: torch.tensor([-3.0])}
    gap = sampler_gap(rows, old)
    assert gap["logprobs/sampler_gap"] == pytest.approx((0.1 + 0.0 + 0.3) / 3)
    assert gap["logprobs/sampler_gap_max"] == pytest.approx(0.3)
    assert gap["logprobs/sampler_outside"] == 0
    assert sampler_gap([{"completion_ids": [1]}], {0: torch.tensor([-1.0])}) == {}  # no sampler logprobs: no metric
    cfg = ReportConfig(max_sampler_gap=0.1)
    flags = analyse([{"epoch": 1, **gap}], cfg)
    assert [f.name for f in flags] == ["sampler_mismatch"] and "sample.top_p=1" in flags[0].advice
    for cause in ("generation_config", "sample.dtype", "sample.engine"):
        assert cause in flags[0].advice
    assert analyse([{"epoch": 1, "logprobs/sampler_gap": 1e-6, "logprobs/sampler_outside": 0.0}], cfg) == []
    # a small mean that hides a few tokens far off (ratio 0.25 and 3): the share flags it
    few = sampler_gap([{"sampler_logprobs": [-1.0] * 8 + [-2.4, -0.1]}],
                      {0: torch.tensor([-1.0] * 8 + [-1.0, -1.2])})
    assert few["logprobs/sampler_outside"] == pytest.approx(0.2) and few["logprobs/sampler_gap"] < 0.3
    flags = analyse([{"epoch": 1, **few}], ReportConfig(max_sampler_gap=0.3))
    assert [f.name for f in flags] == ["sampler_mismatch"] and "20.0% of tokens" in flags[0].evidence


def test_select_carries_the_sampler_logprobs(tmp_path):
    from pipeline.stages import select
    from pipeline.stages import Ctx
    from pipeline.store.tables import load_table, save_table
    sample_rows = [{"problem_id": "p", "sample_idx": k, "prompt_ids": [1, 2], "completion_ids": [3, 4],
                    "sampler_logprobs": [-0.1 * k, -0.2]} for k in range(2)]
    reward_rows = [{"problem_id": "p", "sample_idx": k, "reward": float(k), "student_score": float(k),
                    "teacher_score": 1.0} for k in range(2)]
    for name, rows in (("sample", sample_rows), ("reward", reward_rows)):
        (tmp_path / name).mkdir()
        save_table(rows, tmp_path / name)
    cfg = load_config(None, ["update.teacher_sft_coef=0"])
    (tmp_path / "out").mkdir()
    select.run(Ctx(cfg=cfg, epoch=1, out=tmp_path / "out", inputs={"sample": tmp_path / "sample",
                                                                     "reward": tmp_path / "reward"}, run_dir=tmp_path))
    got = load_table(tmp_path / "out")
    assert [r["sampler_logprobs"] for r in got] == [[0.0, -0.2], [-0.1, -0.2]]
