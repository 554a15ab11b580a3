"""Reading a run's changes as signal or noise: the intervals `rlaif report` and `rlaif compare` print.

An epoch's eval is compared with the base model's (`rlaif eval 0`), or else with the first epoch
that has an eval, problem by problem (pipeline/metrics/significance.py): pass@1, score and ref_nll
(lower is better), over every problem and per eval source; a change whose interval holds 0 is
"within noise". The training reward's epoch-to-epoch change gets the same treatment, paired by
prompt (or Welch's interval when the epochs drew other prompts), and the reward_regression flag is
raised only when that interval lies below 0; so does each eval's change from the previous eval,
paired by problem (the eval_regression flag). The metrics table's first -> last of the reward (and of
the student's score and best-of-N) reads the same kind of interval (`reward_trend`).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.metrics.doc import as_number
from pipeline.store.artifacts import read_manifest
from pipeline.metrics.significance import MIN_VALUES, Paired, compare, resolution_advice
from pipeline.metrics.evals import (METRICS as EVAL_FIGURES, eval_mode as made_with, judged_key, load_eval, per_problem,
                                    wider_ks)

if TYPE_CHECKING:
    from pipeline.run.runner import Runner

REWARD_CI = "_reward/change_ci"  # (low, high) of reward/mean's change from the previous epoch; not shown
SAMPLED_WITH = "_sample/settings"  # the sample, judge and reward stages' settings as the epoch recorded them (flat)
FORMER_PARENT = "_lineage/former"  # the variant of epoch N-1 epoch N sampled from where not its chosen one, else None
REWARD_OTHER_PROMPTS = "_reward/other_prompts"  # the previous epoch drew other prompts: {same: the latest earlier
# epoch with these prompts and reward/mean's change on them since ({from, a, b, ci}), or None}
REWARD_FROM_BEST = "_reward/from_best"  # {from: the best earlier epoch, ci: reward/mean's change from it}
EVAL_CHANGE = "_eval/change"  # eval pass@1 and score against the previous and the first eval: [{metric, from, a, b, ci, problems}]; not shown


def eval_dir(runner: "Runner", n: int) -> Path | None:
    """The directory of epoch n's eval (of its chosen policy; n = 0: the base model's)."""
    m = runner.epoch_manifests(n).get("eval")
    return runner.epoch_dir(n) / f"eval-{m['fingerprint'][:8]}" if m else None


def eval_mode(runner: "Runner", n: int) -> tuple | None:
    """(answers a problem, temperature) of epoch n's eval, from its manifest; None where it does not say."""
    mode = made_with((runner.epoch_manifests(n).get("eval") or {}).get("config") or {})
    return None if None in mode else mode


def eval_judged(runner: "Runner", n: int) -> str:
    """Who scored epoch n's eval beyond the execution judge: the run's judge's settings (eval_judge) and its code
    (a reward function's, the rubric), as one key; evals of other keys measure on other scales."""
    return judged_key(runner.epoch_manifests(n).get("eval") or {})


def _sampled_beside(runner: "Runner", n: int) -> tuple | None:
    """(answers a problem, temperature) of a sampled eval of epoch n's chosen policy made beside the greedy
    one this report reads (`rlaif eval N eval.num_samples=8 ...`), if there is one."""
    chosen = runner.chosen_update(n)
    for d in sorted(runner.epoch_dir(n).glob("eval-*")) if chosen else []:
        m = read_manifest(d) or {}
        mode = made_with(m.get("config") or {})
        if m.get("inputs", {}).get("update") == chosen[1].get("fingerprint") and None not in mode and mode[0] > 1:
            return mode
    return None


def _said(mode: tuple) -> str:
    return "1 greedy answer" if mode[1] == 0 else f"{mode[0]} answer(s) at T={mode[1]:g}"


def _rows(d: Path | None) -> list[dict] | None:
    try:
        return load_eval(d) if d is not None else None
    except (ValueError, OSError):  # an eval of an older version (one row per answer), or none
        return None


def eval_changes(runner: "Runner") -> tuple[list[str], dict[str, str]]:
    """(lines for the report, {metric key: words} for the last epoch against the baseline): pass@1, score
    and ref_nll (lower is better) where the evals have them, over every problem and per source
    (eval/<source>/<figure>: its own interval with several sources; with one, the same figure's)."""
    evals = [(n, rows) for n in runner.epochs() if (rows := _rows(eval_dir(runner, n)))]
    lines: list[str] = []
    if evals:   # greedy and sampled pass@1 measure different things: only evals made as the last was are read
        modes = {n: eval_mode(runner, n) for n, _ in evals}
        want = modes[evals[-1][0]]
        other = [n for n, _ in evals if None not in (modes[n], want) and modes[n] != want]
        if other:
            lines.append(f"- Not compared: the eval of epoch(s) {', '.join(map(str, other))} "
                         f"({', '.join(sorted({_said(modes[n]) for n in other}))}), made otherwise than the last "
                         f"({_said(want)}); `rlaif eval N` with the same eval.num_samples and eval.temperature "
                         "makes one to compare.")
            evals = [(n, rows) for n, rows in evals if n not in other]
        judged = {n: eval_judged(runner, n) for n, _ in evals}
        if scored := [n for n, _ in evals if judged[n] != judged[evals[-1][0]]]:
            lines.append(f"- Not compared: the eval of epoch(s) {', '.join(map(str, scored))}, scored by the run's "
                         "judge with other settings or code (judge.*, a reward function's file) than the last, on "
                         "another scale; `rlaif eval N` (--force where only the code changed) scores it with this one.")
            evals = [(n, rows) for n, rows in evals if n not in scored]
            other = other + scored
    if len(evals) < 2:   # (the glance names the evals made otherwise, rather than "fewer than two")
        return lines, ({"_other": ", ".join(map(str, other)), "_epoch": evals[0][0]} if evals and other else {})
    (n0, base), last = evals[0], {}
    what = "the base model (epoch 0)" if n0 == 0 else f"epoch {n0}"
    if n0 != 0:   # a run evaluates each epoch's policy, never the model it started from
        lines.append(f"- No eval of the base model: the first here is epoch {n0}'s, already trained, so these say "
                     f"what the later epochs add to it, not what training did. `rlaif eval 0` scores the base model "
                     f"on the same problems (`rlaif eval 0 --warm-start`: the warm-start's policy), and the report then "
                     "reads every epoch against it.")
    for n, rows in evals[1:]:
        sources = sorted({r["source"] for r in base} & {r["source"] for r in rows})
        for metric, higher in EVAL_FIGURES:
            a, b = per_problem(base, metric), per_problem(rows, metric)
            try:
                p = compare([a], [b], f"eval/{metric}", higher)
            except ValueError:   # no value on a problem both evals have (an eval without ref_nll)
                continue
            lines.append(f"- epoch {n} vs {what}: {_describe(p)}")
            per = {f"eval/{sources[0]}/{metric}": p} if len(sources) == 1 else {}
            for src in sources if len(sources) > 1 else ():
                try:
                    per[f"eval/{src}/{metric}"] = q = compare([per_problem(base, metric, src)],
                                                              [per_problem(rows, metric, src)],
                                                              f"eval/{src}/{metric}", higher)
                except ValueError:
                    continue
                lines.append(f"  - {_describe(q)}")
            if n == evals[-1][0]:
                last["_baseline"] = what   # (not metrics: the report's glance names the baseline and the epoch)
                last["_epoch"] = n
                last[p.metric] = p.words()
                last.update({k: q.words() for k, q in per.items()})
                last.setdefault("_problems", str(p.problems))   # (the glance's reason where no figure has an interval)
                last["_needs"] = str(MIN_VALUES)
                if metric == "pass@1":
                    keys = sorted(set(a) & set(b))
                    advice = resolution_advice(p, [b[k] - a[k] for k in keys], min(r["n"] for r in base),
                                               [a[k] for k in keys], [b[k] for k in keys], min(r["n"] for r in rows))
                    if advice and (other := _sampled_beside(runner, n)):
                        advice += (f"; epoch {n} has one on disk ({_said(other)}): `rlaif report "
                                   f"eval.num_samples={other[0]} eval.temperature={other[1]:g}` reads it (and `rlaif eval"
                                   f" 0` with the same settings gives it a baseline)")
                    if advice:
                        lines.append(f"  - {advice[0].upper()}{advice[1:]}.")
    lines += _wider_pass(base, evals[-1], what, last)
    return lines, last


def _wider_pass(base: list[dict], last_eval: tuple[int, list[dict]], what: str, last: dict[str, str]) -> list[str]:
    """pass@k for k > 1 (a sampled eval's), the last epoch against the baseline: its interval's words for
    the metrics table, and one line (per source with several), as pass@1 gets."""
    n, rows = last_eval
    sources = sorted({r["source"] for r in base} & {r["source"] for r in rows})
    lines = []
    for k in wider_ks(base, rows):
        metric = f"pass@{k}"
        try:
            p = compare([per_problem(base, metric)], [per_problem(rows, metric)], f"eval/{metric}")
        except ValueError:
            continue
        lines.append(f"- epoch {n} vs {what}: {_describe(p)}")
        last[p.metric] = p.words()
        for src in sources:
            try:
                q = compare([per_problem(base, metric, src)], [per_problem(rows, metric, src)], f"eval/{src}/{metric}")
            except ValueError:
                continue
            last[q.metric] = q.words()
            if len(sources) > 1:
                lines.append(f"  - {_describe(q)}")
    return lines


def _describe(p: Paired) -> str:
    return (f"`{p.metric}` {p.mean_a:.4f} -> {p.mean_b:.4f}, paired {p.diff:+.4f} "
            f"{p.interval()} over {p.problems} problems (won/lost/tied {p.won}/{p.lost}/{p.tied}): "
            f"**{p.words()}**")


def change_intervals(runner: "Runner", ms: list[dict]) -> None:
    """What the flags need to tell a change from noise, put into each epoch's metrics: reward/mean's
    interval against the previous epoch (REWARD_CI, `reward_intervals`) and eval pass@1's against the
    previous eval, paired by problem (EVAL_CHANGE)."""
    reward_intervals(runner, ms)
    by_epoch = {m["epoch"]: m for m in ms}
    for n, m in by_epoch.items():   # the settings each epoch sampled, judged and rewarded with (a run may change them)
        mans = runner.epoch_manifests(n)
        m[SAMPLED_WITH] = {k: v for st in ("sample", "judge", "reward")
                           for k, v in flat_settings((mans.get(st) or {}).get("config") or {}).items()}
        m[FORMER_PARENT] = runner.former_parent(n)
    prev = first = None
    for n in runner.epochs():
        rows = _rows(eval_dir(runner, n))
        if not rows:
            continue
        mode, judged = eval_mode(runner, n), eval_judged(runner, n)
        if prev is not None and ((None not in (prev[2], mode) and prev[2] != mode) or prev[3] != judged):
            prev = first = None   # a sampled eval after greedy ones (or the reverse), or another judge: nothing to read
        if prev is not None and n in by_epoch:
            # against the previous eval, and against the run's first (a slow decline, each step inside the
            # noise, adds up to one that is not): pass@1 and the graded score (which moves where pass@1 sits at 0)
            # (score where it is not pass@1 itself, as with a judge whose every answer scores 0 or 1)
            metrics = ("pass@1",) if per_problem(rows, "score") == per_problem(rows, "pass@1") else ("pass@1", "score")
            changes = [c for earlier in ([prev] if first is prev else [prev, first]) for metric in metrics
                       if (c := _eval_change(earlier, rows, metric)) is not None]
            if changes:
                by_epoch[n][EVAL_CHANGE] = changes
        prev = (n, rows, mode, judged)
        first = first or prev


def _eval_change(earlier: tuple, rows: list[dict], metric: str) -> dict | None:
    """An eval's `metric` against an earlier eval's (epoch, rows, mode), paired by problem: {metric, from, a,
    b, ci, problems}; None without problems in common or the metric."""
    a, b = per_problem(earlier[1], metric), per_problem(rows, metric)
    try:
        p = compare([a], [b], f"eval/{metric}")
    except ValueError:   # no problem in common
        return None
    ci = p.ci if math.isfinite(p.ci[1]) else (_paired_t(a, b) or p.ci)
    return {"metric": metric, "from": earlier[0], "a": p.mean_a, "b": p.mean_b, "ci": list(ci), "problems": p.problems}


def reward_intervals(runner: "Runner", ms: list[dict]) -> None:
    """Put the interval of reward/mean's change from the previous epoch into each epoch's metrics
    (REWARD_CI): paired by prompt where both epochs scored (nearly) the same prompts (data.pool_size);
    else, as the default walks the training set and each epoch draws other prompts, Welch's interval
    over the two epochs' prompt means (their difference is mostly which prompts were drawn). Where the
    best earlier epoch is not the previous one, the change from it too (REWARD_FROM_BEST: a slow
    decline, each step inside the noise, can add up to one that is not)."""
    by_epoch = {m["epoch"]: m for m in ms}
    seen: list[tuple[int, dict[str, float], float]] = []  # (epoch, prompt means, reward/mean) of earlier epochs
    for n in sorted(by_epoch):
        means = prompt_means(runner, n)
        if not means:
            continue
        if seen:
            ci = _change_ci(seen[-1][1], means)
            if ci is not None:
                by_epoch[n][REWARD_CI] = ci
            if not _same_prompts(seen[-1][1], means):   # whether these prompts fell where an earlier epoch drew them
                same = next((x for x in reversed(seen[:-1]) if _same_prompts(x[1], means)), None)
                keys = sorted(set(same[1]) & set(means)) if same else []
                then = _change_ci(same[1], means) if same else None
                by_epoch[n][REWARD_OTHER_PROMPTS] = {"same": {
                    "from": same[0], "a": sum(same[1][k] for k in keys) / len(keys),
                    "b": sum(means[k] for k in keys) / len(keys), "ci": list(then)} if then is not None else None}
            best = max((s for s in seen if math.isfinite(s[2])), key=lambda s: s[2], default=None)   # a NaN epoch is no best
            if best is not None and best is not seen[-1] and (ci := _change_ci(best[1], means)) is not None:
                by_epoch[n][REWARD_FROM_BEST] = {"from": best[0], "ci": list(ci)}
        mean = by_epoch[n].get("reward/mean")
        seen.append((n, means, float(mean) if isinstance(mean, (int, float)) else sum(means.values()) / len(means)))


def flat_settings(d: dict, prefix: str = "") -> dict:
    """A config (or a stage manifest's) as flat keys ({"reward": {"kind": "ratio"}} -> {"reward.kind": "ratio"});
    data.mapping stays one value (its keys are your columns)."""
    out = {}
    for k, v in d.items():
        mapping = f"{prefix}{k}".endswith("mapping")
        out.update(flat_settings(v, f"{prefix}{k}.") if isinstance(v, dict) and not mapping else {f"{prefix}{k}": v})
    return out


def prompt_means(runner: "Runner", n: int, column: str = "reward", agg=None) -> dict[str, float] | None:
    """{prompt: the mean (or agg) of its completions' `column`} from epoch n's reward table; None without one."""
    from pipeline.store.tables import TABLE, load_table
    d = runner.epoch_dir(n) / "reward"
    groups: dict[str, list[float]] = {}
    for r in load_table(d) if (d / TABLE).exists() else []:
        if as_number(r.get(column)) is not None:
            groups.setdefault(r["problem_id"], []).append(float(r[column]))
    return {k: (agg(v) if agg else sum(v) / len(v)) for k, v in groups.items()} or None


def _same_prompts(prev: dict, means: dict) -> bool:
    """Both epochs scored (nearly) the same prompts (data.pool_size): their change is paired by prompt."""
    return len(set(means) & set(prev)) >= 0.9 * max(len(means), len(prev))


# the rows reward_trend reads from the reward table (prompt -> the mean, or the best, of its completions')
TREND_FIGURES = (("reward/mean", "reward", None), ("score/student_mean", "student_score", None),
                 ("reward/best_of_n", "reward", max))


def reward_trend(runner: "Runner", ms: list[dict], pool_size: int = 0) -> tuple[list[str], dict[str, str]]:
    """The training reward's first -> last change over the RL epochs (the metrics table's trend), with
    its interval: (a line for the report, {metric key: words} for the table). The epochs compared draw
    other prompts unless data.pool_size holds them: then Welch's interval over the prompt means (most of
    the change is which prompts were drawn); score/student_mean and reward/best_of_n likewise, and the
    score breakdown rows, with no interval of their own, say so instead of better/worse. pool_size: the run's
    data.pool_size, named as the reason the prompts are the same only where set (else an epoch's prompts
    cycling through a small training set)."""
    rl = [int(m["epoch"]) for m in ms if int(m["epoch"]) >= 1 and as_number(m.get("reward/mean")) is not None]
    if len(rl) < 2:
        return [], {}
    e0, e1 = rl[0], rl[-1]
    from pipeline.metrics.trends import settings_moved
    by = {int(m["epoch"]): m for m in ms}
    moved = settings_moved(by[e0], by[e1])   # another sampling, judge or reward: the change is not training's alone
    words: dict[str, str] = {}
    parts, paired, reward_sign = [], True, None
    for key, column, agg in TREND_FIGURES:
        a, b = prompt_means(runner, e0, column, agg), prompt_means(runner, e1, column, agg)
        ci = _change_ci(a, b) if a and b else None
        if ci is None:
            continue
        paired = _same_prompts(a, b)
        sign = 0 if ci[0] <= 0 <= ci[1] else 1 if ci[0] > 0 else -1
        words[key] = ({1: "better", 0: "within noise", -1: "worse"}[sign] + ("" if paired else " (other prompts)")
                      + (" (other settings)" if moved else ""))
        reward_sign = sign if key == "reward/mean" else reward_sign
        keys = sorted(set(a) & set(b)) if paired else []
        diff = (sum(b[k] - a[k] for k in keys) / len(keys) if paired
                else sum(b.values()) / len(b) - sum(a.values()) / len(a))
        parts.append(f"`{key}` {diff:+.4f} [{ci[0]:+.4f}, {ci[1]:+.4f}]: **{words[key].split(' (')[0]}**")
    if "reward/mean" not in words:
        return [], {}
    for key in sorted({k for m in ms for k in m if k.startswith("breakdown/")}):
        if not paired:
            words[key] = "other prompts"
        elif reward_sign == 0:
            words[key] = "no interval (reward/mean within noise)"
    how = (f"epochs {e0} and {e1} scored the same prompts{' (data.pool_size)' if pool_size else ''}, so each change "
           "is paired by prompt"
           if paired else f"epochs {e0} and {e1} scored different prompts (each epoch draws its own), so each "
           "change is read against the spread of the prompts' means (Welch's interval; most of it is which "
           "prompts were drawn)")
    line = (f"Training reward, epoch {e0} -> {e1}: {how}; 95% interval of the change: " + "; ".join(parts) + "."
            + ("" if paired else " The `breakdown/*` rows compare other prompts too, with no interval of their own.")
            + (f" Epoch {e1} sampled, judged or rewarded with other settings than epoch {e0} ({moved}): part of the "
               "change, or all of it, is theirs, not training's." if moved else ""))
    return [line], words


def _change_ci(prev: dict[str, float], means: dict[str, float]) -> tuple[float, float] | None:
    """The 95% interval of the change in mean reward from `prev` to `means` (prompt -> mean reward)."""
    # paired only where both epochs scored (nearly) the same prompts (data.pool_size): an interval over a
    # few shared prompts would hold 0 for any fall and hide a real regression
    if _same_prompts(prev, means):
        ci = compare([prev], [means], "reward/mean").ci
        return ci if math.isfinite(ci[1]) else (_paired_t(prev, means) or ci)
    if min(len(means), len(prev)) >= 2:
        from scipy import stats
        a, b = list(prev.values()), list(means.values())
        if len(set(a)) > 1 or len(set(b)) > 1:   # a t interval needs some spread
            ci = stats.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
            return float(ci.low), float(ci.high)
    return None


def _paired_t(a: dict[str, float], b: dict[str, float]) -> tuple[float, float] | None:
    """The plain paired t interval of b - a over their common keys, for fewer than an eval's interval asks
    for (a 4-prompt pool, a 4-problem eval): wide as its few degrees of freedom make it, rather than none
    (which hid a fall of any size). None under two keys."""
    keys = sorted(set(a) & set(b))
    if len(keys) < 2:
        return None
    d = [b[k] - a[k] for k in keys]
    if len(set(d)) == 1:
        return d[0], d[0]
    from scipy import stats
    t = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    return float(t.low), float(t.high)


def variant_lines(chosen_dir: Path | None, others: list[tuple[str, Path]]) -> list[str]:
    """`rlaif compare N`: each variant's eval against the chosen variant's, with its interval."""
    base = _rows(chosen_dir)
    if not base:
        return []
    out = []
    for name, d in others:
        rows = _rows(d)
        if not rows:
            continue
        # pass@1 where the problems have tests, else the score (the run's judge's, of problems without tests)
        metric = "pass@1" if per_problem(base, "pass@1") else "score"
        try:
            p = compare([per_problem(base, metric)], [per_problem(rows, metric)], f"eval/{metric}")
        except ValueError:
            continue
        out.append(f"  {name} vs chosen: {_describe(p).replace('**', '')}")
    return out
