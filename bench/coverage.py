"""How often does the learning bench's interval for a paired-by-seed difference (RL's increment: each
seed's default against its own warm-start) miss the truth? A simulation of the held-out set's shape.

    python bench/coverage.py [--seeds 3] [--reps 1000] [--problems 188] [--against base] [--record]

Each repetition draws S seeds: a warm-start per seed (its own luck, SD 0.3 on the logit scale, on
every problem) and its RL (the same luck plus the RL's own, SD `inc`, and each problem's own RL
effect, SD `problem`, shared by the seeds), each evaluated with 8 answers per problem at per-problem
rates like the held-out set's (45% never solved, the rest uniform on 0.05-0.7; `draw` adds a shift
per eval). The truth is the expected difference over all of that luck (Monte Carlo, 4,000 draws). For
each configuration it prints how often each interval excludes the truth and its mean width:
- "random effects": the paired t over problems plus the seeds' own variance, estimated on the S seeds
  and cut to 0 when negative, with Satterthwaite's degrees of freedom (the bench's interval before
  the floor below);
- "seeds' t": Student's t over the S seeds' mean differences (S - 1 degrees of freedom), which ignores
  which problems were drawn;
- "the bench's": `pipeline.metrics.significance.recipe_interval`, the wider of the two.
With `--against base`, the seeds' final policies against the base model's 5 draws instead (the bench's
"the default - base" rows): each seed's policy is the base moved by a lift (0.3 on the logit scale)
plus its own luck (SD `inc`) and each problem's own effect; each draw is the base with its own
shift (SD `draw`); "random effects": the paired t plus the base draws' and the seeds' variances;
"seeds' t": Welch's over the seeds' and the draws' means. The 95% level; a miss rate's own standard
error at 1,000 repetitions is about 0.7 points.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402
from pipeline.metrics.significance import compare, recipe_interval  # noqa: E402

# (RL's own luck SD, each problem's RL effect SD, a draw's shift SD), on the logit scale
CONFIGS = [(0.0, 0.0, 0.0), (0.0, 0.3, 0.0), (0.1, 0.3, 0.0), (0.2, 0.3, 0.0), (0.3, 0.3, 0.0), (0.2, 0.6, 0.05),
           (0.0, 0.6, 0.05)]
LUCK = 0.3      # each seed's warm-start luck, shared by its RL


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def evals(rng, logit, shifts, draw_sd):
    """One eval per shift: 8 answers per problem at the problem's rate moved by the shift and a draw's."""
    return [{f"p{i}": v for i, v in enumerate(rng.binomial(8, sigmoid(logit + s + rng.normal(0, draw_sd))) / 8)}
            for s in shifts]


def random_effects_alone(p, diffs, seeds: int) -> tuple[float, float]:
    """The paired t plus the seeds' variance (cut to 0 when negative), Satterthwaite's degrees of freedom:
    `with_effects` without the seeds' floor."""
    from pipeline.metrics.significance import draw_variance, with_effects
    return with_effects(p, [(draw_variance(diffs), 1 / seeds)]).ci


def seeds_t(diffs) -> tuple[float, float]:
    from scipy import stats
    m = np.array([np.mean(list(d.values())) for d in diffs])
    half = stats.t.ppf(0.975, len(m) - 1) * m.std(ddof=1) / math.sqrt(len(m))
    return m.mean() - half, m.mean() + half


def random_effects_against_base(p, draws, runs) -> tuple[float, float]:
    """The paired t plus the base draws' and the seeds' variances, each cut to 0 when negative."""
    from pipeline.metrics.significance import draw_variance, with_effects
    base, own = draw_variance(draws), draw_variance(runs)
    return with_effects(p, [(base, 1 / len(draws)), (own, 1 / len(runs))]).ci


def welch_means(draws, runs) -> tuple[float, float]:
    """Welch's t over the runs' means against the draws' means."""
    from scipy import stats
    a, b = (np.array([np.mean(list(d.values())) for d in x]) for x in (draws, runs))
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    return b.mean() - a.mean() - half, b.mean() - a.mean() + half


def simulate_against_base(seeds: int, inc: float, problem: float, draw: float, reps: int, problems: int,
                          seed: int = 0, draws: int = 5, lift: float = 0.3):
    """(truth, misses, mean widths) of the three intervals, the seeds against the base's draws."""
    rng = np.random.default_rng(seed)
    never = int(0.45 * problems)
    rates = np.r_[np.full(never, 1e-4), rng.uniform(0.05, 0.7, problems - never)]
    logit = np.log(rates / (1 - rates))
    big = 4000
    truth = float((sigmoid(logit + lift + rng.normal(0, problem, (big, problems)) + rng.normal(0, inc, (big, 1))
                           + rng.normal(0, draw, (big, 1)))
                   - sigmoid(logit + rng.normal(0, draw, (big, 1)))).mean())
    miss, width = np.zeros(3), np.zeros(3)
    for _ in range(reps):
        base = evals(rng, logit, np.zeros(draws), draw)
        runs = evals(rng, logit + lift + rng.normal(0, problem, problems), rng.normal(0, inc, seeds), draw)
        mean = {k: float(np.mean([d[k] for d in base])) for k in base[0]}
        p = compare([mean], runs)
        for i, (lo, hi) in enumerate([random_effects_against_base(p, base, runs), welch_means(base, runs),
                                      recipe_interval(p, base, [mean], runs).ci]):
            miss[i] += not lo <= truth <= hi
            width[i] += hi - lo
    return truth, miss / reps, width / reps


def simulate(seeds: int, inc: float, problem: float, draw: float, reps: int, problems: int, seed: int = 0):
    """(truth, misses, mean widths) of the three intervals, in the order above."""
    rng = np.random.default_rng(seed)
    never = int(0.45 * problems)
    rates = np.r_[np.full(never, 1e-4), rng.uniform(0.05, 0.7, problems - never)]
    logit = np.log(rates / (1 - rates))
    big = 4000
    luck = rng.normal(0, LUCK, (big, 1))
    truth = float((sigmoid(logit + luck + rng.normal(0, problem, (big, problems)) + rng.normal(0, inc, (big, 1))
                           + rng.normal(0, draw, (big, 1)))
                   - sigmoid(logit + luck + rng.normal(0, draw, (big, 1)))).mean())
    miss, width = np.zeros(3), np.zeros(3)
    for _ in range(reps):
        lk = rng.normal(0, LUCK, seeds)
        warm = evals(rng, logit, lk, draw)
        rl = evals(rng, logit + rng.normal(0, problem, problems), lk + rng.normal(0, inc, seeds), draw)
        p = compare(warm, rl)
        diffs = [{k: b[k] - a[k] for k in a} for a, b in zip(warm, rl)]
        for i, (lo, hi) in enumerate([random_effects_alone(p, diffs, seeds), seeds_t(diffs),
                                      recipe_interval(p, warm, warm, rl, paired=True).ci]):
            miss[i] += not lo <= truth <= hi
            width[i] += hi - lo
    return truth, miss / reps, width / reps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="trained seeds per repetition (3 or more)")
    ap.add_argument("--reps", type=int, default=1000, help="repetitions per configuration")
    ap.add_argument("--problems", type=int, default=188, help="problems per eval")
    ap.add_argument("--against", choices=("warm-start", "base"), default="warm-start",
                    help="warm-start: each seed's RL against its own warm-start, paired by seed (RL's increment); "
                         "base: the seeds against the base model's 5 draws")
    ap.add_argument("--record", action="store_true", help="append the table to bench/RESULTS.md")
    a = ap.parse_args(argv)
    if a.seeds < 3:
        ap.error("--seeds: 3 or more (with fewer the bench measures no seed variance)")
    if a.reps < 1 or a.problems < 5:
        ap.error("--reps: 1 or more; --problems: 5 or more")
    lines = ["| RL's luck SD | problem effect SD | draw SD | truth | random effects: missed, width | seeds' t: "
             "missed, width | the bench's: missed, width |", "|---|---|---|---|---|---|---|"]
    sim = simulate if a.against == "warm-start" else simulate_against_base
    if a.against == "base":
        lines[0] = lines[0].replace("RL's luck SD", "a seed's luck SD")
    print("\n".join(lines), flush=True)
    for inc, problem, draw in CONFIGS:
        truth, miss, width = sim(a.seeds, inc, problem, draw, a.reps, a.problems)
        cells = " | ".join(f"{100 * m:.1f}%, {w:.4f}" for m, w in zip(miss, width))
        lines.append(f"| {inc} | {problem} | {draw} | {truth:+.4f} | {cells} |")
        print(lines[-1], flush=True)
    said = (f"{a.seeds} seeds, {a.problems} problems (45% never solved), 8 answers each, {a.reps} repetitions "
            "per row, 95% intervals; 'missed': the share of repetitions whose interval excludes the truth.")
    if a.against == "base":
        said += " The seeds against the base model's 5 draws, a lift of 0.3 on the logit scale."
    if a.record:
        what = "a paired-by-seed interval" if a.against == "warm-start" else "the seeds against the base's draws"
        record(f"coverage: {what} over {a.seeds} seeds (bench/coverage.py)", lines, said)
    else:
        print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
