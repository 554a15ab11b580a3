"""Judge throughput against the local fake API at 200 ms latency: ours against a synchronous
reward function of the kind TRL users write.

Ours: judges.anthropic.AnthropicJudge through run_cached (cache, dedup, retries, limiter) with 1, 8,
32 and 64 calls in flight, each level on a cold cache and distinct answers. Theirs: a loop over
the anthropic SDK's sync client, one `messages.create` at a time, same request body (our rubric,
forced tool call). The server is tests.fakeapi.FakeAPI in its own process, as a remote API
would be. Printed: requests/s of each, ours as a share of the ideal in-flight / latency, ours
at 64 over the sync loop; and the cache's hit path: JudgeCache.get latency p50/p99 and
run_cached over jobs that all hit. Goal: >= 90% of in-flight / latency.

    python bench/judge.py [--latency 0.2] [--levels 1 8 32 64] [--rounds 10]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import PY, ROOT, busy  # noqa: E402

MODEL = "fake-model"
PRICES = {MODEL: {"input": 3.0, "output": 15.0}}  # $/Mtok, made up: the fake model has no price list


def serve(latency: float) -> int:
    """Child process: the fake API until stdin closes."""
    from tests.fakeapi import FakeAPI
    with FakeAPI(latency=latency) as api:
        print(api.anthropic_url, flush=True)
        sys.stdin.read()
    return 0


def answers(problem, tag: str, n: int) -> list[str]:
    """n distinct answers (distinct cache keys) of realistic size: the reference + a marker."""
    from pipeline.stages.judging import as_answer
    return [as_answer(f"{problem.reference.rstrip()}\n# {tag}-{i:05d}") for i in range(n)]


def ours(url: str, problem, n: int, count: int, cache_dir: Path) -> tuple[float, int]:
    """(seconds, paid calls) for `count` distinct judgements with n in flight."""
    from judges.anthropic import AnthropicJudge
    from judges.cached import run_cached
    from judges.limits import RateLimiter
    from judges.cache import JudgeCache
    judge = AnthropicJudge(MODEL, base_url=url, prices=PRICES, limiter=RateLimiter(n), timeout_s=30)
    cache = JudgeCache(cache_dir)
    jobs = [judge.score_job(problem, a, None) for a in answers(problem, f"n{n}", count)]
    t = time.perf_counter()
    _, stats = asyncio.run(run_cached(cache, jobs, max_in_flight=n))
    secs = time.perf_counter() - t
    cache.close()
    return secs, stats.api_calls


def sync_loop(url: str, problem, count: int) -> tuple[float, list[float]]:
    """A TRL-style reward function: the SDK's sync client, one request after another."""
    import anthropic
    from judges.anthropic import AnthropicJudge
    from judges.rubric import build_prompt
    client = anthropic.Anthropic(base_url=url, max_retries=0, timeout=30)
    body = AnthropicJudge(MODEL, base_url=url, prices=PRICES)._score_body  # the same request as ours

    def reward_fn(completions: list[str]) -> list[float]:
        out = []
        for c in completions:
            msg = client.messages.create(**body(*build_prompt(problem.prompt, c, None)))
            block = next(b for b in msg.content if b.type == "tool_use")
            out.append(block.input["overall"] / 10)
        return out

    t = time.perf_counter()
    scores = reward_fn(answers(problem, "sync", count))
    secs = time.perf_counter() - t
    client.close()
    return secs, scores


def hit_path(url: str, problem, cache_dir: Path, n: int, count: int) -> tuple[float, float, float, int]:
    """(get p50 us, get p99 us, run_cached us per all-hit job, calls paid) on the cache level n filled."""
    from judges.anthropic import AnthropicJudge
    from judges.cached import run_cached
    from judges.cache import JudgeCache
    judge = AnthropicJudge(MODEL, base_url=url, prices=PRICES)
    jobs = [judge.score_job(problem, a, None) for a in answers(problem, f"n{n}", count)]
    cache = JudgeCache(cache_dir)
    lat = []
    for key, _ in jobs:
        t = time.perf_counter_ns()
        assert cache.get(key) is not None
        lat.append((time.perf_counter_ns() - t) / 1e3)
    q = statistics.quantiles(lat, n=100)
    t = time.perf_counter()
    _, stats = asyncio.run(run_cached(cache, jobs))
    per_job = (time.perf_counter() - t) / len(jobs) * 1e6
    cache.close()
    return q[49], q[98], per_job, stats.api_calls


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.2, help="seconds the fake API takes per request")
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32, 64], help="calls in flight")
    ap.add_argument("--rounds", type=int, default=10, help="requests per level = in flight x rounds (at least 20)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve:
        return serve(a.latency)
    os.environ.setdefault("ANTHROPIC_API_KEY", "dummy")  # the fake API takes any key
    from data.loaders import load_source
    problem = next(p for p in load_source("builtin:train") if p.reference)
    server = subprocess.Popen([PY, __file__, "--serve", "--latency", str(a.latency)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            ours(url, problem, 4, 8, Path(tmp) / "warm-up")  # imports, first connections
            rows = []
            for n in a.levels:
                count = max(n * a.rounds, 20)
                secs, calls = ours(url, problem, n, count, Path(tmp) / f"c{n}")
                assert calls == count, (calls, count)
                rows.append((n, count, secs))
                print(f"ours, {n} in flight: {count / secs:.1f} req/s ({count / secs / (n / a.latency):.0%} of ideal)")
            sync_count = max(a.rounds * 2, 20)
            sync_secs, _ = sync_loop(url, problem, sync_count)
            print(f"sync loop: {sync_count / sync_secs:.1f} req/s")
            n_top, c_top, s_top = rows[-1]
            p50, p99, per_job, hit_calls = hit_path(url, problem, Path(tmp) / f"c{n_top}", n_top, c_top)
    finally:
        server.stdin.close()
        server.wait(timeout=30)

    sync_rps = sync_count / sync_secs
    share = {n: c / s / (n / a.latency) for n, c, s in rows}
    lines = ["| judge | in flight | requests | s | requests/s | of in-flight / latency |", "|---|---|---|---|---|---|"]
    lines += [f"| ours: AnthropicJudge + run_cached | {n} | {c} | {s:.2f} | {c / s:.1f} | {share[n]:.0%} |"
              for n, c, s in rows]
    lines.append(f"| sync reward function (anthropic.Anthropic, one at a time) | 1 | {sync_count} | {sync_secs:.2f} "
                 f"| {sync_rps:.1f} | {sync_rps * a.latency:.0%} |")
    worst = min(share.values())
    verdict = (f"Ours at {n_top} in flight / the sync loop = **{c_top / s_top / sync_rps:.1f}x**. Worst share of "
               f"in-flight / latency over the levels: **{worst:.0%}** (goal >= 90%: "
               f"{'met' if worst >= 0.9 else 'NOT met'}). Cache hits: JudgeCache.get p50 **{p50:.0f} us**, p99 "
               f"**{p99:.0f} us**; run_cached over {c_top} jobs that all hit: {per_job:.0f} us per job, "
               f"{hit_calls} calls paid.")
    setup = (f"Server: tests.fakeapi.FakeAPI at {a.latency * 1000:.0f} ms latency in its own process on this machine "
             f"(model `{MODEL}`, made-up prices {json.dumps(PRICES[MODEL])} $/Mtok, ANTHROPIC_API_KEY dummy); each "
             f"level on a cold cache with distinct answers. Note: {busy()}.")
    record("judge: API judge throughput vs a sync reward function (bench/judge.py)",
           lines, verdict, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
