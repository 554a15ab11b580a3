"""The batch endpoints of the fake API (tests/fakeapi.py): Anthropic Message Batches and the
OpenAI Batch API with its file uploads. A batch's items finish one after another over its delay;
each item's answer is the live answer to its body (tests/fakeapi_replies.py), or the outcome
`batch_outcomes` scripts for it. `api` is the FakeAPI serving the request: it holds the batches
and files, under its lock.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from tests.fakeapi_replies import OPENAI_PATH, anthropic_reply, http_reply, json_reply, not_found, openai_reply


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


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat().replace("+00:00", "Z")


def _item_result(api, b: FakeBatch, i: int, now: float) -> tuple[str, str]:
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


def _anthropic_batch(api, b: FakeBatch, now: float) -> dict:
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


def _openai_batch(api, b: FakeBatch, now: float) -> dict:
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


def batch_route(api, method: str, path: str, raw: bytes, headers: dict[str, str]) -> bytes | None:
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
                return json_reply(200, _anthropic_batch(api, b, now))
            b = api.batches.get(parts[3]) if len(parts) > 3 else None
            if b is None:
                return not_found(path)
            if method == "GET" and len(parts) == 4:
                return json_reply(200, _anthropic_batch(api, b, now))
            if method == "POST" and parts[4:] == ["cancel"]:
                if now < b.ended_at():
                    b.canceled_at = now
                return json_reply(200, _anthropic_batch(api, b, now))
            if method == "GET" and parts[4:] == ["results"]:
                if now < b.ended_at():
                    return json_reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                  "message": "batch has not ended"}})
                lines = [_item_result(api, b, i, now)[1] for i in range(len(b.items))][::-1]  # any order
                return http_reply(200, ("\n".join(lines) + "\n").encode(), {"content-type": "application/binary"})
            return not_found(path)
        if parts[:2] == ["v1", "files"]:
            if method == "POST" and len(parts) == 2:
                form = _multipart(raw, headers.get("content-type", ""))
                fid = f"file-{uuid.uuid4().hex[:20]}"
                api.files[fid] = form.get("file", b"")
                return json_reply(200, {"id": fid, "object": "file", "bytes": len(api.files[fid]), "created_at": int(time.time()),
                                   "filename": "upload.jsonl", "purpose": form.get("purpose", b"").decode(),
                                   "status": "processed"})
            if method == "GET" and len(parts) == 4 and parts[3] == "content":
                if parts[2] not in api.files:
                    return not_found(path)
                return http_reply(200, api.files[parts[2]], {"content-type": "application/octet-stream"})
            return not_found(path)
        if parts[:2] == ["v1", "batches"]:
            if method == "POST" and len(parts) == 2:
                req = json.loads(raw)
                data = api.files.get(req["input_file_id"])
                if data is None:
                    return json_reply(400, {"error": {"message": "no such file", "type": "invalid_request_error",
                                                 "code": None, "param": "input_file_id"}})
                lines = [json.loads(x) for x in data.decode().splitlines() if x.strip()]
                b = FakeBatch(f"batch_{uuid.uuid4().hex[:24]}", "openai", now,
                              [(x["custom_id"], x["body"]) for x in lines], api._delay("openai"), api.batch_expire_after,
                              input_file_id=req["input_file_id"])
                api.batches[b.id] = b
                api.batch_creates["openai"] += 1
                api.batch_items.update(cid for cid, _ in b.items)
                return json_reply(200, _openai_batch(api, b, now))
            if method == "GET" and len(parts) == 2:   # newest first, `limit` a page, `after` the last id seen
                from urllib.parse import parse_qs
                q = {k: v[0] for k, v in parse_qs(headers.get("x-query", "")).items()}
                mine = sorted((b for b in api.batches.values() if b.provider == "openai"), key=lambda b: -b.created)
                if q.get("after"):
                    ids = [b.id for b in mine]
                    mine = mine[ids.index(q["after"]) + 1:] if q["after"] in ids else []
                limit = int(q.get("limit", 20))
                data = [_openai_batch(api, b, now) for b in mine[:limit]]
                return json_reply(200, {"object": "list", "data": data, "has_more": len(mine) > limit,
                                   "first_id": data[0]["id"] if data else None, "last_id": data[-1]["id"] if data else None})
            b = api.batches.get(parts[2]) if len(parts) > 2 else None
            if b is None:
                return not_found(path)
            if method == "GET" and len(parts) == 3:
                return json_reply(200, _openai_batch(api, b, now))
            if method == "POST" and parts[3:] == ["cancel"]:
                if now < b.ended_at():
                    b.canceled_at = now
                return json_reply(200, _openai_batch(api, b, now))
            return not_found(path)
    return None
