"""bench/learning.py end to end on the tiny model: seeds, controls, paired tables, verdicts, curves."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_learning_bench_runs_seeds_and_controls(tiny_config, tmp_path):
    over = [x for x in tiny_config if not x.startswith("run.dir=")]
    cmd = [sys.executable, "bench/learning.py", "--root", str(tmp_path / "bench"), "--no-record", "--seeds", "2",
           "--epochs", "1", "--samples", "2", "--temperature", "1.0", "--humaneval", "3", "--base-draws", "2",
           "--sets", "heldout,humaneval,validation", *over, "data.validation_size=6", "update.warm_start=true",
           # the warm-starts on the easy problems, one pass: 40 s instead of 90 s of the suite
           "data.difficulties=[easy]", "update.sft_epochs=1",
           # a lever: trained over the same seeds from each seed's own warm-start (update.lr leaves it as it was)
           "--lever", "lr3", "update.lr=3e-4"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    out = res.stdout
    # trained against base, per set and metric, with intervals and one verdict word each
    assert "| heldout (29 problems, 2 seed(s)) | pass@1 |" in out
    assert "| humaneval (3 problems, 2 seed(s)) | ref_nll |" in out
    # the validation split (data.validation_size) is a set of its own; the positive control, trained
    # on the held-out problems, has none and is compared on the others
    assert "| validation (6 problems, 2 seed(s)) | pass@1 |" in out
    pos = out.split("Positive control (trained")[1].split("**The recipe")[0]
    assert "| heldout (29 problems" in pos and "validation" not in pos
    assert any(w in out for w in ("**learned**", "**no measurable change**", "**worse**"))
    # the controls: the negative control (nothing learned) holds 0 exactly here (lr=0: the base's weights)
    assert "Negative control (update.lr=0" in out and "Positive control" in out
    assert "bench broken" not in out.split("Negative control:")[0].split("Positive control")[-1] or \
        "Negative control: every interval holds 0" in out
    assert (tmp_path / "bench" / "learning_curves.png").stat().st_size > 1000
    assert "against the base model (2 draw(s))" in out                   # --base-draws 2
    for name in ("seed0", "seed1", "negative-control", "positive-control", "base", "base-draw1"):
        assert (tmp_path / "bench" / name).is_dir(), name
    assert "Wall time" in out and "sampled evals" in out
    # the recipe's parts: the warm-start alone (each seed's epoch 0) against the base, and RL's increment
    parts = out.split("**The recipe's parts**")[1].split("| run |")[0]
    for row in ("| the warm-start alone (epoch 0's policy) - base | heldout (29) |",
                "| the default (warm-start + RL) - base | heldout (29) |",
                "| RL's increment: default - warm-start alone | validation (6) |"):
        assert row in parts, parts
    # the lever against the default, paired by seed, on every set; its runs reused each seed's warm-start
    assert "| lever lr3: lr3 - default | validation (6) |" in parts and "lever lr3: lr3 - default, validation pass@1: " in out
    for s in (0, 1):
        ours = {d.name for d in (tmp_path / "bench" / f"lr3-seed{s}" / "epoch-000").glob("update-*")}
        assert ours == {d.name for d in (tmp_path / "bench" / f"seed{s}" / "epoch-000").glob("update-*")} and len(ours) == 1
    assert re.search(r"The default reaches -?\d+% (\[-?\d+%, -?\d+%\]|\(no bounded interval: the positive control's gain "
                     r"is not clear of 0\)) of the positive control's heldout pass@1 gain", out) or \
        "The positive control's heldout pass@1 did not" in out
    assert "Training reward (mean over the 1 epochs' " in out and "2 seed(s)): " in out
    # every sampled eval's per-problem figures saved: --tables-from prints the same tables, nothing rerun
    saved = sorted((tmp_path / "bench").glob("*.json.gz"))
    assert len(saved) == 1 and f"--tables-from {saved[0]}" in out
    again = subprocess.run([sys.executable, "bench/learning.py", "--tables-from", str(saved[0])], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.split("**The recipe's parts**")[1].split("\n\n")[0] == parts.split("\n\n")[0]
    bad = subprocess.run([sys.executable, "bench/learning.py", "--tables-from", str(tmp_path / "none.json.gz")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "not a saved bench's evals" in bad.stderr


def test_the_positive_control_trains_on_every_held_out_set(tmp_path):
    """bench/learning.py --sets heldout,bank: the positive control's source holds both held-out sets."""
    sys.path.insert(0, str(ROOT))
    from bench.learning import heldout_source
    from data.loaders import load_source
    assert heldout_source(["heldout", "humaneval"], tmp_path) == "builtin:heldout"
    assert heldout_source(["humaneval"], tmp_path) == "builtin:heldout"
    assert heldout_source(["bank"], tmp_path) == "bank:heldout"
    assert heldout_source(["ocaml"], tmp_path) == "ocaml:heldout"
    both = load_source(heldout_source(["heldout", "bank", "humaneval"], tmp_path))
    want = {p.id for p in load_source("builtin:heldout")} | {p.id for p in load_source("bank:heldout")}
    assert {p.id for p in both} == want and len(both) == len(want) == 188


def test_the_two_held_out_sets_are_also_compared_as_one(tmp_path):
    """With heldout and bank, the bench adds heldout+bank: every problem of both, paired by problem
    and seed, as `compare` pairs one set (its mean is the problems' mean, not the sets' mean)."""
    sys.path.insert(0, str(ROOT))
    from bench.learning import comparisons
    from pipeline.metrics.significance import compare
    from pipeline.store.tables import save_table

    def evals(name: str, values: dict[str, list[float]]) -> dict[str, Path]:
        out = {}
        for key, source in (("heldout", "builtin:heldout"), ("bank", "bank:heldout")):
            rows = [{"source": source, "problem_id": f"p{i}", "n": 8, "correct": int(8 * v), "pass@1": v,
                     "score": v, "ref_nll": 1 - v} for i, v in enumerate(values[key])]
            save_table(rows, tmp_path / name / key)
            out[key] = tmp_path / name / key
        return out

    base = evals("base", {"heldout": [0.0, 0.5, 1.0], "bank": [0.25, 0.5, 0.0, 0.125]})
    seeds = [evals("s0", {"heldout": [0.125, 0.5, 1.0], "bank": [0.5, 0.75, 0.0, 0.25]}),
             evals("s1", {"heldout": [0.0, 0.625, 0.875], "bank": [0.375, 0.5, 0.125, 0.25]})]
    comp = comparisons(base, seeds)
    assert set(comp) == {"heldout", "bank", "heldout+bank"}
    union = comp["heldout+bank"]["pass@1"]
    assert union.problems == 7 and union.runs == 2
    # the per-problem differences of both sets, averaged over problems and seeds
    diffs = [0.125, 0, 0, 0.25, 0.25, 0, 0.125] + [0, 0.125, -0.125, 0.125, 0, 0.125, 0.125]
    assert abs(union.diff - sum(diffs) / len(diffs)) < 1e-12
    ref = compare([merged(base)], [merged(s) for s in seeds])   # the two sets' rows as one eval
    assert abs(ref.diff - union.diff) < 1e-12 and ref.ci == union.ci
    assert comp["heldout"]["pass@1"].problems == 3 and comp["bank"]["pass@1"].problems == 4
    # several draws of the base model: the seeds against the draws' per-problem mean
    draw = evals("draw1", {"heldout": [0.5, 0.375, 1.0], "bank": [0.0, 0.5, 0.125, 0.125]})
    two = comparisons([base, draw], seeds)["heldout+bank"]["pass@1"]
    mean = {k: (v + merged(draw)[k]) / 2 for k, v in merged(base).items()}
    ref = compare([mean], [merged(s) for s in seeds])
    assert abs(two.diff - ref.diff) < 1e-12 and two.ci == ref.ci and abs(two.diff - union.diff) > 1e-3


def merged(evals: dict[str, Path]) -> dict[str, float]:
    from pipeline.metrics.evals import load_eval, per_problem
    return {k: v for key in ("heldout", "bank") for k, v in per_problem(load_eval(evals[key]), "pass@1").items()}


def test_no_sampled_eval_of_the_bench_reuses_a_calibration_draws_streams():
    """The bank's held-out problems were kept by the base's successes on a calibration draw (eval seed
    0): an eval on its streams inherits that selection. The full bench's sampled evals (3 seeds, the
    ablation's arms, the controls, 5 base draws) use none of them, and the base draws and trained
    seeds draw streams of their own (no two share an eval seed, so their shifts are independent)."""
    import argparse
    sys.path.insert(0, str(ROOT))
    from bench import learning
    from bench.bank_rates import CALIBRATION_EVAL_SEEDS
    a = argparse.Namespace(seeds=3, epochs=4, base_draws=5, ablation=True, no_controls=False, sets=["heldout", "bank"])
    seeds = learning.sampled_eval_seeds(a, [])
    assert len([k for k in seeds if k.startswith("base")]) == 5 and "seed0 warm-start" in seeds
    assert not set(seeds.values()) & CALIBRATION_EVAL_SEEDS, seeds
    base = {v for k, v in seeds.items() if k.startswith("base")}
    trained = {v for k, v in seeds.items() if not k.startswith("base")}
    assert len(base) == 5 and not base & trained
    warm = [v for k, v in seeds.items() if k.endswith("warm-start") and k.startswith("seed")]
    finals = [v for k, v in seeds.items() if k.startswith("seed") and k.endswith("epoch 4")]
    assert len(set(warm)) == len(set(finals)) == 3                         # each seed its own streams
    # the negative control trains and is evaluated at epoch 1 (at lr 0 each later epoch repeats it), the rest at 4
    assert "negative-control epoch 1" in seeds and "positive-control epoch 4" in seeds and "rl-only-seed2 epoch 4" in seeds


def eval_dirs(path: Path, key: str, source: str, values: list[float]) -> dict[str, Path]:
    """{key: an eval table at path}: one row per problem of `source`, pass@1 (and score) as given."""
    from pipeline.store.tables import save_table
    save_table([{"source": source, "problem_id": f"p{i}", "n": 8, "correct": int(8 * v), "pass@1": v, "score": v,
                 "ref_nll": 1 - v} for i, v in enumerate(values)], path)
    return {key: path}


def test_a_lever_trains_over_the_same_seeds_and_is_tabled_against_the_default(tmp_path):
    """--lever NAME KEY=VALUE ...: NAME-seed<s> at the default's seeds, its overrides after the user's;
    the recipe's table has it against the base and against the default, paired by seed; a bad lever
    is refused before any work, naming it."""
    import argparse
    sys.path.insert(0, str(ROOT))
    from bench import learning
    from pipeline.config.file import load_config
    a = argparse.Namespace(seeds=2, ablation=False, no_controls=True, sets=["tune"],
                           lever=[["pool24", "data.pool_size=0", "data.prompts_per_epoch=24"]])
    runs = learning.plan(a, ["data.pool_size=8", "update.lr=1e-3"])
    assert set(runs) == {"seed0", "seed1", "pool24-seed0", "pool24-seed1"}
    got = {k: load_config(None, v) for k, v in runs.items()}
    assert got["pool24-seed1"].data.pool_size == 0 and got["seed1"].data.pool_size == 8
    assert got["pool24-seed1"].data.prompts_per_epoch == 24 and got["pool24-seed1"].update.lr == 1e-3
    assert got["pool24-seed0"].run.seed == got["seed0"].run.seed != got["seed1"].run.seed

    def evals(name: str, values: list[float]) -> dict[str, Path]:
        return eval_dirs(tmp_path / name, "tune", "bank:tune", values)

    base = [evals("base", [0.0, 0.5, 0.5, 0.25])]
    arms = {"default": [evals(f"d{i}", [0.125 * i, 0.5, 0.625, 0.25]) for i in range(2)],
            "pool24": [evals(f"p{i}", [0.125 * i + 0.25, 0.75, 0.75, 0.5]) for i in range(2)]}
    lines, said = learning.arms_table(base, arms, None, {"pool24": "data.pool_size=0 data.prompts_per_epoch=24"})
    text = "\n".join(lines)
    assert "| lever pool24 (data.pool_size=0 data.prompts_per_epoch=24) - base | tune (4) |" in text, text
    assert "| lever pool24: pool24 - default | tune (4) | +0.2188" in text, text     # mean of .25, .25, .125, .25
    assert any(x.startswith("lever pool24: pool24 - default, tune pass@1: +0.2188 [") for x in said), said
    assert not any(" - base" in x for x in said), said                         # only the lever's own comparisons
    arms["warm-start"] = [evals(f"w{i}", [0.125 * i, 0.5, 0.5, 0.25]) for i in range(2)]
    lines, said = learning.arms_table(base, arms, None, {"pool24": "data.pool_size=0 data.prompts_per_epoch=24"})
    assert "| lever pool24: pool24 - warm-start alone | tune (4) | +0.2500" in "\n".join(lines)
    assert any(x.startswith("lever pool24: pool24 - warm-start alone, tune pass@1: +0.2500 [") for x in said), said
    for bad, says in ((["--lever", "seed", "update.lr=1e-3"], "--lever seed: a name first"), (["--seeds", "0"], "--seeds 0: 1 or more"),
                      (["--lever", "x"], "--lever x: each override is key.sub=value"),
                      (["--lever", "x", "update.lrr=1"], "update.lrr: unknown key"),
                      # the default's own values (its LoRA targets, the bench's 4 epochs): the default again
                      (["--lever", "same", "update.planned_epochs=4", "update.lr=2e-4"],
                       "--lever same: update.planned_epochs=4 update.lr=2e-4 is what the default already has")):
        res = subprocess.run([sys.executable, "bench/learning.py", "--root", str(tmp_path / "r"), "--sets", "tune", *bad],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert res.returncode == 2 and says in res.stderr, res.stderr
    assert not (tmp_path / "r").exists()                               # refused before any work


def test_an_arm_reuses_its_seeds_warm_start_only_where_it_would_train_the_same_one(tmp_path, monkeypatch):
    """A lever that leaves the warm-start alone starts from a copy of its seed's epoch 0; RL without the
    warm-start never does (epoch 0's adapter would become its starting policy), nor does a lever that
    changes the warm-start (update.sft_lr), nor another seed's."""
    sys.path.insert(0, str(ROOT))
    from bench import learning
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(learning, "ROOT", tmp_path)
    base = [f"run.seed={learning.SEED0}", "update.warm_start=true"]
    fp = next(fp for st, fp, *_ in learning.runner("seed0", base).plan(0) if st.name == "update")
    (tmp_path / "seed0" / "epoch-000" / f"update-{fp[:8]}" / "adapter").mkdir(parents=True)
    for name, extra, copied in (("lr3-seed0", ["update.lr=3e-4"], True), ("rl-only-seed0", ["update.warm_start=false"], False),
                                ("sft-seed0", ["update.sft_lr=3e-4"], False), ("lr3-seed1", ["update.lr=3e-4"], False)):
        over = [f"run.seed={learning.SEED0 + int(name[-1])}", *base[1:], *extra]
        assert learning.share_warm_start(name, learning.runner(name, over)) is copied, name
        assert (tmp_path / name / "epoch-000" / f"update-{fp[:8]}").is_dir() is copied, name


def test_the_ablation_plans_each_part_of_the_recipe_and_tables_it(tmp_path):
    """`--ablation`: RL without the warm-start and the plain execution reward at the same seeds, their
    own settings after the user's overrides (which must not undo them); the recipe's table has each
    arm against the base, RL's increment and the teacher's part in RL, paired by seed. (The warm-start
    arm and RL's increment run end to end in test_learning_bench_runs_seeds_and_controls.)"""
    import argparse
    sys.path.insert(0, str(ROOT))
    from bench import learning
    from pipeline.config.file import load_config
    help_text = subprocess.run([sys.executable, "bench/learning.py", "--help"], cwd=ROOT, capture_output=True,
                               text=True).stdout
    assert "--ablation" in help_text
    a = argparse.Namespace(seeds=2, ablation=True, no_controls=False, sets=["heldout"])
    runs = learning.plan(a, ["update.warm_start=true", "reward.kind=ratio", "update.lr=1e-3"])
    assert set(runs) == {"seed0", "seed1", "rl-only-seed0", "rl-only-seed1", "plain-seed0", "plain-seed1",
                         "negative-control", "positive-control"}
    got = {k: load_config(None, v) for k, v in runs.items()}
    assert not got["rl-only-seed1"].update.warm_start and got["seed1"].update.warm_start
    assert got["plain-seed0"].reward.kind == "direct" and got["seed0"].reward.kind == "ratio"
    assert got["plain-seed0"].update.teacher_sft_coef == 0 < got["seed0"].update.teacher_sft_coef
    assert got["negative-control"].update.lr == 0 and got["rl-only-seed1"].run.seed == got["seed1"].run.seed

    def evals(name: str, values: list[float]) -> dict[str, Path]:
        return eval_dirs(tmp_path / name, "heldout", "builtin:heldout", values)

    base = [evals("base", [0.0, 0.5, 1.0, 0.25])]
    arms = {k: [evals(f"{k}{i}", [min(1.0, v + 0.125 * (j + i)) for v in (0.0, 0.5, 0.75, 0.25)]) for i in range(2)]
            for j, k in enumerate(("warm-start", "default", "rl-only", "plain"))}
    lines, said = learning.arms_table(base, arms, None)
    text = "\n".join(lines)
    for row in ("| the warm-start alone (epoch 0's policy) - base | heldout (4) |",
                "| RL without the warm-start (update.warm_start=false) - base | heldout (4) |",
                "| the plain reward, no teacher in RL (reward.kind=direct, update.teacher_sft_coef=0: TRL's) - base | heldout (4) |",
                "| RL's increment: default - warm-start alone | heldout (4) | +0.1250",
                "| the teacher's part in RL: default - plain reward | heldout (4) | -0."):
        assert row in text, text
    from bench.learning_tables import comparisons, per_seed      # each seed's own increment, said beside it
    inc = comparisons(base, arms["default"], against=arms["warm-start"])["heldout"]["pass@1"]
    assert inc.per_run == (0.125, 0.125) and per_seed(inc) == "; per seed +0.1250, +0.1250"


def test_the_defaults_share_of_the_positive_controls_gain_carries_its_interval(tmp_path):
    """With the positive control's run, the recipe's sentences say the default's share of its held-out
    gain with Fieller's interval (pipeline.metrics.ratio.share_interval over the same evals); a positive control
    whose gain is not clear of 0 gets no bounds."""
    sys.path.insert(0, str(ROOT))
    from bench import learning
    from pipeline.metrics.ratio import share_interval
    from pipeline.metrics.evals import load_eval, per_problem

    def evals(name: str, values) -> dict[str, Path]:
        return eval_dirs(tmp_path / name, "heldout", "builtin:heldout", [min(1.0, max(0.0, v)) for v in values])

    rng = np.random.default_rng(3)
    rates = rng.uniform(0.1, 0.5, 40)
    draw = lambda lift: np.round(8 * (rates + lift + rng.normal(0, 0.05, 40)).clip(0, 1)) / 8  # noqa: E731
    base = [evals(f"base{i}", draw(0.0)) for i in range(3)]
    arms = {"default": [evals(f"d{i}", draw(0.1)) for i in range(3)]}
    pos = evals("pos", draw(0.25))
    _, said = learning.arms_table(base, arms, pos)
    line = next(x for x in said if x.startswith("The default reaches "))
    rows = lambda d: per_problem(load_eval(d["heldout"]), "pass@1")  # noqa: E731
    share, lo, hi = share_interval([rows(b) for b in base], [rows(d) for d in arms["default"]], [rows(pos)])
    assert 0 < lo < share < hi and f"reaches {share:.0%} [{lo:.0%}, {hi:.0%}] of the positive control's heldout" in line, line
    _, said = learning.arms_table(base, arms, evals("flat", draw(0.02)))
    assert any("no bounded interval" in x or "did not rise" in x for x in said), said


def test_the_records_heading_names_every_option_that_differs_from_its_default():
    import argparse
    sys.path.insert(0, str(ROOT))
    from bench import learning

    def a(**kw):
        base = dict(seeds=3, epochs=4, quick=False, ablation=False, sets=["heldout", "bank", "humaneval"], humaneval=0,
                    tune=0, samples=8, temperature=0.6, no_controls=False, base_draws=5, lever=[])
        return argparse.Namespace(**(base | kw))
    assert learning.heading(a()).endswith("(bench/learning.py)")
    assert learning.heading(a(humaneval=40)).endswith("(bench/learning.py --humaneval 40)")
    assert learning.heading(a(quick=True, seeds=1, humaneval=40, no_controls=True, base_draws=1)).endswith(
        "(bench/learning.py --quick)")
    got = learning.heading(a(sets=["tune"], tune=60, no_controls=True, base_draws=1, samples=4,
                             lever=[["t1", "sample.temperature=1.0"]]))
    assert got.endswith("(bench/learning.py --sets tune --tune 60 --samples 4 --no-controls --base-draws 1 "
                        "--lever t1 sample.temperature=1.0)"), got
    got = learning.heading(a(ablation=True, temperature=1.0, humaneval=40))
    assert got.endswith("(bench/learning.py --ablation --humaneval 40 --temperature 1.0)"), got
    assert "--config" not in got and learning.heading(a(sets=["heldout"], humaneval=40)).endswith(
        "(bench/learning.py --sets heldout)")                              # no HumanEval, no --humaneval


def test_a_lever_that_sets_planned_epochs_trains_that_many_epochs():
    """--lever ep8 update.planned_epochs=8: its runs train and are evaluated at epoch 8 (the LR schedule
    spanning them); the default's seeds, other levers and the negative control keep theirs."""
    import argparse
    sys.path.insert(0, str(ROOT))
    from bench import learning
    a = argparse.Namespace(epochs=4, lever=[["ep8", "update.lr=1e-4", "update.planned_epochs=8"],
                                            ["ep", "data.prompts_per_epoch=48"]])
    assert [learning.final_epoch(n, a) for n in ("ep8-seed0", "ep8-seed12", "ep-seed0", "seed0", "negative-control",
                                                  "ep8-seed0x", "xep8-seed0")] == [8, 8, 4, 4, 1, 4, 4]
    plan = learning.plan(argparse.Namespace(seeds=2, ablation=False, no_controls=True, **vars(a)),
                         ["update.planned_epochs=4"])
    # the lever's own planned_epochs comes after the bench's, so its LR schedule spans the 8 epochs it trains
    from pipeline.config.file import load_config
    assert load_config(ROOT / "config.yaml", plan["ep8-seed1"]).update.planned_epochs == 8
    assert load_config(ROOT / "config.yaml", plan["seed1"]).update.planned_epochs == 4


def test_a_run_seed_among_the_overrides_is_refused_before_any_work(tmp_path):
    """`python bench/learning.py run.seed=0` put one seed on every arm: the three seeds trained one run, the five
    base draws were one draw (a draw variance of 0, intervals too narrow), on the calibration draw's streams."""
    import subprocess
    for args in (["run.seed=0"], ["--lever", "x", "data.prompts_per_epoch=48", "run.seed=3"]):
        res = subprocess.run([sys.executable, "bench/learning.py", *args], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 2 and "the bench sets run.seed itself" in res.stderr, res.stderr[-2000:]


def test_an_eval_the_bench_could_not_run_is_refused_before_any_training(tmp_path, monkeypatch):
    """The guides' `make bench-learning ARGS="--sets validation data.validation_size=20"` plans evals the
    bench can run; without data.validation_size (the shipped config carves no validation split) the same
    bench is refused at once (exit 2, nothing written), not after hours of training at its first eval."""
    from bench import learning
    from bench.learning_args import parse
    line = 'make bench-learning ARGS="--sets validation data.validation_size=20"'
    assert line in (ROOT / "docs/guides/datasets.md").read_text()
    args = shlex.split(line)[2].removeprefix("ARGS=").split()
    monkeypatch.chdir(ROOT)   # the shipped config.yaml, as the make target reads it
    a = parse("", [*args, "--root", str(tmp_path / "r")], check=learning.check_evals)
    assert a.sets == ["validation"] and a.overrides == ["data.validation_size=20"]
    res = subprocess.run([sys.executable, "bench/learning.py", "--root", str(tmp_path / "r"), "--sets", "validation"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    assert "--sets validation: the bench could not evaluate run base on it" in res.stderr, res.stderr
    assert "data.validation_size is 0" in res.stderr, res.stderr
    assert not (tmp_path / "r").exists()


def test_every_bench_line_the_docs_give_is_one_the_bench_takes(tmp_path, monkeypatch):
    """Each `[python ]bench/learning.py ...` and `make bench-learning ARGS="..."` of README.md and docs/ parses,
    and every sampled eval it plans loads (bench_learning's checks before any work): none is refused as typed."""
    from bench import learning
    from bench.learning_args import parse
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])
    lines = {" ".join(x.split()) for x in re.findall(r"(?<!`)`((?:(?:python )?bench/learning\.py|make bench-learning)[^`]*)`",
                                                     text)}
    assert len(lines) >= 6, lines
    monkeypatch.chdir(ROOT)   # as the docs run it: from the checkout (--config configs/ocaml.yaml)
    for line in lines:
        words = shlex.split(line)
        args = (words[2:] if words[0] == "python" else words[1:] if words[0] == "bench/learning.py"
                else words[2].removeprefix("ARGS=").split() if len(words) > 2 else [])
        try:
            parse("", [*args, "--root", str(tmp_path / "r")], check=learning.check_evals)
        except SystemExit:
            pytest.fail(f"{line}: refused (its error above)")
    assert not (tmp_path / "r").exists()
