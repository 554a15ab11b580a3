"""teacher and judge stages: one reference answer per prompt; a cached score for every answer.

Every judgement goes through the judge cache, keyed by everything that changes the answer,
so a rerun, a replay or an update-only variant never pays for it twice.
"""
from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tqdm import tqdm

from data.schema import Problem
from judges.base import Score
from judges.cache import JudgeCache, cache_key
from pipeline.artifacts import sha256_text
from pipeline.config import Config
from pipeline.runner import Ctx, RunError
from pipeline.tables import load_table, save_table

log = logging.getLogger("rlaif")


def cache_dir(cfg: Config) -> Path:
    return Path(cfg.judge.cache_dir) if cfg.judge.cache_dir else Path(cfg.run.dir) / ".judge-cache"


def as_answer(code: str) -> str:
    """A reference solution written the way the student is asked to answer."""
    return f"```python\n{code.rstrip()}\n```"


# -- teacher ------------------------------------------------------------------------------
def run_teacher(ctx: Ctx) -> None:
    prompts = load_table(ctx.inputs["prompts"], json_cols=("problem",))
    rows, missing = [], 0
    if ctx.cfg.teacher.kind == "none":
        prompts = []
    for p in prompts:
        ref = p["problem"].get("reference")
        missing += ref is None
        rows.append({"problem_id": p["problem_id"], "text": as_answer(ref) if ref else "", "source": "reference"})
    if missing:
        log.warning("teacher: %d problems have no reference solution; their teacher score is None", missing)
    save_table(rows, ctx.out)
    ctx.rows = len(rows)
    ctx.figures = {"teacher/missing": missing}


# -- judge --------------------------------------------------------------------------------
class Judging:
    """A judge behind the cache, with counters for the manifest."""

    def __init__(self, cfg: Config):
        from judges.execution import HARNESS_VERSION, ExecutionJudge
        ec = cfg.judge.execution
        self.cfg = cfg
        self.settings = execution_settings(cfg)
        self.judge = ExecutionJudge(self.settings)
        self.base_ingredients = {
            "kind": "execution", "model": "", "base_url": "", "harness": HARNESS_VERSION,
            "grading": ec.model_dump(), "params": {},
        }
        self.cache = JudgeCache(cache_dir(cfg))
        self.calls = self.hits = 0

    def key(self, problem: Problem, completion: str, truncated: bool) -> str:
        tests = problem.tests if problem.tests is not None else problem.test_code
        return cache_key({**self.base_ingredients,
                          "problem": sha256_text(repr((problem.entry_point, tests))),
                          "completion": sha256_text(completion), "truncated": truncated})

    def score_all(self, items: list[tuple[Problem, str, bool]], desc: str = "judge") -> list[Score | None]:
        if self.cfg.judge.kind == "length":  # free and deterministic: nothing to cache
            return [length_score(c) for _, c, _ in items]
        keys = [self.key(*it) for it in items]
        found = [self.cache.get(k) for k in keys]
        todo = [i for i, v in enumerate(found) if v is None]
        self.hits += len(items) - len(todo)
        if todo and self.cfg.judge.mode == "replay":
            raise RunError(f"judge.mode=replay: {len(todo)} of {len(items)} judgements are not in the cache "
                           f"{cache_dir(self.cfg)}; run with judge.mode=live, or import a teammate's cache "
                           "(rlaif cache import FILE)")
        workers = self.cfg.judge.workers or os.cpu_count() or 1
        bar = tqdm(total=len(todo), desc=desc, unit="ans", dynamic_ncols=True, disable=not todo)

        def one(i: int) -> None:
            value, hit = self.cache.get_or_compute(keys[i], lambda: self.judge.score(*items[i]).to_json())
            found[i] = value
            if hit:
                self.hits += 1
            else:
                self.calls += 1
            bar.update(1)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one, todo))
        bar.close()
        return [Score.from_json(v) for v in found]


def length_score(completion: str) -> Score:
    """The toy reward of the length experiment (configs/length_reward.yaml): 2 - words/16,
    as in the TRL/"learning to summarize"-style PPO length-control demos: shorter is better."""
    words = len(completion.split())
    return Score(value=2.0 - words / 16, breakdown={"words": words})


def execution_settings(cfg: Config):
    from judges.execution import ExecutionSettings
    ec = cfg.judge.execution
    return ExecutionSettings(**ec.model_dump(),
                             hide=(str(Path(cfg.run.dir).resolve()), str(cache_dir(cfg).resolve())))


def _score_row(s: Score) -> dict[str, Any]:
    return {"value": s.value, "breakdown": s.breakdown, "raw": s.raw[:2000], "cost_usd": s.cost_usd}


def run_judge(ctx: Ctx) -> None:
    prompts = {p["problem_id"]: Problem.from_json(p["problem"])
               for p in load_table(ctx.inputs["prompts"], json_cols=("problem",))}
    samples = load_table(ctx.inputs["sample"])
    teacher = load_table(ctx.inputs["teacher"])
    j = Judging(ctx.cfg)
    try:
        items = [(prompts[s["problem_id"]], s["text"], s["finish_reason"] == "length") for s in samples]
        items += [(prompts[t["problem_id"]], t["text"], False) for t in teacher]
        scores = j.score_all(items)
    finally:
        j.cache.close()
    rows = []
    for s, sc in zip(samples, scores[: len(samples)]):
        rows.append({"role": "student", "problem_id": s["problem_id"], "sample_idx": s["sample_idx"], **_score_row(sc)})
    for t, sc in zip(teacher, scores[len(samples):]):
        if not t["text"]:
            sc = Score(value=None, raw="no teacher answer")
        rows.append({"role": "teacher", "problem_id": t["problem_id"], "sample_idx": -1, **_score_row(sc)})
    save_table(rows, ctx.out, json_cols=("breakdown",))
    ctx.rows = len(rows)
    ctx.figures = {
        "judge/api_calls": j.calls, "judge/cache_hits": j.hits,
        "judge/cost_usd": sum(r["cost_usd"] for r in rows) if j.calls else 0.0, "judge/saved_usd": 0.0,
        "judge/parse_failures": sum(r["value"] is None for r in rows if r["role"] == "student"),
    }
