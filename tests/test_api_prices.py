"""What an API answer costs: OpenAI's automatic prompt caching serves a long prompt's repeated prefix at
the cached-input price, and the usage line says how many of its prompt tokens it served (the official
SDK against the fake server)."""
from __future__ import annotations

import asyncio

import pytest

from judges.llm import PRICES as BUILTIN_PRICES
from judges.llm import cost_usd
from judges.openai import OpenAIJudge
from pipeline.config.file import load_config
from tests.fakeapi import FakeAPI
from tests.test_api_judges import PROBLEM, answer

PRICED = {"fake-model": {"input": 3.0, "output": 15.0, "cached_input": 0.3}}


@pytest.mark.parametrize("prices", [PRICED, {"fake-model": {"input": 3.0, "output": 15.0}}])
def test_cached_prompt_tokens_cost_the_cached_input_price(prices):
    with FakeAPI() as api:
        api.cached_tokens = 64
        judge = OpenAIJudge("fake-model", base_url=api.openai_url, api_key="k", prices=prices, backoff_s=0.01)
        s = asyncio.run(judge.ascore(PROBLEM, answer(1), None))
    n = s.usage["input_tokens"]
    assert n > 64 and s.usage["cached_input_tokens"] == 64 and s.usage["output_tokens"] == 40
    cached = prices["fake-model"].get("cached_input", 3.0)   # no cached price: the full one (an upper bound)
    assert s.cost_usd == pytest.approx(((n - 64) * 3.0 + 64 * cached + 40 * 15.0) / 1e6, rel=1e-12)
    assert judge.parse_score(s.raw) == s   # a cached answer re-read prices it the same


def test_the_builtin_table_prices_cached_and_batch_input():
    usage = {"input_tokens": 2_000_000, "cached_input_tokens": 1_000_000, "output_tokens": 0}
    assert cost_usd(usage, "gpt-5-2025-08-07", BUILTIN_PRICES) == pytest.approx(1.25 + 0.125)
    # a batch without a batch_cached_input price: every input token at the batch price
    assert cost_usd(usage, "gpt-5", BUILTIN_PRICES, batch=True) == pytest.approx(2 * 0.625)
    # more cached than input (a proxy's rewrite) is capped at the input
    assert cost_usd({"input_tokens": 10, "cached_input_tokens": 99}, "gpt-5", BUILTIN_PRICES) == pytest.approx(10 * 0.125 / 1e6)


def test_judge_prices_take_cached_input_and_name_an_unknown_field():
    cfg = load_config(None, ['judge.prices={"my-model": {"input": 1, "output": 2, "cached_input": 0.1}}'])
    assert cfg.judge.prices["my-model"]["cached_input"] == 0.1
    with pytest.raises(Exception, match=r"judge.prices.my-model.*cached_input.*got \['cache', 'input', 'output'\]"):
        load_config(None, ['judge.prices={"my-model": {"input": 1, "output": 2, "cache": 0.1}}'])
