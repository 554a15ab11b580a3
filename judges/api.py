"""LLM judges and teachers behind HTTP APIs, and the cached, budgeted runner that calls them.

- `AnthropicJudge` (Messages API, a forced tool call with the rubric schema) and `OpenAIJudge`
  (Chat Completions, `response_format: json_schema`). Both return a `Score` whose `raw` is the
  full response text, so re-parsing never pays again; `agenerate` writes a teacher answer.
- Retries belong to tenacity (the SDKs get `max_retries=0`): 408/409/429/5xx, connection
  errors, timeouts and a 200 with a broken JSON body are retried with jittered exponential
  backoff that waits at least what `retry-after-ms` / `retry-after` say. 400/401/403/404/422
  and spend-limit 429s are never retried: the same request cannot succeed.
- `RateLimiter`: in-flight cap, requests/minute and tokens/minute token buckets.
- `run_cached`: cache lookups, one call per distinct missing key (also across concurrent
  runs in this process), each result written to the cache the moment it arrives (a kill -9
  loses nothing already paid), a budget that stops issuing calls before it would be
  exceeded, and replay mode that never calls.

Anthropic API version 2026-10-21 (anthropic SDK 2.x) rejects temperature/top_p/top_k, so the
Anthropic judge sends none. Left out: streaming, prompt caching, batch APIs, a cross-process
lock (two processes missing the same key at the same moment both pay).
"""
from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import email.utils
import importlib.util
import json
import logging
import math
import random
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable

import anthropic
import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential
from tenacity.wait import wait_base

from data.schema import Problem
from judges import rubric
from judges.base import Score
from judges.cache import JudgeCache, cache_key
from pipeline.artifacts import sha256_text

log = logging.getLogger("rlaif")

# -- prices -------------------------------------------------------------------------------
PRICES: dict[str, dict[str, float]] = {
    # $ per million tokens (input, output), from the providers' pricing pages (2025). An example:
    # check current prices before trusting a budget; config `judge.prices` overrides this table.
    "claude-opus-4-5": {"input": 5.0, "output": 25.0},
    "claude-sonnet-4-5": {"input": 3.0, "output": 15.0},
    "claude-haiku-4-5": {"input": 1.0, "output": 5.0},
    "gpt-5": {"input": 1.25, "output": 10.0},
    "gpt-5-mini": {"input": 0.25, "output": 2.0},
    "gpt-4.1": {"input": 2.0, "output": 8.0},
    "gpt-4.1-mini": {"input": 0.4, "output": 1.6},
    "gpt-4o-mini": {"input": 0.15, "output": 0.6},
}


def price_for(model: str, prices: dict[str, dict[str, float]]) -> dict[str, float] | None:
    """Exact entry, else the longest entry `k` with model == k + '-...' (dated snapshots)."""
    if model in prices:
        return prices[model]
    matches = [k for k in prices if model.startswith(k + "-")]
    return prices[max(matches, key=len)] if matches else None


def cost_usd(usage: dict[str, int], model: str, prices: dict[str, dict[str, float]] = PRICES) -> float:
    """Dollars for one call's {input_tokens, output_tokens} at `prices` ($ per million tokens)."""
    p = price_for(model, prices)
    if p is None:
        raise KeyError(f"no price for model {model!r}; add judge.prices.{model}={{input: $/Mtok, output: $/Mtok}}")
    return (usage.get("input_tokens", 0) * p["input"] + usage.get("output_tokens", 0) * p["output"]) / 1e6


# -- rate limiting ------------------------------------------------------------------------
class _Bucket:
    """Token bucket refilled continuously at `per_minute / 60` per second, holding one second's worth
    (APIs enforce per-minute limits over short windows too). Takes may overdraw it: a request larger
    than the bucket waits until it is full, then leaves it negative, which keeps the long-run rate."""

    def __init__(self, per_minute: float):
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.t = time.monotonic()
        self.lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.t) * self.rate)
        self.t = now

    async def take(self, n: float) -> None:
        async with self.lock:  # FIFO: waiters queue behind the one sleeping
            while True:
                self._refill()
                need = min(n, self.capacity)
                if self.level >= need:
                    self.level -= n
                    return
                await asyncio.sleep((need - self.level) / self.rate)

    def give_back(self, n: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level + n)


@dataclass
class _Slot:
    estimate: float
    actual: float | None = None

    def used(self, tokens: float) -> None:
        self.actual = tokens


class RateLimiter:
    """Async limits on one API: calls in flight, requests per minute, tokens per minute (0 = unlimited).

    Tokens are estimated before a call and corrected with the real usage after it.
    """

    def __init__(self, max_in_flight: int = 0, rpm: float = 0, tpm: float = 0):
        self.max_in_flight, self.rpm, self.tpm = max_in_flight, rpm, tpm
        self.in_flight = 0
        self.peak_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    def _bind(self) -> None:
        # asyncio primitives belong to one event loop; a new loop (a new asyncio.run) gets fresh ones
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._sem = asyncio.Semaphore(self.max_in_flight) if self.max_in_flight > 0 else None
            self._requests = _Bucket(self.rpm) if self.rpm > 0 else None
            self._tokens = _Bucket(self.tpm) if self.tpm > 0 else None

    @asynccontextmanager
    async def slot(self, est_tokens: float) -> AsyncIterator[_Slot]:
        self._bind()
        if self._sem is not None:
            await self._sem.acquire()
        slot = _Slot(est_tokens)
        try:
            if self._requests is not None:
                await self._requests.take(1)
            if self._tokens is not None:
                await self._tokens.take(est_tokens)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                yield slot
            finally:
                self.in_flight -= 1
                if self._tokens is not None and slot.actual is not None:
                    self._tokens.give_back(slot.estimate - slot.actual)
        finally:
            if self._sem is not None:
                self._sem.release()


# -- errors -------------------------------------------------------------------------------
class JudgeAPIError(RuntimeError):
    """An API call that failed for good: not retryable, or out of attempts. Names the status."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 0):
        super().__init__(message)
        self.status, self.attempts = status, attempts


class MalformedResponse(Exception):
    """A 2xx whose body is not a JSON object (a proxy or transport fault): retried."""


class BudgetExceeded(RuntimeError):
    def __init__(self, spent: float, budget: float, done: int, remaining: int,
                 results: list[dict | None] | None = None, stats: "RunStats | None" = None):
        super().__init__(f"judge budget reached: spent ${spent:.4f} of ${budget:.4f}; {done} answered, {remaining} "
                         f"left unasked (everything paid for is cached). Raise judge.budget_usd and rerun to finish.")
        self.spent, self.budget, self.done, self.remaining = spent, budget, done, remaining
        self.results, self.stats = results, stats


class ReplayMiss(RuntimeError):
    def __init__(self, count: int, total: int, directory: Any = ""):
        super().__init__(f"judge.mode=replay: {count} of {total} judgements are not in the cache {directory}; run with "
                         "judge.mode=live, import a teammate's cache (rlaif cache import FILE), or skip them "
                         "(skip_missing) and they are counted as missing")
        self.count, self.total = count, total


_STATUS_ERRORS = (anthropic.APIStatusError, openai.APIStatusError)
_CONNECTION_ERRORS = (anthropic.APIConnectionError, openai.APIConnectionError)  # timeouts included
_RETRY_STATUS = {408, 409, 429}
_SPEND_LIMITS = {"contract_spend_limit_reached", "enforced_spend_limit_reached", "insufficient_quota",
                 "billing_hard_limit_reached"}


def _error_code(exc: BaseException) -> str | None:
    return getattr(exc, "error_code", None) or getattr(exc, "code", None)


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, MalformedResponse) or isinstance(exc, _CONNECTION_ERRORS):
        return True
    if isinstance(exc, _STATUS_ERRORS):
        if exc.response.headers.get("x-should-retry") == "false" or _error_code(exc) in _SPEND_LIMITS:
            return False
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def retry_after_s(exc: BaseException | None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `retry-after` (seconds or an HTTP date)."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    headers = response.headers
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers[name]) * scale)
        except (KeyError, TypeError, ValueError):
            pass
    date = email.utils.parsedate_tz(headers.get("retry-after") or "")
    return max(0.0, email.utils.mktime_tz(date) - time.time()) if date else None


class wait_retry_after(wait_base):
    """At least what the server asked for (plus up to 25% jitter, so a herd told the same number
    spreads out), else the fallback backoff."""

    def __init__(self, fallback: wait_base):
        self.fallback = fallback

    def __call__(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        ra = retry_after_s(exc)
        if ra is None or ra <= 0:
            return self.fallback(retry_state)
        return ra * (1 + 0.25 * random.random())


# -- judges -------------------------------------------------------------------------------
@dataclass
class Generation:
    """A teacher answer written by an API model."""
    text: str
    raw: str = ""
    """The full raw response, kept so re-parsing never pays again."""
    usage: dict[str, int] = field(default_factory=dict)
    cost_usd: float = 0.0
    truncated: bool = False
    """The model stopped at max_tokens."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Generation":
        return cls(text=d["text"], raw=d.get("raw", ""), usage=d.get("usage", {}), cost_usd=d.get("cost_usd", 0.0),
                   truncated=d.get("truncated", False))


TEACHER_VERSION = "teacher-1"
TEACHER_SYSTEM = ("You are an expert Python programmer. Solve the problem. Answer with one ```python code block "
                  "holding the complete function, and nothing else.")

Job = tuple[str, Callable[[], Awaitable[dict]]]


def _http_client(sdk: Any) -> Any:
    """aiohttp under the SDK when installed (the `aiohttp` extra of anthropic/openai): about half the
    CPU per request of the default httpx pool, which is what bounds throughput at 64 calls in flight.
    Otherwise None: the SDK's own httpx client."""
    if importlib.util.find_spec("aiohttp") is None:
        return None
    return sdk.DefaultAioHttpClient()


class APIJudge:
    """What both providers share: keys, budget estimates, retries, limiter, parsing into Score."""

    kind = ""
    key_env = ""
    sdk: Any = None

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_tokens: int = 512, teacher_max_tokens: int = 1024, temperature: float | None = None,
                 timeout_s: float = 120.0, attempts: int = 6, backoff_s: float = 1.0, max_backoff_s: float = 60.0,
                 prices: dict[str, dict[str, float]] | None = None, limiter: RateLimiter | None = None):
        if not model:
            raise ValueError(f"judge kind {self.kind} needs a model id (judge.model=...)")
        if attempts < 1:
            raise ValueError(f"attempts must be >= 1 (got {attempts})")
        self.model, self.max_tokens, self.teacher_max_tokens = model, max_tokens, teacher_max_tokens
        self.temperature, self.timeout_s, self.attempts = temperature, timeout_s, attempts
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self.prices = PRICES if prices is None else prices
        if price_for(model, self.prices) is None:
            raise ValueError(f"no price for model {model!r}, so its cost and the budget cannot be tracked; add "
                             f"judge.prices.{model}={{input: $/Mtok, output: $/Mtok}} (0 and 0 for a free local server)")
        self.limiter = limiter or RateLimiter()
        self._api_key, self._base_url_arg = api_key, base_url
        # One probe client resolves the base URL (argument > SDK env var > default) and fails early on
        # missing keys. Calls use one client per event loop: a connection pool cannot cross loops.
        self.base_url = str(self._make_client(http_client=None).base_url).rstrip("/")
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}
        self._closers: dict[asyncio.AbstractEventLoop, Any] = {}

    # provider hooks
    def _make_client(self, http_client: Any) -> Any: raise NotImplementedError
    def _score_body(self, system: str, user: str) -> dict: raise NotImplementedError
    def _generate_body(self, system: str, user: str) -> dict: raise NotImplementedError
    async def _send(self, client: Any, body: dict) -> str: raise NotImplementedError
    def _usage(self, data: dict) -> dict[str, int]: raise NotImplementedError
    def _structured(self, data: dict) -> Any: raise NotImplementedError
    def _text(self, data: dict) -> tuple[str, bool]: raise NotImplementedError
    def _params(self, max_tokens: int) -> dict: return {"max_tokens": max_tokens, "temperature": self.temperature}

    async def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        if loop not in self._clients:
            self._clients[loop] = self._make_client(http_client=_http_client(self.sdk))
            # asyncio.run() finalizes live async generators before it closes its loop: this one then
            # closes the client, so no connection pool outlives its loop (the SDKs warn about those).
            closer = self._close_at_loop_end(loop)
            await closer.__anext__()
            self._closers[loop] = closer
        return self._clients[loop]

    async def _close_at_loop_end(self, loop: asyncio.AbstractEventLoop) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self._closers.pop(loop, None)
            client = self._clients.pop(loop, None)
            if client is not None:
                await client.close()

    async def aclose(self) -> None:
        """Close this event loop's connections (asyncio.run does it by itself at its end)."""
        closer = self._closers.get(asyncio.get_running_loop())
        if closer is not None:
            await closer.aclose()

    # -- cache keys: everything that changes the answer, nothing else ----------------------
    def ingredients(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "base_url": self.base_url, "rubric": rubric.rubric_hash(),
                "rubric_version": rubric.RUBRIC_VERSION, "parser": rubric.PARSER_VERSION,
                "params": self._params(self.max_tokens)}

    def teacher_ingredients(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "base_url": self.base_url, "role": "teacher",
                "template": sha256_text(TEACHER_VERSION + "\n" + TEACHER_SYSTEM),
                "params": self._params(self.teacher_max_tokens)}

    def key(self, problem: Problem, completion: str, reference: str | None) -> str:
        return cache_key({**self.ingredients(), "prompt": sha256_text(problem.prompt),
                          "completion": sha256_text(completion),
                          "reference": None if reference is None else sha256_text(reference)})

    def teacher_key(self, problem: Problem) -> str:
        return cache_key({**self.teacher_ingredients(), "prompt": sha256_text(problem.prompt)})

    # -- estimates (upper bounds: chars / 3 covers code, which tokenizes denser than prose) -
    @staticmethod
    def _tokens_in(body: dict) -> int:
        chars = sum(len(m["content"]) for m in body["messages"]) + len(body.get("system", ""))
        if "tools" in body or "response_format" in body:
            chars += len(json.dumps(rubric.SCHEMA))
        return math.ceil(chars / 3) + 50  # + role and format overhead

    def _estimate_tokens(self, body: dict) -> int:
        return self._tokens_in(body) + body.get("max_tokens", body.get("max_completion_tokens", 0))

    def _estimate_usd(self, body: dict) -> float:
        out = body.get("max_tokens", body.get("max_completion_tokens", 0))
        return cost_usd({"input_tokens": self._tokens_in(body), "output_tokens": out}, self.model, self.prices)

    def estimate_usd(self, problem: Problem, completion: str, reference: str | None) -> float:
        return self._estimate_usd(self._score_body(*rubric.build_prompt(problem.prompt, completion, reference)))

    def estimate_generate_usd(self, problem: Problem) -> float:
        return self._estimate_usd(self._generate_body(TEACHER_SYSTEM, problem.prompt))

    # -- calls -----------------------------------------------------------------------------
    async def ascore(self, problem: Problem, completion: str, reference: str | None = None) -> Score:
        system, user = rubric.build_prompt(problem.prompt, completion, reference)
        return self.parse_score(await self._request(self._score_body(system, user)))

    def parse_score(self, raw: str) -> Score:
        """Score from a raw response (a live one, or one kept in the cache: re-parsing is free)."""
        data = json.loads(raw)
        usage = self._usage(data)
        value, breakdown = rubric.parse(self._structured(data))
        return Score(value=value, breakdown=breakdown, raw=raw, usage=usage,
                     cost_usd=cost_usd(usage, self.model, self.prices))

    async def agenerate(self, problem: Problem) -> Generation:
        raw = await self._request(self._generate_body(TEACHER_SYSTEM, problem.prompt))
        data = json.loads(raw)
        usage = self._usage(data)
        text, truncated = self._text(data)
        return Generation(text=text, raw=raw, usage=usage, cost_usd=cost_usd(usage, self.model, self.prices),
                          truncated=truncated)

    def score_job(self, problem: Problem, completion: str, reference: str | None) -> Job:
        """(key, call) for run_cached."""
        async def call() -> dict:
            return (await self.ascore(problem, completion, reference)).to_json()
        return self.key(problem, completion, reference), call

    def generate_job(self, problem: Problem) -> Job:
        async def call() -> dict:
            return (await self.agenerate(problem)).to_json()
        return self.teacher_key(problem), call

    async def _request(self, body: dict) -> str:
        """POST with retries; the raw response text of a 2xx whose body is a JSON object."""
        est = self._estimate_tokens(body)
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_retry_after(wait_random_exponential(multiplier=self.backoff_s, max=self.max_backoff_s)),
            retry=retry_if_exception(is_retryable), before_sleep=self._log_retry, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    async with self.limiter.slot(est) as slot:
                        raw = await self._send(await self._client(), body)
                        try:
                            data = json.loads(raw)
                        except ValueError:
                            data = None
                        if not isinstance(data, dict):
                            raise MalformedResponse(f"response body is not a JSON object: {raw[:200]!r}")
                        u = self._usage(data)
                        slot.used(u["input_tokens"] + u["output_tokens"])
                    return raw
        except (anthropic.APIError, openai.APIError, MalformedResponse) as e:
            raise self._final_error(e, attempts) from e
        raise AssertionError("unreachable")

    def _where(self) -> str:
        return f"{self.kind} judge {self.model} at {self.base_url}"

    def _describe(self, e: BaseException) -> tuple[int | None, str]:
        if isinstance(e, _STATUS_ERRORS):
            msg = getattr(e, "api_message", None) or e.message
            return e.status_code, f"HTTP {e.status_code} ({str(msg)[:200]})"
        if isinstance(e, (anthropic.APITimeoutError, openai.APITimeoutError)):
            return None, f"timed out after {self.timeout_s:g}s"
        if isinstance(e, _CONNECTION_ERRORS):
            return None, f"connection error ({e.__cause__ or e})"
        return None, str(e)[:300]

    def _final_error(self, e: BaseException, attempts: int) -> JudgeAPIError:
        status, what = self._describe(e)
        if is_retryable(e):
            hint = ("raise judge.attempts, or lower judge.max_in_flight / judge.rpm / judge.tpm" if status == 429
                    else "raise judge.attempts or judge.timeout_s, or check the service")
            return JudgeAPIError(f"{self._where()}: gave up after {attempts} attempts; last error: {what}. {hint}",
                                 status, attempts)
        if status in (401, 403):
            hint = f"check {self.key_env} (or the api key in config) and that it may use model {self.model}"
        elif status == 404:
            hint = f"check the model id {self.model!r} and the base URL"
        elif status == 429:
            hint = "the account's spend limit is reached"
        else:
            hint = "the API rejects this request; retrying would not help"
        return JudgeAPIError(f"{self._where()}: {what}, not retried: {hint}", status, attempts)

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning("%s: %s; attempt %d/%d, retrying in %.2fs", self._where(), self._describe(exc)[1],
                    state.attempt_number, self.attempts, state.upcoming_sleep)


class AnthropicJudge(APIJudge):
    """Messages API; structured output = a strict tool with the rubric schema, forced by tool_choice."""

    kind = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    sdk = anthropic

    def __init__(self, model: str, *, temperature: float | None = None, **kw: Any):
        if temperature is not None:
            raise ValueError(f"Anthropic API version {anthropic._constants.ANTHROPIC_API_VERSION} rejects temperature "
                             "(and top_p/top_k), and the SDK no longer sends them; leave the temperature unset "
                             "for Anthropic judges and teachers")
        super().__init__(model, temperature=None, **kw)

    def _make_client(self, http_client: Any) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(api_key=self._api_key, base_url=self._base_url_arg, max_retries=0,
                                        timeout=self.timeout_s, http_client=http_client)

    def _params(self, max_tokens: int) -> dict:
        return {"max_tokens": max_tokens}

    def ingredients(self) -> dict[str, Any]:
        return {**super().ingredients(), "api_version": anthropic._constants.ANTHROPIC_API_VERSION}

    def teacher_ingredients(self) -> dict[str, Any]:
        return {**super().teacher_ingredients(), "api_version": anthropic._constants.ANTHROPIC_API_VERSION}

    def _score_body(self, system: str, user: str) -> dict:
        return {"model": self.model, "max_tokens": self.max_tokens, "system": system,
                "messages": [{"role": "user", "content": user}],
                "tools": [{"name": rubric.TOOL_NAME, "description": "Record the grades of the answer.",
                           "input_schema": rubric.SCHEMA, "strict": True}],
                "tool_choice": {"type": "tool", "name": rubric.TOOL_NAME, "disable_parallel_tool_use": True}}

    def _generate_body(self, system: str, user: str) -> dict:
        return {"model": self.model, "max_tokens": self.teacher_max_tokens, "system": system,
                "messages": [{"role": "user", "content": user}]}

    async def _send(self, client: anthropic.AsyncAnthropic, body: dict) -> str:
        r = await client.messages.with_raw_response.create(**body)
        return await r.text()

    def _usage(self, data: dict) -> dict[str, int]:
        u = data.get("usage") or {}
        return {"input_tokens": int(u.get("input_tokens") or 0), "output_tokens": int(u.get("output_tokens") or 0)}

    def _structured(self, data: dict) -> Any:
        blocks = data.get("content") or []
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == rubric.TOOL_NAME:
                return b.get("input")
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")

    def _text(self, data: dict) -> tuple[str, bool]:
        text = "".join(b.get("text", "") for b in data.get("content") or []
                       if isinstance(b, dict) and b.get("type") == "text")
        return text, data.get("stop_reason") == "max_tokens"


class OpenAIJudge(APIJudge):
    """Chat Completions; structured output = response_format json_schema (strict), read from message.content."""

    kind = "openai"
    key_env = "OPENAI_API_KEY"
    sdk = openai

    def __init__(self, model: str, *, temperature: float | None = 0.0, **kw: Any):
        # reasoning models (o-series, gpt-5) accept only the default temperature: pass None for them
        super().__init__(model, temperature=temperature, **kw)

    def _make_client(self, http_client: Any) -> openai.AsyncOpenAI:
        kw: dict[str, Any] = {"api_key": self._api_key, "max_retries": 0, "timeout": self.timeout_s,
                              "http_client": http_client}
        if self._base_url_arg is not None:
            kw["base_url"] = self._base_url_arg
        return openai.AsyncOpenAI(**kw)

    def _sampling(self) -> dict:
        return {} if self.temperature is None else {"temperature": self.temperature}

    def _score_body(self, system: str, user: str) -> dict:
        return {"model": self.model, "max_completion_tokens": self.max_tokens, **self._sampling(),
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                "response_format": {"type": "json_schema",
                                    "json_schema": {"name": rubric.TOOL_NAME, "schema": rubric.SCHEMA, "strict": True}}}

    def _generate_body(self, system: str, user: str) -> dict:
        return {"model": self.model, "max_completion_tokens": self.teacher_max_tokens, **self._sampling(),
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}

    async def _send(self, client: openai.AsyncOpenAI, body: dict) -> str:
        r = await client.chat.completions.with_raw_response.create(**body)
        return r.text

    def _usage(self, data: dict) -> dict[str, int]:
        u = data.get("usage") or {}
        return {"input_tokens": int(u.get("prompt_tokens") or 0), "output_tokens": int(u.get("completion_tokens") or 0)}

    def _message(self, data: dict) -> dict:
        choices = data.get("choices") or [{}]
        return (choices[0] or {}).get("message") or {}

    def _structured(self, data: dict) -> Any:
        m = self._message(data)
        if m.get("content") is None and m.get("refusal"):
            return f"refusal: {m['refusal']}"
        return m.get("content") or ""

    def _text(self, data: dict) -> tuple[str, bool]:
        choices = data.get("choices") or [{}]
        return self._message(data).get("content") or "", (choices[0] or {}).get("finish_reason") == "length"


# -- the cached, budgeted runner ----------------------------------------------------------
@dataclass
class RunStats:
    api_calls: int = 0
    """Calls paid for in this run (distinct keys; retries of one call count once)."""
    cache_hits: int = 0
    """Jobs answered without a new call (in the cache, a duplicate key, or another run's call)."""
    cost_usd: float = 0.0
    """Dollars of this run's new calls."""
    saved_usd: float = 0.0
    """Dollars the answered-without-a-call jobs cost when they were paid for."""
    parse_failures: int = 0
    """Answers whose value is None (the judge's output could not be read)."""
    missing: int = 0
    """Replay with skip_missing: jobs not in the cache."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# (cache directory, key) -> the call in flight, shared by concurrent run_cached calls in this process
_IN_FLIGHT: dict[tuple[str, str], concurrent.futures.Future] = {}
_IN_FLIGHT_LOCK = threading.Lock()


async def _call_once(cache: JudgeCache, key: str, call: Callable[[], Awaitable[dict]]) -> tuple[dict, bool]:
    """(value, paid). One call per key in this process; the value is cached before anyone sees it."""
    slot = (str(cache.directory), key)
    with _IN_FLIGHT_LOCK:
        fut = _IN_FLIGHT.get(slot)
        owner = fut is None
        if owner:
            found = cache.get(key)  # under the lock: a finished call is either here or still in _IN_FLIGHT
            if found is not None:
                return found, False
            fut = _IN_FLIGHT[slot] = concurrent.futures.Future()
            fut.set_running_or_notify_cancel()  # a cancelled waiter must not cancel the shared call
    if not owner:
        return await asyncio.wrap_future(fut), False
    try:
        value = await call()
        if not isinstance(value, dict):
            raise TypeError(f"a judge job must return a JSON dict, got {type(value).__name__}")
        cache.set(key, value)  # WAL commit, ~0.1 ms: cheaper inline than a thread hop under load
        fut.set_result(value)
        return value, True
    except BaseException as e:
        fut.set_exception(e)
        raise
    finally:
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.pop(slot, None)


def _cost(v: dict | None) -> float:
    return float(v.get("cost_usd") or 0.0) if isinstance(v, dict) else 0.0


async def run_cached(cache: JudgeCache, jobs: list[Job], *, mode: str = "live", budget_usd: float = 0.0,
                     estimate_usd: float | Callable[[int], float] = 0.0, spent_usd: float = 0.0,
                     max_in_flight: int = 64, skip_missing: bool = False,
                     progress: Callable[[int], Any] | None = None) -> tuple[list[dict | None], RunStats]:
    """Answer every job from the cache or with one call per distinct missing key.

    jobs: (cache key, async call returning a JSON dict with `cost_usd`). estimate_usd: dollars a
    call may cost, a number or a function of the job index (an upper bound keeps the budget).
    budget_usd: 0 = no limit; otherwise no call is issued when spent_usd + this run's spend +
    estimates of calls in flight + its own estimate would exceed it, and BudgetExceeded is raised
    once the calls in flight are done and cached. max_in_flight: calls issued at once (match the
    judge limiter's; it also bounds what still goes out after an error or a budget stop).
    mode="replay": never calls; misses raise ReplayMiss, or with skip_missing are None and counted.
    progress: called with the number of jobs just answered (tqdm's `update` fits).
    """
    results: list[dict | None] = [None] * len(jobs)
    stats = RunStats()
    by_key: dict[str, list[int]] = {}
    for i, (key, _) in enumerate(jobs):
        by_key.setdefault(key, []).append(i)

    def answer(key: str, value: dict, paid: bool) -> None:
        idx = by_key[key]
        for i in idx:
            results[i] = value
        if paid:
            stats.api_calls += 1
            stats.cost_usd += _cost(value)
        free = len(idx) - paid
        stats.cache_hits += free
        stats.saved_usd += free * _cost(value)
        if progress is not None:
            progress(len(idx))

    misses: collections.deque[str] = collections.deque()
    for key in by_key:
        found = cache.get(key)
        if found is not None:
            answer(key, found, paid=False)
        else:
            misses.append(key)

    if misses and mode == "replay":
        stats.missing = sum(len(by_key[k]) for k in misses)
        if not skip_missing:
            raise ReplayMiss(stats.missing, len(jobs), cache.directory)
        misses.clear()
    elif mode not in ("live", "replay"):
        raise ValueError(f"mode must be live or replay, got {mode!r}")

    estimate = estimate_usd if callable(estimate_usd) else (lambda i: float(estimate_usd))
    pending: dict[asyncio.Future, tuple[str, float]] = {}
    reserved = 0.0
    error: BaseException | None = None
    over_budget = False

    def settle(task: asyncio.Future) -> None:
        nonlocal reserved, error
        key, est = pending.pop(task)
        reserved -= est
        if task.exception() is not None:
            error = error or task.exception()
        else:
            answer(key, *task.result())

    try:
        while True:
            while misses and error is None and not over_budget and len(pending) < max(1, max_in_flight):
                key = misses[0]
                est = estimate(by_key[key][0])
                if budget_usd > 0 and spent_usd + stats.cost_usd + reserved + est > budget_usd:
                    if pending:
                        break  # wait: a call finishing below its estimate may leave room
                    over_budget = True
                    break
                misses.popleft()
                reserved += est
                pending[asyncio.ensure_future(_call_once(cache, key, jobs[by_key[key][0]][1]))] = (key, est)
            if not pending:
                break
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                settle(t)
    finally:
        if pending:  # cancelled from outside: stop the calls in flight too (what already arrived is cached)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    stats.parse_failures = sum(1 for v in results if isinstance(v, dict) and "value" in v and v["value"] is None)
    if error is not None:
        raise error
    if over_budget or misses:
        answered = sum(v is not None for v in results)
        raise BudgetExceeded(spent_usd + stats.cost_usd, budget_usd, answered, len(jobs) - answered, results, stats)
    return results, stats
