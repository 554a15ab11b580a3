"""judge: a cached score for every student and teacher answer (judge.kind), each judgement paid for once."""

from __future__ import annotations

import logging
from typing import Any

from data.schema import Problem
from judges.base import Score
from judges.cache import JudgeCache
from judges.mix import combine
from pipeline.stages.judging import (PARTS, Judging, Sync, batch_figures, batching, cache_dir, components, execution_parts,
                              full_credit_shares, judge_model, judged_text, length_score, make_model, paid_for,
                              run_items, settle_stage, work_dir)
from pipeline.config.errors import RunError
from pipeline.stages import Ctx
from pipeline.stages.judging_python import function_figures, score_python
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
    wrong reference (or a wrong test) inflates their rewards without a word."""
    bad = [(t["problem_id"], s.value) for t, s in zip(teacher, scores) if s.value is not None and s.value < 1]
    if bad:
        log.warning("teacher.kind=reference: %d of %d reference answers fail their own tests (%s%s): the reward divides "
                    "by those scores; fix the reference or the tests (`rlaif judge --problem ID --completion FILE` "
                    "shows the breakdown)", len(bad), len(teacher),
                    ", ".join(f"{i}: {v:.2f}" for i, v in bad[:5]), ", ..." if len(bad) > 5 else "")
    return len(bad)


def score_components(cfg, items: list[tuple], run_dir, journal=None,
                     out: str | None = None) -> tuple[dict[str, list[Score]], dict[str, Any]]:
    """Each judge.kind component's Score of every (problem, answer, truncated, reference shown to an
    LLM judge) item, through the judge cache, and the figures of what it cost (judge/api_calls,
    judge/cache_hits, judge/cost_usd, judge/saved_usd, judge/skipped). journal: the batch API's work
    directory (judge.batch; None: every request live). out: the stage output the spend ledger marks the calls
    paid for (`paid_for`; None: `rlaif judge`'s own). The judge stage and `rlaif judge` both score through it,
    so one answer's judgement is the same cached one either way."""
    per: dict[str, list[Score]] = {}
    fig = {"judge/api_calls": 0, "judge/cache_hits": 0, "judge/cost_usd": 0.0, "judge/saved_usd": 0.0}
    strict = cfg.judge.mode == "replay" and not cfg.judge.skip_missing   # every component's misses counted, then said
    if strict:
        cfg = cfg.model_copy(update={"judge": cfg.judge.model_copy(update={"skip_missing": True})})
    for kind in components(cfg):
        if kind == "length":
            per[kind] = [length_score(c) for _, c, _, _ in items]
        elif kind == "python":
            per[kind], calls, hits, skipped = score_python(cfg, [(p, c, tr) for p, c, tr, _ in items])
            fig["judge/api_calls"] += calls
            fig["judge/cache_hits"] += hits
            if skipped:
                fig["judge/skipped"] = fig.get("judge/skipped", 0) + skipped
        elif kind == "execution":
            j = Judging(cfg)
            try:
                per[kind] = j.score_all([(p, c, tr) for p, c, tr, _ in items])
            finally:
                j.cache.close()
            fig["judge/api_calls"] += j.calls
            fig["judge/cache_hits"] += j.hits
            if j.skipped:
                fig["judge/skipped"] = fig.get("judge/skipped", 0) + j.skipped
        else:
            model = make_model(kind, judge_model(cfg, kind), cfg)
            api = model if kind != "hf" else Sync(model)
            batch = journal is not None and kind != "hf"
            cache = JudgeCache(cache_dir(cfg))
            try:
                results, stats = run_items(cfg, cache, api, [api.score_item(p, judged_text(cfg, p, c), r) for p, c, _, r in items],
                                           f"judge ({kind})", run_dir, journal if batch else None, out,
                                           [p.id for p, _, _, _ in items])
            finally:
                cache.close()
            why = ("not answered: the batch item failed (judge.batch_failed)" if batch else "skipped: not in the cache"
                   if cfg.judge.mode == "replay" else "left out: the API refused this request (a rerun asks again)")
            fresh = getattr(model, "fresh", lambda v: v)   # cached answers read by this version's parser
            per[kind] = [Score.from_json(fresh(r)) if r else Score(value=None, breakdown={"unanswered": why}, raw=why)
                         for r in results]
            for k, v in batch_figures("judge", stats, batch).items():   # a panel: its providers' batches summed
                fig[k] = fig.get(k, 0) + v
            fig["judge/api_calls"] += stats.api_calls
            fig["judge/cache_hits"] += stats.cache_hits
            fig["judge/cost_usd"] += stats.cost_usd
            fig["judge/saved_usd"] += stats.saved_usd
            if stats.missing:
                fig["judge/skipped"] = fig.get("judge/skipped", 0) + stats.missing
    if strict and fig.get("judge/skipped"):
        raise replay_misses(cfg, items, per)
    return per, fig


def replay_misses(cfg, items: list[tuple], per: dict[str, list[Score]]) -> RunError:
    """judge.mode=replay without skip_missing: how many judgements each component lacks, of which problems, and the
    ways on (a teammate's cache answers only the answers their run drew: another sampling dtype or CPU draws others)."""
    missed = {k: [i for i, sc in enumerate(v) if sc.value is None and "unanswered" in (sc.breakdown or {})]
              for k, v in per.items()}
    missed = {k: v for k, v in missed.items() if v}
    which = list(dict.fromkeys(items[i][0].id for v in missed.values() for i in v))
    parts = ", ".join(f"{k} {len(v)} of {len(items)}" for k, v in missed.items())
    cached = [k for k in per if k != "length"]   # (the length score is computed, never cached)
    return RunError(
        f"judge.mode=replay: {sum(map(len, missed.values()))} of {len(items) * len(cached)} judgements are not in the "
        f"cache {cache_dir(cfg)}" + (f" ({parts})" if len(cached) > 1 else "") + f", of problem{'s' if len(which) > 1 else ''} "
        f"{', '.join(which[:5])}{f' and {len(which) - 5} more' if len(which) > 5 else ''}; judge them live (`rlaif epoch "
        "N` in place of `rlaif replay N`: judge.mode=live), import a teammate's cache (rlaif cache import FILE), or set "
        "judge.skip_missing=true to skip and count them. A teammate's cache holds the answers their run drew: "
        "replay draws them again, and another sample.dtype or CPU draws others (after changing a runtime setting, "
        "`rlaif replay N --force` draws them anew)")
