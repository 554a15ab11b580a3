"""Does the default config learn? A paired, multi-seed experiment with controls and 95% intervals.

For each of S seeds (run.seed: the order the prompts are walked in, the sampling, the warm-start and the update) the
default config trains E epochs; the base model and each seed's final policy then answer every
held-out problem n times (sampled, eval.num_samples / eval.temperature) on the held-out Python sets
(builtin:heldout's 29 problems and the problem bank's 159, bank:heldout: --sets), on HumanEval, or on
the 16 held-out OCaml problems (--sets ocaml, with their shares of well-formed and type-checking answers). Per set it reports base and trained sampled pass@1, graded score and the NLL of
the reference answers, each with its 95% interval, the paired difference (B - A per problem,
problems clustered with every seed's difference together: pipeline/metrics/significance.py), the
probability of improvement, won/lost/tied, and one word: "learned" only when the paired interval
is above 0, "no measurable change" when it holds 0, "worse" when below.

The base model answers D times (--base-draws, default 5, --quick 1: run.seed 101..100+D, each its
own eval streams; the trained seeds are run.seed 1..S: run.seed 0's eval streams are the calibration
draw's that chose the bank's held-out problems, bench/bank_rates.py) and the trained seeds are compared with the draws averaged: every comparison
shares the base's figure, so one lucky or unlucky base draw would move them all (nine draws of
the base model's pass@1 on the 188 held-out problems spanned 0.187-0.230; bench/RESULTS.md). A
draw's shift shared by all its problems, beyond its problems' own noise (1.7x in SD over those nine,
the first of them the calibration draw; 1.05x over five fresh ones: bench/base_draws.py), is what the
paired t over problems cannot see: its variance, measured on the base
draws (significance.draw_variance: needs 2 draws or more), widens every difference's interval
(significance.with_draws), so the more base draws the narrower and surer the intervals.

The recipe's parts, over the same seeds and paired by problem: the warm-start alone (each seed's
epoch 0 policy, in every bench), the default (warm-start + RL), and with --ablation RL without the
warm-start and the default with the plain execution reward and no teacher rows in its RL epochs (what
TRL's GRPOTrainer trains); each against the base, and RL's increment (the default against its own
seed's warm-start), the teacher's part in RL (the default against the plain reward) and the
warm-start's part (the default against RL without it), paired by seed. Every interval is about the recipe: the base draws' shift and, with 3 seeds or more,
the seeds' own (significance.recipe_interval).

Levers (--lever NAME KEY=VALUE ...): a candidate change to the default trained over the same seeds
(runs NAME-seed<s>, each starting from its seed's warm-start when the change leaves it as it was: the
stages' fingerprints decide) and reported against the default, paired by seed and problem; a lever
that sets update.planned_epochs trains that many RL epochs (--lever ep8 update.planned_epochs=8). Tune on
--sets tune (bank:tune) or validation, never on the held-out sets: a lever is adopted only when its
interval against the default there is above 0.

Controls, in the same run (first seed): a negative control (update.lr=0, update.sft_lr=0, one epoch:
nothing can be learned; its interval must hold 0, else "bench broken") and a positive control (the same
compute trained on the held-out problems themselves, those of every held-out Python set in --sets:
it must move the held-out metric).

    python bench/learning.py [--seeds 3] [--epochs 4] [--samples 8] [--quick] [--ablation] [key.sub=value ...]
    python bench/learning.py --sets tune --no-controls --lever t1 sample.temperature=1.0

Writes runs/bench-learning/<seed|control>/..., a PNG of the per-seed learning curves, every sampled
eval's per-problem figures (bench/learning_evals/<UTC time>.json.gz: `--tables-from FILE` prints the
tables again from them, nothing rerun), and appends the tables to bench/RESULTS.md. Rerunning reuses
every finished stage and eval.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.learning_args import (ABLATION, DEFAULT_ROOT, SAMPLES, SETS, TEMPERATURE, ablation_arms, parse)  # noqa: E402,F401
from pipeline.config.file import load_config  # noqa: E402
from pipeline.config.base import ConfigError  # noqa: E402
from pipeline.run.runner import Runner  # noqa: E402
from bench.learning_tables import (HELDOUT, PARTS, PYTHON_HELDOUT, VERDICT, arms_table, comparisons,  # noqa: E402,F401
                                   eval_rows, plot, reusable, save_evals, table, tables_from, tabulate)

ROOT = DEFAULT_ROOT  # --root moves it
CONFIG = "config.yaml"


def runner(name: str, overrides: list[str], extra: list[str] = ()) -> Runner:
    return Runner(load_config(CONFIG, [f"run.dir={ROOT}", f"run.name={name}", *overrides, *extra]))


def sampled_eval(name: str, epoch: int, overrides: list[str], a, log, sets=None,
                 warm_start: bool = False) -> dict[str, Path]:
    """The n-sample eval of a run's epoch on each set (a.sets unless given): {set: eval directory};
    warm_start: epoch 0's warm-start adapter (the run's own, trained before its epoch 1)."""
    out = {}
    for key in a.sets if sets is None else sets:
        r = runner(name, overrides, eval_overrides(key, a))
        t = time.time()
        m = r.run_eval(epoch, echo=lambda _: None, warm_start=warm_start)
        out[key] = r.epoch_dir(epoch) / f"eval-{m['fingerprint'][:8]}"
        what = "warm-start" if warm_start else f"epoch {epoch}"
        log(f"  {name} {what} sampled eval on {key}: {time.time() - t:.0f}s ({out[key]})")
    return out


def eval_overrides(key: str, a) -> list[str]:
    """What a run's sampled eval on set `key` adds to its overrides."""
    return [f"eval.sources=[{SETS[key]}]", f"eval.num_samples={a.samples}", f"eval.temperature={a.temperature}",
            f"eval.max_problems={ {'humaneval': a.humaneval, 'tune': a.tune}.get(key, 0)}"]


def check_evals(a) -> str | None:
    """Every sampled eval's config, built before any training (the controls aside: theirs are the first
    seed's, on other data): what the bench would refuse only after hours of it (--sets validation with no
    data.validation_size) is said now. None when every one loads."""
    ov = [f"update.planned_epochs={a.epochs}", *a.overrides]
    runs = {**base_plan(a, ov), **plan(argparse.Namespace(**{**vars(a), "no_controls": True}), ov)}
    for name, o in runs.items():
        try:   # the run's own settings first: a bad override is the overrides', not an eval set's
            load_config(a.config, o)
        except ConfigError as e:
            return f"run {name}'s config: {e}"
        for key in a.sets:
            try:
                load_config(a.config, [*o, *eval_overrides(key, a)])
            except ConfigError as e:
                return (f"--sets {key}: the bench could not evaluate run {name} on it (said now, not after its "
                        f"training): {e}")
    return None


def heldout_source(keys: list[str], root: Path) -> str:
    """data.source of the positive control: the held-out sets among `keys` (builtin:heldout without
    any), one of them as it is, several as one file of their rows (their ids do not collide)."""
    import json

    from data.loaders import BANK, BUILTIN, OCAML
    keys = [k for k in keys if k in HELDOUT] or ["heldout"]
    if len(keys) == 1:
        return SETS[keys[0]]
    files = {"heldout": BUILTIN, "bank": BANK, "ocaml": OCAML}
    out = root / f"{'+'.join(keys)}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for k in keys for line in files[k].read_text().splitlines()
                           if json.loads(line)["split"] == "heldout"))
    return str(out)


def final_epoch(name: str, a) -> int:
    """The epoch a run trains to and is evaluated at: --epochs, but 1 for the negative control (at lr 0
    every epoch leaves the base's weights as the first did; its 3 more epochs cost 9 of the full bench's
    minutes, the base's long answers sampled and trained on at lr 0), and a lever's update.planned_epochs
    for its runs (--lever ep8 update.planned_epochs=8: 8 RL epochs, the LR schedule spanning them)."""
    if name == "negative-control":
        return 1
    for lever_name, *lever in getattr(a, "lever", None) or []:
        if re.fullmatch(rf"{re.escape(lever_name)}-seed\d+", name):
            if any(o.split("=", 1)[0] == "update.planned_epochs" for o in lever):
                return load_config(CONFIG, lever).update.planned_epochs       # the value as the config reads it
    return a.epochs


def share_warm_start(name: str, r: Runner) -> bool:
    """An arm's run at seed s (NAME-seed<s>, its Runner r) starts from a copy of seed<s>'s epoch 0 (its
    warm-start, its base evals) when it has none, runs the warm-start (update.warm_start) and its
    warm-start's fingerprint is the one seed<s> trained: the copy saves a warm-start and never changes
    one. Never for a run without the warm-start (RL alone: an epoch 0 holding a warm-start's adapter
    would be its starting policy) nor for one whose settings change the warm-start. True when copied."""
    m = re.fullmatch(r"(.+)-seed(\d+)", name)
    dst = ROOT / name / "epoch-000"
    if not m or dst.exists() or not r.cfg.update.warm_start:
        return False
    src = ROOT / f"seed{m[2]}" / "epoch-000"
    fp = next(fp for st, fp, *_ in r.plan(0) if st.name == "update")
    if not (src / f"update-{fp[:8]}").is_dir():
        return False
    shutil.copytree(src, dst)
    return True


def train(name: str, overrides: list[str], a, log) -> list[dict]:
    """The run's epochs (final_epoch; greedy eval each epoch: the learning curve); metrics per epoch."""
    r = runner(name, overrides)
    share_warm_start(name, r)
    t = time.time()
    r.run_eval(0, echo=lambda _: None)
    for n in range(1, final_epoch(name, a) + 1):
        r.run_epoch(n, ignore_early_stop=True, echo=lambda _: None)
        log(f"  {name}: epoch {n} done ({time.time() - t:.0f}s)")
    return [json.loads((r.epoch_dir(n) / "metrics.json").read_text()) for n in range(0, final_epoch(name, a) + 1)]


def training_reward(runs: dict[str, list[str]], epochs: int) -> tuple[float, float, float, int]:
    """The mean training reward over the runs' E epochs: each group's mean reward (one prompt's
    samples in one epoch), each run (seed) a stratum; (mean, low, high, groups) with its 95% interval."""
    from pipeline.metrics.significance import mean_interval
    from pipeline.store.tables import load_table
    strata = []
    for name, overrides in runs.items():
        r, groups = runner(name, overrides), []
        for n in range(1, epochs + 1):
            by: dict[str, list[float]] = {}
            for row in load_table(r.epoch_dir(n) / "reward"):
                by.setdefault(row["problem_id"], []).append(float(row["reward"]))
            groups += [sum(v) / len(v) for v in by.values()]
        strata.append(groups)
    return (*mean_interval(strata, paired=False), sum(map(len, strata)))


SEED0 = 1        # run.seed of the first trained seed; run.seed 0's eval streams (eval seed 0) are the calibration
                 # draw's that kept the bank's held-out problems (bench/bank_rates.py): no eval here reuses them
BASE_SEED0 = 101  # the base draws' run.seed (eval seeds 101000, ...): streams no trained run's eval uses
def plan(a, ov: list[str]) -> dict[str, list[str]]:
    """The bench's training runs: {name: overrides}. seed<s> the default config at run.seed SEED0 + s;
    with --ablation, rl-only-seed<s> and plain-seed<s> at the same seeds, each --lever's NAME-seed<s>
    too; the controls at the first."""
    # each arm's own settings come after the user's overrides, which must not undo them
    runs = {f"seed{s}": [f"run.seed={SEED0 + s}", *ov] for s in range(a.seeds)}
    arms = ablation_arms(a)
    if "rl-only" in arms:
        runs |= {f"rl-only-seed{s}": [f"run.seed={SEED0 + s}", *ov, "update.warm_start=false"] for s in range(a.seeds)}
    if "plain" in arms:
        # the teacher's whole part in the RL epochs: its ratio and its answers' supervised rows (a ratio
        # alone, against a teacher that scores 1.0 on every problem, is the plain reward over 1 + eps,
        # a scale the group-normalised advantage takes out)
        runs |= {f"plain-seed{s}": [f"run.seed={SEED0 + s}", *ov, "reward.kind=direct", "update.teacher_sft_coef=0"]
                 for s in range(a.seeds)}
    for name, *lever in getattr(a, "lever", None) or []:
        runs |= {f"{name}-seed{s}": [f"run.seed={SEED0 + s}", *ov, *lever] for s in range(a.seeds)}
    if not a.no_controls:
        runs["negative-control"] = [f"run.seed={SEED0}", *ov, "update.lr=0", "update.sft_lr=0"]
        # trained on the held-out problems themselves, all of them (no validation split carved from them)
        runs["positive-control"] = [f"run.seed={SEED0}", *ov, f"data.source={heldout_source(a.sets, ROOT)}",
                                    "data.validation_size=0", "eval.allow_trained=true"]
    return runs


def base_plan(a, ov: list[str]) -> dict[str, list[str]]:
    """The base model's draws: {name: overrides}, each its own eval streams (run.seed BASE_SEED0 + d)."""
    return {("base" if d == 0 else f"base-draw{d}"): [f"run.seed={BASE_SEED0 + d}", *ov] for d in range(a.base_draws)}


def sampled_eval_seeds(a, ov: list[str]) -> dict[str, int]:
    """{what: eval seed} of every sampled eval the bench runs (its streams: the seed, the problem, the
    answer's index): the base draws at epoch 0, each run's warm-start at epoch 0 and its final epoch."""
    from pipeline.stages.eval import eval_seed
    out = {}
    for name, o in base_plan(a, ov).items():
        out[name] = eval_seed(load_config(CONFIG, o), 0)
    for name, o in plan(a, ov).items():
        cfg = load_config(CONFIG, o)
        out[f"{name} epoch {final_epoch(name, a)}"] = eval_seed(cfg, final_epoch(name, a))
        if cfg.update.warm_start and not name.endswith("control"):
            out[f"{name} warm-start"] = eval_seed(cfg, 0)
    return out


def heading(a) -> str:
    """The record's heading: the command as run, every option that differs from its default."""
    sets = ",".join(a.sets)
    arms = ablation_arms(a)
    flags = [("--quick", a.quick), ("--ablation" + (f" {','.join(arms)}" if len(arms) == 1 else ""), arms),
             (f"--sets {sets}", sets != "heldout,bank,humaneval"),
             (f"--humaneval {a.humaneval}", "humaneval" in a.sets and a.humaneval != (40 if a.quick else 0)),
             (f"--tune {a.tune}", "tune" in a.sets and a.tune != 0),
             (f"--samples {a.samples}", a.samples != SAMPLES), (f"--temperature {a.temperature}", a.temperature != TEMPERATURE),
             ("--no-controls", a.no_controls and not a.quick),
             (f"--base-draws {a.base_draws}", a.base_draws != (1 if a.quick else 5)),
             *((f"--lever {' '.join(lever)}", True) for lever in a.lever),
             *((f"--evals-from {path}", True) for path in getattr(a, "evals_from", None) or []),
             (f"--config {CONFIG}", Path(CONFIG).name != "config.yaml")]
    return (f"learning: {a.seeds} seed(s) x {a.epochs} epochs, paired against the base model (bench/learning.py"
            + "".join(f" {flag}" for flag, on in flags if on) + ")")


def main(argv: list[str] | None = None) -> int:
    global ROOT, CONFIG
    a = parse(__doc__.split("\n\n")[0], argv, check=check_evals)
    if a.tables_from:
        return tables_from(a.tables_from)
    ROOT, CONFIG = Path(a.root), a.config
    if a.fresh and ROOT.exists():
        shutil.rmtree(ROOT)
    t0, times = time.time(), {}

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f}s] {msg}", flush=True)

    def timed(label: str, fn):
        t = time.time()
        out = fn()
        times[label] = times.get(label, 0.0) + time.time() - t
        return out

    # the LR schedule spans the epochs the bench trains (update.planned_epochs, 4 by default: with
    # --epochs 8 and no override, epochs 5-8 would run at lr 0); an override of it still wins
    ov = [f"update.planned_epochs={a.epochs}", *a.overrides]
    # --evals-from: saved benches' runs and base draws are paired as they were, not trained or evaluated again
    try:
        old = reusable(a.evals_from, a)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    title = heading(a)   # the command as typed; the arms tabled also take in every saved arm the files hold
    a.ablation = [k for k in ABLATION if k in ablation_arms(a)
                  or all(f"{k}-seed{s}" in old["finals"] for s in range(a.seeds))]
    runs = plan(a, ov)
    curves = {name: timed("training", lambda: train(name, o, a, log)) for name, o in runs.items()
              if name not in old["finals"]}
    log("base model: sampled evals")
    base = [old["base"][d] if d < len(old["base"]) else timed("sampled evals", lambda: sampled_eval(name, 0, o, a, log))
            for d, (name, o) in enumerate(base_plan(a, ov).items())]
    no_split = [k for k in a.sets if k != "validation"]
    finals = {name: old["finals"].get(name) or timed(
        "sampled evals", lambda: sampled_eval(name, final_epoch(name, a), o, a, log,
                                              no_split if name == "positive-control" else None))
              for name, o in runs.items()}
    warm = [old["warm"][s] if s < len(old["warm"]) else
            timed("sampled evals", lambda: sampled_eval(f"seed{s}", 0, runs[f"seed{s}"], a, log, warm_start=True))
            for s in range(a.seeds) if load_config(CONFIG, runs[f"seed{s}"]).update.warm_start]
    reused = (f" Reused from {', '.join(a.evals_from)} (--evals-from), neither trained nor evaluated again: "
              f"{min(len(old['base']), a.base_draws)} base draw(s), {len(old['warm'])} warm-start(s) and the runs "
              f"{', '.join(n for n in runs if n in old['finals'])}." if a.evals_from else "")
    evals = eval_rows(base, finals, warm)   # read once: the tables below and the saved file are the same figures
    saved = save_evals(a, title, ROOT if a.no_record else Path(__file__).resolve().parent / "learning_evals",
                       evals)
    # the default config's curves are bench/learning_curves.png; another config's carry its name
    png_name = "learning_curves.png" if Path(CONFIG).name == "config.yaml" else f"learning_curves_{Path(CONFIG).stem}.png"
    if a.evals_from:   # the curves of the runs trained here only: the full bench's stay as they were
        png_name = png_name.replace(".png", "_added.png")
    png = (ROOT / png_name) if a.no_record else Path(__file__).resolve().parent / png_name
    if curves:   # nothing trained (every run saved): no curves to draw, and the last drawing stays
        plot(curves, png)
    lines, paragraphs = tabulate(a, evals["base"], evals["finals"], evals["warm"])
    if all(f"seed{s}" in curves for s in range(a.seeds)):   # the default's runs are here (not --evals-from's)
        m, lo, hi, g = training_reward({f"seed{s}": runs[f"seed{s}"] for s in range(a.seeds)}, a.epochs)
        paragraphs.append(f"Training reward (mean over the {a.epochs} epochs' {g} groups, {a.seeds} seed(s)): "
                          f"{m:.4f} [{lo:.4f}, {hi:.4f}].")
    total = time.time() - t0
    paragraphs.append(f"Wall time {total / 60:.1f} min: " + (", ".join(f"{k} {v / 60:.1f} min" for k, v in times.items())
                                                            or "nothing trained or evaluated")
                      + f". Sampled evals: {a.samples} answers per problem at T={a.temperature}"
                      + (f"; HumanEval problems: {a.humaneval or 164}" if "humaneval" in a.sets else "")
                      + f". Overrides: {' '.join(a.overrides) or 'none'}. Curves: "
                      + (f"{png.relative_to(Path.cwd()) if png.is_relative_to(Path.cwd()) else png}." if curves else
                         "none (nothing trained here).")
                      + reused)
    shown = saved.relative_to(Path.cwd()) if saved.is_relative_to(Path.cwd()) else saved
    paragraphs.append(f"Per-problem evals: {shown} (`python bench/learning.py --tables-from {shown}` prints "
                      "these tables again, as the code then reads them).")
    last = max((len(ms) for ms in curves.values()), default=1) - 1   # a lever may train more epochs than --epochs
    curve_lines = ["| run | " + " | ".join(f"epoch {n}" for n in range(last + 1)) + " |", "|---" * (last + 2) + "|"]
    curve_lines = curve_lines if curves else []   # --evals-from held every run: no curve was trained here
    for name, ms in curves.items():   # a run trained fewer epochs (the negative control) shows - after its last
        curve_lines.append(f"| {name} reward/mean, greedy pass@1 | " + " | ".join(
            f"{m.get('reward/mean', float('nan')):.3f}, {m.get('eval/pass@1', float('nan')):.3f}" for m in ms)
            + " | -" * (last + 1 - len(ms)) + " |")
    if a.no_record:
        print("\n".join(lines + curve_lines + [""] + paragraphs))
        return 0
    record(title, lines + curve_lines, *paragraphs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
