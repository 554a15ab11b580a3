"""Why a finished stage is made again, as the run and its dry run say it: the setting that moved, or the
input made otherwise now, never a policy that did not change."""
from __future__ import annotations

from pipeline.cli.main import main


def test_a_judge_setting_remakes_the_stages_after_it_naming_their_input(epoch1_config, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    over = [*epoch1_config, "judge.execution.truncation_factor=0.4"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert "judge    to run   epoch-001/judge (remakes the finished one: judge.execution.truncation_factor 0.3 -> 0.4)" in out
    assert "reward   to run   epoch-001/reward (remakes the finished one: its input judge is made otherwise now)" in out
    assert "chosen policy" not in out, out
    assert main(["epoch", "1", *over]) == 0
    out = capsys.readouterr().out
    assert "reward   running  epoch-001/reward (remade: its input judge is made otherwise now)" in out
    assert "logprobs running  epoch-001/logprobs (remade: its input select is made otherwise now)" in out
    assert "chosen policy" not in out, out
