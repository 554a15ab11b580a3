"""A scriptable fake of the Anthropic Messages and OpenAI Chat Completions HTTP APIs.

A real HTTP/1.1 server on 127.0.0.1 (a free port), so tests drive the real SDKs through
`base_url`. It runs on its own asyncio loop in one thread: thousands of concurrent requests,
and no thread-per-connection GIL convoy slowing the client under test. What it answers:

- POST /v1/messages          (Anthropic): a forced tool call -> `tool_use` block with scores;
                             no tools -> a text block (the teacher answer).
- POST /v1/chat/completions  (OpenAI): `response_format: json_schema` -> scores as JSON text in
                             `message.content`; none -> the teacher answer.
- Anthropic Message Batches: POST /v1/messages/batches, GET /v1/messages/batches/{id},
  GET .../{id}/results (JSONL), POST .../{id}/cancel.
- OpenAI Batch API: POST /v1/files (multipart upload, purpose=batch), GET /v1/files/{id}/content,
  POST /v1/batches, GET /v1/batches (list), GET /v1/batches/{id}, POST /v1/batches/{id}/cancel.
  A batch's items finish one after another over `batch_delay` seconds (or a function of the
  provider) from its creation (OpenAI's counts move with them); each item's answer is the live answer to its body.
  `batch_outcomes` scripts per-item results ({substring of the request text: outcome}, or a
  function of the body): errored (a retryable 500), invalid (a 400), expired, malformed (a
  broken result line), bad_schema. `batch_expire_after`: items not done by then expire.

Scriptable (live): the score (a function of the request, a {substring: score} map, or a hash of the
request text by default), the teacher text, latency, and a FIFO of faults applied to the next
requests (`fail(429, times=3, retry_after=0.2)`, 500, 529, "malformed", "bad_schema", "hang",
"drop"). Counts every request (total, per path, per body sha256), batch creations per provider
and batch items per custom_id, thread-safe.

Left out: streaming, token counting that matches a real tokenizer (usage is len(body) // 4).

Here: the server, its scripting and counters, and the faults. The live answers are built in
tests/fakeapi_replies.py, the batch and file endpoints in tests/fakeapi_batches.py.
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

from tests.fakeapi_batches import FakeBatch, batch_route
from tests.fakeapi_replies import (ANTHROPIC_PATH, OPENAI_PATH, anthropic_reply, http_reply, not_found,
                                   openai_reply)

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 408: "timeout_error", 429: "rate_limit_error", 500: "api_error",
               502: "api_error", 503: "api_error", 529: "overloaded_error"}

DEFAULT_TEACHER = "```python\ndef solve(x):\n    return x\n```"


@dataclass
class Fault:
    """One scripted misbehaviour, used up by one request."""
    kind: str = "status"
    """status | malformed (200 with a broken JSON body) | bad_schema (200, unparsable score) |
    error_body (200 whose JSON is an error, not a completion: a gateway's) | cut_off (200, no text,
    stopped at max_tokens: a reasoning model that spent them all on reasoning; cut_text: its text kept) | no_usage (200, the
    completion without its `usage`: a proxy that strips it) | bad_usage (its counts not numbers) |
    hang (sleep hang_s, then answer) | drop (close the connection without answering) | pass (none:
    answer normally, to script a fault for a later request). Batch and file paths: done_then_status (carry
    the request out, then answer `status`: a gateway's 504) | cut (half the body, then the connection lost)."""
    status: int = 500
    retry_after: float | None = None
    """Seconds, sent as the `retry-after` header."""
    retry_after_ms: float | None = None
    """Milliseconds, sent as the `retry-after-ms` header."""
    hang_s: float = 5.0
    headers: dict[str, str] = field(default_factory=dict)
    error_code: str | None = None
    """Anthropic `error.details.error_code` / OpenAI `error.code` (e.g. a spend-limit 429)."""



class Cut(bytes):
    """An answer sent in part: its head and half its body, then the connection is lost."""


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
                 teacher: str | Callable[[dict], str] = DEFAULT_TEACHER, output_tokens: int | None = None,
                 batch_delay: float | Callable[[str], float] = 0.1, batch_expire_after: float | None = None,
                 batch_outcomes: dict[str, str] | Callable[[dict], str | None] | None = None):
        self.latency = latency
        self.batch_delay = batch_delay
        self.batch_expire_after = batch_expire_after
        self.batch_outcomes = batch_outcomes
        self.batches: dict[str, FakeBatch] = {}
        self.files: dict[str, bytes] = {}
        self.batch_creates: Counter[str] = Counter()
        self.batch_items: Counter[str] = Counter()
        self.scores = scores
        self.teacher = teacher
        self.output_tokens = output_tokens
        self.cached_tokens = 0   # prompt tokens an OpenAI answer says its prompt caching served
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._path_faults: list[tuple[str, Fault]] = []   # (path suffix, fault): used up by the next such request
        self.requests: list[Request] = []
        self.by_path: Counter[str] = Counter()
        self.by_body: Counter[str] = Counter()
        self.active = 0
        self.max_active = 0
        self.offline = False   # True: connections are closed unanswered (stop() without giving the port up)
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> "FakeAPI":
        self._loop = asyncio.new_event_loop()
        self._conns: set[asyncio.Task] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.offline:   # the port kept, every connection closed unanswered: an API out of reach
                writer.close()
                return
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

    def fail_path(self, suffix: str, kind: int | str = 500, times: int = 1, **kw: Any) -> None:
        """Fail the next `times` requests whose path ends with `suffix` (e.g. "/batches", "/results"),
        before the FIFO of `fail`."""
        f = Fault(kind="status", status=kind, **kw) if isinstance(kind, int) else Fault(kind=kind, **kw)
        with self._lock:
            self._path_faults += [(suffix, f)] * times

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
            self.batch_creates.clear()
            self.batch_items.clear()

    def _delay(self, provider: str) -> float:
        return self.batch_delay(provider) if callable(self.batch_delay) else self.batch_delay

    def batch_outcome(self, body: dict) -> str:
        if callable(self.batch_outcomes):
            return self.batch_outcomes(body) or "succeeded"
        text = request_text(body)
        for sub, outcome in (self.batch_outcomes or {}).items():
            if sub in text:
                return outcome
        return "succeeded"

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
            at = next((i for i, (suffix, _) in enumerate(self._path_faults) if path.endswith(suffix)), None)
            fault = self._path_faults.pop(at)[1] if at is not None else self._faults.pop(0) if self._faults else None
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        return body, fault

    def _done(self) -> None:
        with self._lock:
            self.active -= 1


def _error_payload(path: str, f: Fault) -> bytes:
    etype = ERROR_TYPES.get(f.status, "api_error")
    msg = f"fake {f.status} {etype}"
    if path.startswith("/v1/messages"):
        err: dict[str, Any] = {"type": etype, "message": msg}
        if f.error_code:
            err["details"] = {"error_code": f.error_code}
        return json.dumps({"type": "error", "error": err}).encode()
    return json.dumps({"error": {"message": msg, "type": etype, "code": f.error_code, "param": None}}).encode()


async def _respond(api: FakeAPI, method: str, path: str, raw: bytes, headers: dict[str, str]) -> bytes | None:
    """The bytes to send back, or None to drop the connection."""
    body, fault = api._record(path, raw, headers)
    try:
        if api.latency > 0:
            await asyncio.sleep(api.latency)
        if fault is not None and fault.kind == "status":
            extra = dict(fault.headers)
            if fault.retry_after is not None:
                extra["retry-after"] = str(fault.retry_after)
            if fault.retry_after_ms is not None:
                extra["retry-after-ms"] = str(fault.retry_after_ms)
            return http_reply(fault.status, _error_payload(path, fault), extra)
        if path not in (ANTHROPIC_PATH, OPENAI_PATH):
            if fault is not None and fault.kind == "drop":
                return None
            if fault is not None and fault.kind == "hang":  # then answer (a batch created late)
                await asyncio.sleep(fault.hang_s)
            out = batch_route(api, method, path, raw, headers)
            out = out if out is not None else not_found(path)
            if fault is not None and fault.kind == "done_then_status":   # a gateway's 504 after it forwarded
                return http_reply(fault.status, _error_payload(path, fault))
            if fault is not None and fault.kind == "cut":   # the body cut mid-download, the connection lost
                return Cut(out[: out.index(b"\r\n\r\n") + 4 + (len(out) - out.index(b"\r\n\r\n") - 4) // 2])
            return out
        if method != "POST":
            return http_reply(405, b'{"error": {"message": "POST only"}}')
        if fault is not None and fault.kind == "drop":
            return None
        if fault is not None and fault.kind == "hang":
            await asyncio.sleep(fault.hang_s)
        if fault is not None and fault.kind == "malformed":
            return http_reply(200, b'{"id": "msg_broken", "content": [{"type": "tool_use", "inp')
        if fault is not None and fault.kind == "error_body":
            return http_reply(200, b'{"error": {"type": "upstream_error", "message": "upstream timed out"}}')
        bad = fault is not None and fault.kind == "bad_schema"
        reply = anthropic_reply(api, body, raw, bad) if path == ANTHROPIC_PATH else openai_reply(api, body, raw, bad)
        if fault is not None and fault.kind in ("cut_off", "cut_text"):
            limit = body.get("max_tokens") or body.get("max_completion_tokens")
            if path == ANTHROPIC_PATH:
                reply.update(stop_reason="max_tokens", **({"content": []} if fault.kind == "cut_off" else {}))
                reply["usage"]["output_tokens"] = limit
            else:
                reply["choices"][0].update(finish_reason="length")
                if fault.kind == "cut_off":
                    reply["choices"][0]["message"]["content"] = ""
                reply["usage"]["completion_tokens"] = limit
        if fault is not None and fault.kind == "no_usage":
            del reply["usage"]
        if fault is not None and fault.kind == "bad_usage":   # a proxy that rewrites it
            reply["usage"] = {k: "n/a" for k in reply["usage"]}
        return http_reply(200, json.dumps(reply).encode(), {"request-id": "req_" + uuid.uuid4().hex[:12]})
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
            if headers.get("transfer-encoding", "").lower() == "chunked":
                raw = b""
                while (size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16)) > 0:
                    raw += await reader.readexactly(size)
                    await reader.readline()
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
            else:
                raw = await reader.readexactly(int(headers.get("content-length") or 0))
            headers["x-query"] = target.partition("?")[2]   # (the list endpoints page by it)
            out = await _respond(api, method, target.split("?")[0], raw, headers)
            if out is None:  # drop: close without an answer
                writer.transport.abort()
                return
            if isinstance(out, Cut):   # part of the answer, then the connection lost
                writer.write(out)
                await writer.drain()
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
