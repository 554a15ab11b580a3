"""A scriptable fake of the Anthropic Messages and OpenAI Chat Completions HTTP APIs.

A real HTTP/1.1 server on 127.0.0.1 (a free port), so tests drive the real SDKs through
`base_url`. It runs on its own asyncio loop in one thread: thousands of concurrent requests,
and no thread-per-connection GIL convoy slowing the client under test. What it answers:

- POST /v1/messages          (Anthropic): a forced tool call -> `tool_use` block with scores;
                             no tools -> a text block (the teacher answer).
- POST /v1/chat/completions  (OpenAI): `response_format: json_schema` -> scores as JSON text in
                             `message.content`; none -> the teacher answer.

Scriptable: the score (a function of the request, a {substring: score} map, or a hash of the
request text by default), the teacher text, latency, and a FIFO of faults applied to the next
requests (`fail(429, times=3, retry_after=0.2)`, 500, 529, "malformed", "bad_schema", "hang",
"drop"). Counts every request (total, per path, per body sha256), thread-safe.

Left out: streaming, token counting that matches a real tokenizer (usage is len(body) // 4).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 408: "timeout_error", 429: "rate_limit_error", 500: "api_error",
               502: "api_error", 503: "api_error", 529: "overloaded_error"}

DEFAULT_TEACHER = "```python\ndef solve(x):\n    return x\n```"


@dataclass
class Fault:
    """One scripted misbehaviour, used up by one request."""
    kind: str = "status"
    """status | malformed (200 with a broken JSON body) | bad_schema (200, unparsable score) |
    hang (sleep hang_s, then answer) | drop (close the connection without answering)."""
    status: int = 500
    retry_after: float | None = None
    """Seconds, sent as the `retry-after` header."""
    retry_after_ms: float | None = None
    """Milliseconds, sent as the `retry-after-ms` header."""
    hang_s: float = 5.0
    headers: dict[str, str] = field(default_factory=dict)
    error_code: str | None = None
    """Anthropic `error.details.error_code` / OpenAI `error.code` (e.g. a spend-limit 429)."""


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    body_sha: str
    headers: dict[str, str]
    t: float


def request_text(body: dict[str, Any]) -> str:
    """Everything the model would read: system prompt and message texts, joined."""
    parts: list[str] = []
    if isinstance(body.get("system"), str):
        parts.append(body["system"])
    elif isinstance(body.get("system"), list):
        parts += [b.get("text", "") for b in body["system"] if isinstance(b, dict)]
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            parts.append(c)
        elif isinstance(c, list):
            parts += [b.get("text", "") for b in c if isinstance(b, dict)]
    return "\n".join(parts)


def hash_score(text: str) -> int:
    """Deterministic default score 0..10 from the request text."""
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % 11


class FakeAPI:
    """`with FakeAPI(latency=0.2) as api:` ... `api.anthropic_url`, `api.openai_url`, `api.total`."""

    def __init__(self, *, latency: float = 0.0, scores: dict[str, int] | Callable[[dict], int | None] | None = None,
                 teacher: str | Callable[[dict], str] = DEFAULT_TEACHER, output_tokens: int | None = None):
        self.latency = latency
        self.scores = scores
        self.teacher = teacher
        self.output_tokens = output_tokens
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self.requests: list[Request] = []
        self.by_path: Counter[str] = Counter()
        self.by_body: Counter[str] = Counter()
        self.active = 0
        self.max_active = 0
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> "FakeAPI":
        self._loop = asyncio.new_event_loop()
        self._conns: set[asyncio.Task] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            self._conns.add(task)
            try:
                await _serve_connection(self, reader, writer)
            finally:
                self._conns.discard(task)

        self._server = self._loop.run_until_complete(
            asyncio.start_server(on_connect, "127.0.0.1", 0, backlog=1024))
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="fakeapi")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the port and every connection (hung requests included); later connects are refused."""
        if self._server is None:
            return

        async def shutdown() -> None:
            self._server.close()
            for t in list(self._conns):
                t.cancel()
            await asyncio.gather(*self._conns, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        self._server = None

    def __enter__(self) -> "FakeAPI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "FakeAPI is not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_url(self) -> str:
        return self.url

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    # -- scripting ---------------------------------------------------------------------------
    def fail(self, kind: int | str = 500, times: int = 1, **kw: Any) -> None:
        """Fail the next `times` requests: an HTTP status (429, 500, 529, 400, ...) or a fault kind."""
        f = Fault(kind="status", status=kind, **kw) if isinstance(kind, int) else Fault(kind=kind, **kw)
        with self._lock:
            self._faults += [f] * times

    def script(self, faults: list[Fault]) -> None:
        with self._lock:
            self._faults += list(faults)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    # -- counters ----------------------------------------------------------------------------
    @property
    def total(self) -> int:
        with self._lock:
            return len(self.requests)

    def count(self, substring: str) -> int:
        """Requests whose model-visible text contains `substring`."""
        with self._lock:
            return sum(substring in request_text(r.body) for r in self.requests)

    def reset_counts(self) -> None:
        with self._lock:
            self.requests.clear()
            self.by_path.clear()
            self.by_body.clear()
            self.max_active = 0

    # -- behaviour ---------------------------------------------------------------------------
    def score_for(self, body: dict) -> int:
        text = request_text(body)
        if callable(self.scores):
            s = self.scores(body)
            if s is not None:
                return s
        elif isinstance(self.scores, dict):
            for sub, s in self.scores.items():
                if sub in text:
                    return s
        return hash_score(text)

    def _record(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[dict, Fault | None]:
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        sha = hashlib.sha256(raw).hexdigest()
        with self._lock:
            self.requests.append(Request(path, body, sha, headers, time.monotonic()))
            self.by_path[path] += 1
            self.by_body[sha] += 1
            fault = self._faults.pop(0) if self._faults else None
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        return body, fault

    def _done(self) -> None:
        with self._lock:
            self.active -= 1


def _usage_in(raw: bytes) -> int:
    return max(1, len(raw) // 4)


def anthropic_reply(api: FakeAPI, body: dict, raw: bytes, bad_schema: bool) -> dict:
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


def openai_reply(api: FakeAPI, body: dict, raw: bytes, bad_schema: bool) -> dict:
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
            "usage": {"prompt_tokens": n_in, "completion_tokens": out_tokens, "total_tokens": n_in + out_tokens}}


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 529: "Overloaded"}


def _http(status: int, payload: bytes, headers: dict[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", "content-type: application/json",
            f"content-length: {len(payload)}"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload  # one write: no Nagle / delayed-ACK stalls


def _error_payload(path: str, f: Fault) -> bytes:
    etype = ERROR_TYPES.get(f.status, "api_error")
    msg = f"fake {f.status} {etype}"
    if path == ANTHROPIC_PATH:
        err: dict[str, Any] = {"type": etype, "message": msg}
        if f.error_code:
            err["details"] = {"error_code": f.error_code}
        return json.dumps({"type": "error", "error": err}).encode()
    return json.dumps({"error": {"message": msg, "type": etype, "code": f.error_code, "param": None}}).encode()


async def _respond(api: FakeAPI, path: str, raw: bytes, headers: dict[str, str]) -> bytes | None:
    """The bytes to send back, or None to drop the connection."""
    body, fault = api._record(path, raw, headers)
    try:
        if api.latency > 0:
            await asyncio.sleep(api.latency)
        if path not in (ANTHROPIC_PATH, OPENAI_PATH):
            return _http(404, json.dumps({"error": {"type": "not_found_error", "message": path}}).encode())
        if fault is not None and fault.kind == "drop":
            return None
        if fault is not None and fault.kind == "hang":
            await asyncio.sleep(fault.hang_s)
        if fault is not None and fault.kind == "status":
            extra = dict(fault.headers)
            if fault.retry_after is not None:
                extra["retry-after"] = str(fault.retry_after)
            if fault.retry_after_ms is not None:
                extra["retry-after-ms"] = str(fault.retry_after_ms)
            return _http(fault.status, _error_payload(path, fault), extra)
        if fault is not None and fault.kind == "malformed":
            return _http(200, b'{"id": "msg_broken", "content": [{"type": "tool_use", "inp')
        bad = fault is not None and fault.kind == "bad_schema"
        reply = anthropic_reply(api, body, raw, bad) if path == ANTHROPIC_PATH else openai_reply(api, body, raw, bad)
        return _http(200, json.dumps(reply).encode(), {"request-id": "req_" + uuid.uuid4().hex[:12]})
    finally:
        api._done()


async def _serve_connection(api: FakeAPI, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """HTTP/1.1 with keep-alive: requests one after another on this connection."""
    try:
        while True:
            line = await reader.readline()
            if not line.strip():
                return
            method, target, _ = line.decode("latin-1").split(" ", 2)
            headers: dict[str, str] = {}
            while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                k, _, v = h.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            raw = await reader.readexactly(int(headers.get("content-length") or 0))
            if method != "POST":
                writer.write(_http(405, b'{"error": {"message": "POST only"}}'))
                await writer.drain()
                continue
            out = await _respond(api, target.split("?")[0], raw, headers)
            if out is None:  # drop: close without an answer
                writer.transport.abort()
                return
            writer.write(out)
            await writer.drain()
            if headers.get("connection", "").lower() == "close":
                return
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        return
    finally:
        writer.close()
