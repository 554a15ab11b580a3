"""Training-health report: per-epoch table with trends, flags with advice, plots, samples, status.

`write_report` reads every epoch's `metrics.json`, runs the health checks (`analyse`, in
pipeline/metrics/flags.py, reading the metric table of pipeline/metrics/doc.py) and writes `runs/<run>/report.md`
with the metrics table (table.py), matplotlib plots in `runs/<run>/report/` (plots.py) and the worst/best
completions of the last epoch. `samples` is the text of `rlaif samples` (`rlaif status`: status.py).

Deliberately left out: tracker logging (TensorBoard / W&B), and interactive plots.
"""
from __future__ import annotations

import datetime as dt
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.config.errors import RunError
from pipeline.metrics.flags import FLAGS, analyse
from pipeline.metrics.doc import metrics_markdown
from pipeline.report.noise import flat_settings
from pipeline.report.plots import make_plots
from pipeline.report.table import _fmt, legend, metrics_table
from pipeline.store.artifacts import read_manifest

if TYPE_CHECKING:
    from pipeline.run.runner import Runner

# -- reading a run ------------------------------------------------------------------------
def load_metrics(runner: "Runner") -> list[dict]:
    """metrics.json of every epoch that has one, in epoch order."""
    out = []
    for n in runner.epochs():
        if (m := runner.read_metrics(n)) is not None:
            m.setdefault("epoch", n)
            out.append(m)
    return out


def run_settings(runner: "Runner") -> dict[str, Any]:
    """Flat config of the run: the current config, overlaid with what the last epoch's stages used."""
    s = flat_settings(runner.cfg.model_dump())
    epochs = runner.epochs()
    if epochs:
        for m in runner.epoch_manifests(epochs[-1]).values():
            s.update(flat_settings(m.get("config", {})))
    return s


def _table_rows(d: Path, json_cols: tuple[str, ...] = ()) -> list[dict] | None:
    from pipeline.store.tables import TABLE, load_table
    return load_table(d, json_cols) if (d / TABLE).exists() else None


def epoch_completions(runner: "Runner", n: int) -> list[dict]:
    """Epoch n's student completions joined with their judge score/breakdown and reward."""
    edir = runner.epoch_dir(n)
    sample = _table_rows(edir / "sample")
    if sample is None:
        raise RunError("epoch 0 is the supervised warm-start: it samples nothing; epochs 1, 2, ... have samples"
                       if n == 0 else f"epoch {n} has no sample table in {edir / 'sample'}; run `rlaif epoch {n}` first")
    judged = {(j["problem_id"], j["sample_idx"]): j for j in _table_rows(edir / "judge", ("breakdown",)) or []}
    rewards = {(r["problem_id"], r["sample_idx"]): r for r in _table_rows(edir / "reward") or []}
    out = []
    for s in sample:
        key = (s["problem_id"], s["sample_idx"])
        j, r = judged.get(key, {}), rewards.get(key, {})
        out.append({"problem_id": s["problem_id"], "sample_idx": s["sample_idx"], "text": s.get("text", ""),
                    "finish_reason": s.get("finish_reason"), "length": s.get("length"),
                    "score": j.get("value"), "breakdown": j.get("breakdown") or {},
                    "reward": r.get("reward"), "student_score": r.get("student_score", j.get("value")),
                    # an answer the reward left out (unscored): the teacher's score from the judge table
                    "teacher_score": r["teacher_score"] if "teacher_score" in r else
                    (judged.get((s["problem_id"], -1)) or {}).get("value")})
    return out


# -- rendering ----------------------------------------------------------------------------
def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside the text (completions hold ``` fences)."""
    run = longest = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def render_completion(c: dict, max_chars: int = 2000, ratio: bool = True) -> str:
    """One completion as Markdown; `ratio`: its reward is the teacher-relative ratio (reward.kind=ratio), else the
    student's score as it is (direct: the teacher's score shown beside it, no division made)."""
    score = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    head = (f"#### {c['problem_id']} #{c['sample_idx']}: reward {score(c['reward'])} "
            + (f"(student {score(c['student_score'])} / teacher {score(c['teacher_score'])})" if ratio else
               f"(reward.kind=direct: the student's score {score(c['student_score'])}; teacher "
               f"{score(c['teacher_score'])})"))
    bd = " ".join(f"{k}={_fmt(v)}" for k, v in c["breakdown"].items()) or "(no breakdown)"
    text = c["text"] or ""
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n... ({len(c['text']) - max_chars} more characters)"
    f = _fence(text)
    return (f"{head}\n\nfinish: {c['finish_reason'] or '-'}, {_fmt(c['length'])} tokens; judge: {bd}\n\n"
            f"{f}\n{text}\n{f}\n")


def _pick(rows: list[dict], worst: int = 0, best: int = 0) -> tuple[list[dict], list[dict]]:
    """Worst first: every unscored completion (each with its judge's reason), then the lowest rewards; best
    from the rest. The scored ones each from as many prompts of the worse (better) half as there are (a
    prompt's second completion only once each of them has given one), so the view shows the failure modes,
    not one prompt's group."""
    order = sorted(rows, key=lambda c: (c["reward"] is not None, c["reward"] or 0.0))
    unscored = [c for c in order if c["reward"] is None][:worst]
    scored = [c for c in order if c["reward"] is not None]
    half = (len(scored) + 1) // 2   # spread within the worse (better) half: a good answer is never 'worst'
    lo = unscored + _spread(scored[:max(worst, half)], worst - len(unscored))
    rest = [c for c in order if not any(c is x for x in lo) and c["reward"] is not None]
    return lo, _spread(list(reversed(rest))[:max(best, half)], best)


def _spread(order: list[dict], k: int) -> list[dict]:
    """The first k of order, taking each prompt's first completion before any prompt's second."""
    count: dict[str, int] = {}
    keyed = []
    for i, c in enumerate(order):
        keyed.append((count.get(c["problem_id"], 0), i))   # (how many of its prompt came before, place)
        count[c["problem_id"]] = keyed[-1][0] + 1
    return [order[i] for _, i in sorted(keyed)[:k]]


def samples(runner: "Runner", n: int, worst: int | None = None, best: int | None = None,
            prompt: str | None = None) -> str:
    """Text for `rlaif samples N [--worst K | --best K | --prompt ID]`; none given = worst and best
    report.samples_shown each."""
    rows = epoch_completions(runner, n)
    made = ((read_manifest(runner.epoch_dir(n) / "reward") or {}).get("config") or {}).get("reward") or {}
    show = partial(render_completion, ratio=made.get("kind", "ratio") != "direct")   # as the epoch's reward was made
    rewards = [c["reward"] for c in rows if c["reward"] is not None]
    head = (f"epoch {n}: {len(rows)} completions of {len({c['problem_id'] for c in rows})} prompts; "
            f"reward mean {sum(rewards) / len(rewards):.4f}" if rewards else f"epoch {n}: {len(rows)} completions, none scored")
    parts = [head, ""]
    if prompt is not None:
        mine = [c for c in rows if c["problem_id"] == prompt]
        if not mine:
            ids = sorted({c["problem_id"] for c in rows})
            raise RunError(f"epoch {n} has no completions for prompt {prompt!r}; its prompts: {', '.join(ids)}")
        edir = runner.epoch_dir(n)
        prob = next((p["problem"] for p in _table_rows(edir / "prompts", ("problem",)) or []
                     if p["problem_id"] == prompt), None)
        if prob:
            parts += [f"### prompt {prompt}", "", prob.get("prompt", ""), ""]
        teacher = next((t for t in _table_rows(edir / "teacher") or [] if t["problem_id"] == prompt), None)
        tj = next((j for j in _table_rows(edir / "judge", ("breakdown",)) or []
                   if j["role"] == "teacher" and j["problem_id"] == prompt), None)
        if teacher is not None:
            t_score = f"{tj['value']:.3f}" if tj and tj["value"] is not None else "-"
            bd = " ".join(f"{k}={_fmt(v)}" for k, v in (tj or {}).get("breakdown", {}).items())
            f = _fence(teacher["text"])
            parts += [f"### teacher answer ({teacher.get('source', '?')}): score {t_score} {bd}", "",
                      f"{f}\n{teacher['text']}\n{f}", ""]
        parts += [f"### {len(mine)} completions", ""] + [show(c) for c in sorted(mine, key=lambda c: c["sample_idx"])]
        return "\n".join(parts)
    if worst is None and best is None:
        worst = best = runner.cfg.report.samples_shown
    lo, hi = _pick(rows, worst or 0, best or 0)
    if lo:
        parts += [f"### worst {len(lo)}", ""] + [show(c) for c in lo]
    if hi:
        parts += [f"### best {len(hi)}", ""] + [show(c) for c in hi]
    return "\n".join(parts)


def eval_samples(runner: "Runner", n: int, worst: int | None = None, best: int | None = None,
                 prompt: str | None = None) -> str:
    """Text for `rlaif samples N --eval`: the answers of epoch N's chosen policy's eval (N=0: the base model's),
    by their score, as `samples` shows training's completions."""
    from pipeline.metrics.evals import load_eval
    chosen = runner.chosen_update(n) if n else None
    if n and chosen is None:
        raise RunError(f"epoch {n} has no finished update; run `rlaif epoch {n}` first")
    found = runner.eval_of(n, chosen[1]["fingerprint"] if chosen else runner.base_policy_fp())
    if found is None:
        raise RunError(f"epoch {n} has no eval of {'its chosen policy' if n else 'the base model'}; `rlaif eval {n}` "
                       "makes one")
    rows = load_eval(found[0])
    answers = [{"problem_id": f"{r['source']}:{r['problem_id']}", "sample_idx": i, "text": t,
                "finish_reason": (r.get("finish_reasons") or [None] * len(r["texts"]))[i],
                "reward": (r.get("values") or [None] * len(r["texts"]))[i],
                "passed": (r.get("passed") or [None] * len(r["texts"]))[i]} for r in rows for i, t in enumerate(r["texts"])]
    figures = found[1].get("figures") or {}
    said = ", ".join(f"{k.removeprefix('eval/')} {v:.4f}" for k in ("eval/pass@1", "eval/score")
                     if isinstance(v := figures.get(k), (int, float)))
    parts = [f"epoch {n}'s eval ({found[0].name}, of {chosen[0].name if chosen else 'the base model'}): {len(answers)} "
             f"answers to {len(rows)} problems" + (f"; {said}" if said else ""), ""]

    def show(c: dict) -> str:
        verdict = {True: "passes its tests", False: "fails its tests"}.get(c["passed"], "no tests: the run's judge")
        text, f = c["text"] or "", _fence(c["text"] or "")
        return (f"#### {c['problem_id']} #{c['sample_idx']}: score {_fmt(c['reward'])} ({verdict})\n\n"
                f"finish: {c['finish_reason'] or '-'}\n\n{f}\n{text[:2000]}\n{f}\n")
    if prompt is not None:
        mine = [c for c in answers if prompt in (c["problem_id"], c["problem_id"].rpartition(":")[2])]
        if not mine:
            raise RunError(f"epoch {n}'s eval has no problem {prompt!r}; its problems: "
                           + ", ".join(sorted({c["problem_id"] for c in answers})[:20]))
        return "\n".join(parts + [show(c) for c in mine])
    if worst is None and best is None:
        worst = best = runner.cfg.report.samples_shown
    lo, hi = _pick(answers, worst or 0, best or 0)
    return "\n".join(parts + ([f"### worst {len(lo)}", ""] + [show(c) for c in lo] if lo else [])
                     + ([f"### best {len(hi)}", ""] + [show(c) for c in hi] if hi else []))


# -- the report ---------------------------------------------------------------------------
def _epochs(es: list[int]) -> str:
    """[1, 2, 3, 4, 7] -> 'epochs 1-4, 7'; [3] -> 'epoch 3'."""
    spans: list[list[int]] = []
    for e in sorted(set(es)):
        if spans and e == spans[-1][1] + 1:
            spans[-1][1] = e
        else:
            spans.append([e, e])
    return ("epochs " if len(set(es)) > 1 else "epoch ") + ", ".join(
        str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _grouped(flags: list) -> str:
    """'mode_collapse (epochs 1-4), loss_rising (epoch 3)': each flag once, with its epochs, first raised first."""
    by: dict[str, list[int]] = {}
    for f in sorted(flags, key=lambda f: f.epoch):
        by.setdefault(f.name, []).append(f.epoch)
    return ", ".join(f"{name} ({_epochs(es)})" for name, es in by.items())


def standing(flags: list, last: int) -> set[str]:
    """The names of the flags the last epoch raises (not as recovered): the others were seen earlier only."""
    return {f.name for f in flags if f.severity != "recovered" and f.epoch >= last}


def unfinished(runner: "Runner") -> list[int]:
    """Epochs with a directory but no metrics.json (stopped, or still running); not an epoch 0 that holds
    only `rlaif eval 0`'s eval of the base model (as `rlaif status` reads it)."""
    return [n for n in runner.epochs() if not (runner.epoch_dir(n) / "metrics.json").exists()
            and (n or any(runner.epoch_manifests(0).get(st.name) for st in runner.stages_for(0)))]


def glance(runner: "Runner", flags: list, words: dict[str, str], last: int,
           settings: dict[str, Any] | None = None) -> list[str]:
    """The report's first lines, printed by `rlaif report` too: the flags the last epoch raises apart from
    those seen earlier only (each flag once, its epochs grouped: 'epochs 1-4'), the epochs left unfinished,
    the last epoch's eval against its baseline, and what to do with the policy."""
    now = standing(flags, last)
    held = [f for f in flags if f.severity != "recovered" and f.name in now]
    gone = [f for f in flags if f.severity != "recovered" and f.name not in now]
    past = [f for f in flags if f.severity == "recovered"]
    out = [(f"health: {len(now)} flag(s): {_grouped(held)}" if now else
            "health: no flags" + (f" at epoch {last}" if gone else ""))
           + (f"; earlier, not at epoch {last}: {_grouped(gone)}" if gone else "")
           + (f"; {len({(f.name, f.epoch) for f in past})} recovered since: {_grouped(past)}" if past else "")]
    if left := unfinished(runner):
        out.append(f"{_epochs(left)}: unfinished (no metrics.json: stopped, or still running); "
                   f"`rlaif epoch {max(left)}` resumes {'it' if len(left) == 1 else 'them'}")
    elif why := runner.early_stop_reason(last + 1):   # (eval.patience)
        out.append(f"epoch {last + 1} would not start: {why}")
    e = words.get("_epoch", last)
    said = [f"{k.removeprefix('eval/')} {w}" for k in ("eval/pass@1", "eval/score", "eval/ref_nll") if (w := words.get(k))]
    from pipeline.metrics.significance import NO_VERDICT
    if said and all(w.endswith(NO_VERDICT) for w in said):   # one reason for them all: said once
        said = [f"{NO_VERDICT} ({words.get('_problems', '?')} in common; an interval needs {words.get('_needs', '?')})"]
    off = (run_settings(runner) if settings is None else settings).get("eval.sources") == []
    out.append(f"eval, epoch {e} against {words.get('_baseline', 'the first eval')}: " + ", ".join(said) if said else
               f"eval: epoch {e}'s is the only eval made this way; epoch(s) {words['_other']}'s, made otherwise, are "
               "not compared (the eval section says how to make one that is)" if "_other" in words else
               "eval: off (eval.sources=[])" if off else
               "eval: fewer than two epochs evaluated, nothing to compare (`rlaif eval 0` scores the base model)")
    chosen = runner.chosen_update(last)
    if chosen:
        out.append(f"policy: epoch {last}'s {chosen[0].name}; `rlaif export {last} OUT` writes it as a plain model "
                   "(transformers, vLLM)")
    return out


def write_report(runner: "Runner", summary: list[str] | None = None) -> Path:
    """Write runs/<run>/report.md (+ PNG plots in runs/<run>/report/); returns the report's path.
    summary: given, the report's 'at a glance' lines are put in it."""
    cfg = runner.cfg.report
    ms = [_eval_figures(runner, m) for m in load_metrics(runner)]
    settings = run_settings(runner)
    path = runner.run_dir / "report.md"
    runner.run_dir.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"# Training report: {runner.cfg.run.name}", "",
           f"Generated {now} from `{runner.run_dir}`: {len(ms)} epoch(s) with metrics.", ""]
    if not ms:
        out += ["No epoch has finished yet (no `metrics.json`); run `rlaif epoch 1`."]
        if summary is not None:
            summary.append(f"no epoch of {runner.run_dir} has finished yet: the report says only that; "
                           "`rlaif status` shows how far each epoch got")
        _write(path, "\n".join(out) + "\n")
        return path
    keys = ("student.model", "teacher.kind", "judge.kind", "sample.num_samples", "sample.temperature",
            "sample.max_new_tokens", "update.lr", "update.kl_coef", "select.top_k")
    out += ["Settings (last epoch): " + ", ".join(f"`{k}={settings[k]}`" for k in keys if k in settings), ""]
    chosen = [(m["epoch"], c[0].name) for m in ms if (c := runner.chosen_update(m["epoch"]))]  # as status says
    if chosen:
        out += ["Chosen policies: " + ", ".join(f"{e}: `{v}`" for e, v in chosen), ""]
        lineage = runner.other_parents()
        out += [f"Lineage: {x}." for x in lineage] + ([""] if lineage else [])
    from pipeline.stages.spend import spent_usd
    out += [f"Money spent so far: ${spent_usd(runner.run_dir):.4f} (every paid API call, `spend.jsonl`).", ""]

    from pipeline.report.noise import change_intervals, eval_changes, reward_trend
    change_intervals(runner, ms)
    flags = analyse(ms, cfg, settings)
    order = [st.name for st in runner.stages]
    out += ["## Health", ""]
    if not flags:
        out += ["No flags: every check passed (thresholds: `report.*` in the config).", ""]
    now = standing(flags, ms[-1]["epoch"])
    for f in flags:   # (each epoch's entry; one the last epoch no longer raises says so)
        gone = "" if f.severity == "recovered" or f.name in now else f" (not raised at epoch {ms[-1]['epoch']}, the last)"
        out += [f"- **{f.severity}**, epoch {f.epoch}, `{f.name}`{gone}: {f.evidence}.  ", f"  Advice: {f.advice}.", ""]

    changes, words = eval_changes(runner)
    if changes:
        out += ["## Eval: signal or noise", "", "Each epoch's eval against the run's first (the base model's, epoch 0, where `rlaif eval 0` made "
                "one), problem by problem, with "
                "the 95% interval of the paired difference (`rlaif compare-evals`): a change whose "
                "interval holds 0 is within noise, whichever way it points.", "", *changes, ""]
    at = glance(runner, flags, words, ms[-1]["epoch"], settings)
    if summary is not None:
        summary += at
    out[out.index("## Health"):out.index("## Health")] = ["## At a glance", "", *[f"- {x}" for x in at], ""]
    reward_lines, reward_words = reward_trend(runner, ms, settings.get("data.pool_size") or 0)
    out += ["## Metrics per epoch", "", legend(ms), "", *[x for line in reward_lines for x in (line, "")],
            metrics_table(ms, stage_order=order, words={**reward_words, **words}), ""]

    plots = make_plots(ms, runner.run_dir / "report", cfg, order)
    if plots:
        out += ["## Plots", ""]
        out += [f"![{title}]({p.relative_to(runner.run_dir).as_posix()})\n" for title, p in plots]

    last = ms[-1]["epoch"]
    try:
        text = samples(runner, last, worst=cfg.samples_shown, best=cfg.samples_shown) if cfg.samples_shown else ""
    except RunError as e:
        text = f"(no samples: {e})"
    if text:
        out += [f"## Completions of epoch {last}", "", f"`rlaif samples {last} --worst K | --best K | --prompt ID` "
                "shows more.", "", text, ""]

    out += ["## Metric glossary", "", metrics_markdown(), "", "### Flags", ""]
    out += [f"- `{name}`: {rule}" for name, rule in FLAGS.items()]
    _write(path, "\n".join(out) + "\n")
    return path


def _eval_figures(runner: "Runner", m: dict) -> dict:
    """An epoch's metrics with the eval/* figures of the eval the report's intervals read (the one this
    config asks for, e.g. `rlaif report eval.num_samples=8 ...`, else the loop's), not whichever eval
    metrics.json was written with: the table and the intervals then speak of one eval."""
    ev = (runner.epoch_manifests(int(m["epoch"])).get("eval") or {}).get("figures")
    if not ev:
        return m
    return {**{k: v for k, v in m.items() if not k.startswith("eval/")},
            **{k: v for k, v in ev.items() if k.startswith("eval/")}}


def _write(path: Path, text: str) -> None:
    """Atomic: a reader never sees half a report."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
