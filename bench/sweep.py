"""Hyperparameter sweep after one epoch: ours against TRL's GRPOTrainer, side by side.

Ours: one cold epoch (`rlaif epoch 1`), then four update-only variants (2 LRs x 2 KL
coefficients) with one `rlaif sweep 1 --grid update.lr=.. --grid update.kl_coef=..`: sampling,
judging and the no-grad logprob passes are reused, only the four updates run. TRL: the same
four configurations, each a fresh GRPOTrainer on the same prompts, model, LoRA, sampling
settings and loss settings (bench/helpers.py maps them), which regenerates and re-judges; the
judge is our execution judge as a reward function that counts its calls (reward = student /
(teacher + eps), clipped: our ratio reward).

Both sides run their four configurations in one subprocess each (libraries imported once,
the model loaded per configuration), wall clock and CPU time, start-up included. Judge calls:
ours = new judge cache entries over the sweep (and the judge stage must be the very one of the
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


def trl_all(overrides: list[str], grid: list[tuple[float, float]]) -> int:
    """Child process: one GRPOTrainer run (generate, judge, update) per (lr, kl) on epoch 1's prompts."""
    from data.schema import Problem
    from pipeline.engines.model import load_tokenizer
    from pipeline.run.runner import Runner
    from pipeline.store.tables import load_table
    cfg = config(overrides)
    prompts = load_table(Runner(cfg).epoch_dir(1) / "prompts", json_cols=("problem",))
    problems = {p["problem_id"]: Problem.from_json(p["problem"]) for p in prompts}
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt": messages(cfg, problems[p["problem_id"]].prompt), "problem_id": p["problem_id"]} for p in prompts]
    out = []
    for lr, kl in grid:
        t0 = time.perf_counter()
        judge = CountingJudge(cfg, problems, {tok.eos_token_id, tok.pad_token_id})  # a fresh script: teachers judged too
        gen_s = 0.0
        with tempfile.TemporaryDirectory() as d:
            trainer = trl_trainer(cfg, rows, [judge], d, learning_rate=lr, beta=kl)
            generate = trainer._generate  # what its training step calls to sample: timed to show where time goes

            def timed_generate(prompts, _generate=generate):
                nonlocal gen_s
                t = time.perf_counter()
                result = _generate(prompts)
                gen_s += time.perf_counter() - t
                return result

            trainer._generate = timed_generate
            t = time.perf_counter()
            trainer.train()
            train_s = time.perf_counter() - t
        out.append({"lr": lr, "kl": kl, "judge_calls": judge.calls, "steps": trainer.state.global_step,
                    "generate_s": gen_s, "judge_s": judge.secs, "train_s": train_s,
                    "config_s": time.perf_counter() - t0})
        print(f"TRL lr={lr:g} kl={kl:g}: {out[-1]['config_s']:.1f}s", file=sys.stderr, flush=True)
    print(json.dumps(out))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lrs", type=float, nargs=2, default=[5e-5, 2e-4])
    ap.add_argument("--kls", type=float, nargs=2, default=[0.01, 0.1])
    ap.add_argument("--trl-all", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    grid = list(itertools.product(a.lrs, a.kls))
    if a.trl_all:
        return trl_all(a.overrides, grid)

    from judges.cache import JudgeCache
    from pipeline.store.artifacts import read_manifest
    from pipeline.run.runner import Runner
    from pipeline.stages.judging import cache_dir
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
    update_s = {p.name: m["wall_s"] for p, m in runner.update_variants(1)}
    print(f"epoch 1 (cold): {t_epoch:.1f}s, {judge_before['figures']['judge/api_calls']} judge calls")

    ours_wall, ours_cpu, _ = run_measured(rlaif + ["sweep", "1", *over, "--grid", f"update.lr={a.lrs[0]:g},{a.lrs[1]:g}",
                                                   "--grid", f"update.kl_coef={a.kls[0]:g},{a.kls[1]:g}"])
    stage_s = {}
    for p, m in runner.update_variants(1):
        if p.name not in update_s:
            u = m["config"]["update"]
            stage_s[(u["lr"], u["kl_coef"])] = m["wall_s"]
    print(f"ours: rlaif sweep, 4 variants: {ours_wall:.1f}s")
    trl_wall, trl_cpu, out = run_measured([PY, __file__, "--trl-all", "--lrs", *map(str, a.lrs),
                                           "--kls", *map(str, a.kls), *over])
    trl = last_json(out)
    print(f"TRL: 4 GRPOTrainer runs: {trl_wall:.1f}s")

    judge_after = read_manifest(runner.epoch_dir(1) / "judge")
    same_judge = judge_after is not None and judge_after["fingerprint"] == judge_before["fingerprint"] \
        and judge_after["started_at"] == judge_before["started_at"]
    ours_calls = entries() - cache_before
    trl_calls = sum(r["judge_calls"] for r in trl)
    lines = ["| lr | kl_coef | ours: update stage s | TRL GRPOTrainer run s (train() s, of which sampling / judge s) "
             "| TRL judge calls |", "|---|---|---|---|---|"]
    lines += [f"| {r['lr']:g} | {r['kl']:g} | {stage_s.get((r['lr'], r['kl']), float('nan')):.1f} "
              f"| {r['config_s']:.1f} ({r['train_s']:.1f}, of which {r['generate_s']:.1f} / {r['judge_s']:.1f}) "
              f"| {r['judge_calls']} |" for r in trl]
    lines.append(f"| **process total** (wall / CPU s) | | **{ours_wall:.1f}** / {ours_cpu:.1f} "
                 f"| **{trl_wall:.1f}** / {trl_cpu:.1f} | **{trl_calls}** |")
    speed = trl_wall / ours_wall
    zero = ours_calls == 0 and same_judge
    judge_stage = "reused, the same output" if same_judge else "CHANGED"
    verdict = (f"Time ratio TRL / ours = **{speed:.2f}x** wall (goal >= 3x: {'met' if speed >= 3 else 'NOT met'}), "
               f"{trl_cpu / ours_cpu:.2f}x CPU; with our cold epoch 1 counted too ({t_epoch:.1f}s "
               f"wall, {cpu_epoch:.1f}s CPU): {trl_wall / (ours_wall + t_epoch):.2f}x wall. "
               f"Judge calls over the sweep: ours **{ours_calls}** (judge cache {cache_before} -> "
               f"{cache_before + ours_calls} entries; judge stage {judge_stage}; {len(stage_s)} new update variants), "
               f"TRL **{trl_calls}**; ratio ours / TRL = {ours_calls / max(trl_calls, 1):.2f} "
               f"(goal 0 extra: {'met' if zero else 'NOT met'}).")
    setup = (f"Config: config.yaml + {' '.join(over[:len(SMALL)])}{' ' + ' '.join(a.overrides) if a.overrides else ''} "
             f"({cfg.data.prompts_per_epoch} prompts x {cfg.sample.num_samples} samples, {cfg.student.model}, "
             f"LoRA r={cfg.student.lora.r} alpha={cfg.student.lora.alpha}, micro-batch {cfg.update.micro_batch_size} x "
             f"accumulation {cfg.update.grad_accum}). Each side one subprocess for its four configurations (imports "
             "once), wall clock and CPU time, start-up included. TRL reward: our execution judge, ratio reward "
             "student / (teacher + eps) clipped (teacher answers judged once per configuration, as a fresh script "
             "would); loss_type=grpo, generation_batch_size = all completions, gradient checkpointing off. "
             f"Note: {busy()}.")
    record("sweep: 4 update-only variants vs TRL GRPOTrainer (bench/sweep.py)",
           lines, verdict, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
