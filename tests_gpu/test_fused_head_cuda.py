"""On CUDA, the fused LM head (pipeline/engines/forward.py FUSED_HEAD, on by default there): a bf16
student's logprobs and gradients as the whole head's, at a lower peak."""
from __future__ import annotations

import torch

from pipeline.config.file import load_config
from pipeline.engines import forward
from tests_gpu.test_cuda import _lora_with_signal, coder_model  # noqa: F401 (a fixture)


def test_the_fused_head_in_bf16_gives_the_same_loss_at_a_lower_peak(coder_model, monkeypatch):
    """forward.FUSED_HEAD (on by default on CUDA): a bf16 student's float32 head applied a chunk of rows
    at a time on TF32 cores gives the whole head's logprobs and LoRA gradients, and the micro-batch's
    peak memory drops by the float32 logits' copies the whole head holds."""
    cfg = load_config(None, [f"student.model={coder_model}", "run.device=cuda", "student.lora.r=4",
                             "student.dtype=bfloat16"])
    model = _lora_with_signal(cfg).train()
    gen = torch.Generator().manual_seed(5)
    rows = [{"prompt_ids": torch.randint(5, 4000, (16,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (128,), generator=gen).tolist(), "index": i} for i in range(8)]
    batch = forward.to_device(forward.collate(rows, 0), "cuda")
    out, peak = [], []
    for fused in (False, True):
        monkeypatch.setattr(forward, "FUSED_HEAD", fused)
        for _ in range(2):   # the second pass measured: allocator and kernel choices settled
            model.zero_grad()
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
            (logp * batch["completion_mask"]).sum().backward()
            torch.cuda.synchronize()
        peak.append(torch.cuda.max_memory_allocated() - base)
        out.append((logp.detach(), ent, {n: p.grad.float().clone() for n, p in model.named_parameters() if p.requires_grad}))
    torch.testing.assert_close(out[1][0], out[0][0], atol=1e-3, rtol=1e-3)   # another tiling of the float32 head
    torch.testing.assert_close(out[1][1], out[0][1], atol=1e-3, rtol=1e-3)
    for n, g in out[0][2].items():   # bf16 activations' gradients: the head's rounding carried through
        assert float((out[1][2][n] - g).norm() / g.norm()) < 2e-2, n
    copy = 8 * 129 * model.config.vocab_size * 4   # one float32 copy of the micro-batch's logits
    assert peak[1] <= peak[0] - 2 * copy, (peak, copy)
