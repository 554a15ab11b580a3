"""`rlaif status` on a run made with other settings: its "give the recorded values as overrides" line
holds every one of them, and typed back as printed, the status reads the run as it ran."""
from __future__ import annotations

import shlex

from pipeline.cli.main import main


def test_status_gives_every_recorded_setting_back(epoch1_config, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    now = ["update.lr=1e-5", "update.kl_coef=0.2", "update.clip_eps=0.3", "update.max_grad_norm=0.5",
           "sample.temperature=0.9", "sample.top_p=0.9", "judge.execution.truncation_factor=0.4",
           "reward.eps=0.2", "select.min_reward=-1"]
    assert main(["status", *epoch1_config, *now]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "settings differ" in x)
    words = shlex.split(line.split("overrides (`")[1].split("`")[0])
    assert sorted(w.split("=")[0] for w in words) == sorted(x.split("=")[0] for x in now), line   # all, not six
    assert main(["status", *epoch1_config, *now, *words]) == 0
    assert "settings differ" not in capsys.readouterr().out
