"""teacher: one answer per prompt from the teacher (teacher.kind), through the judge cache."""

from __future__ import annotations

import logging
from typing import Any

from data.schema import Problem
from judges.cache import JudgeCache
from pipeline.stages.judging import (Sync, as_answer, batch_figures, batching, cache_dir, make_model, paid_for, run_items,
                                     settle_stage, work_dir)
from pipeline.stages import Ctx
from pipeline.store.tables import load_table, save_table

log = logging.getLogger("rlaif")


def run(ctx: Ctx) -> None:
    cfg, tc = ctx.cfg, ctx.cfg.teacher
    prompts = [] if tc.kind == "none" else load_table(ctx.inputs["prompts"], json_cols=("problem",))
    problems = [Problem.from_json(p["problem"]) for p in prompts]
    figures: dict[str, Any] = {}
    results: list[dict | None] = []
    if tc.kind == "reference":
        texts = [as_answer(p.reference, p.language) if p.reference else "" for p in problems]
    elif problems:
        model = make_model(tc.kind, tc.model, cfg, teacher=True)
        out = paid_for(ctx, "teacher")
        api = model if tc.kind != "hf" else Sync(model)
        cache = JudgeCache(cache_dir(cfg))
        try:
            results, stats = run_items(cfg, cache, api, [api.generate_item(p) for p in problems], "teacher",
                                       ctx.run_dir, work_dir(ctx, "teacher") if batching(cfg, teacher=True) else None,
                                       out, [p.id for p in problems])
        finally:
            cache.close()
        texts = [r["text"] if r else "" for r in results]
        cost, saved = settle_stage(ctx, out, stats.cost_usd, stats.saved_usd)
        figures = {"teacher/api_calls": stats.api_calls, "teacher/cache_hits": stats.cache_hits,
                   "teacher/cost_usd": cost, "teacher/saved_usd": saved,
                   **({"teacher/skipped": stats.missing} if stats.missing else {}),
                   **batch_figures("teacher", stats, batching(cfg, teacher=True))}
    else:
        texts = []
    missing = sum(not t for t in texts)
    if missing and tc.kind != "none":
        log.warning("teacher: %d prompts have no teacher answer%s", missing,
                    ": their students' ratio is taken against a perfect teacher, score / (1 + reward.eps)"
                    if cfg.reward.kind == "ratio" else "")
    if results:
        cut = sum(1 for r in results if r and not r.get("text") and r.get("truncated"))
        if cut:
            log.warning("teacher: %d answers were cut off at teacher.max_tokens=%d before any text (a reasoning "
                        "model's reasoning counts against it): raise teacher.max_tokens; they are cached as asked, "
                        "and the new limit asks again", cut, tc.max_tokens)
    # truncated: cut off at teacher.max_tokens, judged as a student's cut-off answer is (judge.*.truncation_factor)
    cut_off = [bool(r and r.get("truncated")) for r in results] if results else [False] * len(texts)
    save_table([{"problem_id": p.id, "text": t, "source": tc.kind, "truncated": c}
                for p, t, c in zip(problems, texts, cut_off)], ctx.out)
    ctx.rows = len(texts)
    ctx.figures = {"teacher/missing": missing, **figures}
