"""update.kl_reference=previous: each epoch's KL reference is the policy the epoch starts from (TRL's
sync_ref_model, alpha 1, once an epoch), so every epoch's update starts at KL 0; `start` keeps the
policy RL started from for the whole run (tests/test_epoch_e2e.py)."""
from __future__ import annotations

import json

import pytest
import torch

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.engines.forward import LOGPROBS_FILE
from pipeline.run.runner import Runner


@pytest.mark.slow
def test_previous_reference_is_the_policy_each_epoch_starts_from(tiny_config):
    over = tiny_config + ["select.drop_zero_std=false", "select.advantage=mean", "reward.none_as=0.0",
                          "update.kl_reference=previous", "eval.max_problems=1"]
    assert main(["epoch", "2", *over]) == 0
    r = Runner(load_config(None, over))
    for n in (1, 2):
        edir = r.epoch_dir(n)
        m = {p.name: json.loads((p / "manifest.json").read_text()) for p in edir.iterdir()
             if (p / "manifest.json").exists()}
        assert m["logprobs"]["inputs"]["reference"] == m["sample"]["inputs"]["policy"] == r.policy(n - 1)[0]
        lp = torch.load(edir / "logprobs" / LOGPROBS_FILE)
        assert lp["old"] and all(torch.equal(lp["old"][i], lp["ref"][i]) for i in lp["old"])
        assert json.loads((edir / "metrics.json").read_text())["kl/k3_start"] == 0
    # epoch 2 started from epoch 1's trained policy, not from the base model epoch 1 started from
    assert r.policy(1)[0] != r.policy(0)[0]
