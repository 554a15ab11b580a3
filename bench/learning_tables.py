"""bench/learning.py's reading of finished evals: the paired comparisons (every interval about the
recipe: significance.recipe_interval), their tables, the recipe's parts and the learning curves."""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path

from bench.learning_args import ablation_arms
from pipeline.metrics.ratio import share_interval
from pipeline.metrics.significance import compare, prob_improvement, recipe_interval
from pipeline.metrics.evals import OCAML_PARTS, load_eval, mean_draws, per_problem

PYTHON_HELDOUT = ("heldout", "bank")  # the held-out Python sets, reported also as one (188 problems)
METRICS = (("pass@1", True), ("score", True), ("ref_nll", False))
# per set, the execution judge's parts reported beside them (the eval table's <part>_ok: the share
# of a problem's answers with full credit): OCaml's well-formed answers and those that type-check
PARTS = {"ocaml": OCAML_PARTS}
VERDICT = {1: "learned", 0: "no measurable change", -1: "worse"}
HELDOUT = (*PYTHON_HELDOUT, "ocaml")  # the held-out sets: what the positive control trains on
ARMS = {"warm-start": "the warm-start alone (epoch 0's policy)", "default": "the default (warm-start + RL)",
        "rl-only": "RL without the warm-start (update.warm_start=false)",
        "plain": "the plain reward, no teacher in RL (reward.kind=direct, update.teacher_sft_coef=0: TRL's)"}



def _evals(sides: list[list[dict[str, Path]]]) -> dict[str, list[list]]:
    """{set: per side, per run, its eval rows} for the sets every run of every side has; with both
    held-out Python sets, also `heldout+bank`: their problems as one set (the held-out set, 188)."""
    evals: dict[str, list[list]] = {}
    for key in sides[0][0]:
        if not all(key in run for side in sides for run in side):
            continue  # a set some runs were not evaluated on (the positive control has no validation split)
        evals[key] = [[run[key] if isinstance(run[key], list) else load_eval(run[key]) for run in side]
                      for side in sides]   # an eval directory, or its rows (bench/learning.py --tables-from)
    if all(k in evals for k in PYTHON_HELDOUT):  # per_problem's keys carry the source: the sets never collide
        evals["+".join(PYTHON_HELDOUT)] = [[[r for k in PYTHON_HELDOUT for r in evals[k][s][i]]
                                            for i in range(len(side))] for s, side in enumerate(sides)]
    return evals


def comparisons(base: dict[str, Path] | list[dict[str, Path]], trained: list[dict[str, Path]],
                confidence: float = 0.95, against: list[dict[str, Path]] | None = None) -> dict[str, dict]:
    """{set: {metric: Paired}} of the trained runs (seeds) against the base model (one eval, or
    several draws: averaged per problem), or, with `against`, against those runs paired by seed (the
    same seeds' warm-starts, say). The interval is about the recipe (significance.recipe_interval):
    the base draws' shift and, with 3 seeds or more, the seeds' own."""
    draws = [base] if isinstance(base, dict) else list(base)
    sides = [draws, trained] + ([against] if against is not None else [])
    out: dict[str, dict] = {}
    for key, ev in _evals(sides).items():
        out[key] = {}
        for m, hi in (*METRICS, *PARTS.get(key, ())):
            if not per_problem(ev[0][0], m):
                continue
            draws_m = [per_problem(x, m) for x in ev[0]]
            b = [per_problem(x, m) for x in ev[1]]
            a = [mean_draws(draws_m)] if against is None else [per_problem(x, m) for x in ev[2]]
            p = recipe_interval(compare(a, b, m, hi, confidence), draws_m, a, b, paired=against is not None)
            if against is None and len(draws_m) > 1:   # each seed against each draw, not the draws' mean
                p = dataclasses.replace(p, prob_improvement=prob_improvement(draws_m, b, hi))
            out[key][m] = p
    return out


def table(title: str, comp: dict[str, dict], word=VERDICT) -> list[str]:
    level = next((f"{100 * p.confidence:g}%" for ms in comp.values() for p in ms.values()), "95%")
    lines = [f"**{title}**", "", f"| set | metric | base [{level}] | trained [{level}] | paired diff [{level}] | "
             "P(improve) | won/lost/tied | verdict |", "|---|---|---|---|---|---|---|---|"]
    for key, ms in comp.items():
        for m, p in ms.items():
            lines.append(f"| {key} ({p.problems} problems, {p.runs} seed(s)) | {m} | {p.mean_a:.4f} "
                         f"[{p.ci_a[0]:.4f}, {p.ci_a[1]:.4f}] | {p.mean_b:.4f} [{p.ci_b[0]:.4f}, {p.ci_b[1]:.4f}] | "
                         f"{p.diff:+.4f} [{p.ci[0]:+.4f}, {p.ci[1]:+.4f}] | {p.prob_improvement:.2f} | "
                         f"{p.won}/{p.lost}/{p.tied} | {word[p.sign]} |")
    return lines + [""]


def arms_table(base, arms: dict[str, list[dict[str, Path]]], positive_run: dict[str, Path] | None,
               levers: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
    """The recipe's parts: each arm against the base, RL's increment (the default against its seeds'
    warm-starts), the teacher's part in RL (against the plain reward) and the warm-start's part (against
    RL without it), paired by seed; each lever
    ({name: its overrides}, an arm of `arms` too) against the default, paired by seed; the table and
    its sentences; with the positive control's run ({set: eval}), the default's share of its gain."""
    levers = levers or {}
    positive = comparisons(base, [positive_run]) if positive_run else None
    named = ARMS | {k: f"lever {k} ({v})" for k, v in levers.items()}
    rows = {f"{named[k]} - base": comparisons(base, v) for k, v in arms.items()}
    if "warm-start" in arms:
        rows["RL's increment: default - warm-start alone"] = comparisons(base, arms["default"], against=arms["warm-start"])
    if "plain" in arms:
        rows["the teacher's part in RL: default - plain reward"] = comparisons(base, arms["default"], against=arms["plain"])
    if "rl-only" in arms:   # what the warm-start adds before the same RL epochs
        rows["the warm-start's part: default - RL without it"] = comparisons(base, arms["default"], against=arms["rl-only"])
    judged = set()   # the lever rows said on every set: a lever is judged on the tuning sets
    for k in levers:
        judged.add(f"lever {k}: {k} - default")
        rows[f"lever {k}: {k} - default"] = comparisons(base, arms[k], against=arms["default"])
        if "warm-start" in arms:  # its RL's increment (over the default's warm-start: the lever's own unless it changes it)
            judged.add(f"lever {k}: {k} - warm-start alone")
            rows[f"lever {k}: {k} - warm-start alone"] = comparisons(base, arms[k], against=arms["warm-start"])
    lines = ["**The recipe's parts** (paired by problem; every interval about the recipe: the base draws' shift "
             "and, with 3 seeds or more, the seeds' own)", "",
             "| comparison | set | pass@1 [95%] | score [95%] | ref NLL [95%] | verdict (pass@1) |", "|---|---|---|---|---|---|"]
    said = []
    for what, comp in rows.items():
        for key, ms in comp.items():
            if key in PYTHON_HELDOUT and "+".join(PYTHON_HELDOUT) in comp:   # their union is the held-out set
                continue
            cell = lambda m: (f"{ms[m].diff:+.4f} [{ms[m].ci[0]:+.4f}, {ms[m].ci[1]:+.4f}]" if m in ms else "-")  # noqa: E731
            lines.append(f"| {what} | {key} ({ms['pass@1'].problems}) | {cell('pass@1')} | {cell('score')} | "
                         f"{cell('ref_nll')} | {VERDICT[ms['pass@1'].sign]} |")
        if what in judged:
            said += [f"{what}, {key} pass@1: {ms['pass@1'].diff:+.4f} [{ms['pass@1'].ci[0]:+.4f}, "
                     f"{ms['pass@1'].ci[1]:+.4f}] ({'beyond noise' if ms['pass@1'].sign else 'inside the noise'}"
                     f"{per_seed(ms['pass@1'])})."
                     for key, ms in comp.items() if not (key in PYTHON_HELDOUT and "+".join(PYTHON_HELDOUT) in comp)]
        held = comp.get("+".join(PYTHON_HELDOUT))
        if held and what.startswith(("RL's", "the teacher", "the warm-start's")):
            p = held["pass@1"]
            said.append(f"{what}, held-out pass@1: {p.diff:+.4f} [{p.ci[0]:+.4f}, {p.ci[1]:+.4f}] "
                        f"({'beyond noise' if p.sign else 'inside the noise'}{per_seed(p)}).")
    if positive and "default" in arms:
        mine = rows[f"{ARMS['default']} - base"]
        key = next((k for k in ("+".join(PYTHON_HELDOUT), *PYTHON_HELDOUT) if k in mine and k in positive), None)
        if key:
            d, pc = mine[key]["pass@1"].diff, positive[key]["pass@1"].diff
            if pc > 0:
                share, lo, hi = positive_share(base, arms["default"], positive_run, key)
                bounds = (f"[{lo:.0%}, {hi:.0%}]" if math.isfinite(lo) else
                          "(no bounded interval: the positive control's gain is not clear of 0)")
                said.append(f"The default reaches {share:.0%} {bounds} of the positive control's {key} pass@1 gain "
                            f"({d:+.4f} of {pc:+.4f}; Fieller's 95% interval for the ratio).")
            else:
                said.append(f"The positive control's {key} pass@1 did not rise ({pc:+.4f}): no share of it to report.")
    return lines + [""], said


def per_seed(p) -> str:
    """'; per seed +0.0210, +0.0351, +0.0384': each seed's own difference, with 2 seeds or more."""
    return f"; per seed {', '.join(f'{x:+.4f}' for x in p.per_run)}" if len(p.per_run) > 1 else ""


def positive_share(base, trained: list[dict[str, Path]], positive_run: dict[str, Path], key: str,
                   metric: str = "pass@1") -> tuple[float, float, float]:
    """(share, low, high): the trained runs' gain over the base on set `key` as a share of the positive
    control's, with its interval (pipeline.metrics.ratio.share_interval: Fieller's, the same random effects)."""
    draws = [base] if isinstance(base, dict) else list(base)
    ev = _evals([draws, trained, [positive_run]])[key]
    return share_interval(*([per_problem(x, metric) for x in side] for side in ev))


def plot(curves: dict[str, list[dict]], path: Path) -> None:
    """Per-seed learning curves: training reward/mean and the greedy eval pass@1, per epoch."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for name, ms in curves.items():
        style = "--" if name.startswith(("negative", "positive")) else "-"
        for ax, key in zip(axes, ("reward/mean", "eval/pass@1")):
            pts = [(m["epoch"], m[key]) for m in ms if isinstance(m.get(key), (int, float))]
            ax.plot([e for e, _ in pts], [v for _, v in pts], style, marker="o", label=name)
    axes[0].set_title("training reward/mean")
    axes[1].set_title("held-out pass@1 (greedy, each epoch)")
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def tabulate(a, base: list, finals: dict, warm: list) -> tuple[list[str], list[str]]:
    """The bench's tables and sentences from its sampled evals: the base's draws, each run's final eval
    and each seed's warm-start's, every one {set: its eval directory, or its rows (`--tables-from`)}."""
    seeds = [finals[f"seed{s}"] for s in range(a.seeds)]
    learned = comparisons(base, seeds)
    arms = {"warm-start": warm, "default": seeds} if warm else {"default": seeds}
    arms |= {k: [finals[f"{k}-seed{s}"] for s in range(a.seeds)] for k in ablation_arms(a)}
    arms |= {name: [finals[f"{name}-seed{s}"] for s in range(a.seeds)] for name, *_ in a.lever}
    lines = table(f"Trained ({a.seeds} seed(s), {a.epochs} epochs) against the base model ({len(base)} draw(s))",
                  learned)
    paragraphs, pos = [], None
    for key, ms in learned.items():
        p = ms["pass@1"]
        paragraphs.append(f"{key}: sampled pass@1 {p.mean_a:.4f} -> {p.mean_b:.4f}, paired {p.diff:+.4f} "
                          f"[{p.ci[0]:+.4f}, {p.ci[1]:+.4f}]: **{VERDICT[p.sign]}**.")
    if not a.no_controls:
        # the negative control is judged on pass@1, score (and a set's parts: OCaml's well-formed and
        # type-checking shares) of every set at once: Bonferroni, so a sound bench says "broken" 5% of
        # the time, not 1 - 0.95^checks
        checks = sum(2 + len(PARTS.get(k, ())) for k in a.sets) + 2 * all(k in a.sets for k in PYTHON_HELDOUT)
        neg = comparisons(base, [finals["negative-control"]], 1 - 0.05 / checks)
        pos = comparisons(base, [finals["positive-control"]])
        lines += table(f"Negative control (update.lr=0, update.sft_lr=0; the first seed, 1 epoch): must hold 0 ("
                       f"{100 * (1 - 0.05 / checks):.2f}% intervals: Bonferroni over {checks} checks)", neg,
                       {1: "moved (bench broken)", 0: "holds 0 (ok)", -1: "moved (bench broken)"})
        lines += table("Positive control (trained on the held-out problems; the first seed): must move", pos,
                       {1: "moved (ok)", 0: "did not move", -1: "worse"})
        broken = [f"{k} {m}" for k, ms in neg.items() for m, p in ms.items() if m != "ref_nll" and p.sign != 0]
        paragraphs.append("**bench broken**: the negative control moved (" + ", ".join(broken) + ")" if broken
                          else "Negative control: every interval holds 0 (the noise floor).")
        held = next((k for k in ("+".join(PYTHON_HELDOUT), *HELDOUT) if k in pos), None)
        if held:
            p = pos[held]["pass@1"]
            # a student that passes nothing even at its ceiling (OCaml here) shows learning elsewhere
            better = [m for m, q in pos[held].items() if m != "pass@1" and q.sign > 0]
            verdict = ("moved" if p.sign > 0 else
                       ("did not move; it moved " + ", ".join(better)) if better else
                       "did NOT move: the bench cannot see learning")
            paragraphs.append(f"Positive control, {held} pass@1: {p.diff:+.4f} [{p.ci[0]:+.4f}, {p.ci[1]:+.4f}]"
                              f" ({verdict}).")
    arm_lines, arm_said = arms_table(base, arms, None if a.no_controls else finals["positive-control"],
                                     {name: " ".join(lever) for name, *lever in a.lever})
    lines += arm_lines
    paragraphs += arm_said
    return lines, paragraphs


EVAL_KEYS = ("source", "problem_id", "n", "correct", "pass@1", "score", "ref_nll", *(m for m, _ in
                                                                                   PARTS.get("ocaml", ())))
ARCHIVED = ("seeds", "epochs", "sets", "no_controls", "ablation", "lever", "samples", "temperature", "humaneval",
            "tune", "overrides", "config")
# what a bench's evals must share with a saved bench's to be paired with them (--evals-from)
MATCHED = ("epochs", "samples", "temperature", "overrides", "config")


def eval_rows(base: list, finals: dict, warm: list) -> dict:
    """The bench's sampled evals ({set: eval directory} each) read once, each eval's per-problem rows
    kept to the fields the tables read: {"base": [...], "finals": {run: ...}, "warm": [...]}."""
    rows = lambda ev: {k: [{f: r[f] for f in EVAL_KEYS if f in r} for r in (d if isinstance(d, list) else load_eval(d))]  # noqa: E731
                       for k, d in ev.items()}   # an eval directory, or rows already read (--evals-from)
    return {"base": [rows(e) for e in base], "finals": {name: rows(e) for name, e in finals.items()},
            "warm": [rows(e) for e in warm]}


def save_evals(a, heading: str, folder: Path, evals: dict) -> Path:
    """The bench's evals (`eval_rows`) in one gzipped JSON in `folder` (<UTC time>.json.gz:
    bench/learning_evals beside the record; with --no-record, --root): `--tables-from` reads them
    back into the same tables, so a change to how they are read needs no rerun."""
    import gzip
    out = {"heading": heading, "args": {k: getattr(a, k) for k in ARCHIVED}, **evals}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{time.strftime('%Y-%m-%d-%H%M', time.gmtime())}.json.gz"
    path.write_bytes(gzip.compress(json.dumps(out, separators=(",", ":")).encode(), mtime=0))
    return path


def load_saved(path: str, option: str = "--tables-from") -> dict:
    """A saved bench (`save_evals`): {"heading", "args", "base", "finals", "warm"}; ValueError saying what
    to give when the file is not one."""
    import gzip
    try:
        saved = json.loads(gzip.decompress(Path(path).read_bytes()))
        # a file saved before overrides and config were kept had neither (its record's "Overrides:" says which)
        saved["args"] = {"overrides": [], "config": "config.yaml", **saved["args"]}
        for k in ("heading", "base", "finals", "warm"):
            saved[k]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{option} {path}: not a saved bench's evals ({type(e).__name__}: {e}); give a "
                         "bench/learning_evals/*.json.gz file") from None
    return saved


def reusable(paths: list[str], a) -> dict:
    """--evals-from: the saved benches' evals this bench pairs with its own ({"base": [...], "finals": {run:
    ...}, "warm": [...]}, each eval its rows per set of a.sets: the first file's base draws and warm-starts
    (or the first that has them), every file's runs, an earlier file's where two hold one), once each
    file's settings are this bench's; ValueError naming the first that differs."""
    out: dict = {"base": [], "finals": {}, "warm": []}
    for path in paths:
        one = _reusable(path, a)
        out["base"] = out["base"] or one["base"]
        out["warm"] = out["warm"] or one["warm"]
        out["finals"] = {**one["finals"], **out["finals"]}
    return out


def _reusable(path: str, a) -> dict:
    saved = load_saved(path, "--evals-from")
    old = saved["args"]
    mine = {**vars(a), "config": Path(a.config).name}
    for k in MATCHED:
        if (old[k] if k != "config" else Path(old[k]).name) != mine[k]:
            said = {"overrides": "overrides are", "config": "config file is"}.get(k, f"--{k} is")
            raise ValueError(f"--evals-from {path}: its {said} {old[k]!r}, this bench's {mine[k]!r}: its evals "
                             "would not pair with this bench's; run with its settings, or without --evals-from")
    if missing := [k for k in a.sets if k not in old["sets"]]:
        raise ValueError(f"--evals-from {path}: it has no evals on {', '.join(missing)} (its sets: "
                         f"{','.join(old['sets'])}); give --sets among them")
    if "humaneval" in a.sets and old["humaneval"] != a.humaneval:
        raise ValueError(f"--evals-from {path}: its --humaneval is {old['humaneval']}, this bench's {a.humaneval}")
    if "tune" in a.sets and old.get("tune", a.tune) != a.tune:   # (a file saved before --tune was kept: not told)
        raise ValueError(f"--evals-from {path}: its --tune is {old['tune']}, this bench's {a.tune}")
    keep = lambda ev: {k: ev[k] for k in a.sets}  # noqa: E731
    return {"base": [keep(e) for e in saved["base"]], "finals": {n: keep(e) for n, e in saved["finals"].items()},
            "warm": [keep(e) for e in saved["warm"]][:a.seeds]}


def tables_from(path: str) -> int:
    """Print the tables of a saved bench (`save_evals`) as its code reads them today; nothing runs."""
    try:
        saved = load_saved(path)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    a, evals = argparse.Namespace(**saved["args"]), (saved["base"], saved["finals"], saved["warm"])
    lines, paragraphs = tabulate(a, *evals)
    print("\n".join([f"## {saved['heading']} (tables from {path})", "", *lines, "", *paragraphs]))
    return 0
