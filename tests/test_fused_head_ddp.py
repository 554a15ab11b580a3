"""The LM head under DDP (the update's model on several processes: accelerate's prepare wraps it in
DistributedDataParallel, which passes no attribute through to the model it holds): a bf16 student's
head still computes in float32 (`head.fp32_head`), the fused head (`head.fused_head`) still applies, and
the token budget (`forward.token_budget`) still finds the model's config. Here one process over gloo."""
from __future__ import annotations

import types

import pytest
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from pipeline.config.file import load_config
from pipeline.engines import forward, head
from pipeline.engines.model import load_student


@pytest.fixture
def one_process(tmp_path):
    """A gloo process group of one (what DDP needs to be made), torn down after."""
    if dist.is_initialized():   # another test's group: use it as it is
        yield
        return
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()


def _rows(n: int = 3) -> list[dict]:
    gen = torch.Generator().manual_seed(2)
    return [{"prompt_ids": torch.randint(5, 4000, (7,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (3 + 2 * i,), generator=gen).tolist(), "index": i}
            for i in range(n)]


def _pass(model, batch):
    for p in model.parameters():
        p.grad = None
    logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
    (logp * batch["completion_mask"]).sum().backward()
    return logp.detach(), ent, {n.removeprefix("module."): p.grad.clone()   # DDP's names: module.<the model's>
                                for n, p in model.named_parameters() if p.grad is not None}


def test_a_ddp_wrapped_bf16_student_keeps_its_float32_head_fused_or_not(tiny_model, monkeypatch, one_process):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "student.dtype=bfloat16"])
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True).train()
    ddp = DistributedDataParallel(model)
    batch = forward.collate(_rows(), 0)
    assert head.fused_head(ddp) is not None   # the frozen head under the wrapper: fusable as without it
    for fused in (False, True):
        monkeypatch.setattr(forward, "FUSED_HEAD", fused)
        plain = _pass(model, batch)
        wrapped = _pass(ddp, batch)
        assert torch.equal(wrapped[0], plain[0]), (fused, (wrapped[0] - plain[0]).abs().max())
        assert torch.equal(wrapped[1], plain[1]), fused
        assert wrapped[2].keys() == plain[2].keys() and wrapped[2]
        for n, g in plain[2].items():   # DDP's all-reduce over one process: the same gradients
            torch.testing.assert_close(wrapped[2][n], g, rtol=0, atol=0)
    with torch.no_grad(), head.fp32_head(ddp):   # the head's forward patched on the wrapped model, then restored
        assert "forward" in vars(model.get_output_embeddings())
    assert "forward" not in vars(model.get_output_embeddings())


def test_the_token_budget_of_a_ddp_wrapped_model_on_cuda(tiny_model, monkeypatch, one_process):
    """update_loop sizes its passes after accelerate's prepare: on several GPUs the model is DDP's, whose
    config is the wrapped model's (its parameters stand in for CUDA ones here: no GPU needed)."""
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    model = load_student(cfg.student, trainable=True)
    ddp = DistributedDataParallel(model)
    on_cuda = types.SimpleNamespace(device=torch.device("cuda", 0), element_size=lambda: 2)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (40 << 30, 80 << 30))
    for m in (model, ddp):
        monkeypatch.setattr(m, "parameters", lambda: iter([on_cuda]))
    want = forward.token_budget(model, "auto", training=True)
    assert want > 256 and forward.token_budget(ddp, "auto", training=True) == want
