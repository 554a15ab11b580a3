"""The batch path against the local fake API: how fast a finished batch's results are ingested, and
what an epoch's judging costs live and through the batch APIs on the default price table.

Ingestion: N distinct judgements submitted as batches (both providers, through the real SDKs; the
fake server in its own process, as a remote API would be), then timed from the moment every batch
has ended to the last answer in the cache: results download (JSONL), parse, price, cache write.
Printed as requests/s. Cost: the worst case the budget counts (every request at judge.max_tokens)
and a typical case (150 output tokens) for `judgements` rubric requests over the builtin problems.

    python bench/batch.py [--n 5000] [--judgements 40] [--no-record]
"""
from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import record  # noqa: E402
from bench.helpers import ROOT  # noqa: E402

MODEL = "fake-model"
PRICES = {MODEL: {"input": 3.0, "output": 15.0, "batch_input": 1.5, "batch_output": 7.5}}


def serve() -> int:
    """Child process: the fake API (batches end 0.2 s after creation) until stdin closes."""
    from tests.fakeapi import FakeAPI
    with FakeAPI(batch_delay=0.2) as api:
        print(api.url, flush=True)
        sys.stdin.read()
    return 0


def ingest(kind: str, url: str, n: int, workdir: Path) -> tuple[float, int]:
    """(seconds from every batch ended to all answers cached, answers) for n distinct judgements."""
    from bench.judge import answers
    from data.loaders import load_builtin
    from judges.anthropic import AnthropicJudge
    from judges.batch import _ingest
    from judges.batch_records import Journal
    from judges.cache import JudgeCache
    from judges.cached import RunStats
    from judges.openai import OpenAIJudge
    problem = load_builtin("train")[0]
    judge = (AnthropicJudge(MODEL, base_url=url, prices=PRICES, batch=True, api_key="k") if kind == "anthropic" else
             OpenAIJudge(MODEL, base_url=url + "/v1", prices=PRICES, batch=True, api_key="k"))
    items = [judge.score_item(problem, a, None) for a in answers(problem, kind, n)]
    cache = JudgeCache(workdir / f"cache-{kind}")
    journal = Journal(workdir / f"work-{kind}")
    stats = RunStats()
    got = []

    async def go() -> float:
        client = await judge._client()
        bid = await judge.batch_submit(client, items, lambda d: None)
        while not (st := await judge.batch_status(client, bid)).ended:
            await asyncio.sleep(0.05)
        t = time.perf_counter()
        await _ingest(judge, client, cache, journal, "bench", bid, [it.key for it in items], "judge", st,
                      lambda k, v, paid: got.append(k), stats, {it.key: it for it in items})
        return time.perf_counter() - t

    secs = asyncio.run(go())
    assert len(got) == n == len(cache), (len(got), n, len(cache))
    cache.close()
    return secs, len(got)


def epoch_cost(judgements: int) -> list[str]:
    """Markdown rows: live and batch dollars of `judgements` rubric requests, per default-table model."""
    from data.loaders import load_builtin
    from judges.anthropic import AnthropicJudge
    from judges.llm import PRICES as TABLE
    from judges.llm import cost_usd
    from judges.openai import OpenAIJudge
    from pipeline.stages.judging import as_answer
    problems = load_builtin("train")
    rows = ["| model | judgements | worst case live | worst case batch | typical live | typical batch |",
            "|---|---|---|---|---|---|"]
    for model in ("claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5-mini", "gpt-4.1-mini"):
        cls = AnthropicJudge if model.startswith("claude") else OpenAIJudge
        judge = cls(model, api_key="k", base_url="http://127.0.0.1:9" + ("" if cls is AnthropicJudge else "/v1"))
        bodies = [judge.score_item(p, as_answer(p.reference), as_answer(p.reference)).body
                  for p in (problems * (judgements // len(problems) + 1))[:judgements]]
        worst = [sum(judge.estimate_body_usd(b, batch) for b in bodies) for batch in (False, True)]
        typical = [sum(cost_usd({"input_tokens": judge._tokens_in(b), "output_tokens": 150}, model, TABLE, batch)
                       for b in bodies) for batch in (False, True)]
        rows.append(f"| {model} | {judgements} | ${worst[0]:.4f} | ${worst[1]:.4f} | ${typical[0]:.4f} | "
                    f"${typical[1]:.4f} |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--judgements", type=int, default=40, help="a default epoch: 8 prompts x 4 samples + 8 teacher")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()
    if args.serve:
        return serve()
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    url = server.stdout.readline().strip()
    lines = ["| provider | answers | ingestion s | requests/s |", "|---|---|---|---|"]
    try:
        with tempfile.TemporaryDirectory() as d:
            for kind in ("anthropic", "openai"):
                secs, n = ingest(kind, url, args.n, Path(d))
                lines.append(f"| {kind} | {n} | {secs:.2f} | {n / secs:.0f} |")
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    cost = epoch_cost(args.judgements) + [""] + epoch_cost(1000)
    if args.no_record:
        print("\n".join(lines + [""] + cost))
    else:
        record("Batch path: result ingestion and epoch judging cost (bench/batch.py)", lines,
               "Ingestion: from every batch ended to the last answer cached (JSONL download through the SDK, "
               "parse, batch price, diskcache write), fake server in its own process.",
               "\n".join(cost),
               "Cost on the built-in price table: rubric requests over the builtin problems (the reference as "
               "answer, shown the teacher). Worst case = what judge.budget_usd reserves (input chars / 3 + "
               "50 tokens, judge.max_tokens = 512 output tokens); typical = 150 output tokens.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
