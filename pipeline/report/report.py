"""Training-health report: per-epoch table with trends, flags with advice, plots, samples, status.

`write_report` reads every epoch's `metrics.json`, runs the health checks (`analyse`, in
pipeline/metrics/flags.py, reading the metric table of pipeline/metrics/doc.py) and writes `runs/<run>/report.md`
with the metrics table (table.py), matplotlib plots in `runs/<run>/report/` (plots.py) and the worst/best
completions of the last epoch. `samples` and `status_lines` are the text of `rlaif samples` and `rlaif
status`; status names the settings that differ from what its stale and new stages recorded.

Deliberately left out: tracker logging (TensorBoard / W&B), and interactive plots.
"""
from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.store.artifacts import read_manifest
from pipeline.config.errors import RunError
from pipeline.metrics.flags import FLAGS, analyse
from pipeline.metrics.doc import as_number, metrics_markdown
from pipeline.report.plots import make_plots
from pipeline.report.table import _fmt, legend, metrics_table
from pipeline.run.lineage import made_otherwise
from pipeline.run.freshness import older_code

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


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "mapping":
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def run_settings(runner: "Runner") -> dict[str, Any]:
    """Flat config of the run: the current config, overlaid with what the last epoch's stages used."""
    s = _flatten(runner.cfg.model_dump())
    epochs = runner.epochs()
    if epochs:
        for m in runner.epoch_manifests(epochs[-1]).values():
            s.update(_flatten(m.get("config", {})))
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
                    "teacher_score": r.get("teacher_score")})
    return out


# -- rendering ----------------------------------------------------------------------------
def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside the text (completions hold ``` fences)."""
    run = longest = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def render_completion(c: dict, max_chars: int = 2000) -> str:
    score = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    head = (f"#### {c['problem_id']} #{c['sample_idx']}: reward {score(c['reward'])} "
            f"(student {score(c['student_score'])} / teacher {score(c['teacher_score'])})")
    bd = " ".join(f"{k}={_fmt(v)}" for k, v in c["breakdown"].items()) or "(no breakdown)"
    text = c["text"] or ""
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n... ({len(c['text']) - max_chars} more characters)"
    f = _fence(text)
    return (f"{head}\n\nfinish: {c['finish_reason'] or '-'}, {_fmt(c['length'])} tokens; judge: {bd}\n\n"
            f"{f}\n{text}\n{f}\n")


def _pick(rows: list[dict], worst: int = 0, best: int = 0) -> tuple[list[dict], list[dict]]:
    """Worst first (unscored completions count as the worst), best from the rest; each from as many
    prompts of the worse (better) half as there are (a prompt's second completion only once each of
    them has given one), so the view shows the failure modes, not one prompt's group."""
    order = sorted(rows, key=lambda c: (c["reward"] is not None, c["reward"] or 0.0))
    half = (len(order) + 1) // 2   # spread within the worse (better) half: a good answer is never 'worst'
    lo = _spread(order[:max(worst, half)], worst)
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
        parts += [f"### {len(mine)} completions", ""] + [render_completion(c) for c in sorted(mine, key=lambda c: c["sample_idx"])]
        return "\n".join(parts)
    if worst is None and best is None:
        worst = best = runner.cfg.report.samples_shown
    lo, hi = _pick(rows, worst or 0, best or 0)
    if lo:
        parts += [f"### worst {len(lo)}", ""] + [render_completion(c) for c in lo]
    if hi:
        parts += [f"### best {len(hi)}", ""] + [render_completion(c) for c in hi]
    return "\n".join(parts)


# -- money and status ---------------------------------------------------------------------
def epoch_spend(runner: "Runner", n: int) -> dict[str, float]:
    """Dollars per figure ('judge/cost_usd', 'teacher/cost_usd', ...) over every finished output
    of epoch n (chosen or not: money spent is spent), plus 'saved' from the cache."""
    out: dict[str, float] = {}
    edir = runner.epoch_dir(n)
    for p in sorted(edir.iterdir()) if edir.exists() else []:
        m = read_manifest(p) if p.is_dir() and not p.name.startswith(".") else None
        for k, v in ((m or {}).get("figures") or {}).items():
            if (k.endswith("cost_usd") or k.endswith("saved_usd")) and as_number(v) is not None:
                out[k] = out.get(k, 0.0) + float(v)
    return out


def status_lines(runner: "Runner") -> list[str]:
    """`rlaif status`: epochs, chosen variants, the state of each stage, money spent."""
    epochs = runner.epochs()
    if not epochs:
        return [f"run {runner.run_dir}: no epochs yet; start with `rlaif epoch 1`"]
    lines = [f"run {runner.run_dir}: {len(epochs)} epoch(s)"]
    total: dict[str, float] = {}
    codes: dict = {}   # this version's code of each stage, worked out once for all the epochs
    differ: list[str] = []   # what the stale and new stages were made with otherwise ('run.seed 1 -> 0')
    for n in epochs:
        ms = runner.epoch_manifests(n)
        try:
            planned = {st.name: fp for st, fp, _, _ in runner.plan(n)}
        except RunError:
            planned = {}
        states = []
        for st in runner.stages_for(n):
            m = ms.get(st.name)
            want = planned.get(st.name, (m or {}).get("fingerprint"))
            if m is None:
                state = "-"
            elif want == m.get("fingerprint"):   # made by older code (a reward function edited since): said so
                state = "done(older code)" if older_code(runner.cfg, st, m, codes) else "done"
            elif st.variant:
                # variants sit side by side: the current config's may exist without being the chosen
                # one (after a sweep or a promote), or would be added beside the others; nothing is stale
                made = {m.get("fingerprint") for _, m in runner.variants(n, st.name)}
                state = "done" if want in made else "new"
            else:
                state = "stale"
            if state in ("stale", "new"):
                moved = made_otherwise(runner.cfg, st, m)
                differ += [x for x in moved if x not in differ]
            states.append(f"{st.name}:{state}")
        chosen = runner.chosen_update(n)
        spend = epoch_spend(runner, n)
        for k, v in spend.items():
            total[k] = total.get(k, 0.0) + v
        cost = sum(v for k, v in spend.items() if k.endswith("cost_usd"))
        mpath = runner.epoch_dir(n) / "metrics.json"
        reward = as_number((runner.read_metrics(n) or {}).get("reward/mean"))
        lines.append(f"  epoch {n:>3}  {'  '.join(states)}  chosen={chosen[0].name if chosen else '-'} "
                     f"({len(runner.update_variants(n))} variant(s))  reward={_fmt(reward)}  spent=${cost:.4f}"
                     + ("" if mpath.exists() else "  (no metrics.json: unfinished)"))
    from pipeline.stages.spend import manifest_spend, run_spend
    paid = run_spend(runner.run_dir)   # the spend ledger: stages stopped or recomputed have paid too
    spent = sum(paid.values())
    by = ", ".join(f"{k} ${v:.4f}" for k, v in sorted(paid.items()) if v)
    unfinished = spent - sum(manifest_spend(runner.run_dir).values())
    lines.append(f"money spent so far: ${spent:.4f}" + (f" ({by})" if by else "")
                 + (f"; ${unfinished:.4f} of it outside the finished stages' figures (stages stopped or recomputed, "
                    "`rlaif judge`; their answers are in the cache)" if unfinished > 5e-5 else "")
                 + (f"; the cache saved ${saved:.4f}" if (saved := sum(v for k, v in total.items() if k.endswith("saved_usd"))) else ""))
    lines.append("stage states: done; stale = finished, but the current config would recompute it (`rlaif epoch N` "
                 "for that N; later epochs keep it as it finished); new = the current config's update/eval variant is "
                 "not run yet (it would go beside the chosen one); - = not run")
    lines += runner.other_parents()
    lines += _interrupted_updates(runner, epochs)
    code = [x for x in differ if "stage's code (version" in x]   # no override brings older code back
    if differ := [x for x in differ if x not in code]:
        text, typed = "; ".join(differ), _recorded_overrides(differ)
        lines.append("these settings differ from what the stale and new stages were made with (recorded -> now): "
                     + (text if len(text) <= 400 else text[:400] + " ...") + "; give the recorded values as "
                     + (f"overrides (`{' '.join(typed[:6])}`)" if typed else "overrides (key=value)")
                     + " to read the run as it ran")
    if code:
        lines.append(f"made by other code than this version's: {'; '.join(code)}; `rlaif epoch N` remakes them")
    ms_all = load_metrics(runner)
    if ms_all:
        last = ms_all[-1]["epoch"]
        from pipeline.report.noise import change_intervals
        change_intervals(runner, ms_all)
        fl = [f for f in analyse(ms_all, runner.cfg.report, run_settings(runner)) if f.epoch == last]
        lines.append(f"health at epoch {last}: " + (", ".join(f.name for f in fl) + " (see `rlaif report`)" if fl else "no flags"))
    return lines


def _interrupted_updates(runner: "Runner", epochs: list[int]) -> list[str]:
    """The resume checkpoints of updates stopped before their end (.ckpt-update-<fp8>, removed when
    an update finishes): which one the current config resumes, and what the others hold on disk."""
    out = []
    for n in epochs:
        ckpts = sorted(runner.epoch_dir(n).glob(".ckpt-update-*"))
        if not ckpts:
            continue
        try:
            want = next((fp for st, fp, _, _ in runner.plan(n) if st.name == "update"), "")
        except RunError:
            want = ""
        for c in ckpts:
            mb = sum(f.stat().st_size for f in c.rglob("*") if f.is_file()) / 2**20
            if want and c.name.endswith(want[:8]):
                out.append(f"epoch {n}: an update stopped before its end ({c.name}, {mb:.1f} MB): this config's next "
                           f"update of epoch {n} (`rlaif epoch {n}`, or `rlaif update {n}` once the epoch is done) "
                           "resumes it from its checkpoint")
            else:
                out.append(f"epoch {n}: an update variant stopped before its end, made with other settings than the "
                           f"current config ({c.name}, {mb:.1f} MB): the command that started it, rerun as it was, "
                           f"resumes it; remove {c} if it is not wanted")
    return out


def _recorded_overrides(differ: list[str]) -> list[str]:
    """'run.seed 1 -> 0' -> 'run.seed=1': the recorded values that read as one word, to type as overrides."""
    out = []
    for x in differ:
        key, _, rest = x.partition(" ")
        old = rest.split(" -> ")[0]
        if "." in key and old and " " not in old and not old.startswith(("[", "{")):
            out.append(f"{key}={'null' if old == 'None' else old.strip(chr(39))}")
    return out


# -- the report ---------------------------------------------------------------------------
def glance(runner: "Runner", flags: list, words: dict[str, str], last: int) -> list[str]:
    """The report's first lines, printed by `rlaif report` too: the flags, the last epoch's eval against
    its baseline, and what to do with the policy."""
    names = sorted({f"{f.name} (epoch {f.epoch})" for f in flags if f.severity != "recovered"})
    past = sorted({f"{f.name} (epoch {f.epoch})" for f in flags if f.severity == "recovered"})
    out = [(f"health: {len(names)} flag(s): {', '.join(names)}" if names else "health: no flags")
           + (f"; {len(past)} recovered since: {', '.join(past)}" if past else "")]
    e = words.get("_epoch", last)
    said = [f"{k.removeprefix('eval/')} {w}" for k in ("eval/pass@1", "eval/score", "eval/ref_nll") if (w := words.get(k))]
    out.append(f"eval, epoch {e} against {words.get('_baseline', 'the first eval')}: " + ", ".join(said) if said else
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
    ms = load_metrics(runner)
    settings = run_settings(runner)
    path = runner.run_dir / "report.md"
    runner.run_dir.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"# Training report: {runner.cfg.run.name}", "",
           f"Generated {now} from `{runner.run_dir}`: {len(ms)} epoch(s) with metrics.", ""]
    if not ms:
        out += ["No epoch has finished yet (no `metrics.json`); run `rlaif epoch 1`."]
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
    for f in flags:
        out += [f"- **{f.severity}**, epoch {f.epoch}, `{f.name}`: {f.evidence}.  ", f"  Advice: {f.advice}.", ""]

    changes, words = eval_changes(runner)
    if changes:
        out += ["## Eval: signal or noise", "", "Each epoch's eval against the first one, problem by problem, with "
                "the 95% interval of the paired difference (`rlaif compare-evals`): a change whose "
                "interval holds 0 is within noise, whichever way it points.", "", *changes, ""]
    at = glance(runner, flags, words, ms[-1]["epoch"])
    if summary is not None:
        summary += at
    out[out.index("## Health"):out.index("## Health")] = ["## At a glance", "", *[f"- {x}" for x in at], ""]
    reward_lines, reward_words = reward_trend(runner, ms)
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


def _write(path: Path, text: str) -> None:
    """Atomic: a reader never sees half a report."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
