"""The eval of problems without tests (a validation split carved out of a dataset trained with reward functions or
an LLM judge): scored by the run's own judge, through the judge cache, with no pass/fail; an API judge's calls paid
once and counted in the run's spend. Problems with tests stay the execution judge's."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.metrics.evals import load_eval, per_problem
from pipeline.run.runner import Runner
from pipeline.stages.spend import manifest_spend, run_spend
from tests.fakeapi import FakeAPI

TESTED = {"prompt": "Write a Python function `def f(x: int) -> int:` that returns x.", "entry_point": "f",
          "reference": "def f(x):\n    return x\n", "tests": [{"input": [1], "output": 1}]}

REWARD = '''import pathlib
def rw(completions, **kw):
    with open(pathlib.Path(__file__).with_name("calls.txt"), "a") as f:
        f.write("x" * len(completions))
    return [(len(c) % 7) / 7 for c in completions]
'''


def _rows(path: Path, n: int, tests: bool = False) -> Path:
    row, tag = (TESTED, "t") if tests else ({k: v for k, v in TESTED.items() if k != "tests"}, "p")
    path.write_text("".join(json.dumps({**row, "id": f"{tag}{i}", "prompt": f"{row['prompt']} ({tag}{i})"}) + "\n"
                            for i in range(n)))
    return path


def _eval(over: list[str], force: bool = False) -> tuple[list[dict], dict]:
    assert main(["eval", "0", *over, *(["--force"] if force else [])]) == 0
    r = Runner(load_config(None, over))
    d = max(r.epoch_dir(0).glob("eval-*"), key=lambda p: p.stat().st_mtime)
    return load_eval(d), json.loads((d / "manifest.json").read_text())["figures"]


def test_a_reward_function_scores_the_eval_of_problems_without_tests(tmp_path, tiny_config, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD)
    bare, tested = _rows(tmp_path / "bare.jsonl", 12), _rows(tmp_path / "tested.jsonl", 2, tests=True)
    over = [*tiny_config, f"data.source={bare}", "data.validation_size=3", "judge.kind=python",
            "judge.python.function=rw.py:rw", f"eval.sources=[validation, {tested}]", "eval.max_problems=0"]
    rows, fig = _eval(over)
    calls = len((tmp_path / "calls.txt").read_text())
    assert calls == 3   # the three validation answers; the tested file's are the execution judge's
    own = [r for r in rows if r["source"] == "validation"]
    assert len(own) == 3 and all(r["pass@1"] is None and r["correct"] is None for r in own)
    for r in own:   # the reward function's score of the answer the eval drew
        assert r["score"] == pytest.approx((len(r["texts"][0]) % 7) / 7, abs=1e-12), r
    other = [r for r in rows if r["source"] != "validation"]
    assert len(other) == 2 and all(r["pass@1"] in (0.0, 1.0) and "tests_ok" in r for r in other)
    assert fig["eval/untested"] == 3 and fig["eval/judge_api_calls"] == 3 and fig["eval/judge_cache_hits"] == 0
    assert "eval/validation/pass@1" not in fig and fig["eval/validation/score"] == pytest.approx(
        sum(r["score"] for r in own) / 3)
    assert fig["eval/pass@1"] == pytest.approx(sum(r["pass@1"] for r in other) / 2)   # the tested problems' alone
    assert set(per_problem(rows, "pass@1")) == {f"{r['source']}:{r['problem_id']}" for r in other}
    # judged again: from the cache, the function not called
    rows2, fig2 = _eval(over, force=True)
    assert len((tmp_path / "calls.txt").read_text()) == calls
    assert fig2["eval/judge_cache_hits"] == 3 and fig2["eval/judge_api_calls"] == 0
    assert [r["score"] for r in rows2] == [r["score"] for r in rows]
    # an edit of the reward function: the finished eval is said to be older, and --force scores it anew
    (tmp_path / "rw.py").write_text(REWARD.replace("% 7) / 7", "% 5) / 5"))
    with caplog.at_level("WARNING", logger="rlaif"):
        _eval(over)
    assert "epoch 0 eval: reused, but made by other code than this version's (reward function" in caplog.text
    assert "`rlaif eval 0 --force` remakes it" in caplog.text, caplog.text
    rows3, _ = _eval(over, force=True)
    assert [r["score"] for r in rows3 if r["source"] == "validation"] == [
        (len(r["texts"][0]) % 5) / 5 for r in rows3 if r["source"] == "validation"]


def test_an_api_judge_scores_the_eval_of_problems_without_tests_paid_once(tmp_path, tiny_config, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.chdir(tmp_path)
    bare = _rows(tmp_path / "bare.jsonl", 12)
    with FakeAPI(scores=lambda body: 7) as api:
        over = [*tiny_config, f"data.source={bare}", "data.validation_size=3", "judge.kind=anthropic",
                "judge.model=fake-model", f"judge.base_url={api.anthropic_url}",
                "judge.prices={fake-model: {input: 3.0, output: 15.0}}"]
        rows, fig = _eval(over)
        assert api.total == 3 and fig["eval/judge_api_calls"] == 3 and fig["eval/judge_cost_usd"] > 0
        assert all(r["pass@1"] is None and r["values"][0] is not None for r in rows)
        assert "eval/pass@1" not in fig and fig["eval/score"] == pytest.approx(rows[0]["score"])
        run = Runner(load_config(None, over)).run_dir
        assert run_spend(run)["judge"] == pytest.approx(fig["eval/judge_cost_usd"])   # in the run's judge spend
        assert manifest_spend(run)["judge"] == pytest.approx(fig["eval/judge_cost_usd"])   # and its finished figures
        _, fig2 = _eval(over, force=True)
        assert api.total == 3 and fig2["eval/judge_cache_hits"] == 3   # paid once
        monkeypatch.delenv("ANTHROPIC_API_KEY")   # no key: said before any answer is drawn, not a raw SDK error
        assert main(["eval", "0", *over, "--force"]) == 2
        assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err and api.total == 3


def test_the_epoch_line_shows_the_eval_score_where_no_problem_has_tests():
    from pipeline.cli.commands_train import epoch_line
    line = epoch_line(None, 1, figures={"reward/mean": 0.5, "eval/score": 0.25, "eval/untested": 3})
    assert "reward/mean=0.5" in line and "eval/score=0.25" in line, line
    line = epoch_line(None, 1, figures={"reward/mean": 0.5, "eval/score": 0.25, "eval/pass@1": 0.125})
    assert "eval/pass@1=0.125" in line and "eval/score" not in line, line
    # `rlaif update`: the judge stage reused called nothing, the new variant's eval called the function 3 times
    line = epoch_line(None, 1, judge_reused=True, figures={"judge/api_calls": 0, "eval/score": 0.25,
                                                           "eval/judge_api_calls": 3, "eval/judge_cache_hits": 0})
    assert "eval/judge_api_calls=3  eval/judge_cache_hits=0  (judge stage: no call now; 0 calls when it ran)" in line


def test_the_dry_run_prices_the_evals_api_judgements(tmp_path, tiny_config, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.chdir(tmp_path)
    bare = _rows(tmp_path / "bare.jsonl", 12)
    over = [*tiny_config, f"data.source={bare}", "data.validation_size=3", "judge.kind=anthropic",
            "judge.model=fake-model", "judge.prices={fake-model: {input: 3.0, output: 15.0}}", "teacher.kind=none",
            "reward.kind=direct",
            "eval.num_samples=2", "eval.temperature=0.6"]
    assert main(["epoch", "2", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    said = [x.strip() for x in out.splitlines() if x.strip().startswith("eval judge (anthropic fake-model)")]
    assert len(said) == 2, out   # each epoch's eval: 3 problems x 2 answers
    assert said[0].startswith("eval judge (anthropic fake-model): 6 judgements of the eval's 3 problems without "
                              "tests, at most (answers not drawn yet), ~$") and said[0].endswith(
        " live (the eval calls live, never a batch)"), said[0]
    assert "eval judge (anthropic fake-model) 12 judgements" in out, out   # in the sum over the epochs
    assert main(["epoch", "2", "--dry-run", *over, "eval.sources=[]"]) == 0   # no eval: no such line
    assert "eval judge" not in capsys.readouterr().out


def test_the_evals_fingerprint_holds_the_judge_only_where_a_problem_lacks_tests(tmp_path, monkeypatch):
    """An eval whose problems all have tests is the execution judge's whatever judge.kind: its fingerprint (and so
    every eval an earlier version made) stays; one with problems without tests holds the judge that scores them."""
    monkeypatch.chdir(tmp_path)
    tested, bare = _rows(tmp_path / "tested.jsonl", 12, tests=True), _rows(tmp_path / "bare.jsonl", 12)
    for over in ([f"data.source={tested}", "judge.kind=length"], ["data.source=builtin:train",
                 "eval.sources=[validation]", "data.validation_size=10", "judge.kind=length"],
                 [f"data.source={bare}", "judge.kind=execution"]):
        assert load_config(None, over).eval_judge is None, over
    judged = load_config(None, [f"data.source={bare}", "judge.kind=length"]).eval_judge
    assert judged == {"judge.kind": "length", "judge.model": "", "judge.base_url": "", "judge.max_tokens": 512,
                      "judge.temperature": None, "judge.show_teacher": True,
                      "judge.mix": {"execution": 0.65, "anthropic": 0.35}}, judged


def test_early_stopping_on_pass_at_1_with_no_tested_eval_problem_is_refused(tmp_path, tiny_config, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD)
    over = [*tiny_config, f"data.source={_rows(tmp_path / 'bare.jsonl', 12)}", "judge.kind=python",
            "judge.python.function=rw.py:rw", "eval.patience=2"]
    assert main(["epoch", "1", "--dry-run", *over, "eval.early_stop_metric=eval/pass@1"]) == 2
    assert "none of the eval's 2 problems has tests" in capsys.readouterr().err
    assert main(["epoch", "1", "--dry-run", *over, "eval.early_stop_metric=eval/score"]) == 0


def test_rlaif_compare_reads_the_score_where_no_problem_has_tests(tmp_path, tiny_config, monkeypatch):
    from pipeline.report.noise import variant_lines
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD)
    over = [*tiny_config, f"data.source={_rows(tmp_path / 'bare.jsonl', 40)}", "judge.kind=python",
            "judge.python.function=rw.py:rw", "eval.max_problems=0"]
    _eval(over)
    _eval([*over, "eval.max_new_tokens=8"])
    a, b = sorted(Runner(load_config(None, over)).epoch_dir(0).glob("eval-*"))
    lines = variant_lines(a, [("other", b)])
    assert len(lines) == 1 and lines[0].startswith("  other vs chosen: `eval/score`"), lines


def test_what_moved_in_the_evals_judge_is_said_as_keys_a_user_types(tmp_path, monkeypatch):
    """The eval's fingerprint holds the judge (eval_judge); a change of judge.python.weights is said as that key,
    which `rlaif status` gives back as an override (it said eval_judge.judge.python.weights: no such key)."""
    from pipeline.run.freshness import made_otherwise
    from pipeline.stages import STAGES
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD + "\ndef other(completions, **kw):\n    return [0.5] * len(completions)\n")
    base = [f"data.source={_rows(tmp_path / 'bare.jsonl', 12)}", "judge.kind=python",
            "judge.python.function=[rw.py:rw, rw.py:other]"]
    st = next(s for s in STAGES if s.name == "eval")
    then = load_config(None, [*base, "judge.python.weights=[1.0, 2.0]"])
    made = {"config": json.loads(json.dumps({f: then.get(f) for f in st.fields}, default=str))}
    moved = made_otherwise(load_config(None, [*base, "judge.python.weights=[2.0, 1.0]"]), st, made)
    assert moved == ["judge.python.weights [1.0, 2.0] -> [2.0, 1.0]"], moved
    judge = next(s for s in STAGES if s.name == "judge")   # a panel's member: judge.models, not judge_panel
    panel = ["judge.kind=mix", "judge.mix={execution: 0.5, anthropic: 0.5}", "judge.model=claude-haiku-4-5"]
    then = load_config(None, [*panel, "judge.models={anthropic: claude-opus-4-1}"])
    made = {"config": json.loads(json.dumps({f: then.get(f) for f in judge.fields}, default=str))}
    moved = made_otherwise(load_config(None, [*panel, "judge.models={anthropic: claude-sonnet-4-5}"]), judge, made)
    assert moved == ["judge.models.anthropic 'claude-opus-4-1' -> 'claude-sonnet-4-5'"], moved
    made = {"config": json.loads(json.dumps({f: load_config(None, panel).get(f) for f in judge.fields}, default=str))}
    moved = made_otherwise(load_config(None, [*panel, "judge.models={anthropic: claude-sonnet-4-5}"]), judge, made)
    assert moved == ["judge.models {} -> {'anthropic': 'claude-sonnet-4-5'}"], moved   # (a value a user can type)


def test_a_reward_functions_none_is_left_out_of_the_evals_score_as_in_training(tmp_path, tiny_config, monkeypatch):
    """TRL's accuracy_reward gives None where it cannot parse the gold answer: training leaves such an answer out;
    the eval counted it 0, so eval/score fell below every score the function gave."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text("def rw(completions, id, **kw):\n"
                                    "    return [None if int(i[1:]) % 2 else 1.0 for i in id]\n")
    over = [*tiny_config, f"data.source={_rows(tmp_path / 'bare.jsonl', 12)}", "data.validation_size=4",
            "judge.kind=python", "judge.python.function=rw.py:rw"]
    rows, fig = _eval(over)
    odd = [int(r["problem_id"][1:]) % 2 == 1 for r in rows]
    assert any(odd) and not all(odd), [r["problem_id"] for r in rows]   # (the validation carve is seeded)
    assert [r["score"] for r in rows] == [None if o else 1.0 for o in odd]
    assert fig["eval/score"] == 1.0 and fig["eval/unscored"] == sum(odd)


def test_status_says_an_eval_its_reward_function_has_changed_under(tmp_path, tiny_config, monkeypatch, capsys):
    """The eval of problems without tests is the reward function's: after an edit, `rlaif status` says it is made
    by other code (it said done, while `rlaif epoch` warned)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD)
    over = [*tiny_config, f"data.source={_rows(tmp_path / 'bare.jsonl', 12)}", "judge.kind=python",
            "judge.python.function=rw.py:rw", "teacher.kind=none", "reward.kind=direct"]
    assert main(["epoch", "1", *over]) == 0
    capsys.readouterr()
    (tmp_path / "rw.py").write_text(REWARD + "# edited\n")
    assert main(["status", *over]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert "judge:done(older code)" in line and "eval:done(older code)" in line, line


def test_early_stopping_compares_only_evals_scored_by_the_same_judge(tmp_path, tiny_config, monkeypatch, capsys):
    """eval/score of problems without tests is on the scale of the reward function that scored it: after an edit
    of the function and epoch 1's eval made again, epoch 0's eval (the former function's) is not the best that
    epoch 1 failed to beat, and epoch 2 runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text(REWARD)
    over = [*tiny_config, f"data.source={_rows(tmp_path / 'bare.jsonl', 12)}", "data.validation_size=3",
            "judge.kind=python", "judge.python.function=rw.py:rw", "eval.sources=[validation]", "eval.max_problems=0",
            "eval.early_stop_metric=eval/score", "eval.patience=1", "eval.min_delta=10"]
    assert main(["eval", "0", *over]) == 0 and main(["epoch", "1", *over]) == 0
    capsys.readouterr()
    assert main(["epoch", "2", "--dry-run", *over]) == 2
    assert "early stop: eval/score has not improved" in capsys.readouterr().err
    assert main(["status", *over]) == 0 and main(["report", *over]) == 0
    assert capsys.readouterr().out.count("epoch 2 would not start: early stop: eval/score has not improved") == 2
    (tmp_path / "rw.py").write_text(REWARD.replace("% 7) / 7", "% 5) / 5"))
    assert main(["eval", "1", "--force", *over]) == 0
    assert main(["epoch", "2", "--dry-run", *over]) == 0, capsys.readouterr().err
    assert "early stop" not in capsys.readouterr().err
