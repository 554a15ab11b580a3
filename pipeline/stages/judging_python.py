"""judge.kind=python: your own reward functions (judges/python_reward.py, several with weights:
judges/python_rewards.py) behind the judge cache, with the run's mode (replay answers from the cache only)
and their errors as RunErrors."""
from __future__ import annotations

from tqdm import tqdm

from data.schema import Problem
from judges.base import Score
from judges.cache import JudgeCache
from pipeline.config.errors import RunError
from pipeline.config.schema import Config
from pipeline.stages.judging import cache_dir


def python_judge(cfg: Config):
    """judge.python's functions, imported and checked (judges/python_rewards.py's PythonRewards), the
    conversational format's system message being student.system_prompt, the text the student reads."""
    from judges.python_rewards import RewardFunctionError, configured
    try:
        return configured(cfg.judge.python, cfg.student.system_prompt)
    except RewardFunctionError as e:
        raise RunError(str(e)) from None


def score_python(cfg: Config, items: list[tuple[Problem, str, bool]]) -> tuple[list[Score], int, int, int]:
    """judge.python.function's Score of each (problem, answer, truncated), through the judge cache:
    (scores, calls, cache hits, skipped on replay); with several functions, calls and hits count each
    function's, and an answer is skipped on replay when a function's score of it is not in the cache."""
    from judges.python_reward import RewardFunctionError
    pc, jc = cfg.judge.python, cfg.judge
    judge = python_judge(cfg)
    cache = JudgeCache(cache_dir(cfg))
    bar = tqdm(total=len(items) * len(judge.judges), desc="judge (python)", unit="ans", dynamic_ncols=True)
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
                       "judge them live (`rlaif epoch N` in place of `rlaif replay N`: judge.mode=live), "
                       "import a teammate's cache (rlaif cache import FILE), or set "
                       "judge.skip_missing=true to skip and count them")
    why = "skipped: not in the cache"
    return ([s if s is not None else Score(value=None, breakdown={"unanswered": why}, raw=why) for s in scores],
            calls, hits, missing)


def function_figures(cfg: Config, scores: list[Score]) -> dict[str, float]:
    """judge/python/<name>_mean: each function's mean over these (the student's) answers it scored, before
    judge.python.weights, as TRL logs rewards/<func>/mean; only when the breakdown names them (a list of
    functions, or weights)."""
    from judges.python_rewards import function_names
    pc = cfg.judge.python
    fig = {}
    for name in function_names([pc.function] if isinstance(pc.function, str) else pc.function):
        vals = [s.breakdown[name] for s in scores if isinstance(s.breakdown.get(name), (int, float))]
        if vals:
            fig[f"judge/python/{name}_mean"] = sum(vals) / len(vals)
    return fig
