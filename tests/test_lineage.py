"""A run whose earlier epoch's choice changed after later epochs ran (`rlaif update`, `rlaif promote`): status
and the report say which epochs continue the former line, and a replay of such an epoch refuses to
replace its answers (drawn from the former policy) before any work."""
from __future__ import annotations

import json

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.run.runner import Runner

pytestmark = pytest.mark.slow


def test_an_epoch_sampled_from_a_former_choice_is_said_and_not_replayed_over(tiny_config, capsys):
    assert main(["epoch", "2", *tiny_config]) == 0
    r = Runner(load_config(None, tiny_config))
    former = r.chosen_update(1)[0].name
    assert main(["update", "1", *tiny_config, "update.lr=5e-6"]) == 0
    chosen = r.chosen_update(1)[0].name
    assert chosen != former
    capsys.readouterr()
    assert main(["status", *tiny_config]) == 0
    line = (f"epoch 2 was sampled from epoch 1's {former}, not its chosen {chosen} (chosen after epoch 2 ran): "
            "epoch 2 and the epochs after it continue the former line")
    assert line in capsys.readouterr().out
    assert main(["report", *tiny_config]) == 0
    assert f"Lineage: {line}" in (r.run_dir / "report.md").read_text()

    sample = json.loads((r.epoch_dir(2) / "sample" / "manifest.json").read_text())
    capsys.readouterr()
    assert main(["replay", "2", *tiny_config]) == 2
    err = capsys.readouterr().err
    assert "would remake epoch 2's finished stage(s)" in err and "its inputs changed: the policy it samples from" in err
    assert json.loads((r.epoch_dir(2) / "sample" / "manifest.json").read_text()) == sample   # untouched

    assert main(["promote", "1", former, *tiny_config]) == 0   # one chain again: nothing to say
    capsys.readouterr()
    assert main(["status", *tiny_config]) == 0
    assert "was sampled from" not in capsys.readouterr().out
    for other in ("update.warm_start=true", "student.lora.r=8"):   # the run read with other settings: no lineage
        assert main(["status", *tiny_config, other]) == 0
        assert "was sampled from" not in capsys.readouterr().out, other
