"""judge.kind=python: your own reward function, TRL's contract, behind the judge cache. Calls are
counted by the function itself (a line appended to a file per call), never by a mock; TRL's own
reward functions run unchanged and score as TRL scores them; a bad function fails before any work,
naming the key and what to do; an error mid-stage keeps every score before it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from data.schema import Problem
from pipeline.cli.main import main
from pipeline.config.base import ConfigError
from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.run.preflight import check_data, check_model
from pipeline.stages.judging import judge_code, length_score
from pipeline.stages.judging_python import score_python
from pipeline.store.tables import load_table

COUNTING = '''import os
LOG = {log!r}

def reward(prompts, completions, entry_point, truncated, **kwargs):
    with open(LOG, "a") as f:
        f.write(f"{{len(completions)}}\\n")
    {body}
    return [None if "???" in c else float(ep in c) - 0.25 * t for c, ep, t in zip(completions, entry_point, truncated)]
'''


def write_fn(tmp_path: Path, body: str = "pass", name: str = "rw.py") -> tuple[Path, Path]:
    log = tmp_path / "calls.log"
    path = tmp_path / name
    path.write_text(COUNTING.format(log=str(log), body=body))
    return path, log


def calls(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def cfg_for(tmp_path: Path, path: Path, *more: str):
    return load_config(None, ["judge.kind=python", f"judge.python.function={path}:reward",
                              f"run.dir={tmp_path / 'runs'}", *more])


PROBLEMS = [Problem(id=f"p{i}", prompt=f"Write f{i}.", entry_point=f"f{i}", meta={"solution": str(i)}) for i in range(3)]
ITEMS = [(p, f"```python\ndef {p.entry_point}(): pass\n```", False) for p in PROBLEMS] + \
        [(PROBLEMS[0], "no function here", False), (PROBLEMS[1], "def f1(", True)]


def test_scored_once_then_from_the_cache_and_an_edit_or_version_scores_again(tmp_path):
    path, log = write_fn(tmp_path)
    cfg = cfg_for(tmp_path, path, "judge.python.batch_size=2")
    scores, n_calls, hits, skipped = score_python(cfg, ITEMS)
    assert [s.value for s in scores] == [1.0, 1.0, 1.0, 0.0, 0.75]
    assert (n_calls, hits, skipped) == (5, 0, 0) and calls(log) == [2, 2, 1]   # batches of judge.python.batch_size
    again, n_calls, hits, _ = score_python(cfg, ITEMS)
    assert [s.value for s in again] == [s.value for s in scores] and (n_calls, hits) == (0, 5)
    assert calls(log) == [2, 2, 1]   # the function was not called
    before = judge_code(cfg)["reward function"]
    path.write_text(path.read_text() + "\n# an edit\n")   # the file's text is in every key
    assert score_python(cfg, ITEMS)[1] == 5 and judge_code(cfg)["reward function"] != before
    assert score_python(cfg_for(tmp_path, path, "judge.python.version=2"), ITEMS)[1] == 5


def test_unscored_answers_are_asked_again_and_replay_answers_from_the_cache(tmp_path):
    path, log = write_fn(tmp_path)
    cfg = cfg_for(tmp_path, path)
    items = ITEMS[:2] + [(PROBLEMS[2], "???", False)]
    scores, n_calls, _, _ = score_python(cfg, items)
    assert [s.value for s in scores] == [1.0, 1.0, None] and n_calls == 3
    assert score_python(cfg, items)[1] == 1   # only the unscored answer is asked again
    # a replay gives the live run's scores, the unscored one unscored again, and calls nothing
    scores, n_calls, hits, skipped = score_python(cfg_for(tmp_path, path, "judge.mode=replay"), items)
    assert (n_calls, hits, skipped) == (0, 3, 0) and [s.value for s in scores] == [1.0, 1.0, None]
    more = items + [(PROBLEMS[2], "never judged", False)]   # an answer no live run saw: a miss
    with pytest.raises(RunError, match=r"judge.mode=replay: 1 of 4 judgements are not in the cache"):
        score_python(cfg_for(tmp_path, path, "judge.mode=replay"), more)
    scores, n_calls, hits, skipped = score_python(cfg_for(tmp_path, path, "judge.mode=replay", "judge.skip_missing=true"),
                                                  more)
    assert (n_calls, hits, skipped) == (0, 3, 1) and scores[3].breakdown == {"unanswered": "skipped: not in the cache"}


def test_an_error_mid_stage_keeps_the_scores_before_it(tmp_path):
    """A transient failure (a service the function asks is down: here a flag file) on the second batch."""
    path, log = write_fn(tmp_path, body="if os.path.exists(LOG + '.down') and len(open(LOG).read().split()) == 2: "
                                        "raise KeyError('solution')")
    Path(f"{log}.down").touch()
    cfg = cfg_for(tmp_path, path, "judge.python.batch_size=2")
    with pytest.raises(RunError, match=r"raised KeyError: 'solution' at rw\.py:7 in reward \(`if os\.path\.exists[^`]*`\)"
                                       r" \(on a batch of 2 answers to p0, p2\); the 2 scores "
                                       r"before it are cached: fix the function and rerun"):
        score_python(cfg, ITEMS)
    Path(f"{log}.down").unlink()   # back up: the file is unchanged, so are the keys
    assert score_python(cfg, ITEMS)[1:3] == (3, 2)   # the first batch's two scores came from the cache


def test_trls_own_reward_function_runs_unchanged_and_scores_as_in_trl(tmp_path):
    """trl.rewards.think_format_reward reads completion[0]['content'] (TRL's conversational format):
    with judge.python.format=conversational it scores each answer as TRL's own call does."""
    from trl.rewards import think_format_reward
    texts = ["<think>\nplan\n</think>\ndef f0(): pass", "def f0(): pass", "<think>\nno end\ndef f0(): pass"]
    cfg = load_config(None, ["judge.kind=python", "judge.python.function=trl.rewards:think_format_reward",
                             "judge.python.format=conversational", f"run.dir={tmp_path}"])
    scores = score_python(cfg, [(PROBLEMS[0], t, False) for t in texts])[0]
    trl_scores = think_format_reward([[{"role": "assistant", "content": t}] for t in texts])
    assert [s.value for s in scores] == trl_scores == [1.0, 0.0, 0.0]
    # TRL's dataset columns arrive as keyword lists: accuracy-style functions read their own column
    (tmp_path / "cols.py").write_text("def reward(completions, solution, **kw):\n"
                                      "    return [float(s in c) for c, s in zip(completions, solution)]\n")
    cfg = cfg_for(tmp_path, tmp_path / "cols.py")
    assert [s.value for s in score_python(cfg, [(p, "answer 1", False) for p in PROBLEMS])[0]] == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("source, ref, said", [
    (None, "missing.py:reward", r"missing.py is not a file \(a relative path is read from the working directory\)"),
    ("def other(completions, **kw): return []\n", "{f}:reward", r"has no function 'reward'"),
    ("import not_a_module_here\n", "{f}:reward", r"importing .* failed: ModuleNotFoundError"),
    ("def reward(completion_ids, **kw): return []\n", "{f}:reward", r"requires 'completion_ids'.*overlong"),
    ("def reward(completions, answer_key): return []\n", "{f}:reward", r"requires \['answer_key'\], which no problem has"),
    ("def reward(completions, answer_key, **kw): return []\n", "{f}:reward", r"requires \['answer_key'\], which no pr"),
    ("def reward(completions, environments): return []\n", "{f}:reward", r"requires 'environments'.*environment_fact"),
    (None, "no_such_package.rewards:reward", r"no module 'no_such_package.rewards'|No module named 'no_such_package'"),
    (None, "rewards_without_colon", r"name it as path/to/file.py:function"),
])
def test_a_function_that_cannot_run_fails_before_any_work(tmp_path, source, ref, said):
    f = tmp_path / "fn.py"
    if source is not None:
        f.write_text(source)
    cfg = load_config(None, ["judge.kind=python", f"judge.python.function={ref.format(f=f)}", f"run.dir={tmp_path / 'r'}"])
    late = "answer_key" in (source or "")   # a column no problem has is known with the problems: check_data
    with pytest.raises(RunError, match=said):
        check_data(cfg) if late else check_model(cfg)
    assert not (tmp_path / "r").exists()
    if late:   # and the judge stage says the same, should the problems it meets lack it
        with pytest.raises(RunError, match=said):
            score_python(cfg, ITEMS[:1])


@pytest.mark.parametrize("body, said", [
    ("return [1.0]", r"\(defined at bad.py:1\) returned 1 rewards for 3 completions; it must return exactly one per completion"),
    ("return 1.0", r"\(defined at bad.py:1\) returned float; it must return a list of floats"),
    ("return ['high'] * len(completions)", r"\(defined at bad.py:1\) returned 'high' for problem p0; each reward must be a number or None"),
    ("return ['1.0'] * len(completions)", r"returned '1.0' for problem p0; each reward must be a number or None"),
    ("return '111'", r"returned str; it must return a list of floats"),
])
def test_a_malformed_result_names_the_function_and_the_rule(tmp_path, body, said):
    (tmp_path / "bad.py").write_text(f"def reward(completions, **kw):\n    {body}\n")
    with pytest.raises(RunError, match=said):
        score_python(cfg_for(tmp_path, tmp_path / "bad.py"), ITEMS[:3])


def test_config_needs_the_function_and_takes_python_in_a_mix(tmp_path):
    with pytest.raises(ConfigError, match=r"needs judge.python.function, e.g. judge.python.function=my_rewards.py:reward"):
        load_config(None, ["judge.kind=python"])
    cfg = load_config(None, ["judge.kind=mix", "judge.mix={execution: 0.5, python: 0.5}",
                             "judge.python.function=trl.rewards:think_format_reward"])
    assert cfg.judge.mix == {"execution": 0.5, "python": 0.5}
    # unset, the section moves no fingerprint (config.stage_config leaves it out)
    assert "judge.python" not in load_config(None, []).stage_config(["judge.python"])


def test_async_function_and_package_module_from_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "my_rewards.py").write_text("async def reward(completions, **kw):\n"
                                            "    return [len(c) / 10 for c in completions]\n")
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, ["judge.kind=python", "judge.python.function=my_rewards:reward", f"run.dir={tmp_path}"])
    assert [s.value for s in score_python(cfg, [(PROBLEMS[0], "x" * 5, False)])[0]] == [0.5]


@pytest.mark.slow
def test_an_epoch_with_a_python_judge_as_typed(tmp_path, tiny_config, capsys):
    """`rlaif epoch 1 --only judge judge.kind=python judge.python.function=FILE:reward` as typed (the CLI's own entry,
    in this process): the judge table holds the function's scores (here the length toy's 2 - words/16,
    so they must equal the built-in length judge's), the dry run names the function, a rerun of the
    judge stage calls it for nothing."""
    (tmp_path / "brevity.py").write_text("def reward(completions, **kw):\n"
                                         "    return [2.0 - len(c.split()) / 16 for c in completions]\n")
    args = [*tiny_config, "judge.kind=python", f"judge.python.function={tmp_path / 'brevity.py'}:reward",
            "teacher.kind=none", "reward.kind=direct", "select.drop_zero_std=false"]
    assert main(["epoch", "1", "--dry-run", *args]) == 0
    assert f"judge (python {tmp_path / 'brevity.py'}:reward): 9 of 9 judgements missing at most" in capsys.readouterr().out
    for stage in ("prompts", "sample", "teacher", "judge"):   # what the judge stage reads, then the judge stage
        assert main(["epoch", "1", "--only", stage, *args]) == 0
    edir = Path(tiny_config[0].split("=", 1)[1]) / "default" / "epoch-001"
    samples = {(s["problem_id"], s["sample_idx"]): s["text"] for s in load_table(edir / "sample")}
    judged = load_table(edir / "judge")
    assert len(judged) == 9 and all(r["value"] == length_score(samples[(r["problem_id"], r["sample_idx"])]).value
                                    for r in judged)
    figures = json.loads((edir / "judge" / "manifest.json").read_text())["figures"]
    assert (figures["judge/api_calls"], figures["judge/cache_hits"]) == (9, 0)
    assert main(["epoch", "1", "--only", "judge", "--force", *args]) == 0
    figures = json.loads((edir / "judge" / "manifest.json").read_text())["figures"]
    assert (figures["judge/api_calls"], figures["judge/cache_hits"]) == (0, 9)
    # the function edited: the finished stage is reused (said so), its new keys counted as what remaking it calls
    (tmp_path / "brevity.py").write_text("def reward(completions, **kw):\n    return [1.0 for c in completions]\n")
    capsys.readouterr()
    assert main(["epoch", "1", "--dry-run", *args]) == 0
    assert ("judge: done, reused: nothing is called (`rlaif epoch 1 --force` would remake it; then judge (python "
            f"{tmp_path / 'brevity.py'}:reward): 9 of 9 judgements missing") in capsys.readouterr().out
    assert main(["status", *args]) == 0 and "judge:done(older code)" in capsys.readouterr().out
    assert main(["epoch", "1", "--force", "--dry-run", *args]) == 0   # --force remakes it: the calls are this run's
    out = capsys.readouterr().out
    assert f"  judge (python {tmp_path / 'brevity.py'}:reward): 9 of 9 judgements missing" in out and "reused: nothing" not in out


def test_the_same_file_elsewhere_hits_the_cache_and_its_sibling_modules_import(tmp_path, monkeypatch):
    """A teammate's copy of the file (another path, the same text) scores from the cache; the file imports a
    module beside it, as `python path/to/file.py` would, from any working directory, and once per process."""
    for d in ("mine", "theirs"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "weights_rv.py").write_text("W = 0.5\n")
        (tmp_path / d / "rw.py").write_text(f"from weights_rv import W\nopen({str(tmp_path / 'imports.log')!r}, 'a')"
                                            ".write('x')\ndef reward(completions, **kw):\n    return [W] * len(completions)\n")
    monkeypatch.chdir(tmp_path)
    scores, n_calls, _, _ = score_python(cfg_for(tmp_path, tmp_path / "mine" / "rw.py"), ITEMS[:3])
    assert [s.value for s in scores] == [0.5] * 3 and n_calls == 3
    assert score_python(cfg_for(tmp_path, Path("theirs") / "rw.py"), ITEMS[:3])[1:3] == (0, 3)
    score_python(cfg_for(tmp_path, tmp_path / "mine" / "rw.py"), ITEMS[:3])
    assert (tmp_path / "imports.log").read_text() == "xx"   # each file imported once


def test_trls_keyword_arguments_a_column_named_prompts_and_a_reexported_function(tmp_path, monkeypatch):
    """TRL passes log_metric and log_extra (here no-ops); a data column `prompts` does not replace the
    prompts; a package that re-exports the function from another file is keyed by that file's text too."""
    (tmp_path / "trl_style.py").write_text(
        "def reward(prompts, completions, **kwargs):\n    kwargs['log_metric']('len', 1.0)\n"
        "    kwargs['log_extra']('note', ['x'] * len(completions))\n"
        "    return [float(p.startswith('Write')) for p in prompts]\n")
    clash = Problem(id="c0", prompt="Write g.", entry_point="g", meta={"prompts": "not the prompt", "completions": 1})
    scores = score_python(cfg_for(tmp_path, tmp_path / "trl_style.py"), [(clash, "def g(): pass", False)])[0]
    assert [s.value for s in scores] == [1.0]
    pkg = tmp_path / "rv_reexporting_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .impl import reward\n")
    (pkg / "impl.py").write_text("def reward(completions, **kw):\n    return [1.0] * len(completions)\n")
    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, ["judge.kind=python", "judge.python.function=rv_reexporting_pkg:reward",
                             f"run.dir={tmp_path / 'runs'}"])
    assert score_python(cfg, ITEMS[:2])[1] == 2 and score_python(cfg, ITEMS[:2])[1] == 0
    (pkg / "impl.py").write_text((pkg / "impl.py").read_text() + "# an edit of the defining file\n")
    assert score_python(cfg, ITEMS[:2])[1] == 2


def test_an_async_functions_error_names_its_line_not_asyncios(tmp_path):
    (tmp_path / "arw.py").write_text("import asyncio\n\nasync def reward(completions, **kw):\n    await asyncio.sleep(0)\n"
                                     "    return [{}['missing'] for c in completions]\n")
    with pytest.raises(RunError) as e:
        score_python(cfg_for(tmp_path, tmp_path / "arw.py"), ITEMS)
    msg = str(e.value)
    assert "raised KeyError: 'missing' at arw.py:5 in " in msg and "base_events" not in msg and "runners" not in msg, msg


@pytest.mark.parametrize("fmt,body,said", [
    ("standard", "[float('def' in c[0]['content']) for c in completions]",
     "the completions it is passed are strings (judge.python.format=standard): a function written for TRL's "
     "conversational datasets (completion[0][\"content\"]) wants judge.python.format=conversational"),
    ("conversational", "[float(c.strip().startswith('def')) for c in completions]",
     "with judge.python.format=conversational each completion is a list of messages "
     "([{\"role\": \"assistant\", \"content\": ...}]): for plain strings set judge.python.format=standard")])
def test_a_function_written_for_the_other_format_is_told_which_key(tmp_path, fmt, body, said):
    """TRL's reward functions come in two shapes; the wrong judge.python.format fails on the first answer."""
    (tmp_path / "fmt.py").write_text(f"def reward(completions, **kw):\n    return {body}\n")
    with pytest.raises(RunError) as e:
        score_python(cfg_for(tmp_path, tmp_path / "fmt.py", f"judge.python.format={fmt}"), ITEMS)
    assert str(e.value).endswith(said) and "no answer was scored before it: fix" in str(e.value), str(e.value)
    fixed = "conversational" if fmt == "standard" else "standard"   # the key it names works
    assert score_python(cfg_for(tmp_path, tmp_path / "fmt.py", f"judge.python.format={fixed}"), ITEMS)[1] == len(ITEMS)


@pytest.mark.parametrize("line, when", [("from data.helpers import clean", "import"),
                                        ("import data", "call")])
def test_a_package_of_yours_named_as_one_of_ours_is_said(tmp_path, line, when):
    """A `data` package beside the reward function: `data` is this tool's own, imported first, so theirs
    never is (an ImportError on import, or an AttributeError when the function runs)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("")
    (tmp_path / "data" / "helpers.py").write_text("def clean(c):\n    return c.strip()\n")
    (tmp_path / "rw.py").write_text(f"{line}\n\ndef reward(completions, **kw):\n"
                                    "    return [float(len(data.helpers.clean(c)) > 3) if 'data' in globals() "
                                    "else float(len(clean(c)) > 3) for c in completions]\n")
    cfg = cfg_for(tmp_path, tmp_path / "rw.py")
    with pytest.raises(RunError) as e:
        check_model(cfg) if when == "import" else score_python(cfg, ITEMS)
    assert "`data` names this tool's own package" in str(e.value) and "rename it (my_data)" in str(e.value), str(e.value)
