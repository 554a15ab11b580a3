"""The sampler, side by side in one run: transformers' generate as the hf engine ran it before the
decode loop (static batches of 32, float32: sample.engine=generate) against the decode loop
(pipeline/engines/decode.py) in float32 and in sample.dtype=auto (bf16 on a CPU with avx512_bf16), its
one-token attention and fused elementwise calls our C++ kernels (pipeline/engines/cpu_attention.py) and, as a
second arm, torch's SDPA and torch's operations (sample.decode_step=ours-sdpa), on the
embedded SmolLM2-135M at the default settings, the same prompts and per-completion streams:

  sample            the default epoch's sample stage: 8 training prompts x 8, T=0.7, 160 new tokens
  sample+code       the same with sample.stop_after_code
  eval greedy       the eval stage's default: the 29 held-out problems, greedy, 256 new tokens
  eval sampled      the learning bench's eval: the 29 held-out problems x 8, T=0.6, 256 new tokens

It prints generated tokens/s, row-steps computed (a row-step: one sequence through one decode step,
finished or not), the rows whose tokens equal the reference's, the gap between the sampler's
logprob of each token and the float32 policy's (as logprobs/sampler_gap), and the floor: this
machine's matmul rate at the model's shapes (float32 and bf16, measured here) over the model's
FLOPs per generated token, and the roofline: the loop's own steps at this machine's memory
bandwidth and matmul rate (each step the longer of reading its weights and keys and computing its
FLOPs), the share of the arm's time that the hardware's limits explain.

    python bench/sampler.py [--quick] [--no-record] [--only "eval greedy"]
    (--quick: 8 eval problems instead of 29; --only: these scenarios, comma-separated)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import busy  # noqa: E402


SCENARIOS = ("sample", "sample+code", "eval greedy", "eval sampled")


def matmul_rate(c, dtype, rows: int = 64) -> float:
    """GFLOP/s of the model's linear shapes (q, k, v, o, gate, up, down, lm_head) at `rows` rows."""
    kv = c.num_key_value_heads * (c.hidden_size // c.num_attention_heads)
    shapes = [(c.hidden_size, c.hidden_size), (c.hidden_size, kv), (c.hidden_size, kv), (c.hidden_size, c.hidden_size),
              (c.hidden_size, c.intermediate_size), (c.hidden_size, c.intermediate_size),
              (c.intermediate_size, c.hidden_size), (c.hidden_size, c.vocab_size)]
    ws = [torch.randn(o, i, dtype=dtype) for i, o in shapes]
    xs = [torch.randn(rows, i, dtype=dtype) for i, _ in shapes]
    flops = sum(2 * rows * i * o for i, o in shapes)
    for _ in range(3):
        for x, w in zip(xs, ws):
            torch.nn.functional.linear(x, w)
    t = time.perf_counter()
    for _ in range(20):
        for x, w in zip(xs, ws):
            torch.nn.functional.linear(x, w)
    return flops * 20 / (time.perf_counter() - t) / 1e9


def flops_per_token(c, context: float) -> float:
    """2 x the weights a token meets (decoder linears and the LM head) + attention over `context`."""
    kv = c.num_key_value_heads * (c.hidden_size // c.num_attention_heads)
    per_layer = 2 * c.hidden_size * c.hidden_size + 2 * c.hidden_size * kv + 3 * c.hidden_size * c.intermediate_size
    return 2 * (c.num_hidden_layers * per_layer + c.hidden_size * c.vocab_size) + 4 * c.num_hidden_layers * c.hidden_size * context


def bandwidth() -> float:
    """GB/s at which this machine reads memory: a float32 sum over 512 MiB (far past every cache)."""
    x = torch.ones(128 * 2 ** 20)
    x.sum()
    t = time.perf_counter()
    for _ in range(5):
        x.sum()
    return 5 * x.numel() * 4 / (time.perf_counter() - t) / 1e9


def roofline(model, dtype, trace: list, prefill_tokens: int, rate: float, bw: float) -> float:
    """Seconds the loop's own steps would take at this machine's limits: each decode step (rows n,
    keys read per row span) the longer of reading its bytes (every weight once, in `dtype`, the rows'
    keys and values) at `bw` GB/s and computing its FLOPs at `rate` GFLOP/s; each prefilled token its
    FLOPs. `model`: the student as loaded (the bf16 sampling copy keeps its linears packed for oneDNN,
    outside parameters(), so its weights are counted on the student)."""
    c = model.config
    elem = torch.tensor([], dtype=dtype).element_size()
    weights = sum(p.numel() for p in model.parameters()) * elem
    kv_heads = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
    kv_token = c.num_hidden_layers * 2 * kv_heads * (c.hidden_size // c.num_attention_heads) * elem
    steps = sum(max((weights + n * span * kv_token) / (bw * 1e9), n * flops_per_token(c, span) / (rate * 1e9))
                for n, span, _ in trace)
    return steps + prefill_tokens * flops_per_token(c, 0) / (rate * 1e9)


def static_row_steps(rows: list[dict], group: int, per_batch: int) -> int:
    """Row-steps of generate over static batches: each batch steps until its longest row ends."""
    out = 0
    for b in range(0, len(rows), per_batch):
        batch = rows[b: b + per_batch]
        out += len(batch) * max(r["length"] for r in batch)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="8 eval problems instead of 29")
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated scenarios (sample, sample+code, eval greedy, "
                                               "eval sampled); default all")
    a = ap.parse_args()
    only = [x.strip() for x in a.only.split(",") if x.strip()]
    if set(only) - set(SCENARIOS):
        ap.error(f"--only: unknown {', '.join(sorted(set(only) - set(SCENARIOS)))}; choose among {', '.join(SCENARIOS)}")
    from data.loaders import load_source
    from pipeline.config.file import load_config
    from pipeline.engines.hf import (chat_prompt, generate, greedy, reference_generate, reference_greedy,
                                    template_prefix)
    from pipeline.engines.forward import rollout_logprobs
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.stages.problems import choose_prompts
    from pipeline.engines.sampling_weights import sampling_dtype, sampling_model
    from pipeline.stages.eval import sampling_config
    root = Path(__file__).resolve().parent.parent
    cfg = load_config(root / "config.yaml", [])
    tok = load_tokenizer(cfg.student)
    model = student_model(cfg)
    c = model.config
    import tempfile
    ids, by_id, _, _ = choose_prompts(cfg, Path(tempfile.mkdtemp()), 1)  # epoch 1's prompts of the default run
    train = [chat_prompt(tok, cfg, by_id[i].prompt) for i in ids]
    held = load_source("builtin:heldout")[: 8 if a.quick else None]
    heldout = [chat_prompt(tok, cfg, p.prompt) for p in held]
    eval_cfg = sampling_config(load_config(root / "config.yaml", ["eval.num_samples=8", "eval.temperature=0.6"]))
    code_cfg = load_config(root / "config.yaml", ["sample.stop_after_code=true"])
    fast = sampling_dtype(cfg.sample.dtype, model)
    scenarios = [("sample", cfg, train), ("sample+code", code_cfg, train), ("eval greedy", None, heldout),
                 ("eval sampled", eval_cfg, heldout)]
    lines = ["| scenario | engine | tokens | seconds | tokens/s | vs generate | row-steps | rows = generate's | "
             "sampler gap mean / max (nats) | % of the floor | % of the roofline |", "|---" * 11 + "|"]
    slot_note: list[str] = []
    split: list[str] = []                        # where each loop arm's seconds went
    import pipeline.engines.decode as decode_mod
    from pipeline.engines.decode_step import make_step
    from pipeline.engines import cpu_attention
    cpu_attention.module()                       # built (once per torch install) before any arm is timed
    rates = {torch.float32: matmul_rate(c, torch.float32), torch.bfloat16: matmul_rate(c, torch.bfloat16)}
    bw = bandwidth()
    scenarios = [sc for sc in scenarios if not only or sc[0] in only]
    for name, scfg, prompts in scenarios:
        arms = {}
        fast_name = f"loop {str(fast).split('.')[-1]}"
        extra = [f"{fast_name}, transformers' step", f"{fast_name}, 16 slots"] if name == "sample" else []
        extra += [f"{fast_name}, SDPA + torch ops"] if name in ("sample", "eval greedy") else []
        for arm in ("generate float32", "loop float32", fast_name, *extra):
            dtype = torch.float32 if "float32" in arm else fast
            over = cfg if scfg is None else scfg
            update = {"dtype": str(dtype).split(".")[-1], **({"batch_size": 16} if "16 slots" in arm else {})}
            over = over.model_copy(update={"sample": over.sample.model_copy(update=update)})
            stats: dict = {"trace": []}
            t = time.perf_counter()
            # the transformers'-step arm: the same loop stepping through the model's own forward
            # and the SDPA arm: our step with torch's SDPA and torch's operations (sample.decode_step=ours-sdpa)
            decode_mod.make_step = ((lambda *a, **k: None) if "transformers' step" in arm else
                                    (lambda *a, **k: make_step(*a, **{**k, "attention": "sdpa"})) if "SDPA" in arm else make_step)
            with sampling_model(model, over) as m:
                t0 = time.perf_counter()
                if scfg is None:
                    if arm.startswith("generate"):
                        texts = reference_greedy(m, tok, prompts, cfg.eval.max_new_tokens, 32)
                    else:
                        texts = greedy(m, tok, prompts, cfg.eval.max_new_tokens, "auto", stats=stats,
                                       prefix=template_prefix(tok, cfg))
                    rows = [{"completion_ids": tok.encode(x, add_special_tokens=False), "text": x} for x, _ in texts]
                    for r in rows:
                        r["length"] = len(r["completion_ids"])
                elif arm.startswith("generate"):
                    rows = reference_generate(m, tok, prompts, over, seed=1)
                else:
                    rows = generate(m, tok, prompts, over, seed=1, stats=stats)
                secs = time.perf_counter() - t0
                roof = (f"{100 * roofline(model, dtype, stats['trace'], stats['prefill_tokens'], rates[dtype], bw) / secs:.0f}%"
                        if stats["trace"] else "-")
            n_tok = sum(r["length"] for r in rows)
            k = 1 if scfg is None else over.sample.num_samples
            steps = stats.get("row_steps") or static_row_steps(rows, k, max(1, 32 // k) * k)
            gap = "-"
            if rows and "sampler_logprobs" in rows[0]:
                rr = [{"prompt_ids": prompts[i // k], **r} for i, r in enumerate(rows)]
                old, _ = rollout_logprobs(model, rr, over.sample.temperature, tok.pad_token_id, policy_is_reference=True)
                d = torch.cat([(torch.tensor(r["sampler_logprobs"]) - old[i]).abs() for i, r in enumerate(rr)])
                gap = f"{float(d.mean()):.4f} / {float(d.max()):.3f}"
            context = sum(len(prompts[i // k]) + r["length"] / 2 for i, r in enumerate(rows)) / max(len(rows), 1)
            floor = rates[dtype] * 1e9 / flops_per_token(c, context)
            arms[arm] = (n_tok / secs, rows)
            if arm == fast_name:
                base_slots = stats.get("slots", "auto")
            if "16 slots" in arm:  # the same streams at another slot count: what float rounding alone changes
                base = arms[fast_name][1]
                parted = [next((i for i, (x, y) in enumerate(zip(a["completion_ids"], b["completion_ids"])) if x != y),
                               None) for a, b in zip(rows, base)]
                same_rows = sum(a["completion_ids"] == b["completion_ids"] for a, b in zip(rows, base))
                slot_note.append(f"{name}: at 16 slots instead of {base_slots}, {same_rows}/{len(rows)} "
                                 f"completions token for token the same ({sum(p is not None for p in parted)} part at "
                                 f"a token, the first at token {min((p for p in parted if p is not None), default='-')})")
            same = sum(x.get("completion_ids") == y.get("completion_ids") for x, y in zip(rows, arms["generate float32"][1]))
            lines.append(f"| {name} | {arm} | {n_tok} | {secs:.1f} (+{t0 - t:.1f} weights) | {n_tok / secs:.0f} | "
                         f"{n_tok / secs / arms['generate float32'][0]:.2f}x | {steps} | {same}/{len(rows)} | {gap} | "
                         f"{100 * n_tok / secs / floor:.0f}% of {floor:.0f} | {roof} |")
            print(lines[-1], flush=True)
            if stats.get("steps"):
                split.append(f"{name}, {arm}: step {stats['forward_s']:.1f} s, pick {stats['choose_s']:.1f} s, the "
                             f"rest (prefill, admission, stops) {secs - stats['forward_s'] - stats['choose_s']:.1f} s "
                             f"over {stats['steps']} steps")
    floors = ", ".join(f"{str(d).split('.')[-1]} {r:.0f} GFLOP/s" for d, r in rates.items())
    rounding = f"Batch size and rounding: {'; '.join(slot_note)}. " if slot_note else ""
    note = (f"SmolLM2-135M ({flops_per_token(c, 0) / 1e9:.2f} GFLOP per token before attention), "
            f"{torch.get_num_threads()} threads; matmul rate at the model's shapes and 64 rows: {floors}. "
            "The floor is that rate over the FLOPs per generated token at the arm's mean context. "
            f"The roofline is the loop's own steps at this machine's limits, step by step the longer of reading "
            f"the step's bytes (every weight once, the live rows' keys and values) at {bw:.1f} GB/s (measured: "
            "a sum over 512 MiB) and computing its FLOPs at the matmul rate, plus the prefilled tokens' FLOPs: "
            "the share of the arm's time that these limits explain. "
            "'rows = generate's': completions token for token identical to transformers' generate under the same "
            "streams (float32 differences are rounding ties; bf16 samples a nearby policy). The sampler gap is "
            "against the float32 policy the logprobs stage and the update use. Seconds exclude loading the model; "
            f"'+ weights' is the bf16 copy's refresh. {rounding}Where the seconds went: {'; '.join(split)}. {busy()}.")
    if a.no_record:
        print("\n".join(lines) + "\n\n" + note)
        return
    record("Sampler: the decode loop against transformers' generate (bench/sampler.py)", lines, note)


if __name__ == "__main__":
    main()
