"""Update and sampling throughput: ours against TRL's GRPOTrainer on the same batch and prompts.

(a) Update: trained tokens/s and peak RSS on one fixed batch. 4 real prompts (our chat
    template) x num_samples completions; the completions are the reference solutions of
    builtin problems (real code of realistic length, cut at sample.max_new_tokens, + eos), the
    rewards fixed and seeded, the advantages our grpo ones. Each run is its own subprocess;
    peak RSS is that process's ru_maxrss (imports and model load included). The sides alternate,
    --repeats times each; the fastest run of each side counts (the least disturbed by other jobs).
      ours, fresh LoRA     pipeline.stages.update.train as epoch 1 runs it (the policy before the step
                           is the reference: one no-grad pass)
      ours, trained LoRA   fresh_adapter=False, as later epochs run it (old and reference passes)
      TRL                  GRPOTrainer.train() over the same sequences and optimizer steps: a
                           rollout_func hands it the fixed completions (no generation), a reward
                           function the fixed rewards; it computes old and reference logprobs
    tokens/s = completion tokens trained / wall seconds of train() (resp. trainer.train());
    model loading is outside the timing on both sides.
(b) Sampling: generated tokens/s of pipeline.engines.hf.generate against GRPOTrainer._generate
    (what its training step calls to sample) on the same prompts x num_samples, same
    temperature / top_p / top_k / max_new_tokens, both on the student + a fresh LoRA of our
    settings (the model each one samples from mid-run). One process, one untimed warm-up call
    each, then ours and TRL alternate for --rounds rounds.
Goal: ours >= TRL on both. (bf16 and the update's MFU need a GPU; this machine has none.)

    python bench/throughput.py [--repeats 2] [--rounds 2] [key.sub=value ...]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import (PY, SMALL, busy, config, last_json, messages, peak_rss_mb, run_timed,  # noqa: E402
                           trl_trainer)


def problems_and_batch(cfg, tok):
    """(the prompts' problems, fixed rows {prompt_ids, completion_ids, advantage, reward, group})."""
    from data.loaders import load_source
    from pipeline.train.rl import advantages
    from pipeline.engines.hf import chat_prompt
    from pipeline.stages.judging import as_answer
    k, max_new = cfg.sample.num_samples, cfg.sample.max_new_tokens
    pool = [p for p in load_source("builtin:train") if p.reference and p.difficulty in cfg.data.difficulties]
    prompts, answers = pool[: cfg.data.prompts_per_epoch], pool[: cfg.data.prompts_per_epoch * k]
    rng = random.Random(0)
    rows = []
    for g, p in enumerate(prompts):
        rewards = [rng.random() for _ in range(k)]
        for j, adv in enumerate(advantages(rewards, "grpo")):
            ids = tok.encode(as_answer(answers[g * k + j].reference), add_special_tokens=False)
            ids = ids[:max_new] if len(ids) >= max_new else ids + [tok.eos_token_id]
            rows.append({"prompt_ids": chat_prompt(tok, cfg, p.prompt), "completion_ids": ids, "advantage": adv,
                         "reward": rewards[j], "group": g})
    return prompts, rows


def update_side(side: str, overrides: list[str]) -> int:
    """Child process: one update on the fixed batch; prints tokens, seconds, peak RSS."""
    import torch
    from pipeline.engines.model import load_student, load_tokenizer
    from pipeline.stages.update_loop import train
    cfg = config(overrides)
    tok = load_tokenizer(cfg.student)
    prompts, rows = problems_and_batch(cfg, tok)
    tokens = sum(len(r["completion_ids"]) for r in rows) * cfg.update.epochs
    if side.startswith("ours"):
        torch.manual_seed(cfg.run.seed)
        model = load_student(cfg.student, trainable=True)
        t = time.perf_counter()
        fig = train(model, rows, cfg.update, cfg.sample.temperature, tok.pad_token_id, seed=cfg.run.seed,
                    show_progress=False, fresh_adapter=side == "ours-fresh")
        secs = time.perf_counter() - t
        assert fig["update/trained_tokens"] == tokens, fig
        steps = fig["optim/steps"]
    else:
        by_prompt = {p.prompt: g for g, p in enumerate(prompts)}
        reward_of = {tuple(r["completion_ids"]): r["reward"] for r in rows}

        def rollout(batch_prompts, trainer):
            """The fixed completions, the j-th time a prompt appears in the batch -> its j-th answer."""
            seen: dict[int, int] = {}
            out = {"prompt_ids": [], "completion_ids": [], "logprobs": None}
            for msgs in batch_prompts:
                g = by_prompt[msgs[-1]["content"]]
                j = seen[g] = seen.get(g, -1) + 1
                row = rows[g * cfg.sample.num_samples + j]
                out["prompt_ids"].append(row["prompt_ids"])
                out["completion_ids"].append(row["completion_ids"])
            return out

        def fixed_reward(prompts, completions, completion_ids, **_):
            return [reward_of[tuple(ids)] for ids in completion_ids]

        data = [{"prompt": messages(cfg, p.prompt)} for p in prompts]
        with tempfile.TemporaryDirectory() as out:
            trainer = trl_trainer(cfg, data, [fixed_reward], out, rollout_func=rollout)
            t = time.perf_counter()
            trainer.train()
            secs = time.perf_counter() - t
        steps = trainer.state.global_step
    print(json.dumps({"tokens": tokens, "secs": secs, "steps": steps, "rss_mb": peak_rss_mb(),
                      "completions": len(rows)}))
    return 0


def sampling(cfg, rounds: int) -> dict[str, list[tuple[int, float]]]:
    """{side: [(generated tokens, seconds) of each round]}, the sides alternating."""
    import torch
    from pipeline.engines.model import load_student, load_tokenizer
    from pipeline.engines.hf import chat_prompt, generate
    tok = load_tokenizer(cfg.student)
    prompts, _ = problems_and_batch(cfg, tok)
    torch.manual_seed(cfg.run.seed)
    ours = load_student(cfg.student, trainable=True).eval()  # student + a fresh LoRA of our settings
    ids = [chat_prompt(tok, cfg, p.prompt) for p in prompts]
    out = tempfile.mkdtemp()
    trainer = trl_trainer(cfg, [{"prompt": messages(cfg, p.prompt)} for p in prompts],
                          [lambda completions, **_: [0.0] * len(completions)], out)
    trainer.model.train()  # as in its training step
    batch = [messages(cfg, p.prompt) for p in prompts for _ in range(cfg.sample.num_samples)]  # its RepeatSampler
    # untimed warm-up of each side: the first generate() of a process pays one-time set-up costs
    short = cfg.model_copy(update={"sample": cfg.sample.model_copy(update={"max_new_tokens": 4})})
    generate(ours, tok, ids[:1], short, seed=0)
    trainer.generation_config.max_new_tokens = 4
    trainer._generate(batch[: cfg.sample.num_samples])
    trainer.generation_config.max_new_tokens = cfg.sample.max_new_tokens
    runs: dict[str, list[tuple[int, float]]] = {"ours": [], "TRL": []}
    for r in range(rounds):
        t = time.perf_counter()
        gens = generate(ours, tok, ids, cfg, seed=cfg.run.seed * 1000 + r)
        runs["ours"].append((sum(g["length"] for g in gens), time.perf_counter() - t))
        torch.manual_seed(cfg.run.seed * 1000 + r)
        t = time.perf_counter()
        completion_ids = trainer._generate(batch)[1]
        runs["TRL"].append((sum(len(c) for c in completion_ids), time.perf_counter() - t))
        print(f"round {r + 1}: ours {runs['ours'][-1]}, TRL {runs['TRL'][-1]}")
    return runs

def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=2, help="update runs per side (the best one counts)")
    ap.add_argument("--rounds", type=int, default=3, help="sampling rounds per side (the best one counts)")
    ap.add_argument("--update-side", choices=["ours-fresh", "ours", "trl"], help=argparse.SUPPRESS)
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    over = [*SMALL, *a.overrides]
    if a.update_side:
        return update_side(a.update_side, over)
    cfg = config(over)

    sides = ("ours-fresh", "trl", "ours")
    runs: dict[str, list[dict]] = {s: [] for s in sides}
    for _ in range(a.repeats):  # alternating, best of `repeats`: the run least disturbed by other jobs
        for side in sides:
            runs[side].append(last_json(run_timed([PY, __file__, "--update-side", side, *over])[1]))
            print(side, runs[side][-1])
    upd = {s: {**min(rs, key=lambda u: u["secs"]), "rss_mb": max(u["rss_mb"] for u in rs)} for s, rs in runs.items()}
    names = {"ours-fresh": "ours, fresh LoRA (epoch 1)", "ours": "ours, trained LoRA (epoch >= 2)",
             "trl": "TRL GRPOTrainer.train()"}
    tps = {s: u["tokens"] / u["secs"] for s, u in upd.items()}
    lines = [f"| update on the fixed batch (best of {a.repeats}) | tokens | optimizer steps | s | tokens/s "
             "| peak RSS MiB |", "|---|---|---|---|---|---|"]
    lines += [f"| {names[s]} | {upd[s]['tokens']} | {upd[s]['steps']} | {upd[s]['secs']:.1f} | {tps[s]:.1f} "
              f"| {upd[s]['rss_mb']:.0f} |" for s in ("ours-fresh", "ours", "trl")]

    runs_s = sampling(cfg, a.rounds)
    best = {s: max(n / t for n, t in rs) for s, rs in runs_s.items()}
    lines += ["", "| sampling | generated tokens, every round | tokens/s, every round | best tokens/s |",
              "|---|---|---|---|"]
    for s, rs in runs_s.items():
        name = "ours `generate`" if s == "ours" else "TRL `GRPOTrainer._generate`"
        lines.append(f"| {name} | {', '.join(str(n) for n, _ in rs)} | {', '.join(f'{n / t:.1f}' for n, t in rs)} "
                     f"| {best[s]:.1f} |")
    u_fresh, u_trained, s_ratio = tps["ours-fresh"] / tps["trl"], tps["ours"] / tps["trl"], best["ours"] / best["TRL"]
    verdict = (f"Update tokens/s ours / TRL = **{u_fresh:.2f}x** with a fresh LoRA, **{u_trained:.2f}x** with a "
               f"trained one (goal >= 1: {'met' if min(u_fresh, u_trained) >= 1 else 'NOT met'}); peak RSS ours "
               f"{upd['ours-fresh']['rss_mb']:.0f} / {upd['ours']['rss_mb']:.0f} MiB, TRL {upd['trl']['rss_mb']:.0f} "
               f"MiB. Sampling tokens/s ours / TRL = **{s_ratio:.2f}x** (best rounds; goal >= 1: "
               f"{'met' if s_ratio >= 1 else 'NOT met'}).")
    sc = cfg.sample
    setup = (f"Config: config.yaml + {' '.join(over)} ({cfg.student.model}, {cfg.student.dtype}, CPU; "
             f"{upd['trl']['completions']} completions, micro-batch {cfg.update.micro_batch_size} x accumulation "
             f"{cfg.update.grad_accum}; sampling {cfg.data.prompts_per_epoch} prompts x {sc.num_samples}, temperature "
             f"{sc.temperature}, top_p {sc.top_p}, top_k {sc.top_k}, max_new_tokens {sc.max_new_tokens}). Sampled "
             "lengths differ between the sides (random sampling); tokens/s counts each side's own. The sides "
             f"alternate so that the load hits both. No GPU here, so no bf16 / MFU figures. Note: {busy()}.")
    record("throughput: update and sampling vs TRL GRPOTrainer (bench/throughput.py)",
           lines, verdict, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
