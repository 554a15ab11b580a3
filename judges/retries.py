"""Retries for API calls, shared by both providers' live and batch calls. tenacity owns them (the SDKs
get `max_retries=0`): 408/409/429/5xx, connection errors (a body cut mid-download too), timeouts and a 200 with a broken JSON
body or one that is no completion are retried with jittered exponential backoff that waits at least
what `retry-after-ms` / `retry-after` say, up to MAX_RETRY_AFTER_S: a longer wait (a quota's) fails at once. 400/401/403 and
spend-limit 429s are never retried (the same request cannot succeed; a bad key or a refused request
repeated is money and time for nothing), whatever the server's `x-should-retry` says; 404/422 are not
unless its `x-should-retry: true` says so, and its `false` stops any retry; a 400/413/422
about one request is left out by judges/cached.py, the others stop the run.
"""
from __future__ import annotations

import email.utils
import random
import time

import anthropic
import httpx2
import openai
from tenacity import RetryCallState
from tenacity.wait import wait_base


class JudgeAPIError(RuntimeError):
    """An API call that failed for good: not retryable, or out of attempts. Names the status."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 0):
        super().__init__(message)
        self.status, self.attempts = status, attempts


class MalformedResponse(Exception):
    """A 2xx whose body is not a JSON object (a proxy or transport fault): retried."""



_STATUS_ERRORS = (anthropic.APIStatusError, openai.APIStatusError)
# timeouts included; and the transport's own, which the SDKs leave unwrapped while a response body streams
# in (a batch's results cut mid-download)
_CONNECTION_ERRORS = (anthropic.APIConnectionError, openai.APIConnectionError, httpx2.TransportError)
_RETRY_STATUS = {408, 409, 429}
_NEVER_STATUS = {400, 401, 403}   # never retried, whatever x-should-retry says
_SPEND_LIMITS = {"contract_spend_limit_reached", "enforced_spend_limit_reached", "insufficient_quota",
                 "billing_hard_limit_reached"}


def _error_code(exc: BaseException) -> str | None:
    return getattr(exc, "error_code", None) or getattr(exc, "code", None)


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, MalformedResponse) or isinstance(exc, _CONNECTION_ERRORS):
        return True
    if isinstance(exc, _STATUS_ERRORS):
        should = exc.response.headers.get("x-should-retry")   # the server's word, as the SDKs read it
        if should == "false" or exc.status_code in _NEVER_STATUS or _error_code(exc) in _SPEND_LIMITS:
            return False
        return should == "true" or exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def maybe_received(status: int | None) -> bool:
    """An answer that does not say the request was refused before it was carried out: no answer at all
    (a timeout, a dropped connection: status None), 408, or a 5xx other than Anthropic's 529 (overloaded,
    refused up front) - a gateway's 502/504 comes after it forwarded the request. A request that must not
    be carried out twice (a batch creation) is not resent after one."""
    return status is None or status == 408 or (status >= 500 and status != 529)


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


MAX_RETRY_AFTER_S = 600.0
"""The longest retry-after a call waits for: a server that asks for more (a daily quota's hours) fails the call
at once, saying so, rather than holding the stage for each of its attempts."""


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


def waits_too_long(e: BaseException) -> bool:
    """The server asks for a wait beyond MAX_RETRY_AFTER_S: not retried."""
    return (retry_after_s(e) or 0.0) > MAX_RETRY_AFTER_S


def describe(e: BaseException, timeout_s: float) -> tuple[int | None, str]:
    """(HTTP status or None, a short account of the failure) for an API call's exception."""
    if isinstance(e, _STATUS_ERRORS):
        msg = getattr(e, "api_message", None) or e.message
        return e.status_code, f"HTTP {e.status_code} ({str(msg)[:200]})"
    if isinstance(e, (anthropic.APITimeoutError, openai.APITimeoutError)):
        return None, f"timed out after {timeout_s:g}s"
    if isinstance(e, _CONNECTION_ERRORS):
        return None, f"connection error ({e.__cause__ or e})"
    return None, str(e)[:300]


def final_error(e: BaseException, attempts: int, where: str, key_env: str, model: str,
                timeout_s: float) -> JudgeAPIError:
    """The JudgeAPIError a call that failed for good raises: what happened and what to do about it."""
    status, what = describe(e, timeout_s)
    if is_retryable(e) and waits_too_long(e):
        return JudgeAPIError(f"{where}: {what}, asking to wait {retry_after_s(e):.0f} s (retry-after), more than "
                             f"the {MAX_RETRY_AFTER_S:.0f} s a call waits: a quota or spend limit rather than a rate "
                             "limit; rerun once it resets", status, attempts)
    if is_retryable(e):
        hint = ("raise judge.attempts, or lower judge.max_in_flight / judge.rpm / judge.tpm" if status == 429
                else "raise judge.attempts or judge.timeout_s, or check the service")
        return JudgeAPIError(f"{where}: gave up after {attempts} attempts; last error: {what}. {hint}",
                             status, attempts)
    if status in (401, 403):
        hint = f"check {key_env} (the key the SDK reads from the environment) and that it may use model {model}"
    elif status == 404:
        hint = f"check the model id {model!r} and the base URL"
    elif status == 429:
        hint = "the account's spend limit is reached"
    elif status is not None and status >= 500:   # (a server error the server asked not to retry: x-should-retry)
        hint = "the server asked not to retry it (x-should-retry: false); rerun later, or check the service's status"
    else:
        hint = "the API rejects this request; retrying would not help"
    return JudgeAPIError(f"{where}: {what}, not retried: {hint}", status, attempts)
