"""Which prompts epoch N trains on.

none:     a seeded permutation of the training set walked epoch by epoch (what the pipeline did
          before curricula existed; kept bit for bit so default runs do not change).
linear:   easy / medium / hard shares move from `linear_start` to `linear_end` over
          `linear_epochs` (curriculum learning, Bengio et al. 2009); a bucket that runs short
          lends its places to its neighbours.
adaptive: prefer prompts whose recent student success lies in [band_low, band_high]. A prompt
          the student always solves, or never does, gives a group of K equal rewards: zero
          advantage, no gradient (the zero-variance groups GRPO drops; DAPO, Yu et al. 2025,
          samples past them for the same reason). An `explore_frac` share goes to unseen and
          out-of-band prompts so their estimates stay fresh as the policy moves.

`history[pid]` holds the student's mean score on `pid` for each epoch in which it was drawn,
oldest first (None where the judge could not score the group). Within every choice, prompts
seen least often come first, then a seeded shuffle: deterministic in (seed, epoch), and no
prompt waits long for its turn. Pure functions: the pipeline (`choose_prompts` in
pipeline/stages/problems.py) loads the scores, and the prompts stage writes the artifacts.
"""
from __future__ import annotations

import logging
import math
import random

from curriculum.buckets import BUCKETS, Bucket, assign, counts
from curriculum.difficulty import estimate, success
from data.schema import Problem
from curriculum.config import CurriculumConfig

log = logging.getLogger("rlaif")


def estimates(problems: list[Problem], history: dict[str, list[float]], teacher: dict[str, float | None],
              cfg: CurriculumConfig) -> dict[str, float]:
    """Difficulty estimate of every problem (see curriculum.difficulty.estimate)."""
    return {p.id: estimate(p.difficulty, teacher.get(p.id), history.get(p.id, []), cfg.history_window)
            for p in problems}


def schedule(problems: list[Problem], history: dict[str, list[float]], teacher: dict[str, float | None],
             epoch: int, k: int, cfg: CurriculumConfig, seed: int) -> list[str]:
    """Problem ids for epoch `epoch`: min(k, len(problems)) of them, no duplicates (fewer than k: a
    warning says so, since every epoch then trains on the same problems)."""
    if not problems:
        raise ValueError("no problems to schedule (check data.source and data.difficulties)")
    if k < 1:
        raise ValueError(f"data.prompts_per_epoch must be >= 1 (got {k})")
    ids = [p.id for p in problems]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[:5]
        raise ValueError(f"problem ids must be unique; repeated: {dup}")
    if k > len(problems):
        log.warning(f"data.prompts_per_epoch={k} but only {len(problems)} problem{'s are' if len(problems) != 1 else ' is'} left for training "
                    f"(data.source's and data.rl_sources' problems of data.difficulties, less data.validation_size): epoch {epoch} "
                    f"trains on all {len(problems)}; lower data.prompts_per_epoch to {len(problems)}, or add "
                    f"problems (more data.difficulties, a larger data.source)")
        k = len(problems)
    if cfg.strategy == "none":
        return permutation_walk(ids, epoch, k, seed)
    # sorted: the choice must not depend on the order a loader happened to return rows in
    ids = sorted(ids)
    rng = random.Random(f"curriculum:{seed}:{epoch}")
    if cfg.strategy == "linear":
        buckets = assign(estimates(problems, history, teacher, cfg), cfg)
        return _linear(ids, buckets, history, epoch, k, cfg, rng)
    return _adaptive(ids, history, k, cfg, rng)


def permutation_walk(ids: list[str], epoch: int, k: int, seed: int) -> list[str]:
    """Window [(epoch-1)*k, epoch*k) (mod n) of one seeded permutation: consecutive epochs see
    different problems, and every problem comes round once per n/k epochs."""
    order = list(range(len(ids)))
    random.Random(seed).shuffle(order)
    start = (epoch - 1) * k
    return [ids[order[(start + i) % len(ids)]] for i in range(k)]


def linear_shares(epoch: int, cfg: CurriculumConfig) -> dict[Bucket, float]:
    """Easy / medium / hard shares at `epoch`: linear_start at epoch 1, linear_end from linear_epochs on."""
    # (three non-negative shares with a positive sum: CurriculumConfig checks them when it is read)
    t = 1.0 if cfg.linear_epochs <= 1 else min(max((epoch - 1) / (cfg.linear_epochs - 1), 0.0), 1.0)
    mixed = [(1 - t) * a + t * b for a, b in zip(cfg.linear_start, cfg.linear_end)]
    total = sum(mixed)
    return {b: m / total for b, m in zip(BUCKETS, mixed)}


def quotas(shares: dict[Bucket, float], k: int) -> dict[Bucket, int]:
    """Whole prompt counts summing to k, by largest remainder (Hamilton's method).
    Equal remainders go to the harder bucket, the way the curriculum is heading."""
    raw = {b: shares[b] * k for b in BUCKETS}
    out = {b: math.floor(raw[b]) for b in BUCKETS}
    by_remainder = sorted(BUCKETS, key=lambda b: (-round(raw[b] - out[b], 9), -BUCKETS.index(b)))
    for b in by_remainder[: k - sum(out.values())]:
        out[b] += 1
    return out


def _least_seen_first(ids: list[str], history: dict[str, list[float]], rng: random.Random) -> list[str]:
    order = list(ids)
    rng.shuffle(order)
    return sorted(order, key=lambda pid: len(history.get(pid, [])))  # stable: the shuffle breaks ties


def _linear(ids: list[str], buckets: dict[str, Bucket], history: dict[str, list[float]], epoch: int, k: int,
            cfg: CurriculumConfig, rng: random.Random) -> list[str]:
    shares = linear_shares(epoch, cfg)
    want = quotas(shares, k)
    pools = {b: _least_seen_first([i for i in ids if buckets[i] == b], history, rng) for b in BUCKETS}
    take = {b: min(want[b], len(pools[b])) for b in BUCKETS}
    # a short bucket lends its places to the nearest bucket with prompts left; medium, between the
    # two, lends first to whichever neighbour the schedule favours at this epoch
    neighbours = {"easy": ("medium", "hard"), "hard": ("medium", "easy"),
                  "medium": tuple(sorted(("easy", "hard"), key=lambda b: -shares[b]))}
    shortfall = {b: want[b] - take[b] for b in BUCKETS}  # before lending changes `take`
    for b in BUCKETS:
        short = shortfall[b]
        for donor in neighbours[b]:
            extra = min(short, len(pools[donor]) - take[donor])
            take[donor] += extra
            short -= extra
    return [pid for b in BUCKETS for pid in pools[b][: take[b]]]


def _adaptive(ids: list[str], history: dict[str, list[float]], k: int, cfg: CurriculumConfig,
              rng: random.Random) -> list[str]:
    rate = {pid: success(history.get(pid, []), cfg.history_window) for pid in ids}
    in_band = {pid for pid in ids if rate[pid] is not None and cfg.band_low <= rate[pid] <= cfg.band_high}
    band = [pid for pid in ids if pid in in_band]
    unseen = [pid for pid in ids if rate[pid] is None]
    outside = [pid for pid in ids if rate[pid] is not None and pid not in in_band]
    band = _least_seen_first(band, history, rng)
    explore = _least_seen_first(unseen, history, rng) + _least_seen_first(outside, history, rng)
    # explore_frac of k (rounded half up) explores; either side that runs short is filled by the other
    n_explore = min(math.floor(cfg.explore_frac * k + 0.5), len(explore))
    n_band = min(k - n_explore, len(band))
    return band[:n_band] + explore[: k - n_band]


def figures(chosen: list[str], problems: list[Problem], history: dict[str, list[float]],
            teacher: dict[str, float | None], cfg: CurriculumConfig) -> dict[str, float]:
    """Metrics for a schedule: bucket counts of the chosen prompts and where they stand against
    the learnable band (computed for every strategy, so `none` and `adaptive` compare)."""
    diff = estimates(problems, history, teacher, cfg)
    buckets = assign(diff, cfg)
    rate = {p.id: success(history.get(p.id, []), cfg.history_window) for p in problems}

    def in_band(pid: str) -> bool:
        return rate[pid] is not None and cfg.band_low <= rate[pid] <= cfg.band_high

    return {
        **{f"curriculum/{b}": n for b, n in counts(buckets, chosen).items()},
        "curriculum/in_band": sum(in_band(pid) for pid in chosen),
        "curriculum/unseen": sum(rate[pid] is None for pid in chosen),
        "curriculum/out_of_band": sum(rate[pid] is not None and not in_band(pid) for pid in chosen),
        "curriculum/difficulty_mean": sum(diff[pid] for pid in chosen) / max(len(chosen), 1),
        # how many prompts the band holds at all: when it dries up, adaptive falls back to exploring
        "curriculum/pool_in_band": sum(in_band(p.id) for p in problems),
    }


def rows(chosen: list[str], problems: list[Problem], history: dict[str, list[float]],
         teacher: dict[str, float | None], cfg: CurriculumConfig) -> list[dict]:
    """One row per chosen prompt for the schedule artifact: why it was picked, in numbers."""
    diff = estimates(problems, history, teacher, cfg)
    buckets = assign(diff, cfg)
    tier = {p.id: p.difficulty for p in problems}
    return [{"problem_id": pid, "tier": tier[pid], "difficulty": diff[pid], "bucket": buckets[pid],
             "success": success(history.get(pid, []), cfg.history_window),
             "times_seen": len(history.get(pid, []))} for pid in chosen]
