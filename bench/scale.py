"""Epoch wall time on 1 and on N processes (`rlaif epoch 1 --processes N`), side by side in one run.

    python bench/scale.py                                   # tiny and embedded model, 1 and 2 processes
    python bench/scale.py --models embedded --processes 1,2,4 --prompts 16

Each measurement is a fresh run directory (its own judge cache, so no run reads another's
judgements), `update.warm_start=false`, the same config on every process count: the process count
is in no fingerprint, so the epochs compute the same thing (tests/test_dist.py checks it). Runs
alternate between process counts, so a change of the machine's load hits both. Per-stage seconds
come from the epoch's metrics.json; wall is the whole command, launch and model loading included.

On a CPU, processes share the cores: N processes on 2 cores run with 2/N threads each, so a
speed-up needs work that does not already use every core in one process (sampling small batches
does not; the judge's sandboxes do). On GPUs each rank has its own device: that is where several
processes pay. The ratio is reported as measured, including where it is below 1.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import RLAIF, busy, run_timed  # noqa: E402

STAGES = ("prompts", "sample", "teacher", "judge", "reward", "select", "logprobs", "update", "eval")


def model_path(name: str) -> str:
    if name == "tiny":  # the tests' 2-layer Llama with the SmolLM2 tokenizer (built once, cached)
        from pipeline.store.paths import cache_root
        from tests.conftest import build_tiny_model
        return str(build_tiny_model(cache_root() / "models" / "tiny-llama-smollm2-tok-v2"))
    return name


def one_epoch(model: str, n: int, a) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"scale-{n}-") as tmp:
        over = [f"run.dir={tmp}", f"student.model={model}", "update.warm_start=false",
                f"data.prompts_per_epoch={a.prompts}", f"sample.num_samples={a.k}", f"sample.max_new_tokens={a.new}",
                f"eval.max_problems={a.eval_problems}", f"eval.max_new_tokens={a.new}"]
        wall, out = run_timed([RLAIF, "epoch", "1", "--processes", str(n), *over])
        metrics = json.loads((Path(tmp) / "default" / "epoch-001" / "metrics.json").read_text())
    return {"wall": wall, **{s: metrics.get(f"time/{s}_s", 0.0) for s in STAGES},
            "reward": metrics.get("reward/mean"), "loss": metrics.get("loss/total")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="tiny,smollm2-135m-instruct", help="tiny, the embedded model, or a path")
    ap.add_argument("--processes", default="1,2", help="process counts to compare (the first is the baseline)")
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--k", type=int, default=8, help="samples per prompt")
    ap.add_argument("--new", type=int, default=64, help="max new tokens (sample and eval)")
    ap.add_argument("--eval-problems", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--no-record", action="store_true", help="print only; do not append to bench/RESULTS.md")
    a = ap.parse_args()
    counts = [int(x) for x in a.processes.split(",")]
    lines = ["| model | processes | wall s | " + " | ".join(f"{s} s" for s in STAGES) + " | wall vs "
             f"{counts[0]} process | reward/mean | loss/total |",
             "|---" * (len(STAGES) + 6) + "|"]
    notes = []
    for name in a.models.split(","):
        model = model_path(name)
        best: dict[int, dict] = {}
        for rep in range(a.repeats):
            for n in (counts if rep % 2 == 0 else counts[::-1]):  # alternate the order
                r = one_epoch(model, n, a)
                print(f"{name} x{n}: {r['wall']:.1f}s wall", flush=True)
                if n not in best or r["wall"] < best[n]["wall"]:
                    best[n] = r
        base = best[counts[0]]["wall"]
        for n in counts:
            r = best[n]
            fmt = (lambda v: f"{v:.4f}" if isinstance(v, (int, float)) else "-")
            lines.append(f"| {name} | {n} | {r['wall']:.1f} | " + " | ".join(f"{r[s]:.1f}" for s in STAGES)
                         + f" | {base / r['wall']:.2f}x | {fmt(r['reward'])} | {fmt(r['loss'])} |")
        same = {best[n]["reward"] for n in counts}
        notes.append(f"{name}: reward/mean {'the same' if len(same) == 1 else 'DIFFERS'} on every process count "
                     f"({', '.join(str(best[n]['reward']) for n in counts)}).")
    if a.no_record:
        print("\n".join(lines + notes))
        return
    record(f"Scaling: one epoch on {', '.join(map(str, counts))} processes (bench/scale.py)", lines,
           f"{a.prompts} prompts x {a.k} samples x {a.new} new tokens, eval on {a.eval_problems} problems, best of "
           f"{a.repeats}; `x` > 1 means faster than {counts[0]} process. " + " ".join(notes),
           f"No machine with several GPUs has been lent to this project, so there are no GPU figures; {busy()}.")

if __name__ == "__main__":
    main()
