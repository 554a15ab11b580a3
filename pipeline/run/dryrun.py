"""`rlaif epoch N --dry-run`: how many teacher and judge calls are missing from the cache, and
what they would cost live and through the batch APIs (half price), calling nothing.

Exact where the answers to judge already exist (samples on disk); otherwise an upper bound
from prompts x num_samples, priced as if each answer used all of sample.max_new_tokens.
"""
from __future__ import annotations

from pathlib import Path

from data.schema import Problem
from judges.cache import JudgeCache
from pipeline.store.artifacts import load_complete
from pipeline.stages.judging import LLM, Judging, as_answer, batching, cache_dir, components, judge_model, make_model
from pipeline.stages.problems import choose_prompts
from pipeline.store.tables import load_table


def _done(d: Path) -> bool:
    return load_complete(d, verify=False) is not None


def _prices(model, estimate, missing: list, batch: bool) -> str:
    """'~$live live, ~$batch batch' (worst cases), marking the one this run uses."""
    live = sum(estimate(*m) for m in missing)
    try:
        half = f"~${sum(estimate(*m, batch=True) for m in missing):.4f} batch"
    except KeyError:
        half = "batch: no batch price for this model (judge.prices)"
    used = " (this run: batch)" if batch else ""
    return f"~${live:.4f} live, {half}{used}"


class _NoCache:
    """The judge cache where none exists yet: every key missing."""

    def get(self, key: str) -> None:
        return None

    def close(self) -> None:
        pass


def _up_to_date(runner, n: int) -> set[str]:
    """Epoch n's stages finished with this config's fingerprints: a run reuses them, calling nothing."""
    from pipeline.config.errors import RunError
    try:
        return {st.name for st, fp, d, _ in runner.plan(n) if load_complete(d, fp, verify=False) is not None}
    except RunError:   # the policy it starts from is not there yet: nothing of it is done
        return set()


def _reused(stage: str, n: int, lines: list[str]) -> list[str]:
    """A finished stage's cache counts, said as what remaking it would call: this run calls nothing."""
    return [f"{stage}: done, reused: nothing is called (`rlaif epoch {n} --force` would remake it; then "
            + "; ".join(lines) + ")"] if lines else []


def _tail(cfg, missing: int, cost: str) -> str:
    """What a line's misses mean: their cost live, or in a replay (which calls nothing) whether they stop it."""
    if cfg.judge.mode != "replay":
        return f", {cost}"
    if not missing:
        return ": the replay has them all"
    return (": the replay skips and counts them (judge.skip_missing, judge/skipped)" if cfg.judge.skip_missing else
            ": judge.mode=replay stops on them (judge.skip_missing=true skips and counts them)")


def estimate(runner, n: int, force: bool = False, only: str | None = None) -> list[str]:
    """The dry run's cost lines for epoch n; force (with only: that stage) remakes finished stages."""
    cfg = runner.cfg
    done = _up_to_date(runner, n)
    if force:
        done -= {only} if only else {"teacher", "judge"}
    edir = runner.epoch_dir(n)
    if _done(edir / "prompts"):
        problems = [Problem.from_json(p["problem"]) for p in load_table(edir / "prompts", json_cols=("problem",))]
    else:
        ids, by_id, _, _ = choose_prompts(cfg, runner.run_dir, n)
        problems = [by_id[i] for i in ids]
    lines = []
    # a dry run writes nothing: no cache yet is a cache with nothing in it
    cached = (Path(cache_dir(cfg)) / "cache.db").exists()
    cache = JudgeCache(cache_dir(cfg)) if cached else _NoCache()
    try:
        # teacher answers
        teacher_text: dict[str, str | None] = {}
        if cfg.teacher.kind == "reference":
            teacher_text = {p.id: as_answer(p.reference, p.language) if p.reference else None for p in problems}
        elif cfg.teacher.kind in LLM:
            t = make_model(cfg.teacher.kind, cfg.teacher.model, cfg, teacher=True)
            missing = [p for p in problems if cache.get(t.teacher_key(p)) is None]
            cost = (_prices(t, t.estimate_generate_usd, [(p,) for p in missing], batching(cfg, teacher=True))
                    if cfg.teacher.kind != "hf" else "$0 (local)")
            said = [f"teacher ({cfg.teacher.kind} {cfg.teacher.model}): {len(missing)} of {len(problems)} "
                    f"answers missing from the cache{_tail(cfg, len(missing), cost)}"]
            lines += _reused("teacher", n, said) if "teacher" in done else said
            for p in problems:
                hit = cache.get(t.teacher_key(p))
                teacher_text[p.id] = hit["text"] if hit else None
        # what the judge will see
        exact = _done(edir / "sample")
        if exact:
            by_id = {p.id: p for p in problems}
            answers = [(by_id[s["problem_id"]], s["text"], s["finish_reason"] == "length")
                       for s in load_table(edir / "sample")]
        else:
            filler = "x " * (cfg.sample.max_new_tokens * 2)  # ~max_new_tokens tokens of text
            answers = [(p, filler, False) for p in problems for _ in range(cfg.sample.num_samples)]
        ref = teacher_text if cfg.judge.show_teacher else {}
        items = [(p, c, tr, ref.get(p.id)) for p, c, tr in answers]
        items += [(p, txt or as_answer("pass", p.language), False, None) for p, txt in
                  ((p, teacher_text.get(p.id)) for p in problems) if cfg.teacher.kind != "none"]
        bound = "" if exact else " at most (samples not drawn yet)"
        judged = len(lines)
        for kind in components(cfg) if n > 0 else ():     # epoch 0, the warm-start, judges nothing
            if kind == "execution":
                if cached:
                    j = Judging(cfg)
                    missing = sum(j.cache.get(j.key(p, c, tr)) is None for p, c, tr, _ in items)
                    j.cache.close()
                else:
                    missing = len(items)
                lines.append(f"judge (execution): {missing} of {len(items)} judgements missing{bound}"
                             f"{_tail(cfg, missing, '$0 (local)')}")
            elif kind == "python":
                from pipeline.stages.judging_python import python_judge
                j = python_judge(cfg)   # each function's own keys: an answer misses if one of them lacks it
                missing, calls = j.missing(cache, [(p, c, tr) for p, c, tr, _ in items], cfg.judge.mode == "live")
                each = "" if j.single else f", {calls} function calls"
                lines.append(f"judge (python {j.described()}): {missing} of {len(items)} judgements missing{bound}"
                             f"{each}{_tail(cfg, missing, '$0 (local)')}")
            elif kind in LLM:
                m = make_model(kind, judge_model(cfg, kind), cfg)
                miss = [it for it in items if cache.get(m.key(it[0], it[1], it[3])) is None]
                cost = (_prices(m, m.estimate_usd, [(p, c, r) for p, c, _, r in miss], batching(cfg))
                        if kind != "hf" else "$0 (local)")
                lines.append(f"judge ({kind} {judge_model(cfg, kind)}): {len(miss)} of {len(items)} judgements missing"
                             f"{bound}{_tail(cfg, len(miss), cost)}")
        if "judge" in done:
            lines[judged:] = _reused("judge", n, lines[judged:])
    finally:
        cache.close()
    return lines
