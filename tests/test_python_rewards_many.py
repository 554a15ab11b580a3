"""Several reward functions with weights (TRL's reward_funcs list and reward_weights): an answer's score
is TRL's weighted nansum, each function's value is cached under its own key (changing the weights calls
nothing, adding a function calls only it), errors name the function's place in the list, and the
conversational format passes student.system_prompt as the prompts' system message. Calls are counted by
the functions themselves (a line appended to a file per call), never by a mock."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from data.schema import Problem
from judges.python_reward import PythonReward
from judges.python_rewards import configured, function_names
from pipeline.cli.main import main
from pipeline.config.base import ConfigError
from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.run.lineage import Lineage
from pipeline.run.preflight import check_model
from pipeline.stages.judging import judge_code
from pipeline.stages.judging_python import score_python
from pipeline.store.tables import load_table

FN = '''LOG = {log!r}
nan = float("nan")

def {name}(prompts, completions, **kwargs):
    with open(LOG, "a") as f:
        f.write("{name} %d\\n" % len(completions))
    table = {table!r}
    return [table.get(c, 0.0) for c in completions]
'''
P = Problem(id="p0", prompt="Write f0.", entry_point="f0", meta={"solution": "0"})
TEXTS = ["A", "B", "C", "D"]
ITEMS = [(P, t, False) for t in TEXTS]


def fn(tmp_path: Path, name: str, table: dict, file: str | None = None) -> str:
    """A function `name` in tmp_path/<file or name>.py scoring each completion from `table` (else 0.0),
    counting its calls in tmp_path/calls.log; its reference, path/file.py:name."""
    path = tmp_path / f"{file or name}.py"
    path.write_text(FN.format(log=str(tmp_path / "calls.log"), name=name, table=table))
    return f"{path}:{name}"


def calls(tmp_path: Path) -> dict[str, int]:
    """Answers each function was called on, by its name."""
    out: dict[str, int] = {}
    log = tmp_path / "calls.log"
    for line in log.read_text().splitlines() if log.exists() else []:
        name, n = line.split()
        out[name] = out.get(name, 0) + int(n)
    return out


def cfg(tmp_path: Path, functions, weights=None, python=None, **sections):
    """judge.kind=python with these functions (and weights, judge.python's other keys, other sections' keys)."""
    over = {"judge": {"kind": "python", "python": {"function": functions, **({"weights": weights} if weights else {}),
                                                   **(python or {})}}, "run": {"dir": str(tmp_path / "runs")}}
    for section, keys in sections.items():
        over.setdefault(section, {}).update(keys)
    return load_config(None, over)


def test_two_weighted_functions_give_trls_nansum_and_an_all_none_answer_is_asked_again(tmp_path):
    import torch
    refs = [fn(tmp_path, "fmt", {"A": 1.0, "B": None, "C": 0.5, "D": None}),
            fn(tmp_path, "acc", {"A": 0.0, "B": 1.0, "C": float("nan"), "D": None})]
    weights = [0.2, 1.0]
    scores, n_calls, hits, _ = score_python(cfg(tmp_path, refs, weights), ITEMS)
    assert (n_calls, hits) == (8, 0) and calls(tmp_path) == {"fmt": 4, "acc": 4}
    # TRL 1.16.0's own arithmetic, trl/trainer/grpo_trainer.py lines 2759 and 2763-2764 (_generate_and_score_completions):
    #   unscorable_mask = torch.isnan(rewards_per_func).all(dim=1)
    #   rewards = (rewards_per_func * self.reward_weights.to(device).unsqueeze(0)).nansum(dim=1)
    #   rewards[unscorable_mask] = torch.nan
    # on the same values, None as NaN (_calculate_rewards: `reward if reward is not None else torch.nan`)
    nan = torch.nan
    rewards_per_func = torch.tensor([[1.0, 0.0], [nan, 1.0], [0.5, nan], [nan, nan]], dtype=torch.float32)
    reward_weights = torch.tensor(weights, dtype=torch.float32)
    unscorable_mask = torch.isnan(rewards_per_func).all(dim=1)
    rewards = (rewards_per_func * reward_weights.unsqueeze(0)).nansum(dim=1)
    rewards[unscorable_mask] = torch.nan
    for s, r in zip(scores, rewards.tolist()):
        assert (s.value is None) if math.isnan(r) else s.value == pytest.approx(r, rel=1e-6)
    assert [s.value for s in scores][:3] == pytest.approx([0.2, 1.0, 0.1]) and scores[3].value is None
    assert [s.breakdown for s in scores] == [{"fmt": 1.0, "acc": 0.0}, {"fmt": None, "acc": 1.0},
                                             {"fmt": 0.5, "acc": None}, {"fmt": None, "acc": None}]
    assert "returned None" in scores[3].raw
    # each function's None is asked again (fmt: B and D; acc: C and D); D stays unscored
    again, n_calls, hits, _ = score_python(cfg(tmp_path, refs, weights), ITEMS)
    assert (n_calls, hits) == (4, 4) and calls(tmp_path) == {"fmt": 6, "acc": 6} and again[3].value is None


def test_new_weights_or_order_call_nothing_and_a_third_function_is_the_only_one_called(tmp_path):
    a = fn(tmp_path, "fmt", {"A": 1.0, "B": 0.0})
    b = fn(tmp_path, "acc", {"A": 0.5, "C": 1.0})
    score_python(cfg(tmp_path, [a, b]), ITEMS)
    assert calls(tmp_path) == {"fmt": 4, "acc": 4}
    scores, n_calls, hits, _ = score_python(cfg(tmp_path, [a, b], [2.0, -1.0]), ITEMS)
    assert (n_calls, hits) == (0, 8) and calls(tmp_path) == {"fmt": 4, "acc": 4}
    assert [s.value for s in scores] == [1.5, 0.0, -1.0, 0.0]
    scores, n_calls, _, _ = score_python(cfg(tmp_path, [b, a], [-1.0, 2.0]), ITEMS)   # reordered
    assert n_calls == 0 and [s.value for s in scores] == [1.5, 0.0, -1.0, 0.0]
    c = fn(tmp_path, "length", {"D": 3.0})
    scores, n_calls, hits, _ = score_python(cfg(tmp_path, [a, b, c], [2.0, -1.0, 0.5]), ITEMS)
    assert (n_calls, hits) == (4, 8) and calls(tmp_path) == {"fmt": 4, "acc": 4, "length": 4}
    assert [s.value for s in scores] == [1.5, 0.0, -1.0, 1.5]
    # a function used alone before answers from the cache: its keys are those it has in a list
    assert score_python(cfg(tmp_path, a), ITEMS)[1:3] == (0, 4)
    assert [s.value for s in score_python(cfg(tmp_path, c, [2.0]), ITEMS)[0]] == [0.0, 0.0, 0.0, 6.0]


PINNED_SOURCE = "def reward(completions, **kw):\n    return [1.0] * len(completions)\n"
# keys computed with the code before several functions existed (same file text, same problem and answer)
PINNED = {"standard": "b1c9a537263e045dfbd7db1b457ba0ebc122c8cbf2fae0260dacc2179beb8b65",
          "conversational": "9107661fe6ee9236488d81128f7afbae95dc1da8369a897a8978abcaa4a30d98"}


def test_a_single_function_keeps_its_keys_and_the_system_prompt_reaches_a_conversational_one(tmp_path):
    (tmp_path / "pinned.py").write_text(PINNED_SOURCE)
    ref = f"{tmp_path / 'pinned.py'}:reward"
    for fmt, key in PINNED.items():   # a string, as before: the same key (standard: the system prompt is not in it)
        system = "" if fmt == "conversational" else "You are a helpful Python programmer."
        c = cfg(tmp_path, ref, python={"format": fmt}, student={"system_prompt": system})
        assert configured(c.judge.python, c.student.system_prompt).judges[0].key(P, "def f0(): pass", False) == key
        assert PythonReward(ref, "", fmt).key(P, "def f0(): pass", False) == key
    (tmp_path / "sees.py").write_text(
        f"import json\nLOG = {str(tmp_path / 'prompts.log')!r}\n"
        "def sees(prompts, completions, **kw):\n    open(LOG, 'a').write(json.dumps(prompts) + '\\n')\n"
        "    return [float(len(p)) for p in prompts]\n")
    seen = lambda: [json.loads(x) for x in (tmp_path / "prompts.log").read_text().splitlines()]   # noqa: E731

    def run(system: str):
        c = cfg(tmp_path, [f"{tmp_path / 'sees.py'}:sees"], python={"format": "conversational"},
                student={"system_prompt": system})
        return score_python(c, ITEMS[:1])
    scores, n_calls, _, _ = run("Be brief.")
    assert n_calls == 1 and scores[0].value == 2.0 and scores[0].breakdown == {"sees": 2.0}
    assert seen()[-1] == [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Write f0."}]]
    assert run("Be brief.")[1] == 0                      # the same system prompt: from the cache
    assert run("Be thorough.")[1] == 1                   # another: the function sees other prompts, asked again
    assert seen()[-1][0][0] == {"role": "system", "content": "Be thorough."}
    assert run("")[1:3] == (1, 0) and seen()[-1] == [[{"role": "user", "content": "Write f0."}]]


@pytest.mark.parametrize("over, said", [
    ({"function": ["a.py:f", "b.py:g"], "weights": [1.0]},
     r"judge.python.weights has 1 weights for 2 functions in judge.python.function: give one weight per function"),
    ({"function": "a.py:f", "weights": [0.5, 1.0]}, r"judge.python.weights has 2 weights for 1 function in judge"),
    ({"function": ["a.py:f", ""]}, r"judge.python.function\[1\] is empty: name each function as path/to/file.py:name"),
    ({"function": []}, r"needs judge.python.function, e.g. judge.python.function=my_rewards.py:reward"),
    ({"function": ["a.py:f"], "weights": [float("nan")]}, r"judge.python.weights.0: Input should be a finite number"),
])
def test_weights_that_do_not_fit_the_functions_fail_at_config_load(over, said):
    with pytest.raises(ConfigError, match=said):
        load_config(None, {"judge": {"kind": "python", "python": over}})


def test_the_command_line_takes_the_lists_and_a_single_weight_scales_one_function():
    c = load_config(None, ["judge.kind=python", "judge.python.function=[a.py:f, trl.rewards:think_format_reward]",
                           "judge.python.weights=[0.2, 1]"])
    assert (c.judge.python.function, c.judge.python.weights) == (["a.py:f", "trl.rewards:think_format_reward"], [0.2, 1.0])
    with pytest.raises(ConfigError, match=r"judge.python.weights has 1 weights for 2 functions"):
        load_config(None, ["judge.kind=python", "judge.python.function=[a.py:f, b.py:g]", "judge.python.weights=[1]"])
    assert load_config(None, ["judge.kind=python", "judge.python.function=a.py:f", "judge.python.weights=[2]"])
    assert function_names(["a.py:reward", "b.py:reward", "c.py:fmt", "d.py:value"]) == \
        ["reward_0", "reward_1", "fmt", "value_3"]


def test_errors_name_the_function_by_its_place_in_the_list(tmp_path):
    good = fn(tmp_path, "fmt", {"A": 1.0})
    (tmp_path / "bad.py").write_text("def bad(completions, **kw):\n    return [1 / 0 for c in completions]\n")
    c = cfg(tmp_path, [good, f"{tmp_path / 'bad.py'}:bad"])
    with pytest.raises(RunError, match=r"judge\.python\.function\[1\]='[^']*bad\.py:bad' raised ZeroDivisionError: "
                                       r"division by zero at bad\.py:2 in (<listcomp>|bad) \(`return \[1 / 0 for c in completions\]`\)"
                                       r"(, called through bad\.py:2 in bad)? \(on a batch of 4 answers to p0\)"):
        score_python(c, ITEMS)
    assert calls(tmp_path) == {"fmt": 4}   # the first function's scores are cached: a fixed rerun calls only [1]
    (tmp_path / "bad.py").write_text("def bad(completions, **kw):\n    return [0.0 for c in completions]\n")
    assert score_python(c, ITEMS)[1:3] == (4, 4) and calls(tmp_path) == {"fmt": 4}
    for second, said in ((f"{tmp_path / 'bad.py'}:nope", r"has no function 'nope'"),
                         (str(tmp_path / "missing.py") + ":f", r"missing\.py is not a file")):
        c = cfg(tmp_path, [good, second])
        with pytest.raises(RunError, match=r"judge\.python\.function\[1\]='[^']*'.*" + said):
            check_model(c)   # preflight, before any work; the judge stage's code check the same
        with pytest.raises(RunError, match=r"judge\.python\.function\[1\]=.*" + said):
            judge_code(c)
    (tmp_path / "bad.py").write_text("def bad(completions, **kw):\n    return [1.0]\n")
    with pytest.raises(RunError, match=r"judge\.python\.function\[1\]='[^']*' \(defined at bad.py:1\) returned 1 rewards for 4 completions"):
        score_python(cfg(tmp_path, [good, f"{tmp_path / 'bad.py'}:bad"]), ITEMS)


def test_replay_needs_every_functions_score(tmp_path):
    a, b = fn(tmp_path, "fmt", {"A": 1.0}), fn(tmp_path, "acc", {"A": 1.0})
    score_python(cfg(tmp_path, [a]), ITEMS[:2])
    with pytest.raises(RunError, match=r"judge.mode=replay: 2 of 2 judgements are not in the cache"):
        score_python(cfg(tmp_path, [a, b], judge={"mode": "replay"}), ITEMS[:2])
    scores, n_calls, hits, skipped = score_python(cfg(tmp_path, [a, b], judge={"mode": "replay", "skip_missing": True}),
                                                  ITEMS[:2])
    assert (n_calls, hits, skipped) == (0, 2, 2) and scores[0].breakdown == {"unanswered": "skipped: not in the cache"}


def test_the_weights_move_the_judge_stage_and_the_defaults_move_nothing(tmp_path):
    refs = [fn(tmp_path, "fmt", {}), fn(tmp_path, "acc", {})]
    judge_fp = lambda c: {st.name: fp for st, fp, _, _ in Lineage(c).plan(1)}["judge"]   # noqa: E731
    assert len({judge_fp(cfg(tmp_path, refs)), judge_fp(cfg(tmp_path, refs, [1.0, 0.5])),
                judge_fp(cfg(tmp_path, refs, [0.5, 1.0]))}) == 3
    one = cfg(tmp_path, refs[0])
    assert one.fingerprinted("judge.python") == {"function": refs[0], "version": "", "format": "standard"}
    assert "judge.python" not in load_config(None, []).stage_config(["judge.python"])
    assert judge_code(one)["reward function"] == PythonReward(refs[0]).code[:12]


@pytest.mark.slow
def test_an_epoch_with_two_weighted_functions_writes_each_ones_mean(tmp_path, tiny_config, capsys):
    """`rlaif epoch 1 --only judge` with two functions, as typed: the judge table holds the weighted sums
    and each function's value by its name, the figures each function's mean over the student's answers
    (judge/python/<name>_mean); new weights rerun the judge stage from the cache, calling nothing."""
    (tmp_path / "rw.py").write_text("def brevity(completions, **kw):\n"
                                    "    return [2.0 - len(c.split()) / 16 for c in completions]\n"
                                    "def chars(completions, **kw):\n"
                                    "    return [len(c) / 100 for c in completions]\n")
    fns = f"judge.python.function=[{tmp_path / 'rw.py'}:brevity, {tmp_path / 'rw.py'}:chars]"
    args = [*tiny_config, "judge.kind=python", fns, "judge.python.weights=[1.0, 0.5]",
            "teacher.kind=none", "reward.kind=direct", "select.drop_zero_std=false"]
    assert main(["epoch", "1", "--dry-run", *args]) == 0
    assert (f"judge (python [{tmp_path / 'rw.py'}:brevity, {tmp_path / 'rw.py'}:chars]): 9 of 9 judgements "
            "missing at most (samples not drawn yet), 18 function calls, $0 (local)") in capsys.readouterr().out
    for stage in ("prompts", "sample", "teacher", "judge"):
        assert main(["epoch", "1", "--only", stage, *args]) == 0
    edir = Path(tiny_config[0].split("=", 1)[1]) / "default" / "epoch-001"
    texts = [s["text"] for s in load_table(edir / "sample")]
    judged = load_table(edir / "judge", json_cols=("breakdown",))
    assert len(judged) == 9 and all(r["value"] == pytest.approx(r["breakdown"]["brevity"] + 0.5 * r["breakdown"]["chars"])
                                    for r in judged)
    figures = json.loads((edir / "judge" / "manifest.json").read_text())["figures"]
    assert (figures["judge/api_calls"], figures["judge/cache_hits"]) == (18, 0)
    assert figures["judge/python/brevity_mean"] == pytest.approx(sum(2.0 - len(t.split()) / 16 for t in texts) / 9)
    assert figures["judge/python/chars_mean"] == pytest.approx(sum(len(t) / 100 for t in texts) / 9)
    args[args.index("judge.python.weights=[1.0, 0.5]")] = "judge.python.weights=[0.5, 2.0]"
    assert main(["epoch", "1", "--only", "judge", *args]) == 0   # another fingerprint: the stage reruns
    figures = json.loads((edir / "judge" / "manifest.json").read_text())["figures"]
    assert (figures["judge/api_calls"], figures["judge/cache_hits"]) == (0, 18)
    judged = load_table(edir / "judge", json_cols=("breakdown",))
    assert all(r["value"] == pytest.approx(0.5 * r["breakdown"]["brevity"] + 2.0 * r["breakdown"]["chars"]) for r in judged)


def test_rlaif_judge_says_cache_hit_only_when_every_function_answered_from_the_cache(tmp_path):
    from pipeline.cli.commands_tools import judge_one
    a, b = fn(tmp_path, "fmt", {"A": 1.0}), fn(tmp_path, "acc", {"A": 0.5})
    assert judge_one(cfg(tmp_path, a), P, "A", False)[1] is False       # fmt alone, scored live
    assert judge_one(cfg(tmp_path, a), P, "A", False)[1] is True        # ... then from the cache
    score, hit = judge_one(cfg(tmp_path, [a, b], [1.0, 2.0]), P, "A", False)
    assert (score.value, hit) == (2.0, False) and calls(tmp_path) == {"fmt": 1, "acc": 1}   # acc was called
    score, hit = judge_one(cfg(tmp_path, [a, b], [1.0, 2.0]), P, "A", False)
    assert (score.value, hit) == (2.0, True) and calls(tmp_path) == {"fmt": 1, "acc": 1}


def test_a_replay_reproduces_the_answers_a_function_returned_none_for(tmp_path):
    """TRL's functions return None where they do not apply: a live run asks such an answer again, a replay
    gives the live run's scores, those Nones included, and calls nothing."""
    a, b = fn(tmp_path, "fmt", {"A": 1.0, "B": None, "C": None}), fn(tmp_path, "acc", {"A": 0.5, "B": 1.0, "C": None})
    live, _, _, _ = score_python(cfg(tmp_path, [a, b]), ITEMS)
    replayed, n_calls, hits, skipped = score_python(cfg(tmp_path, [a, b], judge={"mode": "replay"}), ITEMS)
    assert (n_calls, hits, skipped) == (0, 8, 0) and calls(tmp_path) == {"fmt": 4, "acc": 4}
    assert [s.value for s in replayed] == [s.value for s in live] == [1.5, 1.0, None, 0.0]
    assert [s.breakdown for s in replayed] == [s.breakdown for s in live]
    again, n_calls, hits, _ = score_python(cfg(tmp_path, [a, b]), ITEMS)   # live: only the Nones asked again
    assert (n_calls, hits) == (3, 5) and [s.value for s in again] == [1.5, 1.0, None, 0.0]
    single, n_calls, _, skipped = score_python(cfg(tmp_path, a, judge={"mode": "replay"}), ITEMS)   # one function too
    assert (n_calls, skipped) == (0, 0) and [s.value for s in single] == [1.0, None, None, 0.0]
    from judges.cache import JudgeCache
    from pipeline.stages.judging import cache_dir
    c = cfg(tmp_path, [a, b])
    cache = JudgeCache(cache_dir(c))
    try:   # what --dry-run says: a live run calls the functions on their Nones again, a replay nothing
        judge = configured(c.judge.python)
        assert judge.missing(cache, ITEMS, live=True) == (2, 3) and judge.missing(cache, ITEMS, live=False) == (0, 0)
    finally:
        cache.close()
