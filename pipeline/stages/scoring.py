"""Each judge.kind component's score of a list of answers through the judge cache: what the judge stage, the eval
(its problems without tests) and `rlaif judge` share, so one answer's judgement is the same cached one everywhere."""
from __future__ import annotations

from typing import Any

from judges.base import Score
from judges.cache import JudgeCache
from pipeline.config.errors import RunError
from pipeline.stages.judging import (Judging, Sync, batch_figures, cache_dir, components, judge_model, judged_text,
                                     length_score, make_model, run_items)
from pipeline.stages.judging_python import score_python


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
