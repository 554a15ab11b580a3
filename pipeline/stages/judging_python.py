"""judge.kind=python: your own reward function (judges/python_reward.py) behind the judge cache, with
the run's mode (replay answers from the cache only) and its errors as RunErrors."""
from __future__ import annotations

from tqdm import tqdm

from data.schema import Problem
from judges.base import Score
from judges.cache import JudgeCache
from pipeline.config.errors import RunError
from pipeline.config.schema import Config
from pipeline.stages.judging import cache_dir


def score_python(cfg: Config, items: list[tuple[Problem, str, bool]]) -> tuple[list[Score], int, int, int]:
    """judge.python.function's Score of each (problem, answer, truncated), through the judge cache:
    (scores, calls, cache hits, skipped on replay)."""
    from judges.python_reward import PythonReward, RewardFunctionError
    pc, jc = cfg.judge.python, cfg.judge
    try:
        judge = PythonReward(pc.function, pc.version, pc.format)
    except RewardFunctionError as e:
        raise RunError(str(e)) from None
    cache = JudgeCache(cache_dir(cfg))
    bar = tqdm(total=len(items), desc="judge (python)", unit="ans", dynamic_ncols=True)
    try:
        scores, calls, hits = judge.score_all(cache, items, live=jc.mode == "live", batch_size=pc.batch_size,
                                              progress=bar.update)
    except RewardFunctionError as e:
        raise RunError(str(e)) from None
    finally:
        bar.close()
        cache.close()
    missing = sum(s is None for s in scores)
    if missing and not jc.skip_missing:
        raise RunError(f"judge.mode=replay: {missing} of {len(items)} judgements are not in the cache {cache_dir(cfg)}; "
                       "run with judge.mode=live, import a teammate's cache (rlaif cache import FILE), or set "
                       "judge.skip_missing=true to skip and count them")
    why = "skipped: not in the cache"
    return ([s if s is not None else Score(value=None, breakdown={"unanswered": why}, raw=why) for s in scores],
            calls, hits, missing)
