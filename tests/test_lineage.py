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
    said = [x for x in capsys.readouterr().out.splitlines() if "] epoch 1 " in x]
    assert said   # epoch 1's flags, as it ended (the tiny model's answers give it some)
    assert main(["epoch", "2", *tiny_config]) == 0   # every stage reused: epoch 1's flags are not said again
    assert not [x for x in capsys.readouterr().out.splitlines() if "] epoch 1 " in x]
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
    from pipeline.report.noise import change_intervals   # what the flags read: epoch 2's parent, not epoch 1's choice
    ms = [r.read_metrics(n) for n in (1, 2)]
    change_intervals(r, ms)
    assert [m["_lineage/former"] for m in ms] == [None, former]

    sample = json.loads((r.epoch_dir(2) / "sample" / "manifest.json").read_text())
    capsys.readouterr()
    assert main(["replay", "2", *tiny_config]) == 2
    err = capsys.readouterr().err
    assert "would remake its finished stage(s)" in err and "its inputs changed: the policy it samples from" in err
    assert json.loads((r.epoch_dir(2) / "sample" / "manifest.json").read_text()) == sample   # untouched

    assert main(["promote", "1", former, *tiny_config]) == 0   # one chain again: nothing to say
    capsys.readouterr()
    assert main(["status", *tiny_config]) == 0
    assert "was sampled from" not in capsys.readouterr().out
    # the run read with another student.model (the base policy's fingerprint moves): no lineage said
    assert main(["status", *tiny_config, f"student.model={r.run_dir / 'another-model'}"]) == 0
    assert "was sampled from" not in capsys.readouterr().out


def test_a_replay_that_would_make_a_new_warm_start_refuses_before_it_trains(tiny_config, capsys):
    """`rlaif replay 1` runs epoch 0 first: with other warm-start settings it would train a new warm-start,
    the policy epoch 1 samples from, before epoch 1 refused; it refuses before any of it."""
    # the warm-starts on the easy problems, one pass (the refusal reads the settings, not how long they train)
    over = [*tiny_config, "update.warm_start=true", "data.difficulties=[easy]", "update.sft_epochs=1"]
    assert main(["epoch", "1", *over]) == 0
    r = Runner(load_config(None, over))
    warm = [p.name for p, _ in r.update_variants(0)]
    capsys.readouterr()
    assert main(["replay", "1", *over, "update.sft_lr=5e-5"]) == 2
    err = capsys.readouterr().err
    assert "`rlaif replay 1` would remake a new warm-start first (update.sft_lr" in err, err
    assert [p.name for p, _ in r.update_variants(0)] == warm      # no warm-start trained
    assert main(["replay", "1", *over]) == 0                        # the same settings replay as before
    assert "epoch 1 was finished: every stage reused, nothing replayed; `rlaif replay 1 --force`" in capsys.readouterr().out
    # two warm-starts side by side: compare 0 tells them apart by their update.sft_* settings
    assert main(["epoch", "0", *over, "update.sft_lr=5e-5"]) == 0
    capsys.readouterr()
    assert main(["compare", "0", *over]) == 0
    out = capsys.readouterr().out
    assert "update.sft_lr" in out.splitlines()[0] and "5e-05" in out and len(r.update_variants(0)) == 2, out
    assert main(["status", *over]) == 0   # epoch 1 now continues the first warm-start's line
    assert f"epoch 1 was sampled from epoch 0's {warm[0]}" in capsys.readouterr().out
