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
    (("data.pool_size=8", "data.prompts_per_epoch=8"), 1): {"prompts": "64cbf429f08f89c4", "sample": "65decba7c4ef2cc6", "teacher": "9ba61350a09f9c8b", "judge": "b613dfe79efc2fc3", "reward": "a36e8a8e80beea8b", "select": "855df6e13cada162", "logprobs": "1576cc53c6ef8051", "update": "98bbf9e5af6bf588", "eval": "7df71542a46ee401"},
    (("data.pool_size=8", "data.prompts_per_epoch=8", "update.loss_type=dapo", "reward.kind=direct", "update.kl_coef=0",
      "sample.num_samples=4"), 1):
        {"prompts": "64cbf429f08f89c4", "sample": "33d39cd1dd27ed8c", "teacher": "9ba61350a09f9c8b", "judge": "5a7383081f139613", "reward": "425e7418d99fc326", "select": "89ee19415cb369f8", "logprobs": "3c5b40767871eade", "update": "a72121717909dafb", "eval": "7a39bfedca82fb1f"},
    # config.yaml as it is: 24 prompts an epoch over the whole training set
    ((), 1): {"prompts": "fc933bd458f4cd98", "sample": "9869abbec08d6588", "teacher": "2551971b7317b05f", "judge": "60ebe02f09085e5a", "reward": "5b39d98f5c9990ee", "select": "d57d542043d715b0", "logprobs": "32a5814d30629a18", "update": "f596d8c85dee0f59", "eval": "ebd97a939532e38a"},
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
