"""Rate limits on one API: calls in flight, requests per minute, tokens per minute.

Shared by the Anthropic and OpenAI judges' live calls (batches are not rate-limited per request:
the provider queues them).
"""
from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator


class _Bucket:
    """Token bucket refilled continuously at `per_minute / 60` per second, holding one second's worth
    (APIs enforce per-minute limits over short windows too). Takes may overdraw it: a request larger
    than the bucket waits until it is full, then leaves it negative, which keeps the long-run rate."""

    def __init__(self, per_minute: float):
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.t = time.monotonic()
        self.lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.t) * self.rate)
        self.t = now

    async def take(self, n: float) -> None:
        async with self.lock:  # FIFO: waiters queue behind the one sleeping
            while True:
                self._refill()
                need = min(n, self.capacity)
                if self.level >= need:
                    self.level -= n
                    return
                await asyncio.sleep((need - self.level) / self.rate)

    def give_back(self, n: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level + n)


@dataclass
class _Slot:
    estimate: float
    actual: float | None = None

    def used(self, tokens: float) -> None:
        self.actual = tokens


class RateLimiter:
    """Async limits on one API: calls in flight, requests per minute, tokens per minute (0 = unlimited).

    Tokens are estimated before a call and corrected with the real usage after it.
    """

    def __init__(self, max_in_flight: int = 0, rpm: float = 0, tpm: float = 0):
        self.max_in_flight, self.rpm, self.tpm = max_in_flight, rpm, tpm
        self.in_flight = 0
        self.peak_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None

    def _bind(self) -> None:
        # asyncio primitives belong to one event loop; a new loop (a new asyncio.run) gets fresh ones
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._loop = loop
            self._sem = asyncio.Semaphore(self.max_in_flight) if self.max_in_flight > 0 else None
            self._requests = _Bucket(self.rpm) if self.rpm > 0 else None
            self._tokens = _Bucket(self.tpm) if self.tpm > 0 else None

    @asynccontextmanager
    async def slot(self, est_tokens: float) -> AsyncIterator[_Slot]:
        self._bind()
        if self._sem is not None:
            await self._sem.acquire()
        slot = _Slot(est_tokens)
        try:
            if self._requests is not None:
                await self._requests.take(1)
            if self._tokens is not None:
                await self._tokens.take(est_tokens)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                yield slot
            finally:
                self.in_flight -= 1
                if self._tokens is not None and slot.actual is not None:
                    self._tokens.give_back(slot.estimate - slot.actual)
        finally:
            if self._sem is not None:
                self._sem.release()

