"""What a side of bench/gpu.py installs to see inside its epoch: torch.profiler over chosen stages,
the decode loop's counts, and the CUDA caching allocator's."""
from __future__ import annotations

import json
import time
from pathlib import Path


def profiled(runner_cls, path: Path, stages=("sample", "update")) -> None:
    """Run those stages under torch.profiler (CPU and CUDA) and append each one's operator tables,
    by self device time and by self CPU time, to `path`; and the decode loop's counts (slots, steps,
    row-steps, forward and choose seconds). The profiler's own cost inflates the times."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    import pipeline.engines.decode as dec
    cuda = torch.cuda.is_available()
    plain_decode, plain_run = dec.decode, runner_cls._run_stage_here

    def decode(*args, **kw):
        stats = kw.get("stats")
        if stats is None:
            kw["stats"] = stats = {}
        out = plain_decode(*args, **kw)
        with open(path, "a") as f:
            f.write(f"decode loop: {json.dumps({k: v for k, v in stats.items() if k != 'trace'})}\n")
        return out

    def run(self, st, *args, **kw):
        if st.name not in stages:
            return plain_run(self, st, *args, **kw)
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        t = time.perf_counter()
        with profile(activities=acts) as prof:
            res = plain_run(self, st, *args, **kw)
            if cuda:
                torch.cuda.synchronize()
        table = prof.key_averages()
        with open(path, "a") as f:
            f.write(f"\n== stage {st.name}: {time.perf_counter() - t:.1f} s profiled\n")
            for key in (["self_device_time_total"] if cuda else []) + ["self_cpu_time_total"]:
                f.write(table.table(sort_by=key, row_limit=25, max_name_column_width=70) + "\n")
        return res

    dec.decode, runner_cls._run_stage_here = decode, run


def decode_counts() -> dict:
    """The sample stage's decode-loop counts, summed over its calls (steps, row-steps, prefilled
    tokens, and the seconds the host spent launching the step, `forward_s`, and choosing the tokens,
    `choose_s`, which on CUDA includes waiting for the step's kernels): filled in as the epoch runs."""
    import pipeline.engines.decode as dec
    plain, total = dec.decode, {}

    def decode(*args, **kw):
        stats = kw["stats"] = {} if kw.get("stats") is None else kw["stats"]
        t = time.perf_counter()
        out = plain(*args, **kw)
        if kw.get("desc", "sample") == "sample":
            stats = {**stats, "wall_s": time.perf_counter() - t}
            for k, v in stats.items():
                if isinstance(v, (int, float)) and k != "slots":
                    total[k] = total.get(k, 0) + v
                elif k in ("slots", "step", "attention", "pick"):
                    total[k] = v
        return out
    dec.decode = decode
    return total


def allocator(a) -> dict:
    """The CUDA caching allocator's counts over the process (a side is one process): device mallocs and
    frees, and the retries (a malloc that failed, emptied the cache and synchronised); {} off CUDA.
    Runs of identical work whose update took 6.4 and 14.5 s: do these part them?"""
    import torch
    if not torch.cuda.is_available() or a.device == "cpu":
        return {}
    stats = torch.cuda.memory_stats()
    return {k: stats.get(k, 0) for k in ("num_device_alloc", "num_device_free", "num_alloc_retries")}
