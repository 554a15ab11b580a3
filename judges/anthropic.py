"""Claude as judge and teacher: the Messages API live, and the Message Batches API at half price.

Live: a forced tool call with the rubric schema (`tool_choice`), one request per answer.
Batch (`client.messages.batches.*`): the same request bodies as `params`, each under its cache key
as `custom_id` (a sha256 hex, exactly the 64 characters Anthropic allows); results are a JSONL
stream, one line per request in any order: succeeded (the message, read like a live response),
errored, canceled or expired. Limits: 100,000 requests or 256 MB per batch.

Anthropic API version 2026-10-21 (anthropic SDK 2.x) rejects temperature/top_p/top_k, so the
Anthropic judge sends none.
"""
from __future__ import annotations

import json
from typing import Any, AsyncIterator, Callable

import anthropic

from judges import rubric
from judges.batch_records import BatchItem, BatchStatus, Outcome, custom_id_of
from judges.llm import APIJudge, tokens


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

    def _make_client(self, http_client: Any, api_key: str | None) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(api_key=api_key, base_url=self._base_url_arg, max_retries=0,
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
        return {"input_tokens": tokens(u.get("input_tokens")), "output_tokens": tokens(u.get("output_tokens"))}

    def _structured(self, data: dict) -> Any:
        blocks = data.get("content") or []
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == rubric.TOOL_NAME:
                return b.get("input")
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")

    def _is_completion(self, data: dict) -> bool:
        return isinstance(data.get("content"), list)

    def _text(self, data: dict) -> tuple[str, bool]:
        text = "".join(b.get("text", "") for b in data.get("content") or []
                       if isinstance(b, dict) and b.get("type") == "text")
        return text, data.get("stop_reason") == "max_tokens"

    # -- Message Batches -------------------------------------------------------------------
    batch_max_requests = 100_000
    batch_max_bytes = 256 * 1024 * 1024

    def batch_line(self, item: BatchItem) -> dict:
        return {"custom_id": item.key, "params": item.body}

    async def batch_submit(self, client: anthropic.AsyncAnthropic, items: list[BatchItem],
                           note: Callable[[dict], None]) -> str:
        batch = await self.with_retries(
            lambda: client.messages.batches.create(requests=[self.batch_line(it) for it in items]),
            resend_on_timeout=False)
        return batch.id

    async def batch_status(self, client: anthropic.AsyncAnthropic, batch_id: str) -> BatchStatus:
        b = await self.with_retries(lambda: client.messages.batches.retrieve(batch_id))
        c = b.request_counts
        counts = {"processing": c.processing, "succeeded": c.succeeded, "errored": c.errored,
                  "canceled": c.canceled, "expired": c.expired}
        return BatchStatus(ended=b.processing_status == "ended", status=b.processing_status, counts=counts,
                           done=sum(counts.values()) - c.processing, total=sum(counts.values()))

    async def batch_results(self, client: anthropic.AsyncAnthropic, batch_id: str) -> AsyncIterator[Outcome]:
        async with client.messages.batches.with_streaming_response.results(batch_id) as r:
            async for line in r.iter_lines():
                if line.strip():
                    yield self._outcome(line)

    def _outcome(self, line: str) -> Outcome:
        try:
            d = json.loads(line)
            cid, result = d["custom_id"], d["result"]
            kind = result["type"]
        except (ValueError, KeyError, TypeError):
            return Outcome(custom_id_of(line), "malformed", line)
        if kind == "succeeded":
            return Outcome(cid, "succeeded", json.dumps(result.get("message")))
        if kind == "errored":
            err = ((result.get("error") or {}).get("error") or {})
            etype = err.get("type", "")
            retryable = etype in ("api_error", "overloaded_error", "rate_limit_error", "timeout_error")
            return Outcome(cid, "errored", f"{etype}: {err.get('message', '')}"[:300], retryable=retryable)
        if kind in ("canceled", "expired"):
            return Outcome(cid, kind, kind)
        return Outcome(cid, "malformed", line)

    async def batch_cancel(self, client: anthropic.AsyncAnthropic, batch_id: str) -> None:
        await self.with_retries(lambda: client.messages.batches.cancel(batch_id))
