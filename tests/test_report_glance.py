"""The report's glance as an audit of real tiny runs read it: a flag the last epoch no longer raises is not
'active', an eval turned off is said to be off, a change with no interval is no verdict (not 'within noise'),
an unfinished epoch is named, and the training reward's same prompts name data.pool_size only where it is set."""
from __future__ import annotations

import json

import pytest

from pipeline.config.file import load_config
from pipeline.metrics.flag_kinds import Flag
from pipeline.report.report import glance, write_report
from pipeline.run.runner import Runner
from tests.test_report import STAGES, _rewards, build_fake_run
from tests.test_report_verdicts import EVAL_STAGES, _eval, _row


@pytest.fixture
def fake_run(tmp_path):
    return build_fake_run(tmp_path)


def _glance(md: str) -> str:
    return md.split("## At a glance")[1].split("## Health")[0]


def test_a_flag_the_last_epoch_no_longer_raises_is_said_apart(fake_run):
    """mode_collapse at epochs 1-3, gone at 4 (sample.temperature raised): the glance listed each epoch's as a
    standing flag; now the last epoch's flags, then the earlier ones grouped over consecutive epochs."""
    fl = [Flag("mode_collapse", e, "warning", "e", "a") for e in (1, 2, 3, 4)] + [
        Flag("loss_rising", 3, "warning", "e", "a"), Flag("kl_high", 5, "warning", "e", "a"),
        Flag("reward_regression", 2, "recovered", "e", "a")]
    assert glance(fake_run, fl, {}, 5)[0] == ("health: 1 flag(s): kl_high (epoch 5); earlier, not at epoch 5: "
                                              "mode_collapse (epochs 1-4), loss_rising (epoch 3); 1 recovered since: "
                                              "reward_regression (epoch 2)")
    assert glance(fake_run, fl[:5], {}, 5)[0] == ("health: no flags at epoch 5; earlier, not at epoch 5: "
                                                  "mode_collapse (epochs 1-4), loss_rising (epoch 3)")
    # raised at the last epoch and before: one standing flag, its epochs together
    assert glance(fake_run, fl[:2] + fl[3:4], {}, 4)[0] == "health: 1 flag(s): mode_collapse (epochs 1-2, 4)"
    # a run on disk: the report's Health section keeps each epoch's entry, and says which the last does not raise
    for e in (2, 3):
        p = fake_run.epoch_dir(e) / "metrics.json"
        p.write_text(json.dumps({**json.loads(p.read_text()), "reward/frac_zero_std": 0.9}))
    md = write_report(fake_run).read_text()
    assert "earlier, not at epoch 4: mode_collapse (epochs 2-3)" in _glance(md), _glance(md)
    health = md.split("## Health")[1].split("## Metrics per epoch")[0]
    assert health.count("`mode_collapse` (not raised at epoch 4, the last):") == 2, health
    assert "`reward_regression`: " in health   # raised at the last epoch: no such note


def test_an_eval_turned_off_is_said_off_with_no_command_that_fails(tmp_path):
    """eval.sources=[]: the glance offered `rlaif eval 0`, which refuses ('the eval is off')."""
    run = build_fake_run(tmp_path)
    md = write_report(run).read_text()
    assert "`rlaif eval 0` scores the base model" in _glance(md)   # eval on, none made: the way to make one
    off = Runner(load_config(None, [f"run.dir={tmp_path}", "run.name=demo", "eval.sources=[]"]), stages=STAGES)
    at = _glance(write_report(off).read_text())
    assert "- eval: off (eval.sources=[])" in at and "rlaif eval" not in at, at


def test_an_eval_change_without_an_interval_is_no_verdict(fake_run):
    """3 problems (5 at least for an interval): the section printed '[no interval: too few problems (3 ...)]'
    and then **within noise**; the table and the glance said within noise too."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    _eval(run, 0, run.base_policy_fp(), [("builtin:heldout", p, 0.5) for p in (0.0, 1.0, 0.0)])
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("builtin:heldout", p, 0.4) for p in (1.0, 1.0, 0.0)])
    md = write_report(run).read_text()
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "[no interval: too few problems (3" in part and "**no verdict: too few problems**" in part, part
    assert "**within noise**" not in part
    assert _row("| `eval/pass@1` |", md).endswith("no verdict: too few problems |")
    assert ("- eval, epoch 4 against the base model (epoch 0): no verdict: too few problems (3 in common; an "
            "interval needs 5)") in _glance(md), _glance(md)


def test_an_unfinished_epoch_is_named(fake_run):
    """A killed epoch 5 (stage and .tmp- dirs, no metrics.json) was left out of the report without a word;
    an epoch 0 holding only `rlaif eval 0`'s eval is no unfinished epoch."""
    (fake_run.epoch_dir(0) / "eval-00000000").mkdir(parents=True)
    assert "unfinished" not in _glance(write_report(fake_run).read_text())
    (fake_run.epoch_dir(5) / ".tmp-sample-1234").mkdir(parents=True)
    summary: list[str] = []
    at = _glance(write_report(fake_run, summary).read_text())
    want = "epoch 5: unfinished (no metrics.json: stopped, or still running); `rlaif epoch 5` resumes it"
    assert f"- {want}" in at and want in summary, at
    (fake_run.epoch_dir(6) / "sample").mkdir(parents=True)
    at = _glance(write_report(fake_run).read_text())
    assert "- epochs 5-6: unfinished" in at and "`rlaif epoch 6` resumes them" in at, at


def test_the_same_prompts_name_data_pool_size_only_where_it_is_set(tmp_path):
    """Epochs 1 and 4 scored the same prompts because a 16-prompt epoch cycles through a small training set, not
    because data.pool_size held them: the line named data.pool_size, unset."""
    def line(*overrides):
        run = Runner(load_config(None, [f"run.dir={tmp_path}", "run.name=demo", *overrides]), stages=STAGES)
        for e in (1, 4):
            _rewards(run, e, {f"p{i}": [0.1 * i + 0.01 * e, 0.5] for i in range(8)})
        return next(x for x in write_report(run).read_text().splitlines() if x.startswith("Training reward"))
    build_fake_run(tmp_path)
    assert "epochs 1 and 4 scored the same prompts, so each change is paired by prompt" in line()
    assert "epochs 1 and 4 scored the same prompts (data.pool_size), so" in line("data.pool_size=8")


def test_a_change_without_an_interval_is_no_verdict_not_within_noise():
    """Three problems, all better: too few for an interval (MIN_VALUES), so no verdict either way."""
    from pipeline.metrics.significance import MIN_VALUES, compare
    few = compare([{"a": 0.0, "b": 0.0, "c": 0.0}], [{"a": 1.0, "b": 1.0, "c": 1.0}], "pass@1")
    assert few.problems < MIN_VALUES and few.words() == "no verdict: too few problems" and few.line().endswith(
        "no verdict: too few problems")
    enough = compare([{k: 0.0 for k in "abcdefgh"}], [{k: 1.0 for k in "abcdefgh"}], "pass@1")
    assert enough.words() == "better"


def test_evals_scored_by_another_judge_are_not_compared(fake_run, capsys, monkeypatch, tmp_path):
    """An eval of problems without tests scored with other reward weights (or another reward function's code) is on
    another scale: the report compares only the evals scored as the last was (it said 'score better' for a change
    of weights, and an eval_regression for changing them back)."""
    import json
    monkeypatch.chdir(tmp_path)
    from pipeline.report.noise import change_intervals, eval_changes
    from pipeline.store.artifacts import read_manifest, write_manifest
    from tests.test_report import STAGES, _eval_dir, _noop
    from pipeline.run.runner import Runner
    from pipeline.stages import Stage
    run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    _eval_dir(run, 0, run.base_policy_fp(), [0.2] * 10)
    _eval_dir(run, 4, run.chosen_update(4)[1]["fingerprint"], [0.6] * 10)
    judged = {"judge.kind": "python", "judge.python": {"function": "rw.py:rw"}}
    for epoch, weights in ((0, [0.5, 1.0]), (4, [1.0, 0.5])):
        d = run.epoch_dir(epoch) / f"eval-{epoch:08d}"
        m = read_manifest(d)
        m["config"] = {"eval_judge": {**judged, "judge.python": {**judged["judge.python"], "weights": weights}}}
        write_manifest(d, m)
    lines, words = eval_changes(run)
    assert any(x.startswith("- Not compared: the eval of epoch(s) 0, scored by the run's judge with other settings")
               for x in lines), lines
    assert "eval/score" not in words and "eval/pass@1" not in words, words
    ms = [json.loads((run.epoch_dir(n) / "metrics.json").read_text()) for n in run.epochs() if n]
    change_intervals(run, ms)
    assert not any("_eval/change" in m for m in ms)   # nothing for eval_regression to read either
    from pipeline.cli.main import main
    assert main(["compare-evals", str(run.epoch_dir(0) / "eval-00000000"), str(run.epoch_dir(4) / "eval-00000004"),
                 f"run.dir={run.run_dir.parent}", f"run.name={run.run_dir.name}"]) == 0
    assert "note: these evals' problems without tests were scored by the run's judge with other settings" in \
        capsys.readouterr().out
