"""Hyperparameter sweep after one epoch: ours against TRL's GRPOTrainer, side by side.

Ours: one cold epoch (`rlaif epoch 1`), then four update-only variants (2 LRs x 2 KL
coefficients) with `rlaif update 1 update.lr=.. update.kl_coef=..`: sampling and judging are
reused, only the update runs. TRL: the same four configurations, each a fresh GRPOTrainer run
on the same prompts, model, LoRA, sampling settings and loss settings (bench/helpers.py maps
them), which regenerates and re-judges; the judge is our execution judge as a reward function
that counts its calls (reward = student / (teacher + eps), clipped: our ratio reward).

Every run is its own subprocess on both sides (wall clock, start-up included), alternating
ours / TRL per configuration so that load on the machine hits both alike. Judge calls: ours =
new judge cache entries over the four variants (and the judge stage must be the very one of the
epoch); TRL = calls of the counting reward function. Goal: ours >= 3x faster, 0 judge calls.

    python bench/sweep.py [--lrs 5e-5 2e-4] [--kls 0.01 0.1] [key.sub=value ...]
"""
from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import (PY, RLAIF, ROOT, SMALL, CountingJudge, busy, config, last_json, messages,  # noqa: E402
                           run_measured, trl_trainer)


def trl_one(overrides: list[str]) -> int:
    """Child process: one GRPOTrainer run (generate, judge, update) on epoch 1's prompts."""
    from data.schema import Problem
    from pipeline.model import load_tokenizer
    from pipeline.runner import Runner
    from pipeline.tables import load_table
    cfg = config(overrides)
    prompts = load_table(Runner(cfg).epoch_dir(1) / "prompts", json_cols=("problem",))
    problems = {p["problem_id"]: Problem.from_json(p["problem"]) for p in prompts}
    tok = load_tokenizer(cfg.student)
    judge = CountingJudge(cfg, problems, {tok.eos_token_id, tok.pad_token_id})
    rows = [{"prompt": messages(cfg, problems[p["problem_id"]].prompt), "problem_id": p["problem_id"]} for p in prompts]
    gen_s = 0.0
    with tempfile.TemporaryDirectory() as out:
        trainer = trl_trainer(cfg, rows, [judge], out)
        generate = trainer._generate  # what its training step calls to sample: timed to show where time goes

        def timed_generate(prompts):
            nonlocal gen_s
            t = time.perf_counter()
            result = generate(prompts)
            gen_s += time.perf_counter() - t
            return result

        trainer._generate = timed_generate
        t = time.perf_counter()
        trainer.train()
        train_s = time.perf_counter() - t
    print(json.dumps({"judge_calls": judge.calls, "steps": trainer.state.global_step, "generate_s": gen_s,
                      "judge_s": judge.secs, "train_s": train_s}))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lrs", type=float, nargs=2, default=[5e-5, 2e-4])
    ap.add_argument("--kls", type=float, nargs=2, default=[0.01, 0.1])
    ap.add_argument("--trl-one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    if a.trl_one:
        return trl_one(a.overrides)

    from judges.cache import JudgeCache
    from pipeline.artifacts import read_manifest
    from pipeline.runner import Runner
    from pipeline.scoring import cache_dir
    run_dir = ROOT / "runs" / "bench-sweep"
    shutil.rmtree(run_dir, ignore_errors=True)  # a fresh run and a cold judge cache
    over = [*SMALL, f"run.dir={run_dir}", "run.name=sweep", *a.overrides]
    rlaif = [RLAIF, "--config", "config.yaml"]
    t_epoch, cpu_epoch, _ = run_measured(rlaif + ["epoch", "1", *over])
    cfg = config(over)
    runner = Runner(cfg)
    judge_before = read_manifest(runner.epoch_dir(1) / "judge")
    entries = lambda: len(JudgeCache(cache_dir(cfg)))  # noqa: E731
    cache_before = entries()
    print(f"epoch 1 (cold): {t_epoch:.1f}s, {judge_before['figures']['judge/api_calls']} judge calls")

    rows = []
    for lr, kl in itertools.product(a.lrs, a.kls):
        knobs = [f"update.lr={lr:g}", f"update.kl_coef={kl:g}"]
        ours = run_measured(rlaif + ["update", "1", *over, *knobs])[:2]
        stage_s = runner.update_variants(1)[-1][1]["wall_s"]  # the variant just made: its update stage alone
        *trl, out = run_measured([PY, __file__, "--trl-one", *over, *knobs])
        info = last_json(out)
        rows.append({"lr": lr, "kl": kl, "ours": ours, "stage_s": stage_s, "trl": trl, **info})
        print(f"lr={lr:g} kl={kl:g}: ours {ours[0]:.1f}s, TRL {trl[0]:.1f}s ({info['judge_calls']} judge calls, "
              f"{info['steps']} optimizer steps)")

    judge_after = read_manifest(runner.epoch_dir(1) / "judge")
    same_judge = judge_after is not None and judge_after["fingerprint"] == judge_before["fingerprint"] \
        and judge_after["started_at"] == judge_before["started_at"]
    ours_calls = entries() - cache_before
    variants = len(runner.update_variants(1)) - 1
    total = {k: sum(r[side][i] for r in rows) for k, side, i in
             (("ours", "ours", 0), ("ours_cpu", "ours", 1), ("trl", "trl", 0), ("trl_cpu", "trl", 1))}
    trl_calls = sum(r["judge_calls"] for r in rows)
    lines = ["| lr | kl_coef | ours `rlaif update`: wall s (update stage s) | CPU s | TRL GRPOTrainer run: wall s "
             "(sampling / judge / train() s) | CPU s | TRL judge calls |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['lr']:g} | {r['kl']:g} | {r['ours'][0]:.1f} ({r['stage_s']:.1f}) | {r['ours'][1]:.1f} "
              f"| {r['trl'][0]:.1f} ({r['generate_s']:.1f} / {r['judge_s']:.1f} / {r['train_s']:.1f}) "
              f"| {r['trl'][1]:.1f} | {r['judge_calls']} |" for r in rows]
    lines.append(f"| **total** | | **{total['ours']:.1f}** | {total['ours_cpu']:.1f} | **{total['trl']:.1f}** "
                 f"| {total['trl_cpu']:.1f} | **{trl_calls}** |")
    speed = total["trl"] / total["ours"]
    zero = ours_calls == 0 and same_judge
    judge_stage = "reused, the same output" if same_judge else "CHANGED"
    verdict = (f"Time ratio TRL / ours = **{speed:.2f}x** wall (goal >= 3x: {'met' if speed >= 3 else 'NOT met'}), "
               f"{total['trl_cpu'] / total['ours_cpu']:.2f}x CPU; with our cold epoch 1 counted too ({t_epoch:.1f}s "
               f"wall, {cpu_epoch:.1f}s CPU): {total['trl'] / (total['ours'] + t_epoch):.2f}x wall. "
               f"Judge calls over the sweep: ours **{ours_calls}** (judge cache {cache_before} -> "
               f"{cache_before + ours_calls} entries; judge stage {judge_stage}; {variants} new update variants), "
               f"TRL **{trl_calls}**; ratio ours / TRL = {ours_calls / max(trl_calls, 1):.2f} "
               f"(goal 0 extra: {'met' if zero else 'NOT met'}).")
    setup = (f"Config: config.yaml + {' '.join(over[:len(SMALL)])}{' ' + ' '.join(a.overrides) if a.overrides else ''} "
             f"({cfg.data.prompts_per_epoch} prompts x {cfg.sample.num_samples} samples, {cfg.student.model}, "
             f"LoRA r={cfg.student.lora.r} alpha={cfg.student.lora.alpha}, micro-batch {cfg.update.micro_batch_size} x "
             f"accumulation {cfg.update.grad_accum}). Each run a subprocess, wall clock and CPU time, start-up "
             "included; ours and TRL alternate per configuration. TRL reward: our execution judge, ratio reward "
             "student / (teacher + eps) clipped (teacher answers judged once per TRL run); loss_type=grpo, "
             f"generation_batch_size = all completions, gradient checkpointing off. Note: {busy()}.")
    record("sweep: 4 update-only variants vs TRL GRPOTrainer (bench/sweep.py)",
           "\n".join(lines) + f"\n\n{verdict}\n\n{setup}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
