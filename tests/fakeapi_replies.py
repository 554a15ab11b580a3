"""What the fake API (tests/fakeapi.py) answers on the live endpoints, and the HTTP framing of
every answer: an Anthropic message (a forced tool call's scores, or the teacher's text) and an
OpenAI chat completion (scores as JSON text, or the teacher's text). `api` is the FakeAPI
serving the request: its scripted scores, teacher text and output tokens.
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Any

ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"


def _usage_in(raw: bytes) -> int:
    return max(1, len(raw) // 4)


def anthropic_reply(api, body: dict, raw: bytes, bad_schema: bool) -> dict:
    tools = body.get("tools") or []
    out_tokens = api.output_tokens
    if tools:
        name = (body.get("tool_choice") or {}).get("name") or tools[0]["name"]
        s = api.score_for(body)
        inp = ({"rationale": "looks fine", "overall": "excellent"} if bad_schema else
               {"rationale": f"scored {s}", "correctness": s, "efficiency": s, "readability": s, "overall": s})
        content = [{"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:24]}", "name": name, "input": inp}]
        stop = "tool_use"
        out_tokens = out_tokens or 40
    else:
        text = api.teacher(body) if callable(api.teacher) else api.teacher
        content = [{"type": "text", "text": text}]
        stop = "end_turn"
        out_tokens = out_tokens or max(1, len(text) // 4)
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
            "model": body.get("model", ""), "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": _usage_in(raw), "output_tokens": out_tokens}}


def openai_reply(api, body: dict, raw: bytes, bad_schema: bool) -> dict:
    rf = body.get("response_format") or {}
    out_tokens = api.output_tokens
    if rf.get("type") == "json_schema":
        s = api.score_for(body)
        content = ("I think it is great, 11/10!" if bad_schema else json.dumps(
            {"rationale": f"scored {s}", "correctness": s, "efficiency": s, "readability": s, "overall": s}))
        out_tokens = out_tokens or 40
    else:
        content = api.teacher(body) if callable(api.teacher) else api.teacher
        out_tokens = out_tokens or max(1, len(content) // 4)
    n_in = _usage_in(raw)
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": n_in, "completion_tokens": out_tokens, "total_tokens": n_in + out_tokens,
                      # OpenAI's automatic prompt caching: the share of the prompt it served from its cache
                      "prompt_tokens_details": {"cached_tokens": min(n_in, api.cached_tokens), "audio_tokens": 0}}}


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 529: "Overloaded"}


def http_reply(status: int, payload: bytes, headers: dict[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "content-type: application/json",
            f"content-length: {len(payload)}"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload  # one write: no Nagle / delayed-ACK stalls



def json_reply(status: int, payload: Any) -> bytes:
    return http_reply(status, json.dumps(payload).encode())


def not_found(what: str) -> bytes:
    return json_reply(404, {"type": "error", "error": {"type": "not_found_error", "message": f"{what} not found"}})
