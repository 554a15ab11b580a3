"""What the Anthropic and OpenAI judges share: keys, cache keys, estimates, one client per
event loop, the live request with its retries, and parsing a raw response into a Score or a
Generation (the same parser reads a live response and a batch result: they are interchangeable).

A provider file (judges/anthropic.py, judges/openai.py) fills in the request body, the call, where
usage and the structured answer sit in its response, and its batch API (judges/batch.py runs it).
"""
from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import math
import os
from typing import Any, AsyncIterator, Awaitable, Callable, TypeVar

import anthropic
import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential

from data.schema import Problem
from judges import rubric
from judges.base import Generation, Score
from judges.batch_records import BatchItem, BatchStatus, Outcome
from judges.cache import cache_key
from judges.cached import Job
from judges.limits import RateLimiter
from judges.prices import PRICES, cost_usd, price_for
from judges.retries import (_CONNECTION_ERRORS, JudgeAPIError, MalformedResponse, describe, final_error, is_retryable,
                            maybe_received, wait_retry_after, waits_too_long)
from judges.hashing import sha256_text

log = logging.getLogger("rlaif")
T = TypeVar("T")

TEACHER_VERSION = "teacher-1"
TEACHER_SYSTEM = ("You are an expert Python programmer. Solve the problem. Answer with one ```python code block "
                  "holding the complete function, and nothing else.")


def teacher_system(language: str = "python") -> str:
    """The teacher's instructions for a problem in `language` (Python's: TEACHER_SYSTEM as it stands, so
    its answers keep their cache keys)."""
    if language == "python":
        return TEACHER_SYSTEM
    return TEACHER_SYSTEM.replace("Python", rubric.LANGUAGE_NAMES.get(language, language)).replace(
        "```python", f"```{language}")



def tokens(x: Any) -> int:
    """A usage count as a non-negative int; what is not one (a proxy's rewrite) counts 0, the answer kept (it is
    paid: losing it over its usage line would pay for it again)."""
    try:
        return max(0, int(x or 0))
    except (TypeError, ValueError, OverflowError):
        return 0


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
    batch_max_requests = 0
    """The provider's documented limits on one batch: requests, and bytes of requests."""
    batch_max_bytes = 0

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_tokens: int = 512, teacher_max_tokens: int = 1024, temperature: float | None = None,
                 timeout_s: float = 120.0, attempts: int = 6, backoff_s: float = 1.0, max_backoff_s: float = 60.0,
                 prices: dict[str, dict[str, float]] | None = None, limiter: RateLimiter | None = None,
                 batch: bool = False, batch_max_requests: int | None = None, batch_max_bytes: int | None = None):
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
                             f"judge.prices='{{\"{model}\": {{input: $/Mtok, output: $/Mtok}}}}' (0 and 0: a free server)")
        if batch and not {"batch_input", "batch_output"} <= set(price_for(model, self.prices)):
            raise ValueError(f"no batch price for model {model!r}, so the cost of its batches cannot be tracked; add "
                             f"batch_input and batch_output to its judge.prices entry ($/Mtok; both providers charge "
                             "half the live price), or set judge.batch=false (teacher.batch=false for a teacher)")
        self.batch = batch
        self.batch_max_requests = batch_max_requests or self.batch_max_requests
        self.batch_max_bytes = batch_max_bytes or self.batch_max_bytes
        self.limiter = limiter or RateLimiter()
        self._api_key, self._base_url_arg = api_key, base_url
        # One probe client resolves the base URL (argument > SDK env var > default); it sends nothing, so
        # it needs no key (the OpenAI SDK refuses to build a client without one: a missing key is said by
        # the run's check before any work, pipeline/stages/judging.check_api). Calls use one client per
        # event loop: a connection pool cannot cross loops.
        probe = self._make_client(None, api_key or os.environ.get(self.key_env) or "the-probe-sends-nothing")
        self.base_url = str(probe.base_url).rstrip("/")
        self._clients: dict[asyncio.AbstractEventLoop, Any] = {}
        self._warned_usage = False
        self._closers: dict[asyncio.AbstractEventLoop, Any] = {}

    # provider hooks
    def _make_client(self, http_client: Any, api_key: str | None) -> Any: raise NotImplementedError
    def _score_body(self, system: str, user: str) -> dict: raise NotImplementedError
    def _generate_body(self, system: str, user: str) -> dict: raise NotImplementedError
    async def _send(self, client: Any, body: dict) -> str: raise NotImplementedError
    def _usage(self, data: dict) -> dict[str, int]: raise NotImplementedError
    def _structured(self, data: dict) -> Any: raise NotImplementedError
    def _text(self, data: dict) -> tuple[str, bool]: raise NotImplementedError
    def _is_completion(self, data: dict) -> bool:
        """Whether a 2xx's JSON body is an answer at all (a gateway may send 200 with an error body)."""
        raise NotImplementedError
    def _params(self, max_tokens: int) -> dict: return {"max_tokens": max_tokens, "temperature": self.temperature}
    # provider batch hooks (judges/batch.py drives them)
    async def batch_submit(self, client: Any, items: list[BatchItem], note: Callable[[dict], None]) -> str:
        """Submit one batch; `note` journals what the provider created on the way (an uploaded file)."""
        raise NotImplementedError
    async def batch_status(self, client: Any, batch_id: str) -> BatchStatus: raise NotImplementedError
    def batch_results(self, client: Any, batch_id: str) -> AsyncIterator[Outcome]: raise NotImplementedError
    async def batch_cancel(self, client: Any, batch_id: str) -> None: raise NotImplementedError
    def batch_line(self, item: BatchItem) -> dict: raise NotImplementedError

    async def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        if loop not in self._clients:
            self._clients[loop] = self._make_client(_http_client(self.sdk), self._api_key)
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
                "rubric_version": rubric.RUBRIC_VERSION, "parser": rubric.KEY_PARSER,
                "params": self._params(self.max_tokens)}

    def teacher_ingredients(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "base_url": self.base_url, "role": "teacher",
                "template": sha256_text(TEACHER_VERSION + "\n" + TEACHER_SYSTEM),
                "params": self._params(self.teacher_max_tokens)}

    def key(self, problem: Problem, completion: str, reference: str | None) -> str:
        own = {} if problem.language == "python" else {"rubric": rubric.rubric_hash(problem.language)}
        return cache_key({**self.ingredients(), **own, "prompt": sha256_text(problem.prompt),
                          "completion": sha256_text(completion),
                          "reference": None if reference is None else sha256_text(reference)})

    def teacher_key(self, problem: Problem) -> str:
        own = {} if problem.language == "python" else {
            "template": sha256_text(TEACHER_VERSION + "\n" + teacher_system(problem.language))}
        return cache_key({**self.teacher_ingredients(), **own, "prompt": sha256_text(problem.prompt)})

    # -- estimates (upper bounds: chars / 3 covers code, which tokenizes denser than prose) -
    @staticmethod
    def _tokens_in(body: dict) -> int:
        chars = sum(len(m["content"]) for m in body["messages"]) + len(body.get("system", ""))
        if "tools" in body or "response_format" in body:
            chars += len(json.dumps(rubric.SCHEMA))
        return math.ceil(chars / 3) + 50  # + role and format overhead

    def _estimate_tokens(self, body: dict) -> int:
        return self._tokens_in(body) + body.get("max_tokens", body.get("max_completion_tokens", 0))

    def estimate_body_usd(self, body: dict, batch: bool = False) -> float:
        """Worst case of one request: its input estimate and all of its max tokens of output."""
        out = body.get("max_tokens", body.get("max_completion_tokens", 0))
        return cost_usd({"input_tokens": self._tokens_in(body), "output_tokens": out}, self.model, self.prices, batch)

    def estimate_usd(self, problem: Problem, completion: str, reference: str | None, batch: bool = False) -> float:
        return self.estimate_body_usd(self._score_body(*rubric.build_prompt(problem.prompt, completion, reference,
                                                                             problem.language)), batch)

    def estimate_generate_usd(self, problem: Problem, batch: bool = False) -> float:
        return self.estimate_body_usd(self._generate_body(teacher_system(problem.language), problem.prompt), batch)

    # -- calls -----------------------------------------------------------------------------
    async def ascore(self, problem: Problem, completion: str, reference: str | None = None) -> Score:
        system, user = rubric.build_prompt(problem.prompt, completion, reference, problem.language)
        return self.parse_score(await self._request(self._score_body(system, user)))

    def parse_score(self, raw: str, batch: bool = False) -> Score:
        """Score from a raw response: a live one, a batch result's message, or one kept in the cache
        (re-parsing is free). batch=True prices it at the batch rate."""
        data = json.loads(raw)
        usage = self._usage(data)
        try:
            value, breakdown = rubric.parse(self._structured(data))
            cut = value is None and self._text(data)[1]
        except Exception as e:  # noqa: BLE001  a paid answer of an unforeseen shape is kept, unscored, not lost
            value, breakdown, cut = None, {"parse_error": f"unreadable answer: {type(e).__name__}: {e}"[:300]}, False
        if cut:
            breakdown["parse_error"] = (f"cut off at judge.max_tokens={self.max_tokens} before the grades ended; raise "
                                        "judge.max_tokens (a reasoning model's reasoning counts against it): "
                                        + str(breakdown.get("parse_error", "")))[:300]
        return Score(value=value, breakdown=breakdown, raw=raw, usage=usage,
                     cost_usd=cost_usd(usage, self.model, self.prices, batch))

    def parse_generation(self, raw: str, batch: bool = False) -> Generation:
        data = json.loads(raw)
        usage = self._usage(data)
        try:
            text, truncated = self._text(data)
        except Exception as e:  # noqa: BLE001  kept with its raw answer (and its price), as an empty one
            log.warning("%s: an answer of an unexpected shape (%s: %s), kept as an empty one", self._where(),
                        type(e).__name__, str(e)[:200])
            text, truncated = "", False
        return Generation(text=text, raw=raw, usage=usage, cost_usd=cost_usd(usage, self.model, self.prices, batch),
                          truncated=truncated)

    def value(self, role: str, raw: str, batch: bool = False) -> dict:
        """The JSON value the cache keeps for a raw answer to a request of this role (a judgement notes the
        parser version that read it)."""
        if role == "judge":
            return {**self.parse_score(raw, batch).to_json(), "parser": rubric.PARSER_VERSION}
        return self.parse_generation(raw, batch).to_json()

    def fresh(self, value: dict) -> dict:
        """A cached judgement as this version's parser reads it: one read by another version (or before
        versions were noted: KEY_PARSER's) is parsed again from its raw response, its price as paid."""
        if value.get("parser", rubric.KEY_PARSER) == rubric.PARSER_VERSION or not value.get("raw"):
            return value
        try:
            again = self.parse_score(value["raw"])
        except ValueError:   # not this judge's response (a note, not JSON): kept as it was
            return value
        return {**again.to_json(), "cost_usd": value.get("cost_usd", 0.0), "parser": rubric.PARSER_VERSION}

    async def agenerate(self, problem: Problem) -> Generation:
        return self.parse_generation(await self._request(self._generate_body(teacher_system(problem.language),
                                                                             problem.prompt)))

    def score_item(self, problem: Problem, completion: str, reference: str | None) -> BatchItem:
        """The request for one judgement: its cache key, its body (live and batch send the same one)
        and the live call."""
        body = self._score_body(*rubric.build_prompt(problem.prompt, completion, reference, problem.language))
        return BatchItem(self.key(problem, completion, reference), body, "judge", self._live(body, "judge"))

    def generate_item(self, problem: Problem) -> BatchItem:
        body = self._generate_body(teacher_system(problem.language), problem.prompt)
        return BatchItem(self.teacher_key(problem), body, "teacher", self._live(body, "teacher"))

    def _live(self, body: dict, role: str) -> Callable[[], Awaitable[dict]]:
        async def call() -> dict:
            return self.value(role, await self._request(body))
        return call

    def score_job(self, problem: Problem, completion: str, reference: str | None) -> Job:
        """(key, call) for run_cached."""
        item = self.score_item(problem, completion, reference)
        return item.key, item.live

    def generate_job(self, problem: Problem) -> Job:
        item = self.generate_item(problem)
        return item.key, item.live

    async def _request(self, body: dict) -> str:
        """POST with retries; the raw response text of a 2xx whose body is a JSON object."""
        est = self._estimate_tokens(body)

        async def once() -> str:
            async with self.limiter.slot(est) as slot:
                raw = await self._send(await self._client(), body)
                try:
                    data = json.loads(raw)
                except ValueError:
                    data = None
                if not isinstance(data, dict):
                    raise MalformedResponse(f"response body is not a JSON object: {raw[:200]!r}")
                if not self._is_completion(data):  # retried, never cached as an unparsable answer
                    raise MalformedResponse(f"response body is not a {self.kind} completion: {raw[:200]!r}")
                u = self._usage(data)
                if not u["input_tokens"] + u["output_tokens"] and not self._warned_usage:   # none, or unreadable
                    self._warned_usage = True
                    log.warning("%s: a response without `usage` (or whose counts are not numbers): its cost is "
                                "counted as $0, so judge.budget_usd and the cost figures miss it (a proxy that strips "
                                "or rewrites it?)", self._where())
                slot.used(u["input_tokens"] + u["output_tokens"])
            return raw
        return await self.with_retries(once)

    async def with_retries(self, op: Callable[[], Awaitable[T]], *, resend_on_timeout: bool = True) -> T:
        """Run `op` under the retry policy (judges/retries.py). resend_on_timeout=False: a timeout, a
        dropped connection, a 408 or a 5xx other than 529 is final (retries.maybe_received), for a request
        that must not be sent twice (a batch creation the provider may have carried out before a gateway
        answered 504: sending it again could pay for the batch twice); 429 and 529 are still retried."""
        def retryable(e: BaseException) -> bool:
            return (is_retryable(e) and (resend_on_timeout or not maybe_received(self._describe(e)[0]))
                    and not waits_too_long(e))

        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_retry_after(wait_random_exponential(multiplier=self.backoff_s, max=self.max_backoff_s)),
            retry=retry_if_exception(retryable), before_sleep=self._log_retry, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    return await op()
        except (anthropic.APIError, openai.APIError, MalformedResponse, *_CONNECTION_ERRORS) as e:
            raise self._final_error(e, attempts) from e
        raise AssertionError("unreachable")

    role = "judge"   # "teacher" where it writes the teacher's answers (make_model): said in its errors

    def _where(self) -> str:
        return f"{self.kind} {self.role} {self.model} at {self.base_url}"

    def _describe(self, e: BaseException) -> tuple[int | None, str]:
        return describe(e, self.timeout_s)

    def _final_error(self, e: BaseException, attempts: int) -> JudgeAPIError:
        return final_error(e, attempts, self._where(), self.key_env, self.model, self.timeout_s)

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning("%s: %s; attempt %d/%d, retrying in %.2fs", self._where(), self._describe(exc)[1],
                    state.attempt_number, self.attempts, state.upcoming_sleep)


