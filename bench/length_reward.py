"""configs/length_reward.yaml on SmolLM2-135M: does the reward (2 - words/16) rise, and does
adaptive KL hold k3 near its 0.1 target? Prints a row per epoch; appends to bench/RESULTS.md.

    python bench/length_reward.py [--epochs 10] [--fresh] [key.sub=value ...]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import epoch_table, record  # noqa: E402
from pipeline.config.base import ConfigError  # noqa: E402
from pipeline.config.errors import RunError  # noqa: E402
from pipeline.config.file import load_config  # noqa: E402
from pipeline.run.runner import Runner  # noqa: E402

COLS = ["reward/mean", "reward/best_of_n", "completion/length_mean", "kl/k3", "kl/k1", "kl/k3_start", "kl/coef",
        "time/epoch_s"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    if a.epochs < 1:   # (0 trained nothing, then failed on an empty table)
        ap.error("--epochs: 1 or more")
    try:
        return bench(a)
    except (ConfigError, RunError) as e:   # a mistyped override or a run's refusal: said as rlaif says it
        print(f"error: {e}", file=sys.stderr)
        return 2


def bench(a: argparse.Namespace) -> int:
    # the LR schedule spans the epochs run (the default's 4 would hold epochs 5 and on at lr 0)
    cfg = load_config(ROOT / "configs/length_reward.yaml",
                      ["run.name=bench-length", f"update.planned_epochs={a.epochs}", *a.overrides])
    r = Runner(cfg)
    if a.fresh and r.run_dir.exists():
        shutil.rmtree(r.run_dir)
    t0 = time.time()
    for n in range(1, a.epochs + 1):
        r.run_epoch(n, ignore_early_stop=True)
    rows = [json.loads((r.epoch_dir(n) / "metrics.json").read_text()) for n in range(1, a.epochs + 1)]
    lines = epoch_table(rows, COLS)
    reward = [m["reward/mean"] for m in rows]
    k3 = [m["kl/k3"] for m in rows]
    # each epoch draws different prompts, so compare thirds of the run rather than single epochs
    third = max(len(rows) // 3, 1)
    early, late = sum(reward[:third]) / third, sum(reward[-third:]) / third
    target = cfg.update.kl_target
    late_k3 = k3[-third:]
    held = all(0.5 * target <= k <= 1.5 * target for k in late_k3)
    # where each epoch starts (the policy that sampled it), free of the update's own transients
    start = [m["kl/k3_start"] for m in rows[-third:] if "kl/k3_start" in m]
    held_start = bool(start) and all(0.5 * target <= k <= 1.5 * target for k in start)
    record(f"length reward: configs/length_reward.yaml on SmolLM2-135M, {a.epochs} epochs (bench/length_reward.py)",
           lines, f"Overrides: {' '.join(a.overrides) or 'none'}. Total {time.time() - t0:.0f}s. "
           f"Mean reward over the first {third} epoch(s) {early:.3f}, over the last {third} {late:.3f} "
           f"({'rose' if late > early else 'did NOT rise'}). k3 KL min {min(k3):.4f} "
           f"({'never negative' if min(k3) >= 0 else 'NEGATIVE'}); over the last {third} epoch(s) "
           + ", ".join(f"{k:.4f}" for k in late_k3) + f" against target {target} "
           f"({'held within +-50%' if held else 'NOT held within +-50%'}); at the start of those epochs "
           + (", ".join(f"{k:.4f}" for k in start) + f" ({'held' if held_start else 'NOT held'} within +-50%)."
              if start else "not recorded."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
