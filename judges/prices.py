"""What an API call costs: the built-in price table ($ per million tokens, live, batch and cached input)
and the dollars of one call's usage. config `judge.prices` merges over the table."""
from __future__ import annotations

import re

PRICES: dict[str, dict[str, float]] = {
    # $ per million tokens (input, output; batch_input, batch_output through the batch APIs; cached_input:
    # the input tokens OpenAI's automatic prompt caching served, a prompt's prefix of 1024 tokens or more
    # seen recently), from the providers' pricing pages (2025): both sell batches at half the live price.
    # An example: check current prices before trusting a budget; config `judge.prices` overrides this table.
    "claude-opus-4-5": {"input": 5.0, "output": 25.0, "batch_input": 2.5, "batch_output": 12.5},
    "claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "batch_input": 1.5, "batch_output": 7.5},
    "claude-haiku-4-5": {"input": 1.0, "output": 5.0, "batch_input": 0.5, "batch_output": 2.5},
    "gpt-5": {"input": 1.25, "output": 10.0, "batch_input": 0.625, "batch_output": 5.0, "cached_input": 0.125},
    "gpt-5-mini": {"input": 0.25, "output": 2.0, "batch_input": 0.125, "batch_output": 1.0, "cached_input": 0.025},
    "gpt-4.1": {"input": 2.0, "output": 8.0, "batch_input": 1.0, "batch_output": 4.0, "cached_input": 0.5},
    "gpt-4.1-mini": {"input": 0.4, "output": 1.6, "batch_input": 0.2, "batch_output": 0.8, "cached_input": 0.1},
    "gpt-4o-mini": {"input": 0.15, "output": 0.6, "batch_input": 0.075, "batch_output": 0.3, "cached_input": 0.075},
}
PRICE_FIELDS = ("input", "output", "batch_input", "batch_output", "cached_input", "batch_cached_input")


def price_for(model: str, prices: dict[str, dict[str, float]]) -> dict[str, float] | None:
    """Exact entry, else the entry `k` of which model is a dated snapshot: k + '-20250929',
    '-2025-08-07' or '-latest'. A sibling model (gpt-5-nano beside gpt-5) is another price, not
    a snapshot: none."""
    if model in prices:
        return prices[model]
    matches = [k for k in prices if re.fullmatch(re.escape(k) + r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest)", model)]
    return prices[max(matches, key=len)] if matches else None


def cost_usd(usage: dict[str, int], model: str, prices: dict[str, dict[str, float]] = PRICES,
             batch: bool = False) -> float:
    """Dollars for one call's {input_tokens, output_tokens, cached_input_tokens} at `prices` ($ per million
    tokens); batch=True: at the batch prices. Cached input tokens (part of input_tokens) cost cached_input
    (batch_cached_input in a batch), the full input price where the entry has none."""
    p = price_for(model, prices)
    if p is None:
        raise KeyError(f"no price for model {model!r}; add judge.prices='{{\"{model}\": {{input: $/Mtok, output: $/Mtok}}}}'")
    pin, pout = ("batch_input", "batch_output") if batch else ("input", "output")
    if pin not in p or pout not in p:
        raise KeyError(f"no batch price for model {model!r}; add batch_input and batch_output to its judge.prices "
                       f"entry ($/Mtok; both providers charge half the live price), or turn batches off")
    tin = usage.get("input_tokens", 0)
    cached = min(usage.get("cached_input_tokens", 0), tin)
    pcached = p.get("batch_cached_input" if batch else "cached_input", p[pin])
    return ((tin - cached) * p[pin] + cached * pcached + usage.get("output_tokens", 0) * p[pout]) / 1e6
