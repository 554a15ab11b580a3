"""What is left to take from the bf16 decode step on this CPU: each candidate lever against what the
step does today, side by side in one run, on the embedded student's shapes (SmolLM2-135M: 9 query
heads, 3 key/value heads of 64, hidden 576, MLP 1536).

- attention: the one-token SDPA over the cache's strided views (today) against the query heads
  grouped as query rows of their key/value head, the cache read contiguous, and matmul + softmax in
  bf16 or float32 (a float32 copy of the keys included);
- fused epilogues: the residual add inside the o/down linears (oneDNN's binary post-op), and the
  gated MLP as gate-with-SiLU then up-times-it (two post-ops) against one gate_up linear, SiLU and
  a multiply (today);
- RMSNorm: torch's rms_norm (today) against a vector_norm-based one;
- ragged spans: over the sample stage's and the greedy eval's real decode steps (the default
  config), the keys a step reads today (every live row up to the longest, rounded up to 32)
  against reading them per chunk of C slots (each chunk up to its own longest row) and exactly.

    python bench/decode_levers.py [--threads 2] [--no-trace]

Prints microseconds per call and the ratio to today's; appends nothing (its findings go to
bench/RESULTS.md by hand, with the sampler bench's step figures).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BF = torch.bfloat16


def per_call(f, reps: int = 50) -> float:
    """Microseconds per call of f, after a warm-up."""
    for _ in range(3):
        f()
    t = time.perf_counter()
    for _ in range(reps):
        f()
    return (time.perf_counter() - t) / reps * 1e6


def attention(rows: int, span: int, H: int = 9, kvh: int = 3, d: int = 64, room: int = 512) -> dict[str, float]:
    sdpa = torch.nn.functional.scaled_dot_product_attention
    g = H // kvh
    kc, vc = torch.randn(rows, kvh, room, d, dtype=BF), torch.randn(rows, kvh, room, d, dtype=BF)
    q = torch.randn(rows, H, d, dtype=BF)
    pos = torch.randint(span // 2, span, (rows,))
    mask = torch.where(torch.arange(span)[None, :] <= pos[:, None], 0.0, float("-inf")).to(BF).view(rows, 1, 1, span)
    k, v = kc[:, :, :span], vc[:, :, :span]
    kk, vv = k.contiguous(), v.contiguous()
    kf, vf = k.float().contiguous(), v.float().contiguous()

    def matmul(qq, kx, vx, dtype):
        s = torch.matmul(qq.view(rows, kvh, g, d).to(dtype), kx.transpose(-1, -2)).float() * 0.125 + mask.float()
        return torch.matmul(torch.softmax(s, -1).to(dtype), vx)

    return {
        "today: SDPA, query heads by GQA, strided cache": per_call(
            lambda: sdpa(q[:, :, None], k, v, attn_mask=mask, scale=0.125, enable_gqa=True)),
        "SDPA, query heads as query rows of their KV head": per_call(
            lambda: sdpa(q.view(rows, kvh, g, d), k, v, attn_mask=mask, scale=0.125)),
        "SDPA, cache contiguous (as if kept at span)": per_call(
            lambda: sdpa(q[:, :, None], kk, vv, attn_mask=mask, scale=0.125, enable_gqa=True)),
        "matmul + softmax in bf16": per_call(lambda: matmul(q, k, v, BF)),
        "matmul + softmax in float32 (a float32 cache)": per_call(lambda: matmul(q, kf, vf, torch.float32)),
    }


def epilogues(rows: int) -> dict[str, float]:
    lp = torch.ops.mkldnn._linear_pointwise
    pack = torch.ops.mkldnn._reorder_linear_weight
    x, res = torch.randn(rows, 576, dtype=BF), torch.randn(rows, 576, dtype=BF)
    wo = pack(torch.randn(576, 576, dtype=BF) * 0.05, 64)
    wg, wu = torch.randn(1536, 576, dtype=BF) * 0.05, torch.randn(1536, 576, dtype=BF) * 0.05
    wgu, pg, pu = pack(torch.cat([wg, wu]), 64), pack(wg, 64), pack(wu, 64)
    silu = torch.nn.functional.silu

    def gated():
        h = lp(x, wgu, None, "none", [], "")
        return silu(h[:, :1536]) * h[:, 1536:]

    w = torch.randn(576, dtype=BF)

    def rms_alt():
        inv = torch.rsqrt(torch.linalg.vector_norm(x, 2, -1, keepdim=True, dtype=torch.float32).square_().div_(576)
                          .add_(1e-5))
        return (x * inv).to(BF) * w

    return {
        "today: o_proj, then + residual": per_call(lambda: res + lp(x, wo, None, "none", [], "")),
        "o_proj with the residual add as a post-op": per_call(lambda: lp.binary(x, res, wo, None, "add")),
        "today: gate_up, SiLU, multiply": per_call(gated),
        "gate with SiLU post-op, up with multiply post-op": per_call(
            lambda: lp.binary(x, lp(x, pg, None, "swish", [], ""), pu, None, "mul")),
        "today: rms_norm": per_call(lambda: torch.nn.functional.rms_norm(x, (576,), w, 1e-5)),
        "RMSNorm through vector_norm": per_call(rms_alt),
    }


def ragged_spans() -> list[str]:
    """Keys read by the real decode steps of the sample stage and the greedy eval (default config)."""
    import pipeline.decode_step as step_mod
    from data.loaders import load_source
    from pipeline.config_file import load_config
    from pipeline.engine_hf import chat_prompt, generate, greedy, template_prefix
    from pipeline.model import load_tokenizer, student_model
    from pipeline.problems import choose_prompts
    from pipeline.sampling_weights import sampling_model
    seen: list[list[int]] = []
    orig = step_mod.LlamaStep.__call__

    def record(self, ids, pos, cache):
        seen.append(pos.tolist())
        return orig(self, ids, pos, cache)

    step_mod.LlamaStep.__call__ = record
    root = Path(__file__).resolve().parent.parent
    cfg = load_config(root / "config.yaml", [])
    tok, model = load_tokenizer(cfg.student), student_model(cfg)
    ids, by_id, _, _ = choose_prompts(cfg, Path(tempfile.mkdtemp()), 1)
    train = [chat_prompt(tok, cfg, by_id[i].prompt) for i in ids]
    held = [chat_prompt(tok, cfg, p.prompt) for p in load_source("builtin:heldout")]
    up = lambda x: -(-x // 32) * 32  # noqa: E731
    out = ["| stage | steps | mean rows | keys read exactly / today | per chunk of 4 / 8 / 16 slots / today |",
           "|---|---|---|---|---|"]
    try:
        with sampling_model(model, cfg) as m:
            for name, run in (("sample", lambda: generate(m, tok, train, cfg, seed=1)),
                              ("eval greedy", lambda: greedy(m, tok, held, cfg.eval.max_new_tokens, "auto",
                                                             prefix=template_prefix(tok, cfg)))):
                seen.clear()
                run()
                today = sum(len(p) * up(max(p) + 1) for p in seen)
                exact = sum(x + 1 for p in seen for x in p)
                chunks = [sum(len(p[i:i + c]) * up(max(p[i:i + c]) + 1) for p in seen for i in range(0, len(p), c))
                          for c in (4, 8, 16)]
                out.append(f"| {name} | {len(seen)} | {sum(map(len, seen)) / len(seen):.1f} | {exact / today:.3f} | "
                           + " / ".join(f"{c / today:.3f}" for c in chunks) + " |")
    finally:
        step_mod.LlamaStep.__call__ = orig
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--no-trace", action="store_true", help="skip the ragged-span count (it runs two stages)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {a.threads} thread(s)\n")
    print("| lever | shape | us per call | / today |\n|---|---|---|---|")
    for rows, span in ((8, 64), (8, 256), (64, 64), (64, 256)):
        r = attention(rows, span)
        base = next(iter(r.values()))
        for k, v in r.items():
            print(f"| {k} | {rows} rows, span {span} | {v:.0f} | {v / base:.2f} |")
    for rows in (1, 8, 64):
        r = epilogues(rows)
        items = list(r.items())
        for i in range(0, len(items), 2):
            (k0, v0), (k1, v1) = items[i], items[i + 1]
            print(f"| {k0} | {rows} rows | {v0:.0f} | 1.00 |")
            print(f"| {k1} | {rows} rows | {v1:.0f} | {v1 / v0:.2f} |")
    if not a.no_trace:
        print()
        print("\n".join(ragged_spans()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
