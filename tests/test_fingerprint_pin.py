"""The stage fingerprints of config.yaml's run, pinned: moving a module, splitting one or renaming a
class must move none of them (a finished run would recompute every stage). A change that means to
move one (a default, a stage's version, a new field outside NEUTRAL) updates these figures on
purpose, and says so."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config.file import load_config
from pipeline.run.lineage import Lineage

ROOT = Path(__file__).resolve().parents[1]
# the first 16 hex digits of each stage's fingerprint, computed before pipeline/ moved into its layers
PINNED = {
    ((), 0): {"prompts": "be55566069442a1e", "teacher": "d3a1c01324c7e7db", "update": "6b5e33a3ca490111"},
    # the default before it walked the whole training set (a fixed pool of 8): the figures pinned since the move
    (("data.pool_size=8", "data.prompts_per_epoch=8"), 1): {"prompts": "64cbf429f08f89c4", "sample": "65decba7c4ef2cc6", "teacher": "9ba61350a09f9c8b", "judge": "b613dfe79efc2fc3", "reward": "049cbc4fe775aa6f", "select": "4916efd9e7cc1b96", "logprobs": "006b97f5be5d4a76", "update": "3fa7e8650fa7c69a", "eval": "22289c81c45dae44"},
    (("data.pool_size=8", "data.prompts_per_epoch=8", "update.loss_type=dapo", "reward.kind=direct", "update.kl_coef=0",
      "sample.num_samples=4"), 1):
        {"prompts": "64cbf429f08f89c4", "sample": "33d39cd1dd27ed8c", "teacher": "9ba61350a09f9c8b", "judge": "5a7383081f139613", "reward": "4a8f0276d391fba4", "select": "0d4f575580ece8bd", "logprobs": "764c5bd4849a7a63", "update": "a9a9f729ce2071e9", "eval": "a769947a35828cfb"},
    # config.yaml as it is: 24 prompts an epoch over the whole training set
    ((), 1): {"prompts": "fc933bd458f4cd98", "sample": "9869abbec08d6588", "teacher": "2551971b7317b05f", "judge": "60ebe02f09085e5a", "reward": "3ea0dd5d08e55a08", "select": "e72a4ee1547abe7d", "logprobs": "2d7516b2c4e74b66", "update": "21bf8dc8518d0056", "eval": "e37aace53a90a2e7"},
}


@pytest.mark.parametrize(("overrides", "epoch"), list(PINNED))
def test_the_stage_fingerprints_stay_where_they_were(overrides, epoch, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    cfg = load_config("config.yaml", [f"run.dir={tmp_path}", *overrides])
    got = {st.name: fp[:16] for st, fp, _, _ in Lineage(cfg).plan(epoch)}
    assert got == PINNED[(overrides, epoch)]


def test_the_warm_start_remakes_for_a_weight_decay_and_only_then(tmp_path, monkeypatch):
    """The warm-start's AdamW reads update.weight_decay: another value is another warm-start (its
    fingerprint held it not, and reused the old one); 0, every earlier run's value, moves nothing."""
    monkeypatch.chdir(ROOT)

    def warm(*over):
        cfg = load_config("config.yaml", [f"run.dir={tmp_path}", *over])
        return {st.name: fp[:16] for st, fp, _, _ in Lineage(cfg).plan(0)}["update"]
    assert warm() == warm("update.weight_decay=0.0") == PINNED[((), 0)]["update"]
    assert warm("update.weight_decay=0.1") != warm()
