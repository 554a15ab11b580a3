"""update.mask_truncated_completions end to end: select keeps each answer's finish_reason for the update."""
from __future__ import annotations

import pytest

from pipeline.config.file import load_config


@pytest.mark.slow
def test_mask_truncated_completions_reaches_the_update_through_select(tiny_config):
    """An epoch whose answers are all cut at max_new_tokens: with update.mask_truncated_completions only the
    teacher's rows train (select keeps each answer's finish_reason; it kept none, and the option did nothing)."""
    import json
    from pipeline.cli.main import main
    from pipeline.run.runner import Runner
    from pipeline.store.tables import load_table
    over = [*tiny_config, "sample.max_new_tokens=4", "select.drop_zero_std=false"]   # (every reward is 0)
    assert main(["epoch", "1", *over]) == 0
    r = Runner(load_config(None, over))
    rows = load_table(r.epoch_dir(1) / "select")
    assert rows and all(x["finish_reason"] == "length" for x in rows if not x["sft"])
    sft = sum(len(x["completion_ids"]) for x in rows if x["sft"])
    assert main(["update", "1", *over, "update.mask_truncated_completions=true"]) == 0
    masked = json.loads((r.chosen_update(1)[0] / "manifest.json").read_text())["figures"]["update/trained_tokens"]
    whole = json.loads((r.update_variants(1)[0][0] / "manifest.json").read_text())["figures"]["update/trained_tokens"]
    assert masked == sft < whole
