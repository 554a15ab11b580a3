"""How hard is a prompt for the current student? One number in [0, 1] (1 = hardest).

Three sources, from weakest to strongest evidence:

1. the dataset tier (easy / medium / hard): a label someone wrote, about humans or another model;
2. the teacher's score on its own answer: a teacher that fails the judge marks a prompt that is
   hard (or badly specified), whatever its tier says; a teacher that succeeds is the normal case
   and says little, so it never makes a prompt easier;
3. the student's recent success (its mean judge score on the prompt, averaged over the last
   `window` epochs in which the prompt was drawn): direct evidence about *this* policy, so it
   dominates as soon as there is any.

Pure functions; the pipeline gathers teacher scores and per-epoch student means
(pipeline/store/history.py).
"""
from __future__ import annotations

import statistics

TIER_PRIOR = {"easy": 0.25, "medium": 0.5, "hard": 0.75}
"""Difficulty before any score is seen: the tiers spread evenly, away from the extremes."""

TEACHER_WEIGHT = 0.5
"""How far a fully failing teacher (score 0) moves the prior towards 1: a medium prompt whose
teacher scores 0 becomes 0.75 (as hard as a `hard` one)."""

PRIOR_EPOCHS = 0.25
"""What the prior (tier + teacher) is worth, in epochs of observed student scores. One epoch of
history already weighs 0.8 against it; three weigh 0.92. Each epoch's mean is over K samples,
so it is fairly informative, and it is about the policy we actually train."""


def success(student_history: list[float | None], window: int) -> float | None:
    """Mean of the last `window` per-epoch student mean scores (oldest first); None with no history.

    `None` entries (a group the judge could not score) are skipped, not read as 0.
    """
    if window < 1:
        raise ValueError(f"curriculum.history_window must be >= 1 (got {window})")
    recent = [s for s in student_history if s is not None][-window:]
    return statistics.fmean(recent) if recent else None


def estimate(tier: str, teacher_score: float | None, student_history: list[float | None], window: int) -> float:
    """Difficulty in [0, 1] of one prompt for the current student (1 = hardest).

        prior = TIER_PRIOR[tier]
        prior += TEACHER_WEIGHT * (1 - teacher) * (1 - prior)         # teacher known
        d = (PRIOR_EPOCHS * prior + n * (1 - s)) / (PRIOR_EPOCHS + n) # n epochs of history, mean s

    The last line is a pseudo-count average (the prior counts as PRIOR_EPOCHS observations), so
    the student's own success takes over as history accumulates while a single noisy epoch does
    not erase the prior entirely.
    """
    if tier not in TIER_PRIOR:
        raise ValueError(f"unknown difficulty tier {tier!r}; expected one of {sorted(TIER_PRIOR)} "
                         "(set it in the data, or map a source column to `difficulty` with data.mapping)")
    prior = TIER_PRIOR[tier]
    if teacher_score is not None:
        teacher = min(max(teacher_score, 0.0), 1.0)
        prior += TEACHER_WEIGHT * (1.0 - teacher) * (1.0 - prior)
    s = success(student_history, window)
    if s is None:
        return prior
    n = min(sum(x is not None for x in student_history), window)
    s = min(max(s, 0.0), 1.0)
    return (PRIOR_EPOCHS * prior + n * (1.0 - s)) / (PRIOR_EPOCHS + n)
