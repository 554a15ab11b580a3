"""The per-completion sampler (pipeline.engine_hf.SeededSampler) against transformers' own sampling
(`do_sample=True`, one torch generator for the batch), side by side in one run: the embedded
SmolLM2-135M, 4 prompts x 8 samples, every row forced to run `--steps` new tokens
(min_new_tokens), so both do the same work whatever they draw. Alternating order, best of 3.

    python bench/sampler.py [--steps 96] [--no-record]
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=96)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    from transformers import LogitsProcessorList

    from pipeline.config_file import load_config
    from pipeline.model import load_tokenizer, student_model
    from pipeline.engine_hf import SeededSampler, chat_prompt, left_pad
    cfg = load_config(None, [])
    tok = load_tokenizer(cfg.student)
    model = student_model(cfg)
    texts = ["Write a function add(a, b).", "Reverse a string s.", "Return the max of a list xs, or None.",
             "Sum the numbers 1..n."]
    seqs = [chat_prompt(tok, cfg, t) for t in texts for _ in range(8)]
    ids, attn = left_pad(seqs, tok.pad_token_id)
    common = dict(input_ids=ids, attention_mask=attn, max_new_tokens=a.steps, min_new_tokens=a.steps,
                  pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)

    def batch_seeded():
        torch.manual_seed(0)
        return model.generate(do_sample=True, temperature=0.7, top_p=1.0, top_k=None, **common)

    def per_completion():
        s = SeededSampler(list(range(len(seqs))), ids.shape[1], a.steps, 0.7, 1.0, 0, "cpu")
        return model.generate(do_sample=False, logits_processor=LogitsProcessorList([s]), **common)

    runs = {"transformers do_sample": batch_seeded, "SeededSampler": per_completion}
    times: dict[str, list[float]] = {k: [] for k in runs}
    with torch.no_grad():
        for r in range(a.repeats):
            for name in (list(runs) if r % 2 == 0 else list(runs)[::-1]):
                t = time.perf_counter()
                runs[name]()
                times[name].append(time.perf_counter() - t)
    base = min(times["transformers do_sample"])
    lines = ["| sampler | seconds (each run) | best | tokens/s | vs transformers |", "|---|---|---|---|---|"]
    for name, ts in times.items():
        lines.append(f"| {name} | {', '.join(f'{x:.2f}' for x in ts)} | {min(ts):.2f} | "
                     f"{len(seqs) * a.steps / min(ts):.0f} | {min(ts) / base:.2f}x |")
    if a.no_record:
        print("\n".join(lines))
        return
    record("Sampler: per-completion streams vs transformers' do_sample (bench/sampler.py)", lines,
           f"SmolLM2-135M, {len(seqs)} sequences x {a.steps} forced new tokens, temperature 0.7, "
           f"{torch.get_num_threads()} threads; {busy()}.")


if __name__ == "__main__":
    main()
