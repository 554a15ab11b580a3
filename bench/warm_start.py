"""The supervised warm-start's update on this CPU: its rows as one padded batch per micro-batch (what
the update runs for rows of distinct prompts) against the per-prompt loop of update.share_prompt
(what the CPU ran them through before), side by side.

The default config's warm-start rows (its training problems' reference answers in the chat
template), the embedded student with a fresh LoRA, `pipeline.stages.update.train` as epoch 0 runs
it (sft_lr, cross-entropy only) over the first --rows rows, one pass. Arms, alternating, --rounds
rounds each (the fastest counts):

  padded        one left-padded batch a micro-batch (what update.share_prompt runs when no prompt
                of the micro-batch has two rows; share_prompt=false runs it always)
  per prompt    the shared-prompt loop with groups of one row: the prompt, then the completion
                padded to the micro-batch's longest (two calls a row)

Prints seconds, the tokens each arm computes against the rows' real tokens, the loss of the pass
(the same within float rounding: the arms compute the same thing), and the physical floor: the
pass's matmul FLOPs (forward and the backward to the inputs over every computed position, the LM
head over the completions; the base weights are frozen, the LoRA's are negligible) at this
machine's float32 matmul rate on the model's shapes (bench/sampler.py's, at 512 rows), measured in
the same run.

    python bench/warm_start.py [--rows 32] [--rounds 2]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def warm_start_rows(cfg, tok) -> list[dict]:
    from pipeline.engines.hf import chat_prompt
    from pipeline.stages.problems import warm_start_problems
    return [{"prompt_ids": chat_prompt(tok, cfg, p.prompt),
             "completion_ids": tok.encode(p.reference, add_special_tokens=False) + [tok.eos_token_id],
             "advantage": 0.0, "sft": True} for p in warm_start_problems(cfg) if p.reference]


def computed_tokens(rows: list[dict], mb: int, arm: str) -> int:
    """Positions the arm's forward computes over the pass's micro-batches (in the rows' order)."""
    out = 0
    for b in range(0, len(rows), mb):
        part = rows[b:b + mb]
        if arm == "per prompt":
            out += sum(len(r["prompt_ids"]) for r in part) + len(part) * max(len(r["completion_ids"]) for r in part)
        else:
            out += len(part) * max(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in part)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=32, help="warm-start rows trained (one pass)")
    ap.add_argument("--rounds", type=int, default=2, help="runs per arm, alternating (the fastest counts)")
    ap.add_argument("overrides", nargs="*", metavar="key.sub=value", help="config overrides over config.yaml "
                    "(student.model=PATH measures another student)")
    a = ap.parse_args()
    import pipeline.engines.forward as fw
    from pipeline.config.file import load_config
    from pipeline.engines.forward import prompt_ordered
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.stages.update_loop import train
    root = Path(__file__).resolve().parent.parent
    cfg = load_config(root / "config.yaml", a.overrides)
    tok = load_tokenizer(cfg.student)
    rows = warm_start_rows(cfg, tok)[: a.rows]
    uc = cfg.update.model_copy(update={"lr": cfg.update.sft_lr, "epochs": 1, "warmup_steps": None})
    order = prompt_ordered([{**r, "index": i} for i, r in enumerate(rows)], cfg.run.seed * 1000)  # the pass's order
    real = sum(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in rows)
    shares = fw._shares_a_prompt
    arms = {"padded": shares, "per prompt": lambda batch: "groups" in batch}
    best: dict[str, tuple[float, float]] = {}
    for _ in range(a.rounds):
        for name, rule in arms.items():
            torch.manual_seed(cfg.run.seed)
            model = student_model(cfg, trainable=True)
            fw._shares_a_prompt = rule
            try:
                t = time.perf_counter()
                figs = train(model, rows, uc.model_copy(update={"share_prompt": True}), 1.0, tok.pad_token_id,
                             seed=cfg.run.seed, show_progress=False, fresh_adapter=True, sft_coef=1.0)
                secs = time.perf_counter() - t
            finally:
                fw._shares_a_prompt = shares
            if name not in best or secs < best[name][0]:
                best[name] = (secs, figs.get("loss/sft", figs.get("loss/total", float("nan"))))
    print(f"{len(rows)} warm-start rows ({real} real tokens), micro-batches of {uc.micro_batch_size}, "
          f"{torch.get_num_threads()} threads, best of {a.rounds}\n")
    from bench.sampler import matmul_rate
    c = model.config
    kv = c.num_key_value_heads * (c.hidden_size // c.num_attention_heads)
    layer = 2 * c.hidden_size * c.hidden_size + 2 * c.hidden_size * kv + 3 * c.hidden_size * c.intermediate_size
    rate = matmul_rate(c, torch.float32, 512)
    completions = sum(len(r["completion_ids"]) for r in rows)
    print("| arm | seconds | / padded | tokens computed / real | loss | % of the float32 floor |\n"
          "|---|---|---|---|---|---|")
    for name, (secs, loss) in best.items():
        tokens = computed_tokens(order, uc.micro_batch_size, name)
        flops = 2 * 2 * layer * c.num_hidden_layers * tokens + 3 * 2 * c.hidden_size * c.vocab_size * completions
        print(f"| {name} | {secs:.1f} | {secs / best['padded'][0]:.2f} | {tokens / real:.3f} | {loss:.5f} | "
              f"{100 * flops / 1e9 / rate / secs:.0f}% |")
    print(f"\nfloat32 matmul rate at the model's shapes, 512 rows: {rate:.0f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
