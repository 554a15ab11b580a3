"""judge: a cached score for every student and teacher answer (judge.kind), each judgement paid for once."""

from __future__ import annotations

import logging
from typing import Any

from data.schema import Problem
from judges.base import Score, short_of
from judges.mix import combine
from pipeline.stages.judging import (PARTS, batching, components, execution_parts, full_credit_shares, paid_for,
                                     settle_stage, work_dir)
from pipeline.stages import Ctx
from pipeline.stages.judging_python import function_figures
from pipeline.stages.scoring import score_components
from pipeline.store.tables import load_table, save_table

log = logging.getLogger("rlaif")


def breakdown_figures(breakdowns: list[dict]) -> dict[str, float]:
    """Per-epoch means of the score's parts over student completions (`breakdown/<part>`), and the
    shares that fully pass each gate (`breakdown/<part>_ok`; tests_ok = every test passed)."""
    bds = [execution_parts(b) for b in breakdowns if b]
    fig: dict[str, float] = {}
    for language, parts in PARTS.items():
        mine = [b for b in bds if b.get("language", "python") == language and all(k in b for k in parts)]
        if not mine:
            continue
        for k in parts:
            fig[f"breakdown/{k}"] = sum(float(b[k]) for b in mine) / len(mine)
        fig.update({f"breakdown/{k}": v for k, v in full_credit_shares(mine, parts).items()})
    return fig


def _unanswered(breakdown: dict) -> bool:
    """A score left out (not in the cache on replay, refused by the API, a failed batch item), for
    itself or for a component of judge.mix."""
    return "unanswered" in breakdown or any(isinstance(v, dict) and "unanswered" in v for v in breakdown.values())


def _score_row(s: Score) -> dict[str, Any]:
    return {"value": s.value, "breakdown": s.breakdown, "raw": s.raw[:2000], "cost_usd": s.cost_usd}


def run(ctx: Ctx) -> None:
    cfg = ctx.cfg
    prompts = {p["problem_id"]: Problem.from_json(p["problem"])
               for p in load_table(ctx.inputs["prompts"], json_cols=("problem",))}
    samples = load_table(ctx.inputs["sample"])
    teacher = [t for t in load_table(ctx.inputs["teacher"]) if t["text"]]
    ref = {t["problem_id"]: t["text"] for t in teacher} if cfg.judge.show_teacher else {}
    # (problem, answer, truncated, reference shown to an LLM judge)
    items = [(prompts[s["problem_id"]], s["text"], s["finish_reason"] == "length", ref.get(s["problem_id"]))
             for s in samples]
    items += [(prompts[t["problem_id"]], t["text"], bool(t.get("truncated")), None) for t in teacher]
    weights = components(cfg)
    out = paid_for(ctx, "judge")
    per, fig = score_components(cfg, items, ctx.run_dir, work_dir(ctx, "judge") if batching(cfg) else None, out)
    fig["judge/cost_usd"], fig["judge/saved_usd"] = settle_stage(ctx, out, fig["judge/cost_usd"], fig["judge/saved_usd"])
    scores = [combine({k: per[k][i] for k in weights}, weights) for i in range(len(items))]
    rows = []
    for s, sc in zip(samples, scores[: len(samples)]):
        rows.append({"role": "student", "problem_id": s["problem_id"], "sample_idx": s["sample_idx"], **_score_row(sc)})
    for t, sc in zip(teacher, scores[len(samples):]):
        rows.append({"role": "teacher", "problem_id": t["problem_id"], "sample_idx": -1, **_score_row(sc)})
    save_table(rows, ctx.out, json_cols=("breakdown",))
    ctx.rows = len(rows)
    # unscored: the judge answered and its answer could not be read (not an answer left out: judge/skipped)
    fig["judge/parse_failures"] = sum(r["value"] is None and not _unanswered(r["breakdown"]) for r in rows)
    fig["judge/judgements"] = len(rows)   # students' and teachers' answers scored (each once, whatever judge.mix holds)
    fig.update(breakdown_figures([r["breakdown"] for r in rows if r["role"] == "student"]))
    if len(weights) > 1:   # judge.mix: each component's own mean over the student's answers (TRL's rewards/<func>/mean)
        for kind in weights:
            vals = [sc.value for sc in per[kind][: len(samples)] if sc.value is not None]
            if vals:
                fig[f"judge/{kind}_mean"] = sum(vals) / len(vals)
    if "python" in per:   # several functions: each one's mean over the student's answers (judge/python/<name>_mean)
        fig.update(function_figures(cfg, per["python"][: len(samples)]))
    if cfg.teacher.kind == "reference" and "execution" in per:
        fig["judge/reference_failures"] = reference_failures(teacher, per["execution"][len(samples):])
    ctx.figures = fig


def reference_failures(teacher: list[dict], scores: list[Score]) -> int:
    """How many reference answers fail their own problem's tests (an execution score below 1), said in a
    warning with their ids: the ratio reward divides each of those problems' student scores by it, so a
    wrong reference (or a wrong test) inflates their rewards without a word. Those scored 0 as shorter than
    the judge's min_lines (their tests never ran) are warned of apart: the key to lower is the fix."""
    bad = [(t["problem_id"], s) for t, s in zip(teacher, scores) if s.value is not None and s.value < 1]
    short: dict[str, list[str]] = {}
    failing = []
    for i, s in bad:
        under = short_of((s.breakdown or {}).get("error"), (s.breakdown or {}).get("language"))
        if under:
            short.setdefault(f"{under[0]}={under[1]}", []).append(i)
        else:
            failing.append(f"{i}: {s.value:.2f}")
    if failing:
        log.warning("teacher.kind=reference: %d of %d reference answers fail their own tests (%s): the reward divides "
                    "by those scores; fix the reference or the tests (`rlaif judge --problem ID --completion FILE` "
                    "shows the breakdown)", len(failing), len(teacher), _listed(failing))
    for key, ids in short.items():
        log.warning("teacher.kind=reference: %d of %d reference answers have fewer lines of code than %s (%s): the "
                    "judge scores them 0 without running their tests, and the reward divides by those scores; lower %s "
                    "(0 scores answers of any length) if answers this short are right", len(ids), len(teacher), key,
                    _listed(ids), key.split("=")[0])
    return len(bad)


def _listed(names: list[str], n: int = 5) -> str:
    """The first `n` names, then how many more, each of them logged at DEBUG."""
    if len(names) > n:
        log.debug("teacher.kind=reference: all %d: %s", len(names), ", ".join(names))
    return ", ".join(names[:n]) + (f", ... {len(names) - n} more (run.log_level=DEBUG names them all)"
                                   if len(names) > n else "")
