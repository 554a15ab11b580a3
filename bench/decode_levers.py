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
- a shared prompt (the sample stage's 8 completions of each prompt): attention over the prompt's
  keys once per group (its rows' query heads as query rows of one call) and over each row's own
  completion keys, merged by their log-sum-exp, against every row reading its own copy (today);
  per layer, and over 30 layers with each layer's 9 MB gate_up linear between (the caches cold, as
  in a step);
- attention's share of the real step (the embedded student's bf16 step, its attention by SDPA, by
  our kernel (pipeline.engines.cpu_attention) and by none: a copy of the query);
- ragged spans: over the sample stage's and the greedy eval's real decode steps (the default
  config), the keys a step reads today (every live row up to the longest, rounded up to 32)
  against reading them per chunk of C slots (each chunk up to its own longest row) and exactly.

    python bench/decode_levers.py [--threads 2] [--no-trace] [--share]

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


QUICK = False
"""--quick: a tenth of the repetitions (a smoke run; its timings are noisier)."""


def per_call(f, reps: int = 50) -> float:
    """Microseconds per call of f, after a warm-up."""
    reps = max(2, reps // 10) if QUICK else reps
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


def shared_prompt(groups: int = 8, per: int = 8, prompt: int = 107, completion: int = 117, layers: int = 30,
                  H: int = 9, kvh: int = 3, d: int = 64) -> tuple[float, dict[str, float]]:
    """Today's one-token attention over each row's copy of its prompt's keys against the cascade: the
    prompt's keys once per group, each row's completion keys alone, merged by log-sum-exp (the
    flash kernel's second output). Defaults: the sample stage's 8 x 8 rows, its mean prompt (107
    tokens) and a completion half-way (117, span 224)."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
    g, n, span = H // kvh, groups * per, prompt + completion
    full = [(torch.randn(n, kvh, span, d, dtype=BF), torch.randn(n, kvh, span, d, dtype=BF)) for _ in range(layers)]
    pre = [(torch.randn(groups, kvh, prompt, d, dtype=BF), torch.randn(groups, kvh, prompt, d, dtype=BF))
           for _ in range(layers)]
    suf = [(torch.randn(n, kvh, completion, d, dtype=BF), torch.randn(n, kvh, completion, d, dtype=BF))
           for _ in range(layers)]
    w = [torch.ops.mkldnn._reorder_linear_weight(torch.randn(3072, 576, dtype=BF), 64) for _ in range(layers)]
    x, q = torch.randn(n, 576, dtype=BF), torch.randn(n, H, 1, d, dtype=BF)

    def today(i):
        return sdpa(q, full[i][0], full[i][1], scale=0.125, enable_gqa=True)

    def cascade(i):
        qp = q.view(groups, per, kvh, g, d).transpose(1, 2).reshape(groups, kvh, per * g, d)  # rows group-major
        op, lp = flash(qp, pre[i][0], pre[i][1], scale=0.125)[:2]
        os_, ls = flash(q, suf[i][0], suf[i][1], scale=0.125)[:2]
        op = op.view(groups, kvh, per, g, d).transpose(1, 2).reshape(n, H, 1, d)
        lp = lp.view(groups, kvh, per, g).transpose(1, 2).reshape(n, H, 1)
        lse = torch.logaddexp(lp, ls)
        return (op * (lp - lse).exp_()[..., None] + os_ * (ls - lse).exp_()[..., None]).to(BF)

    def sweep(attend):
        for i in range(layers):
            torch.ops.mkldnn._linear_pointwise(x, w[i], None, "none", [], "")
            attend(i)

    def linears():
        for i in range(layers):
            torch.ops.mkldnn._linear_pointwise(x, w[i], None, "none", [], "")

    # the same attention both ways: each row's keys as today would hold them (its group's prompt, then its own)
    same = [(torch.cat((pre[0][j].repeat_interleave(per, 0), suf[0][j]), 2),) for j in (0, 1)]
    full[1] = (same[0][0], same[1][0])
    pre[1], suf[1] = pre[0], suf[0]
    diff = (today(1).float() - cascade(1).float()).abs().max().item()
    lin = per_call(linears, 10)
    return diff, {"today: each row's own copy of the prompt's keys": per_call(lambda: today(0)),
            "cascade: the prompt's keys once per group, log-sum-exp merge": per_call(lambda: cascade(0)),
            f"today, {layers} layers, a linear between (attention only)": per_call(lambda: sweep(today), 10) - lin,
            f"cascade, {layers} layers, a linear between (attention only)": per_call(lambda: sweep(cascade), 10) - lin}


def attention_share() -> list[str]:
    """The embedded student's bf16 step (pipeline.engines.decode_step) with its one-token attention by SDPA,
    by our kernel (pipeline.engines.cpu_attention), and replaced by a copy of the query: attention's share of
    a real step, caches cold between layers."""
    from pipeline.config.file import load_config
    from pipeline.engines.decode import SlotCache, model_shape
    from pipeline.engines.decode_step import make_step
    from pipeline.engines.model import student_model
    from pipeline.engines.sampling_weights import sampling_model
    F = torch.nn.functional
    root = Path(__file__).resolve().parent.parent
    cfg = load_config(root / "config.yaml", [])
    model = student_model(cfg)
    out = ["| rows | keys read (span) | step with SDPA, ms | with the kernel, ms | without attention, ms | "
           "SDPA's share | the kernel's share |", "|---|---|---|---|---|---|---|"]
    sdpa = F.scaled_dot_product_attention
    with sampling_model(model, cfg) as m:
        layers, kvh, d = model_shape(m)
        dtype = next(m.parameters()).dtype
        steps = {"sdpa": make_step(m, 512, 64, attention="sdpa"), "kernel": make_step(m, 512, 64)}
        assert steps["kernel"].attention == "kernel", "the kernel did not build: see the warning above"
        for rows, span in ((1, 256), (8, 256), (29, 224), (64, 224)):
            cache = SlotCache(layers, 64, kvh, d, dtype, "cpu")
            cache.fit(span, 0)
            cache.reach(span)
            ids, pos = torch.randint(0, 1000, (rows,)), torch.full((rows,), span - 1)
            best = {}
            for _ in range(3):
                for name, step, fn in (("sdpa", steps["sdpa"], sdpa), ("kernel", steps["kernel"], sdpa),
                                       ("none", steps["sdpa"], lambda q, k, v, **kw: q.clone())):
                    F.scaled_dot_product_attention = fn
                    try:
                        t = per_call(lambda: step(ids, pos, cache), 8) / 1000
                    finally:
                        F.scaled_dot_product_attention = sdpa
                    best[name] = min(best.get(name, t), t)
            out.append(f"| {rows} | {span} | {best['sdpa']:.1f} | {best['kernel']:.1f} | {best['none']:.1f} | "
                       f"{1 - best['none'] / best['sdpa']:.0%} | {1 - best['none'] / best['kernel']:.0%} |")
    return out


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
    import pipeline.engines.decode_step as step_mod
    from data.loaders import load_source
    from pipeline.config.file import load_config
    from pipeline.engines.hf import chat_prompt, generate, greedy, template_prefix
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.stages.problems import choose_prompts
    from pipeline.engines.sampling_weights import sampling_model
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
    ap.add_argument("--no-trace", action="store_true", help="skip what needs the embedded student: attention's share of "
                                                             "its step and the ragged-span count (it runs two stages)")
    ap.add_argument("--share", action="store_true", help="only attention's share of the real step")
    ap.add_argument("--quick", action="store_true", help="a tenth of the repetitions: a smoke run whose timings are "
                                                          "noisier (for a check that it runs, not for figures)")
    a = ap.parse_args()
    global QUICK
    QUICK = a.quick
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {a.threads} thread(s)\n")
    if a.share:
        print("\n".join(attention_share()))
        return 0
    print("| lever | shape | us per call | / today |\n|---|---|---|---|")
    for rows, span in ((8, 64), (8, 256), (64, 64), (64, 256)):
        r = attention(rows, span)
        base = next(iter(r.values()))
        for k, v in r.items():
            print(f"| {k} | {rows} rows, span {span} | {v:.0f} | {v / base:.2f} |")
    try:    # oneDNN's packed bf16 linear needs AVX512-BW/VL/DQ or AVX-NE-CONVERT (an AVX2 CPU has neither)
        torch.ops.mkldnn._reorder_linear_weight(torch.zeros(64, 64, dtype=BF), 1)
    except RuntimeError as e:
        print(f"\nthe epilogue and shared-prompt levers skipped: this CPU's oneDNN has no packed bf16 linear "
              f"({str(e).splitlines()[0][:120]})")
        return 0
    for rows in (1, 8, 64):
        r = epilogues(rows)
        items = list(r.items())
        for i in range(0, len(items), 2):
            (k0, v0), (k1, v1) = items[i], items[i + 1]
            print(f"| {k0} | {rows} rows | {v0:.0f} | 1.00 |")
            print(f"| {k1} | {rows} rows | {v1:.0f} | {v1 / v0:.2f} |")
    diff, r = shared_prompt()
    base = next(iter(r.values()))
    for i, (k, v) in enumerate(r.items()):
        ref = base if i < 2 else r[list(r)[2]]
        print(f"| {k} | 64 rows (8 x 8), prompt 107 + completion 117 | {v:.0f} | {v / ref:.2f} |")
    print(f"\ncascade against today on the same keys: largest difference {diff:.2g} (bf16 outputs)")
    if not a.no_trace:
        print()
        print("\n".join(attention_share()))
        print()
        print("\n".join(ragged_spans()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
