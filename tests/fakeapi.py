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
from datetime import datetime, timezone
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
    hang (sleep hang_s, then answer) | drop (close the connection without answering) | pass (none:
    answer normally, to script a fault for a later request)."""
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
class FakeBatch:
    id: str
    provider: str
    """anthropic | openai"""
    created: float
    items: list[tuple[str, dict]]
    """(custom_id, request body)"""
    delay: float
    expire_after: float | None
    input_file_id: str = ""
    canceled_at: float | None = None
    output: dict[str, str] = field(default_factory=dict)
    """OpenAI: output / error file ids, once ended."""

    def done_at(self, i: int) -> float:
        return self.created + self.delay * (i + 1) / max(1, len(self.items))

    def ended_at(self) -> float:
        end = self.created + self.delay
        if self.expire_after is not None:
            end = min(end, self.created + self.expire_after)
        if self.canceled_at is not None:
            end = min(end, self.canceled_at)
        return end

    def state(self, i: int, now: float) -> str:
        """processing | done | expired | canceled, for item i at `now`."""
        if self.done_at(i) <= min(now, self.ended_at()):
            return "done"
        if now < self.ended_at():
            return "processing"
        return "canceled" if self.canceled_at is not None and self.ended_at() == self.canceled_at else "expired"


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
    if path.startswith("/v1/messages"):
        err: dict[str, Any] = {"type": etype, "message": msg}
        if f.error_code:
            err["details"] = {"error_code": f.error_code}
        return json.dumps({"type": "error", "error": err}).encode()
    return json.dumps({"error": {"message": msg, "type": etype, "code": f.error_code, "param": None}}).encode()


# -- batches ----------------------------------------------------------------------------------
def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat().replace("+00:00", "Z")


def _item_result(api: FakeAPI, b: FakeBatch, i: int, now: float) -> tuple[str, str]:
    """(count bucket, JSONL line) of item i of an ended batch."""
    cid, body = b.items[i]
    state = b.state(i, now)
    outcome = api.batch_outcome(body) if state == "done" else state
    raw = json.dumps(body).encode()
    if b.provider == "anthropic":
        if outcome in ("succeeded", "bad_schema"):
            res: dict[str, Any] = {"type": "succeeded", "message": anthropic_reply(api, body, raw, outcome == "bad_schema")}
        elif outcome == "malformed":
            return "succeeded", f'{{"custom_id": "{cid}", "result": {{"type": "succeeded", "message": {{"id": "msg_br'
        elif outcome in ("errored", "invalid"):
            etype = "api_error" if outcome == "errored" else "invalid_request_error"
            res = {"type": "errored", "error": {"type": "error", "error": {"type": etype, "message": f"fake {etype}"}}}
        else:
            res = {"type": outcome}  # expired | canceled
        bucket = {"succeeded": "succeeded", "errored": "errored", "expired": "expired", "canceled": "canceled"}[res["type"]]
        return bucket, json.dumps({"custom_id": cid, "result": res})
    rid = f"batch_req_{uuid.uuid4().hex[:16]}"
    if outcome in ("succeeded", "bad_schema"):
        resp = {"status_code": 200, "request_id": "req_x", "body": openai_reply(api, body, raw, outcome == "bad_schema")}
        return "output", json.dumps({"id": rid, "custom_id": cid, "response": resp, "error": None})
    if outcome == "malformed":
        return "output", f'{{"id": "{rid}", "custom_id": "{cid}", "response": {{"status_code": 200, "body": {{"choi'
    if outcome in ("errored", "invalid"):
        status = 500 if outcome == "errored" else 400
        etype = "server_error" if outcome == "errored" else "invalid_request_error"
        resp = {"status_code": status, "request_id": "req_x",
                "body": {"error": {"message": f"fake {etype}", "type": etype, "param": None, "code": None}}}
        return "error", json.dumps({"id": rid, "custom_id": cid, "response": resp, "error": None})
    code = "batch_expired" if outcome == "expired" else "batch_cancelled"
    return "error", json.dumps({"id": rid, "custom_id": cid, "response": None,
                                "error": {"code": code, "message": f"fake {code}"}})


def _anthropic_batch(api: FakeAPI, b: FakeBatch, now: float) -> dict:
    ended = now >= b.ended_at()
    counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
    for i in range(len(b.items)):  # as documented: every request counts as processing until the batch ends
        counts[_item_result(api, b, i, now)[0] if ended else "processing"] += 1
    return {"id": b.id, "type": "message_batch", "processing_status": "ended" if ended else
            ("canceling" if b.canceled_at is not None else "in_progress"),
            "request_counts": counts, "created_at": _iso(b.created), "expires_at": _iso(b.created + 86400),
            "ended_at": _iso(b.ended_at()) if ended else None, "archived_at": None,
            "cancel_initiated_at": _iso(b.canceled_at) if b.canceled_at else None,
            "results_url": f"{api.url}/v1/messages/batches/{b.id}/results" if ended else None}


def _openai_batch(api: FakeAPI, b: FakeBatch, now: float) -> dict:
    ended = now >= b.ended_at()
    if ended and not b.output:
        files: dict[str, list[str]] = {"output": [], "error": []}
        for i in range(len(b.items)):
            bucket, line = _item_result(api, b, i, now)
            files[bucket].append(line)
        for name, lines in files.items():
            if lines:
                fid = f"file-{uuid.uuid4().hex[:20]}"
                api.files[fid] = ("\n".join(lines) + "\n").encode()
                b.output[name] = fid
    done = [b.state(i, now) == "done" for i in range(len(b.items))]
    failed = sum(d and api.batch_outcome(body) in ("errored", "invalid") for d, (_, body) in zip(done, b.items))
    completed = sum(done) - failed
    if ended:
        failed = len(b.items) - completed
        status = ("cancelled" if b.canceled_at is not None and b.ended_at() == b.canceled_at else
                  "expired" if sum(done) < len(b.items) else "completed")
    else:
        status = "cancelling" if b.canceled_at is not None else "in_progress"
    return {"id": b.id, "object": "batch", "endpoint": OPENAI_PATH, "errors": None, "input_file_id": b.input_file_id,
            "completion_window": "24h", "status": status, "output_file_id": b.output.get("output"),
            "error_file_id": b.output.get("error"), "created_at": int(b.created), "in_progress_at": int(b.created),
            "expires_at": int(b.created) + 86400, "completed_at": int(now) if status == "completed" else None,
            "request_counts": {"total": len(b.items), "completed": completed, "failed": failed}, "metadata": None}


def _multipart(raw: bytes, content_type: str) -> dict[str, bytes]:
    """name -> content of each part of a multipart/form-data body."""
    boundary = content_type.split("boundary=", 1)[1].strip().strip('"').encode()
    out: dict[str, bytes] = {}
    for part in raw.split(b"--" + boundary):
        head, sep, content = part.partition(b"\r\n\r\n")
        if not sep:
            continue
        name = head.split(b'name="', 1)[1].split(b'"', 1)[0].decode() if b'name="' in head else ""
        out[name] = content[:-2] if content.endswith(b"\r\n") else content
    return out


def _json(status: int, payload: Any) -> bytes:
    return _http(status, json.dumps(payload).encode())


def _not_found(what: str) -> bytes:
    return _json(404, {"type": "error", "error": {"type": "not_found_error", "message": f"{what} not found"}})


def _batch_route(api: FakeAPI, method: str, path: str, raw: bytes, headers: dict[str, str]) -> bytes | None:
    """The answer to a batch or file request, or None when the path is not one."""
    now = time.monotonic()
    parts = path.strip("/").split("/")
    with api._lock:
        if parts[:3] == ["v1", "messages", "batches"]:
            if method == "POST" and len(parts) == 3:
                reqs = json.loads(raw)["requests"]
                b = FakeBatch(f"msgbatch_{uuid.uuid4().hex[:24]}", "anthropic", now,
                              [(r["custom_id"], r["params"]) for r in reqs], api._delay("anthropic"), api.batch_expire_after)
                api.batches[b.id] = b
                api.batch_creates["anthropic"] += 1
                api.batch_items.update(cid for cid, _ in b.items)
                return _json(200, _anthropic_batch(api, b, now))
            b = api.batches.get(parts[3]) if len(parts) > 3 else None
            if b is None:
                return _not_found(path)
            if method == "GET" and len(parts) == 4:
                return _json(200, _anthropic_batch(api, b, now))
            if method == "POST" and parts[4:] == ["cancel"]:
                if now < b.ended_at():
                    b.canceled_at = now
                return _json(200, _anthropic_batch(api, b, now))
            if method == "GET" and parts[4:] == ["results"]:
                if now < b.ended_at():
                    return _json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                  "message": "batch has not ended"}})
                lines = [_item_result(api, b, i, now)[1] for i in range(len(b.items))][::-1]  # any order
                return _http(200, ("\n".join(lines) + "\n").encode(), {"content-type": "application/binary"})
            return _not_found(path)
        if parts[:2] == ["v1", "files"]:
            if method == "POST" and len(parts) == 2:
                form = _multipart(raw, headers.get("content-type", ""))
                fid = f"file-{uuid.uuid4().hex[:20]}"
                api.files[fid] = form.get("file", b"")
                return _json(200, {"id": fid, "object": "file", "bytes": len(api.files[fid]), "created_at": int(time.time()),
                                   "filename": "upload.jsonl", "purpose": form.get("purpose", b"").decode(),
                                   "status": "processed"})
            if method == "GET" and len(parts) == 4 and parts[3] == "content":
                if parts[2] not in api.files:
                    return _not_found(path)
                return _http(200, api.files[parts[2]], {"content-type": "application/octet-stream"})
            return _not_found(path)
        if parts[:2] == ["v1", "batches"]:
            if method == "POST" and len(parts) == 2:
                req = json.loads(raw)
                data = api.files.get(req["input_file_id"])
                if data is None:
                    return _json(400, {"error": {"message": "no such file", "type": "invalid_request_error",
                                                 "code": None, "param": "input_file_id"}})
                lines = [json.loads(x) for x in data.decode().splitlines() if x.strip()]
                b = FakeBatch(f"batch_{uuid.uuid4().hex[:24]}", "openai", now,
                              [(x["custom_id"], x["body"]) for x in lines], api._delay("openai"), api.batch_expire_after,
                              input_file_id=req["input_file_id"])
                api.batches[b.id] = b
                api.batch_creates["openai"] += 1
                api.batch_items.update(cid for cid, _ in b.items)
                return _json(200, _openai_batch(api, b, now))
            if method == "GET" and len(parts) == 2:
                mine = sorted((b for b in api.batches.values() if b.provider == "openai"), key=lambda b: -b.created)
                data = [_openai_batch(api, b, now) for b in mine]
                return _json(200, {"object": "list", "data": data, "has_more": False,
                                   "first_id": data[0]["id"] if data else None, "last_id": data[-1]["id"] if data else None})
            b = api.batches.get(parts[2]) if len(parts) > 2 else None
            if b is None:
                return _not_found(path)
            if method == "GET" and len(parts) == 3:
                return _json(200, _openai_batch(api, b, now))
            if method == "POST" and parts[3:] == ["cancel"]:
                if now < b.ended_at():
                    b.canceled_at = now
                return _json(200, _openai_batch(api, b, now))
            return _not_found(path)
    return None


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
            return _http(fault.status, _error_payload(path, fault), extra)
        if path not in (ANTHROPIC_PATH, OPENAI_PATH):
            if fault is not None and fault.kind == "drop":
                return None
            if fault is not None and fault.kind == "hang":  # then answer (a batch created late)
                await asyncio.sleep(fault.hang_s)
            out = _batch_route(api, method, path, raw, headers)
            return out if out is not None else _not_found(path)
        if method != "POST":
            return _http(405, b'{"error": {"message": "POST only"}}')
        if fault is not None and fault.kind == "drop":
            return None
        if fault is not None and fault.kind == "hang":
            await asyncio.sleep(fault.hang_s)
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
            if headers.get("transfer-encoding", "").lower() == "chunked":
                raw = b""
                while (size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16)) > 0:
                    raw += await reader.readexactly(size)
                    await reader.readline()
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
            else:
                raw = await reader.readexactly(int(headers.get("content-length") or 0))
            out = await _respond(api, method, target.split("?")[0], raw, headers)
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
