"""The update's micro-batch peak memory with the LM head whole and fused (pipeline/engines/forward.py
FUSED_HEAD: the float32 head applied a chunk of rows at a time), side by side in one process.

A random-weight student of a real shape's widths (bench/gpu.py's SHAPES, the embedded tokenizer's 49k
vocabulary) with --layers decoder layers, float32, its LoRA fresh; one micro-batch of --rows completions
(--prompt + --new tokens each) through `token_logprobs` with entropy and a backward pass, the way the
update runs it. Peak: the bytes held beyond the start (bench/update_profile.peak_bytes: on the CPU from
torch.profiler's memory events), in copies of the micro-batch's float32 logits (rows x new x vocabulary x 4
bytes); --chunk-rows sets the fused head's rows a chunk (the GPU shapes': 1 at 3B x 512 new tokens, 2 at
1.5B x 256). What a GPU's allocator would show differs by its kernels' workspaces; the logits' copies do not.

    python bench/head_memory.py [--shape 1.5b] [--layers 1] [--rows 8] [--prompt 100] [--new 128]
                                [--chunk-rows 1] [--no-record]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402
from bench.gpu import SHAPES, build_student  # noqa: E402
from bench.update_profile import peak_bytes  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="1.5b", choices=list(SHAPES))
    ap.add_argument("--layers", type=int, default=1, help="decoder layers (the shape's widths kept)")
    ap.add_argument("--rows", type=int, default=8, help="completions a micro-batch")
    ap.add_argument("--prompt", type=int, default=100, help="prompt tokens")
    ap.add_argument("--new", type=int, default=128, help="completion tokens")
    ap.add_argument("--chunk-rows", type=int, default=1, help="rows a chunk of the fused head")
    ap.add_argument("--models", default=str(ROOT / "runs" / ".bench-update"), help="where the random students go")
    ap.add_argument("--no-record", action="store_true", help="print the table, do not append it to RESULTS.md")
    a = ap.parse_args()
    import torch

    from pipeline.config.file import load_config
    from pipeline.engines import forward
    from pipeline.engines.model import load_student
    model_dir = build_student(a.shape, None, Path(a.models), "cpu", layers=a.layers, bf16=False)
    cfg = load_config(None, [f"student.model={model_dir}", "student.dtype=float32"])
    model = load_student(cfg.student, trainable=True).train()
    vocab = model.config.vocab_size
    g = torch.Generator().manual_seed(0)
    rows = [{"prompt_ids": torch.randint(100, vocab, (a.prompt,), generator=g).tolist(),
             "completion_ids": torch.randint(100, vocab, (a.new,), generator=g).tolist(), "index": i}
            for i in range(a.rows)]
    batch = forward.collate(rows, 0)

    def step() -> None:
        model.zero_grad()
        lp, _ = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
        (lp * batch["completion_mask"]).sum().backward()

    forward.FUSED_CHUNK_ELEMS = a.chunk_rows * a.new * vocab
    copy = a.rows * a.new * vocab * 4
    res = {}
    for fused in (False, True, False, True):   # alternating; the second of each is kept
        forward.FUSED_HEAD = fused
        t = time.perf_counter()
        step()
        res[fused] = (peak_bytes(step, cuda=False), time.perf_counter() - t)
    lines = ["| head | peak MiB | copies of the float32 logits | a step's seconds (CPU) |", "|---|---|---|---|"]
    for fused, name in ((False, "whole (fp32_head)"), (True, f"fused, {a.chunk_rows} row(s) a chunk")):
        peak, secs = res[fused]
        lines.append(f"| {name} | {peak / 2**20:.0f} | {peak / copy:.2f} | {secs:.1f} |")
    saved = res[False][0] - res[True][0]
    note = (f"fused / whole peak **{res[True][0] / res[False][0]:.2f}x**: {saved / 2**20:.0f} MiB saved, "
            f"{saved / copy:.2f} copies of the micro-batch's float32 logits ({copy / 2**20:.0f} MiB a copy); at a "
            f"GPU shape the copies scale with rows x new tokens, the rest with the layers")
    setup = (f"One micro-batch of {a.rows} completions ({a.prompt} prompt + {a.new} new tokens), random-weight Qwen2 "
             f"{a.shape} widths with {a.layers} decoder layer(s), float32, a fresh LoRA, token_logprobs with entropy "
             "and its backward pass; peak from torch.profiler's memory events (CPU).")
    title = f"head memory: the update's micro-batch with the LM head whole and fused (bench/head_memory.py --shape {a.shape})"
    if a.no_record:
        print("\n".join([title, *lines, note, setup]))
    else:
        record(title, lines, note, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
