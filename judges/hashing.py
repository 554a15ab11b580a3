"""Canonical JSON and sha256: the judge cache's keys and the pipeline's stage fingerprints are
both built from these, so equal data always hashes equal (never dict order, never whitespace)."""
from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical(obj: Any) -> str:
    """JSON with sorted keys and no whitespace: equal data, equal text (never dict order)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
