"""Does the default config learn? 4 epochs of SmolLM2-135M on CPU, against the base model.

Prints per epoch: mean reward, best-of-N reward, eval pass@1 and score, KL (k3, k1),
frac_zero_std; appends the table to bench/RESULTS.md. Goals: mean reward never regresses
between consecutive epochs; eval pass@1 after epoch 4 beats the base model's (epoch 0).

    python bench/learning.py [--epochs 4] [--fresh] [key.sub=value ...]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import epoch_table, record  # noqa: E402
from pipeline.config import load_config  # noqa: E402
from pipeline.runner import Runner  # noqa: E402

COLS = ["reward/mean", "reward/best_of_n", "eval/pass@1", "eval/score", "kl/k3", "kl/k1", "reward/frac_zero_std",
        "time/epoch_s"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--fresh", action="store_true", help="delete the bench run first")
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    cfg = load_config("config.yaml", ["run.name=bench-learning", *a.overrides])
    r = Runner(cfg)
    if a.fresh and r.run_dir.exists():
        shutil.rmtree(r.run_dir)
    t0 = time.time()
    r.run_eval(0)
    for n in range(1, a.epochs + 1):
        r.run_epoch(n, ignore_early_stop=True)
    rows = [json.loads((r.epoch_dir(n) / "metrics.json").read_text()) for n in range(0, a.epochs + 1)]
    lines = epoch_table(rows, COLS)
    means = [m["reward/mean"] for m in rows[1:]]
    regress = [i + 2 for i in range(len(means) - 1) if means[i + 1] < means[i]]
    base, last = rows[0].get("eval/pass@1", 0.0), rows[-1].get("eval/pass@1", 0.0)
    verdict = (f"mean reward regressed at epoch(s) {regress}" if regress else "mean reward never regressed") + \
        f"; eval pass@1 base {base:.4f} -> epoch {a.epochs} {last:.4f} " + \
        ("(beats base)" if last > base else "(does NOT beat base)")
    overrides = " ".join(a.overrides) or "none"
    keys = ["data.pool_size", "data.prompts_per_epoch", "sample.num_samples", "sample.temperature", "update.lr",
            "update.epochs", "update.teacher_sft_coef", "update.kl_coef", "update.warm_start", "update.sft_epochs",
            "update.sft_lr", "update.kl_reference", "curriculum.strategy"]
    record(f"learning: default config, {a.epochs} epochs (bench/learning.py)",
           lines, f"Overrides: {overrides}. Total {time.time() - t0:.0f}s. {verdict}.",
           "Config: " + ", ".join(f"{k}={cfg.get(k)}" for k in keys) + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
