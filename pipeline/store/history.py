"""Per-prompt score history from earlier epochs (for the curriculum and the improvement bonus).

Past epochs are frozen, and a stage that reads history declares the previous epoch's policy
as an input: that fingerprint covers the whole lineage behind it.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from pipeline.store.artifacts import ArtifactError, corrupted_file, damage, epoch_name, read_manifest
from pipeline.store.tables import load_table


def score_history(run_dir: Path, before_epoch: int) -> tuple[dict[str, list[float]], dict[str, float | None]]:
    """(student mean score per prompt per epoch, oldest first; latest teacher score per prompt, None only
    where no epoch scored it)."""
    students: dict[str, list[float]] = defaultdict(list)
    teacher: dict[str, float | None] = {}
    for e in range(1, before_epoch):
        d = run_dir / epoch_name(e) / "reward"
        if (m := read_manifest(d)) is None:
            continue
        if (bad := corrupted_file(d, m)) is not None:   # read as it is, it would steer this epoch's prompts
            raise ArtifactError(f"epoch {e}'s reward table, which this epoch's prompts read: its {bad} "
                           f"{damage(d, bad)}; remake it with `rlaif epoch {e} --only reward --force` (from the "
                           f"judgements on disk), then rerun")
        per: dict[str, list[float]] = defaultdict(list)
        for r in load_table(d):
            if r["student_score"] is not None:
                per[r["problem_id"]].append(r["student_score"])
            if r["teacher_score"] is not None or r["problem_id"] not in teacher:   # an unscored later one keeps the known
                teacher[r["problem_id"]] = r["teacher_score"]
        for pid, xs in per.items():
            students[pid].append(statistics.fmean(xs))
    return dict(students), teacher
