"""docs/guides/judges-and-cost.md's `python bench/batch.py --no-record` (here with --n 40: the ingestion of 40
answers a provider instead of 5000), against the local fake API in its own process, through the real SDKs:
both providers' answers all ingested, and the epoch's judging priced live and at the batch APIs' half."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_batch_bench_as_typed_ingests_both_providers_and_prices_the_batch_at_half():
    typed = "python bench/batch.py --no-record"
    assert typed in (ROOT / "docs/guides/judges-and-cost.md").read_text()
    res = subprocess.run([sys.executable, *typed.split()[1:], "--n", "40"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    for provider in ("anthropic", "openai"):
        assert re.search(rf"^\| {provider} \| 40 \| [\d.]+ \| \d+ \|$", res.stdout, re.M), res.stdout
    priced = re.findall(r"^\| ([\w.-]+) \| (40|1000) \| \$([\d.]+) \| \$([\d.]+) \| \$([\d.]+) \| \$([\d.]+) \|$",
                        res.stdout, re.M)
    assert len(priced) == 8, res.stdout   # 4 models x (an epoch's 40 judgements, 1000)
    for _, _, live, batch, typical_live, typical_batch in priced:
        # half of each price; each figure rounded to 4 decimals
        assert abs(float(batch) - float(live) / 2) <= 1e-4 and abs(float(typical_batch) - float(typical_live) / 2) <= 1e-4
