"""The decode step replayed from CUDA graphs (`sample.decode_step=graphs`, the default on CUDA): a
`pipeline.engines.decode_step.LlamaStep` captured once per bucket of live rows and keys read."""
from __future__ import annotations

import logging

import torch

log = logging.getLogger("pipeline.engines.decode_step")


class GraphedStep:
    """A LlamaStep replayed from CUDA graphs (`sample.decode_step=graphs`): one graph per bucket of
    live rows (a power of two from 8, at most the slots) and of keys read (a multiple of SPAN, at
    most the cache's room), captured the first time the loop needs it. The live rows are padded to
    their bucket with rows in the free slots after them (token 0 at position 0: their key lands in a
    slot no live row holds, and a row admitted there later overwrites it; their logits are
    dropped), so a step computes the same numbers for the live rows, the bucket's extra rows apart.
    On a GPU the step of a small student is mostly the host launching its ~600 kernels one by one
    (a profile of the sample stage at 1.5B on an H100: the GPU busy 2.2 s of 27.5 s,
    bench/RESULTS.md); a replay launches them at once. The cache's tensors are captured with the
    graphs, so they are captured anew when `SlotCache.fit` reallocates the cache.

    capture=False runs the same padded step eagerly (what the CPU tests check of the padding); a
    capture that fails (an operation CUDA graphs cannot hold) falls back to the eager step, with a
    warning, for the rest of the loop."""

    SPAN = 128

    def __init__(self, step, slots: int, capture: bool = True):
        self.step, self.slots, self.capture = step, slots, capture
        self.attention = step.attention
        self.graphs: dict = {}                                       # (rows, span) -> (graph, ids, pos, logits)
        self.cache_key = None
        self.pool = None
        self.replays = 0
        rope = getattr(step.inner.rotary_emb, "rope_type", "default")
        if capture and "dynamic" in str(rope):                       # it compares positions on the host
            log.warning("sample.decode_step=graphs: the %s rotary embedding reads positions "
                                                "on the host; stepping without CUDA graphs", rope)
            self.capture = False

    def prefill(self, *args, **kw):
        """A prompt's prefill, eager (one per prompt; its length varies)."""
        return self.step.prefill(*args, **kw)

    def bucket(self, n: int) -> int:
        b = 8
        while b < n:
            b *= 2
        return min(b, self.slots)

    def __call__(self, ids: torch.Tensor, pos: torch.Tensor, cache) -> torch.Tensor:
        n = ids.shape[0]
        rows = max(self.bucket(n), n)
        span = min(cache.room, -(-cache.span // self.SPAN) * self.SPAN)
        cache.span = span
        key = (id(cache), cache.room, cache.k[0].data_ptr())
        if key != self.cache_key:                                    # a new or reallocated cache
            self.graphs.clear()
            self.cache_key = key
        if (rows, span) not in self.graphs:
            ids_buf = torch.zeros(rows, dtype=ids.dtype, device=ids.device)
            pos_buf = torch.zeros(rows, dtype=pos.dtype, device=pos.device)
            ids_buf[:n], pos_buf[:n] = ids, pos
            self.graphs[(rows, span)] = (*self._capture(ids_buf, pos_buf, cache), ids_buf, pos_buf)
        graph, logits, ids_buf, pos_buf = self.graphs[(rows, span)]
        ids_buf[:n], pos_buf[:n] = ids, pos
        ids_buf[n:], pos_buf[n:] = 0, 0
        if graph is None:
            return self.step(ids_buf, pos_buf, cache)[:n]
        graph.replay()
        self.replays += 1
        return logits[:n]

    def _capture(self, ids_buf: torch.Tensor, pos_buf: torch.Tensor, cache) -> tuple:
        """(graph, its logits), or (None, None) to step eagerly. The warm-up steps run on the real
        inputs, so the keys and values they write are the ones the replay writes again."""
        if not self.capture:
            return None, None
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(2):
                    self.step(ids_buf, pos_buf, cache)
            torch.cuda.current_stream().wait_stream(side)
            if self.pool is None:
                self.pool = torch.cuda.graph_pool_handle()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=self.pool):
                logits = self.step(ids_buf, pos_buf, cache)
            return graph, logits
        except RuntimeError as e:  # an operation the graph cannot hold: this loop steps eagerly
            log.warning("sample.decode_step=graphs: capturing the step failed (%s); "
                                                "stepping without CUDA graphs", e)
            self.capture = False
            return None, None
