"""Training-health report: flags from recorded metrics, report.md with plots, samples, status."""
from __future__ import annotations

import json
import re

import pytest

from pipeline.store.artifacts import write_manifest
from pipeline.config.epoch import ReportConfig
from pipeline.config.file import load_config
from pipeline.metrics.doc import METRICS, code_diversity, diversity_of_groups
from pipeline.metrics.flags import FLAGS, analyse
from pipeline.report.report import samples, status_lines, write_report
from pipeline.stages import POLICY, Stage
from pipeline.config.errors import RunError
from pipeline.run.runner import Runner
from pipeline.store.tables import save_table

CFG = ReportConfig()


def healthy(n: int = 4) -> list[dict]:
    """A run that learns: reward rising, loss flat, KL near target, nothing out of bounds."""
    return [{
        "epoch": e, "reward/mean": 0.20 + 0.05 * e, "reward/std": 0.2, "reward/cv": 0.2 / (0.20 + 0.05 * e),
        "reward/best_of_n": 0.50 + 0.04 * e, "reward/frac_zero_std": 0.1, "score/student_mean": 0.3 + 0.05 * e,
        "score/teacher_mean": 0.95, "loss/total": [0.100, 0.102, 0.099, 0.101, 0.100, 0.101][(e - 1) % 6],
        "loss/policy": 0.095, "loss/kl": 0.005, "kl/k3": 0.1, "kl/k1": 0.09, "policy/entropy": 0.9 - 0.02 * e,
        "policy/clip_ratio": 0.02, "optim/grad_norm": 0.3, "optim/lr": 2e-5, "completion/length_mean": 90.0,
        "completion/truncated_frac": 0.05, "select/kept_frac": 0.9, "judge/api_calls": 40, "judge/cache_hits": 0,
        "judge/cost_usd": 0.5, "judge/saved_usd": 0.0, "judge/parse_failures": 0, "time/sample_s": 50.0,
        "time/judge_s": 2.0, "time/update_s": 100.0, "time/epoch_s": 152.0,
    } for e in range(1, n + 1)]


def recorded() -> list[dict]:
    """The four epochs of the issue: average reward dips at 4 while best-of-N climbs; loss climbs."""
    ms = healthy(4)
    for m, r, loss, bon in zip(ms, (0.2604, 0.2662, 0.2804, 0.2553), (0.1980, 0.3853, 0.3552, 0.4473),
                               (0.5344, 0.5622, 0.5575, 0.5686)):
        m.update({"reward/mean": r, "loss/total": loss, "reward/best_of_n": bon, "reward/cv": 0.2 / r})
    return ms


def test_recorded_run_flags_regression_rising_loss_and_best_of_n():
    flags = analyse(recorded(), CFG, {"update.lr": 2e-5, "update.kl_coef": 0.05, "sample.num_samples": 4})
    assert {(f.name, f.epoch) for f in flags} == {("reward_regression", 4), ("loss_rising", 4), ("best_of_n_vs_mean", 4)}
    reg = next(f for f in flags if f.name == "reward_regression")
    assert "0.2804 -> 0.2553" in reg.evidence and "-0.0251" in reg.evidence
    assert "lower update.lr (e.g. 2e-05 -> 1e-05)" in reg.advice and "raise update.kl_coef (e.g. 0.05 -> 0.1)" in reg.advice
    loss = next(f for f in flags if f.name == "loss_rising")
    assert "0.3853 -> 0.3552 -> 0.4473" in loss.evidence and "update.lr" in loss.advice
    bon = next(f for f in flags if f.name == "best_of_n_vs_mean")
    assert "0.5575 -> 0.5686" in bon.evidence and "select.top_k" in bon.advice and "update.lr" in bon.advice


def test_loss_rising_rule():
    def loss_flags(losses, k=2):
        ms = [{"epoch": i + 1, "loss/total": v} for i, v in enumerate(losses)]
        return [f.epoch for f in analyse(ms, ReportConfig(loss_rising_epochs=k)) if f.name == "loss_rising"]
    assert loss_flags([0.1980, 0.3853, 0.3552, 0.4473]) == [4]  # a dip inside the window does not hide the rise
    assert loss_flags([0.2, 0.3, 0.4, 0.5]) == [3, 4]
    assert loss_flags([0.2, 0.4, 0.3]) == []  # falling at the latest epoch
    assert loss_flags([0.100, 0.099, 0.100, 0.1015]) == []  # noise on a flat loss
    assert loss_flags([0.2, 0.3]) == []  # not enough epochs for a 2-epoch window
    assert loss_flags([0.2, 0.3], k=1) == [2]


def test_healthy_run_raises_no_flag():
    assert analyse(healthy(6), CFG, {"update.lr": 2e-5}) == []


def test_missing_metrics_are_skipped():
    assert analyse([{"epoch": 1}, {"epoch": 2, "reward/mean": None}, {"epoch": 3, "kl/k3": "n/a"}], CFG) == []


CASES = {
    "reward_regression": ({"reward/mean": 0.25, "reward/best_of_n": 0.55}, None, ("update.lr", "update.kl_coef")),
    "no_signal": ({"score/student_mean": 0.01, "reward/frac_zero_std": 0.75, "breakdown/structure_ok": 0.08,
                   "breakdown/tests_ok": 0.0}, {"update.warm_start": False, "update.teacher_sft_coef": 0.0},
                  ("update.warm_start=true", "update.teacher_sft_coef=4.0", "raise sample.num_samples (e.g. 4 -> 8)",
                   "1 - p^G - (1-p)^G", "at p=0.05: 19% at G=4, 34% at G=8", "data.difficulties=[easy]")),
    "mode_collapse": ({"reward/frac_zero_std": 0.6}, None, ("raise sample.temperature", "raise sample.num_samples",
                                                           "lower update.lr", "curriculum")),
    "entropy_collapse": ({"policy/entropy": 0.01}, None, ("raise sample.temperature (e.g. 1 -> 1.2)",
                                                          "raise sample.num_samples (e.g. 4 -> 8)", "lower update.lr",
                                                          "update.kl_coef")),
    "kl_high": ({"kl/k3": 0.2}, None, ("raise update.kl_coef", "lower update.lr")),
    "kl_exploding": ({"kl/k3": 0.9}, None, ("raise update.kl_coef",)),
    "negative_k1": ({"kl/k1_start": -0.05}, {"sample.top_p": 0.9, "sample.top_k": 0},
                    ("sample.top_p=1", "sample.top_k=0", "temperature", "not come from the distribution")),
    "reward_cv_high": ({"reward/cv": 2.5}, {"select.advantage": "raw"}, ("select.advantage=grpo", "reward.clip_max")),
    "sampler_mismatch": ({"logprobs/sampler_gap": 0.5}, None, ("sample.engine", "sample.top_p=1")),
    "truncation_high": ({"completion/truncated_frac": 0.5}, None, ("raise sample.max_new_tokens", "sample.stop")),
    "judge_parse_failures": ({"judge/parse_failures": 5}, None, ("rlaif samples 3",)),
    "judge_cost": ({"judge/cost_usd": 12.0}, None, ("judge.budget_usd",)),
    "teacher_weak": ({"score/teacher_mean": 0.1}, None, ("reward.eps", "teacher.kind")),
    "teacher_below_student": ({"score/teacher_mean": 0.5, "score/student_mean": 0.8}, {"update.teacher_sft_coef": 4.0},
                              ("stronger teacher.model", "reward.kind=direct", "update.teacher_sft_coef=0")),
    "eval_regression": ({"_eval/change": {"from": 2, "a": 0.31, "b": 0.17, "ci": [-0.25, -0.03], "problems": 29}},
                        None, ("lower update.lr", "raise update.kl_coef", "eval.patience")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_flag_is_raised_by_a_run_built_for_it(name):
    change, settings, advice = CASES[name]
    ms = healthy(4)
    ms[2].update(change)  # epoch 3
    flags = analyse(ms, CFG, {"update.lr": 2e-5, "update.kl_coef": 0.05, "sample.temperature": 1.0,
                              "sample.num_samples": 4, **(settings or {})})
    assert [(f.name, f.epoch) for f in flags] == [(name, 3)], flags
    f = flags[0]
    for words in advice:
        assert words in f.advice, (words, f.advice)
    assert f.evidence and re.search(r"\d", f.evidence)
    if name == "negative_k1":
        assert "sample.top_p=0.9" in f.evidence and "kl/k1_start -0.05" in f.evidence
    if name in ("kl_exploding", "entropy_collapse", "no_signal"):
        assert f.severity == "critical"
    if name == "no_signal":
        assert "well-formed 8%" in f.evidence and "25% of the groups carry a gradient" in f.evidence


def test_a_run_that_cannot_learn_is_told_so_at_its_first_epoch():
    """Most of epoch 1's groups without spread (the OCaml run: 75%) is no_signal at epoch 1 even with
    a student score above the floor; later epochs with the same spread are mode_collapse. A run
    whose config already has every lever is not told to set them."""
    ms = healthy(3)
    for m in ms:
        m.update({"reward/frac_zero_std": 0.75, "breakdown/tests_ok": 0.1})
    flags = analyse(ms, CFG, {"update.warm_start": True, "update.teacher_sft_coef": 4.0, "sample.num_samples": 6})
    assert [(f.name, f.epoch) for f in flags] == [("no_signal", 1), ("mode_collapse", 2), ("mode_collapse", 3)]
    advice = flags[0].advice
    assert "update.warm_start" not in advice and "teacher_sft_coef" not in advice
    assert "(47% at p=0.10, G=6; 72% at G=12)" in advice


def test_the_warm_starts_epoch_0_is_no_rl_epoch_for_the_entropy_and_loss_rules():
    """Epoch 0 (the warm-start) measures entropy over the teacher's answers at T=1 and trains a supervised
    loss: an RL run below its entropy, or above its loss, is not a collapse or a rise (the test run
    test_warm_start_runs_before_ep0 had entropy 3.1565 at epoch 0, 1.5779 at epoch 2)."""
    ms = healthy(3)
    for m, ent in zip(ms, (0.19, 0.18, 0.17)):
        m["policy/entropy"] = ent
    warm = {"epoch": 0, "policy/entropy": 0.40, "loss/total": 0.01}
    assert analyse([warm, *ms], CFG) == []
    assert analyse([dict(warm, **{"policy/entropy": 0.001})], CFG) == []   # no RL epoch: nothing to flag
    # a sustained fall inside the RL epochs is still found
    for m, ent in zip(ms, (0.9, 0.5, 0.2)):
        m["policy/entropy"] = ent
    assert [f.epoch for f in analyse([warm, *ms], CFG) if f.name == "entropy_collapse"] == [3]


def test_no_teacher_or_no_score_is_no_weak_teacher_nor_a_student_that_cannot_learn():
    """teacher.kind=none (reward.kind=direct) records no score/teacher_mean; an epoch the judge scored
    nothing records no score/student_mean: the flag left is the judge's."""
    ms = healthy(3)
    for m in ms:
        del m["score/teacher_mean"]
    assert analyse(ms, CFG) == []
    del ms[2]["score/student_mean"]
    ms[2].update({"judge/parse_failures": 72, "judge/judgements": 72, "reward/frac_zero_std": 0.0})
    assert [f.name for f in analyse(ms, CFG)] == ["judge_parse_failures"]


def test_parse_failures_are_a_share_of_the_answers_judged_not_of_each_mix_components_calls():
    ms = healthy(3)
    ms[2].update({"judge/parse_failures": 3, "judge/judgements": 100, "judge/api_calls": 200, "judge/cache_hits": 0})
    f = [f for f in analyse(ms, CFG) if f.name == "judge_parse_failures"]
    assert len(f) == 1 and "3 of 100 judgements (3.0%" in f[0].evidence


def test_an_adaptive_kl_is_judged_against_its_own_target():
    ms = healthy(3)
    ms[2]["kl/k3"] = 0.55
    adaptive = {"update.kl_mode": "adaptive", "update.kl_target": 0.5, "update.kl_horizon": 4.0}
    assert analyse(ms, CFG, adaptive) == []                     # at its own target: no flag
    ms[2]["kl/k3"] = 3.0
    f = analyse(ms, CFG, adaptive)
    assert [x.name for x in f] == ["kl_exploding"] and "update.kl_target 0.5" in f[0].evidence
    assert "lower update.kl_horizon (e.g. 4 -> 2)" in f[0].advice and "let update.kl_mode=adaptive" not in f[0].advice


def test_entropy_swings_are_not_flagged_a_sustained_fall_is():
    def flagged(values):
        ms = [{"epoch": i + 1, "policy/entropy": v} for i, v in enumerate(values)]
        return [f.epoch for f in analyse(ms, CFG) if f.name == "entropy_collapse"]
    assert flagged([0.22, 0.05, 0.18, 0.07, 0.21, 0.06]) == []  # the OCaml run's "unstable" swings: healthy
    assert flagged([0.9, 0.6, 0.4, 0.3]) == [3, 4]  # two falls running, below half the peak
    assert flagged([0.9, 0.3, 0.8]) == []  # one low epoch that recovers
    assert flagged([0.2, 0.19, 0.18, 0.17]) == []  # a slow drift that stays near its peak
    assert flagged([0.05, 0.015]) == [2]  # below the floor: near-deterministic


def test_the_ocaml_runs_reward_spread_is_not_flagged_under_grpo():
    """Its author called reward CV 0.5-0.7 too high; GRPO advantages are within-group, so batch CV is not
    a health signal there (even 2.5). What is: groups with no spread at all (reward/frac_zero_std)."""
    ms = healthy(4)
    for m, cv in zip(ms, (0.5, 0.7, 0.6, 2.5)):
        m["reward/cv"] = cv
    assert analyse(ms, CFG, {"select.advantage": "grpo"}) == []
    assert [f.name for f in analyse(ms, CFG, {"select.advantage": "raw"})] == ["reward_cv_high"]


def test_every_flag_is_documented_and_metrics_table_has_directions():
    assert set(FLAGS) == {*CASES, "loss_rising", "best_of_n_vs_mean"}
    assert all(m.good in ("higher", "lower", "target", "") and m.meaning for m in METRICS.values())
    for key in ("reward/mean", "kl/k1", "completion/diversity", "eval/pass@1", "curriculum/hard", "time/epoch_s"):
        assert key in METRICS


def test_code_diversity():
    a = "def f(x):\n    return x + 1\n"
    assert code_diversity([a, a, a]) == 0.0
    assert code_diversity([a, "def f(x):\n  return   x+1"]) == 0.0  # reformatting is not diversity
    assert code_diversity([a]) == 0.0
    far = code_diversity([a, "import os\nprint(os.listdir('.'))\n"])
    near = code_diversity([a, "def f(x):\n    return x + 2\n"])
    assert 0 < near < far <= 1
    assert diversity_of_groups([[a, a], [a, "import os\nprint(os.listdir('.'))\n"], [a]]) == pytest.approx(far / 2)


# -- a fake run on disk -------------------------------------------------------------------
def _noop(ctx):
    pass


STAGES = [Stage(n, "1", (), (), _noop) for n in ("prompts", "sample", "teacher", "judge", "reward", "select")] + [
    Stage("update", "1", ("update.lr",), ("select", POLICY), _noop, variant=True)]


def _stage_dir(d, fp, figures=None, config=None, stage=None):
    d.mkdir(parents=True, exist_ok=True)
    write_manifest(d, {"stage": stage or d.name, "fingerprint": fp, "figures": figures or {}, "config": config or {},
                       "wall_s": 1.0, "inputs": {}})


@pytest.fixture
def fake_run(tmp_path):
    cfg = load_config(None, [f"run.dir={tmp_path}", "run.name=demo", "report.samples_shown=2"])
    runner = Runner(cfg, stages=STAGES)
    for m in recorded():
        e = m["epoch"]
        edir = runner.epoch_dir(e)
        fps = {st.name: (fp, d) for st, fp, d, _ in runner.plan(e)}  # the fingerprints this config gives
        _stage_dir(edir / "judge", fps["judge"][0], {"judge/cost_usd": 0.5, "judge/saved_usd": 0.1})
        _stage_dir(edir / "teacher", fps["teacher"][0], {"teacher/cost_usd": 0.25})
        _stage_dir(fps["update"][1], fps["update"][0], config={"update": {"lr": 2e-5, "kl_coef": 0.05}}, stage="update")
        m["update/variant"] = fps["update"][1].name
        if e == 4:
            del m["policy/entropy"]  # a metric missing from one epoch is shown as '-'
        (edir / "metrics.json").write_text(json.dumps(m))
    edir = runner.epoch_dir(4)
    texts = {("p1", 0): "```python\ndef f(x):\n    return x\n```", ("p1", 1): "WORST ANSWER",
             ("p2", 0): "BEST ANSWER", ("p2", 1): "```python\ndef g():\n    pass\n```"}
    rewards = {("p1", 0): 0.5, ("p1", 1): 0.0, ("p2", 0): 1.2, ("p2", 1): 0.3}
    save_table([{"problem_id": p, "sample_idx": i, "text": t, "finish_reason": "eos", "length": 12}
                for (p, i), t in texts.items()], edir / "sample")
    save_table([{"role": "student", "problem_id": p, "sample_idx": i, "value": r / 2,
                 "breakdown": {"tests": r / 2, "passed": int(r * 2), "total": 4}} for (p, i), r in rewards.items()]
               + [{"role": "teacher", "problem_id": p, "sample_idx": -1, "value": 0.5, "breakdown": {"tests": 0.5}}
                  for p in ("p1", "p2")], edir / "judge", json_cols=("breakdown",))
    save_table([{"problem_id": p, "sample_idx": i, "reward": r, "student_score": r / 2, "teacher_score": 0.5}
                for (p, i), r in rewards.items()], edir / "reward")
    save_table([{"problem_id": "p1", "text": "```python\ndef f(x):\n    return x\n```", "source": "reference"}],
               edir / "teacher")
    return runner


def test_write_report(fake_run):
    path = write_report(fake_run)
    assert path == fake_run.run_dir / "report.md"
    md = path.read_text()
    assert md.startswith("# Training report: demo")
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == 5
    for link in links:
        png = path.parent / link
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", link
        assert png.parent == fake_run.run_dir / "report"
    # the table: epochs as columns, a trend and first -> last change per metric, '-' for missing values
    row = next(line for line in md.splitlines() if line.startswith("| `reward/mean` |"))
    assert "0.2604" in row and "0.2553" in row and "→" in row and "worse" in row
    ent = next(line for line in md.splitlines() if line.startswith("| `policy/entropy` |"))
    assert ent.split(" | ")[5] == "-"
    # flags with evidence and advice
    health = md.split("## Health")[1].split("## Metrics per epoch")[0]
    for name in ("reward_regression", "loss_rising", "best_of_n_vs_mean"):
        assert f"`{name}`" in health
    assert "lower update.lr (e.g. 2e-05 -> 1e-05)" in health
    # worst and best completions of the last epoch, with score breakdown and reward
    comp = md.split("## Completions of epoch 4")[1]
    assert comp.index("WORST ANSWER") < comp.index("BEST ANSWER")
    assert "reward 1.200 (student 0.600 / teacher 0.500)" in comp and "tests=0.6 passed=2 total=4" in comp


def test_samples_command_text(fake_run):
    worst = samples(fake_run, 4, worst=1)
    assert "WORST ANSWER" in worst and "BEST ANSWER" not in worst
    best = samples(fake_run, 4, best=1)
    assert "BEST ANSWER" in best and "reward 1.200" in best and "WORST" not in best
    one = samples(fake_run, 4, prompt="p1")
    assert "WORST ANSWER" in one and "def f(x)" in one and "teacher answer (reference): score 0.500" in one
    assert "BEST ANSWER" not in one
    with pytest.raises(RunError, match="p1, p2"):
        samples(fake_run, 4, prompt="nope")
    with pytest.raises(RunError, match="rlaif epoch 2"):
        samples(fake_run, 2)


def test_status_lines(fake_run):
    lines = status_lines(fake_run)
    text = "\n".join(lines)
    assert lines[0].endswith("4 epoch(s)")
    variant = fake_run.chosen_update(4)[0].name
    assert text.count(f"chosen={variant} (1 variant(s))") == 1 and text.count("chosen=update-") == 4
    assert "judge:done" in lines[1] and "update:done" in lines[1] and "prompts:-" in lines[1]
    assert "money spent so far: $3.0000 (judge $2.0000, teacher $1.0000)" in text
    assert "health at epoch 4: reward_regression" in text
    # another learning rate: the updates would be recomputed, the judgements would not
    other = Runner(fake_run.cfg.model_copy(update={"update": fake_run.cfg.update.model_copy(update={"lr": 1e-5})}),
                   stages=STAGES)
    line = status_lines(other)[1]
    # variants sit side by side: the new lr would add one, the chosen one is not out of date
    assert "update:new" in line and "update:stale" not in line and "judge:done" in line


def _rewards(runner, epoch: int, per_prompt: dict[str, list[float]]) -> None:
    save_table([{"problem_id": p, "sample_idx": i, "reward": r, "student_score": r, "teacher_score": 1.0}
                for p, rs in per_prompt.items() for i, r in enumerate(rs)], runner.epoch_dir(epoch) / "reward")


def test_a_reward_fall_inside_its_interval_is_not_a_regression(fake_run):
    """0.2804 -> 0.2553 (the fall one seed run called critical): over 8 prompts whose rewards move
    both ways it is noise, and no flag is raised; the same fall on every prompt is flagged."""
    import random
    rng = random.Random(0)
    e3 = {f"p{i}": [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for i in range(8)}
    e4 = {p: [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for p in e3}
    _rewards(fake_run, 3, e3)
    _rewards(fake_run, 4, e4)
    from pipeline.cli.commands_train import health_lines   # what `rlaif epoch` prints at its end
    text = "\n".join(status_lines(fake_run))
    assert "health at epoch 4: " in text and "reward_regression" not in text.split("health at epoch 4: ")[1]
    md = write_report(fake_run).read_text()
    assert "`reward_regression`" not in md.split("## Health")[1].split("## Metrics per epoch")[0]
    assert not any("reward_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))
    _rewards(fake_run, 4, {p: [r - 0.03 for r in rs] for p, rs in e3.items()})  # every prompt falls
    assert "health at epoch 4: reward_regression" in "\n".join(status_lines(fake_run))
    assert any("epoch 4 reward_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))


def _eval_dir(runner, epoch: int, update_fp: str, passes: list[float]) -> None:
    d = runner.epoch_dir(epoch) / f"eval-{epoch:08d}"
    d.mkdir(parents=True, exist_ok=True)
    save_table([{"source": "builtin:heldout", "problem_id": f"h{i}", "n": 8, "correct": int(p * 8), "pass@1": p,
                 "score": p, "ref_nll": 0.5, "texts": [], "finish_reasons": [], "values": [], "passed": []}
                for i, p in enumerate(passes)], d)
    write_manifest(d, {"stage": "eval", "fingerprint": f"{epoch:08d}" + "0" * 56, "figures": {}, "config": {},
                       "wall_s": 1.0, "inputs": {"update": update_fp}, "started_at": str(epoch)})


def test_an_eval_fall_inside_its_interval_reads_within_noise(fake_run):
    import random
    fake_run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    rng = random.Random(1)
    base = [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _ in range(29)]
    later = [min(1.0, max(0.0, p + rng.choice([-0.25, 0.0, 0.25]))) for p in base]
    later[0], later[1] = max(0.0, later[0] - 0.5), max(0.0, later[1] - 0.5)  # a little worse on average
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), base)
    m4 = fake_run.chosen_update(4)[1]
    _eval_dir(fake_run, 4, m4["fingerprint"], later)
    md = write_report(fake_run).read_text()
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "epoch 4 vs the base model (epoch 0): `eval/pass@1`" in part and "**within noise**" in part
    assert "problems at 8 sample(s)" in part  # how much eval would resolve a difference this size
    # improved on every problem: better, with the interval above 0
    _eval_dir(fake_run, 4, m4["fingerprint"], [min(1.0, p + 0.25) if p < 1 else 1.0 for p in base])
    md = write_report(fake_run).read_text()
    assert "`eval/pass@1`" in md and "**better**" in md.split("## Eval: signal or noise")[1]


def test_an_eval_that_falls_beyond_noise_is_flagged_everywhere_a_run_is_read(fake_run):
    """Epoch 4's held-out pass@1 against epoch 0's, paired by problem: a fall on many problems and a
    gain on none is eval_regression in the report, `rlaif status` and the end of `rlaif epoch`; the fall
    of the test above, inside its interval, is not."""
    import random
    from pipeline.cli.commands_train import health_lines
    fake_run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    rng = random.Random(1)
    base = [rng.choice([0.25, 0.5, 0.75, 1.0]) for _ in range(29)]
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), base)
    m4 = fake_run.chosen_update(4)[1]
    _eval_dir(fake_run, 4, m4["fingerprint"], [p - 0.25 if i % 2 else p for i, p in enumerate(base)])
    md = write_report(fake_run).read_text()
    health = md.split("## Health")[1].split("## ")[0]
    assert "`eval_regression`" in health and "at epoch 0 ->" in health and "over 29 problems" in health, health
    assert "eval_regression" in "\n".join(status_lines(fake_run))
    assert any("epoch 4 eval_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))
    noisy = [min(1.0, max(0.0, p + rng.choice([-0.25, 0.0, 0.25]))) for p in base]
    _eval_dir(fake_run, 4, m4["fingerprint"], noisy)
    assert "eval_regression" not in write_report(fake_run).read_text().split("## Health")[1].split("## ")[0]


def test_negative_k1_reads_the_kl_before_the_update_moved_the_policy():
    """The update's kl/k1 averages over its steps: at epoch 1, where the reference is the policy that
    sampled, it is -KL(old || new) and below 0 once anything is learned (the default config's fresh epoch
    1 measured -0.0104). kl/k1_start, before any step, is what says the tokens came from elsewhere; a
    run without kl/k1_start is read on kl/k1."""
    epoch1 = {**healthy(1)[0], "kl/k1": -0.0104, "kl/k1_start": 0.0, "kl/k3": 0.0658}
    assert [f.name for f in analyse([epoch1], CFG, {})] == []
    mismatch = {**epoch1, "kl/k1_start": -0.05}
    assert [f.name for f in analyse([mismatch], CFG, {})] == ["negative_k1"]
    older = {k: v for k, v in epoch1.items() if k != "kl/k1_start"}
    assert [f.name for f in analyse([older], CFG, {})] == ["negative_k1"]


@pytest.mark.parametrize("kl_ratio", [True, False])
def test_kl_exploding_with_several_passes_a_batch_names_them(kl_ratio):
    """update.epochs=2 drove kl/k3 to 20 on the embedded default: the flag says to try one pass, and
    update.kl_ratio=false where the ratio scales the penalty down; one pass is not told so."""
    ms = healthy(4)
    ms[2].update({"kl/k3": 20.4})
    base = {"update.lr": 2e-4, "update.kl_coef": 0.05, "update.kl_ratio": kl_ratio}
    (f,) = analyse(ms, CFG, {**base, "update.epochs": 2})
    assert f.name == "kl_exploding" and "the 2 passes over each batch" in f.advice and "update.epochs=1" in f.advice
    assert ("update.kl_ratio=false" in f.advice) == kl_ratio
    (g,) = analyse(ms, CFG, {**base, "update.epochs": 1})
    assert "update.epochs" not in g.advice and "raise update.kl_coef" in g.advice
