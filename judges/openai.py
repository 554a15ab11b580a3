"""GPT as judge and teacher: Chat Completions live, and the Batch API at half price.

Live: `response_format: json_schema` (strict) with the rubric schema, read from message.content.
Batch: the same request bodies as lines of a JSONL file (`{custom_id, method, url, body}`, the cache
key as custom_id), uploaded with `client.files.create(purpose="batch")`, then
`client.batches.create(endpoint="/v1/chat/completions", completion_window="24h")`. Results: the
output file (`{custom_id, response: {status_code, body}}`, the body read like a live response) and
the error file (failed and expired requests). Limits: 50,000 requests and 200 MB per batch file.
"""
from __future__ import annotations

import json
import time
from typing import Any, AsyncIterator, Callable

import openai

from judges import rubric
from judges.batch_records import BatchItem, BatchStatus, Outcome, custom_id_of
from judges.llm import APIJudge, tokens

ENDPOINT = "/v1/chat/completions"
_RETRY_CODES = {"batch_expired", "rate_limit_exceeded", "server_error", "timeout"}


class OpenAIJudge(APIJudge):
    """Chat Completions; structured output = response_format json_schema (strict), read from message.content."""

    kind = "openai"
    key_env = "OPENAI_API_KEY"
    sdk = openai

    def __init__(self, model: str, *, temperature: float | None = 0.0, **kw: Any):
        # reasoning models (o-series, gpt-5) accept only the default temperature: pass None for them
        super().__init__(model, temperature=temperature, **kw)

    def _make_client(self, http_client: Any, api_key: str | None) -> openai.AsyncOpenAI:
        kw: dict[str, Any] = {"api_key": api_key, "max_retries": 0, "timeout": self.timeout_s,
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
        d = u.get("prompt_tokens_details")
        cached = tokens(d.get("cached_tokens")) if isinstance(d, dict) else 0   # prompt caching's share
        return {"input_tokens": tokens(u.get("prompt_tokens")), "output_tokens": tokens(u.get("completion_tokens")),
                **({"cached_input_tokens": cached} if cached else {})}

    def _message(self, data: dict) -> dict:
        choices = data.get("choices") or [{}]
        return (choices[0] or {}).get("message") or {}

    def _structured(self, data: dict) -> Any:
        m = self._message(data)
        if m.get("content") is None and m.get("refusal"):
            return f"refusal: {m['refusal']}"
        return m.get("content") or ""

    def _is_completion(self, data: dict) -> bool:
        return isinstance(data.get("choices"), list) and bool(data["choices"])

    def _text(self, data: dict) -> tuple[str, bool]:
        choices = data.get("choices") or [{}]
        return self._message(data).get("content") or "", (choices[0] or {}).get("finish_reason") == "length"

    # -- Batch API ---------------------------------------------------------------------------
    batch_max_requests = 50_000
    batch_max_bytes = 200 * 1024 * 1024

    def batch_line(self, item: BatchItem) -> dict:
        return {"custom_id": item.key, "method": "POST", "url": ENDPOINT, "body": item.body}

    async def batch_submit(self, client: openai.AsyncOpenAI, items: list[BatchItem],
                           note: Callable[[dict], None], file_id: str | None = None) -> str:
        """Upload the requests as a JSONL file (unless an upload journaled by a killed run is given), then
        create the batch over it, the file id and each creation's moment noted before it is sent: a creation
        in flight at a kill lands within timeout_s of it, and find_batch is asked only once it would have."""
        if file_id is None:
            data = b"".join(json.dumps(self.batch_line(it)).encode() + b"\n" for it in items)
            f = await self.with_retries(
                lambda: client.files.create(file=("rlaif-batch.jsonl", data, "application/jsonl"), purpose="batch"))
            file_id = f.id

        async def create() -> Any:
            note({"file_id": file_id, "creating_at": time.time(), "timeout_s": self.timeout_s})
            return await client.batches.create(input_file_id=file_id, endpoint=ENDPOINT, completion_window="24h")
        batch = await self.with_retries(create, resend_on_timeout=False)
        return batch.id

    async def find_batch(self, client: openai.AsyncOpenAI, file_id: str, scan: int = 2000) -> str | None:
        """The batch created over `file_id`, if a killed run created one before journaling its id: the
        organisation's batches, newest first, page after page, up to `scan` of them (an organisation whose
        other runs made more than the first page's 100 since the kill had it fall off that page)."""
        async def look() -> str | None:
            n = 0
            async for b in client.batches.list(limit=100):
                if b.input_file_id == file_id:
                    return b.id
                n += 1
                if n >= scan:
                    return None
            return None
        return await self.with_retries(look)

    async def batch_status(self, client: openai.AsyncOpenAI, batch_id: str) -> BatchStatus:
        b = await self.with_retries(lambda: client.batches.retrieve(batch_id))
        c = b.request_counts
        total, completed, failed = (c.total, c.completed, c.failed) if c else (0, 0, 0)
        ended = b.status in ("completed", "failed", "expired", "cancelled")
        return BatchStatus(ended=ended, status=b.status, counts={"completed": completed, "failed": failed},
                           done=completed + failed, total=total,
                           files=[f for f in (b.output_file_id, b.error_file_id) if f],
                           error="; ".join(e.message or e.code or "" for e in (b.errors.data or []))
                           if b.errors else "")

    async def batch_results(self, client: openai.AsyncOpenAI, batch_id: str) -> AsyncIterator[Outcome]:
        status = await self.batch_status(client, batch_id)
        for file_id in status.files:
            async with client.files.with_streaming_response.content(file_id) as r:
                async for line in r.iter_lines():
                    if line.strip():
                        yield self._outcome(line)

    def _outcome(self, line: str) -> Outcome:
        try:
            d = json.loads(line)
            cid = d["custom_id"]
            response, error = d.get("response"), d.get("error")
        except (ValueError, KeyError, TypeError, AttributeError):
            return Outcome(custom_id_of(line), "malformed", line)
        if isinstance(response, dict) and response.get("status_code") == 200 and isinstance(response.get("body"), dict):
            return Outcome(cid, "succeeded", json.dumps(response["body"]))
        if isinstance(error, dict) and error.get("code") == "batch_expired":
            return Outcome(cid, "expired", error.get("message") or "expired")
        if isinstance(error, dict) and error.get("code") == "batch_cancelled":
            return Outcome(cid, "canceled", error.get("message") or "cancelled")
        if isinstance(response, dict) and isinstance(response.get("status_code"), int):
            status = response["status_code"]
            err = ((response.get("body") or {}).get("error") or {}) if isinstance(response.get("body"), dict) else {}
            return Outcome(cid, "errored", f"HTTP {status} ({err.get('message', '')})"[:300],
                           retryable=status in (408, 409, 429) or status >= 500)
        if isinstance(error, dict):
            return Outcome(cid, "errored", f"{error.get('code')}: {error.get('message', '')}"[:300],
                           retryable=error.get("code") in _RETRY_CODES)
        return Outcome(cid, "malformed", line)

    async def batch_cancel(self, client: openai.AsyncOpenAI, batch_id: str) -> None:
        await self.with_retries(lambda: client.batches.cancel(batch_id))
