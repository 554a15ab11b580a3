"""Several reward functions with weights (TRL's `reward_funcs` list and `reward_weights`), as one judge.

`judge.python.function` names one function (a string: judges/python_reward.py's PythonReward, unchanged)
or a list of them; `judge.python.weights` gives one weight each (none: 1.0 each). An answer's score is
TRL's `(rewards_per_func * reward_weights).nansum(dim=1)`: the sum over the functions of weight x value,
a function's None left out; it is None (unscored, asked again on the next live run) only when every function
returned None, as TRL 1.16 marks such a row unscorable. Each function's value is cached under that
function's own key, the key a single function has (the weights are in no key): changing or reordering
the weights calls nothing again, adding a function calls only that one. The Score's breakdown holds
each function's value by its name (`reward`, or `reward_1` for the second of two functions named so).
"""
from __future__ import annotations

from typing import Any, Callable

from judges.base import Score
from judges.python_reward import PythonReward, RewardFunctionError

__all__ = ["PythonRewards", "RewardFunctionError", "configured", "function_names"]

TAKEN = ("value", "weight", "unanswered")
"""Breakdown keys a score already uses (judge.mix nests a component's breakdown beside its value and weight)."""


def function_names(refs: list[str]) -> list[str]:
    """Each function's name in breakdowns and figures: its `name` part; a name two functions share (or one
    of TAKEN) gets its index (`reward_0`, `reward_1`)."""
    bare = [ref.rpartition(":")[2] or ref for ref in refs]
    out: list[str] = []
    for i, name in enumerate(bare):
        if bare.count(name) > 1 or name in TAKEN:
            name = f"{name}_{i}"
        while name in out or name in bare[i + 1:]:
            name += f"_{i}"
        out.append(name)
    return out


class PythonRewards:
    """judge.python.function's functions behind the judge cache, each under its own keys, combined per
    answer with judge.python.weights."""

    def __init__(self, function: str | list[str], weights: list[float] | tuple = (), version: str = "",
                 fmt: str = "standard", system: str = ""):
        self.single = isinstance(function, str)
        self.refs = [function] if self.single else list(function)
        self.weights = [float(w) for w in weights] or [1.0] * len(self.refs)
        if len(self.weights) != len(self.refs):
            raise RewardFunctionError(f"judge.python.weights has {len(self.weights)} weights for {len(self.refs)} "
                                      "functions in judge.python.function; give one weight per function")
        self.judges = [PythonReward(ref, version, fmt, system=system,
                                    label="" if self.single else f"judge.python.function[{i}]={ref!r}")
                       for i, ref in enumerate(self.refs)]
        self.names = function_names(self.refs)
        # one string without weights: its Score exactly as one function's (no breakdown by name)
        self.plain = self.single and not weights

    @property
    def code(self) -> str:
        """The functions' code versions (Stage.code's `reward function`): 12 hex digits each, in order."""
        return ", ".join(j.code[:12] for j in self.judges)

    def described(self) -> str:
        """How a line names the functions: the reference, or the list of them."""
        return self.refs[0] if self.single else "[" + ", ".join(self.refs) + "]"

    def check_columns(self, problems: list) -> None:
        """Each function's required arguments are among the problems' columns (before any answer is drawn)."""
        for j in self.judges:
            j.check_columns(problems)

    def missing(self, cache, items: list[tuple[Any, str, bool]], live: bool = True) -> tuple[int, int]:
        """(answers some function has not scored yet, function calls that would take); live: a None a function
        returned (cached as unscored) is asked again, so it counts as not scored."""
        def lacks(found) -> bool:
            return found is None or (live and found.get("value") is None)
        lacking = [[lacks(cache.get(j.key(*it))) for j in self.judges] for it in items]
        return sum(any(row) for row in lacking), sum(map(sum, lacking))

    def combine(self, values: list[Score | None]) -> Score | None:
        """One answer's Score from each function's (None: not in the cache, on replay)."""
        if self.plain:
            return values[0]
        if any(s is None for s in values):
            return None
        breakdown = {name: s.value for name, s in zip(self.names, values)}
        scored = [(w, s.value) for w, s in zip(self.weights, values) if s.value is not None]
        if not scored:   # every function returned None: unscored, as TRL's unscorable row
            return Score(value=None, breakdown=breakdown, raw="; ".join(s.raw for s in values))
        total = 0.0
        for w, v in scored:
            total += w * v
        return Score(value=total, breakdown=breakdown, raw="")

    def score_all(self, cache, items: list[tuple[Any, str, bool]], live: bool = True, batch_size: int = 64,
                  progress: Callable[[int], None] | None = None) -> tuple[list[Score | None], int, int]:
        """(a Score per item, None where a function's score is not in the cache and `live` is off; function
        calls made, all functions together; cache hits, the same). Each function runs as one function does
        (judges/python_reward.py: its misses in batches, each batch cached as it returns), one after another:
        an error in one keeps every score of those before it."""
        per, calls, hits = [], 0, 0
        for judge in self.judges:
            scores, n_calls, n_hits = judge.score_all(cache, items, live=live, batch_size=batch_size, progress=progress)
            per.append(scores)
            calls, hits = calls + n_calls, hits + n_hits
        return [self.combine([scores[i] for scores in per]) for i in range(len(items))], calls, hits


def configured(section, system_prompt: str = "") -> PythonRewards:
    """The judge of a `judge.python` config section (function, weights, version, format); system_prompt:
    student.system_prompt, which the conversational format passes as the prompts' system message."""
    return PythonRewards(section.function, section.weights, section.version, section.format, system_prompt)
