"""bench/learning.py's --ablation ARMS and --evals-from: a bench adds arms to a saved bench's evals
(pairing them by seed and problem) without training or evaluating the saved runs again, and refuses
a saved bench whose settings would not pair."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rows(values: list[float]) -> dict[str, list[dict]]:
    """One eval's per-problem rows on builtin:heldout, as a saved bench holds them."""
    return {"heldout": [{"source": "builtin:heldout", "problem_id": f"p{i}", "n": 8, "correct": round(8 * v),
                         "pass@1": v, "score": v, "ref_nll": 1 - v} for i, v in enumerate(values)]}


def saved_bench(path: Path, **args) -> Path:
    """A saved bench (save_evals' format) of 2 seeds on builtin:heldout: 2 base draws, the default, its
    warm-starts and the plain reward's runs, each seed's figures a little apart."""
    values = [0.0, 0.25, 0.5, 0.75, 1.0, 0.125]
    shift = lambda d: rows([min(1.0, v + d) for v in values])  # noqa: E731
    out = {"heading": "learning: a saved bench", "args": {
        "seeds": 2, "epochs": 4, "sets": ["heldout"], "no_controls": True, "ablation": ["plain"], "lever": [],
        "samples": 8, "temperature": 0.6, "humaneval": 0, "overrides": [], "config": "config.yaml", **args},
        "base": [shift(0.0), shift(0.0625)], "warm": [shift(0.125), shift(0.125)],
        "finals": {"seed0": shift(0.25), "seed1": shift(0.375), "plain-seed0": shift(0.125), "plain-seed1": shift(0.25)}}
    path.write_bytes(gzip.compress(json.dumps(out).encode()))
    return path


def bench(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/learning.py", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_a_bench_whose_runs_are_all_saved_trains_and_evaluates_nothing_and_tables_them(tmp_path):
    saved = saved_bench(tmp_path / "saved.json.gz")
    root = tmp_path / "bench"
    res = bench("--seeds", "2", "--sets", "heldout", "--no-controls", "--base-draws", "2", "--ablation", "plain",
                "--evals-from", str(saved), "--root", str(root), "--no-record")
    assert res.returncode == 0, res.stderr[-3000:]
    out = res.stdout
    # nothing trained, nothing evaluated: no run was made, and the record says what came from where
    assert not [p for p in root.iterdir() if p.is_dir()], list(root.iterdir())
    assert f"Reused from {saved} (--evals-from)" in out and "2 base draw(s), 2 warm-start(s)" in out
    assert "seed0, seed1, plain-seed0, plain-seed1" in out and "Training reward" not in out
    assert "Wall time 0.0 min: nothing trained or evaluated." in out and "| run |" not in out
    assert "Curves: none (nothing trained here)." in out and not list(root.glob("*.png"))
    # the saved runs paired as a full bench pairs them: the teacher's part is the default against the plain
    # reward, seed by seed (+0.125 a problem but where 1.0 caps both: 5/6 and 4/6 of it, +0.0938 on average)
    parts = out.split("**The recipe's parts**")[1]
    assert "| the teacher's part in RL: default - plain reward | heldout (6) | +0.0938 [" in parts, parts
    assert "| RL's increment: default - warm-start alone | heldout (6) |" in parts
    # the evals it saves hold them all: --tables-from prints the same recipe's table
    again_file = next(root.glob("*.json.gz"))
    again = bench("--tables-from", str(again_file))
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.split("**The recipe's parts**")[1].split("\n\n")[0] == parts.split("\n\n")[0]


def test_a_saved_bench_that_would_not_pair_is_refused_before_any_work(tmp_path):
    root = tmp_path / "bench"
    common = ("--seeds", "2", "--no-controls", "--base-draws", "2", "--root", str(root), "--no-record")
    cases = [  # (the saved bench's args, this bench's args, what the refusal names)
        ({}, ("--sets", "heldout", "--samples", "4"), "its --samples is 8, this bench's 4"),
        ({}, ("--sets", "heldout", "--temperature", "1.0"), "its --temperature is 0.6, this bench's 1.0"),
        ({}, ("--sets", "heldout", "--epochs", "8"), "its --epochs is 4, this bench's 8"),
        ({}, ("--sets", "heldout", "update.lr=1e-4"), "its overrides are [], this bench's ['update.lr=1e-4']"),
        ({}, ("--sets", "heldout,bank"), "it has no evals on bank (its sets: heldout)"),
        ({"sets": ["heldout", "humaneval"], "humaneval": 40}, ("--sets", "heldout,humaneval", "--humaneval", "20"),
         "its --humaneval is 40, this bench's 20"),
        ({"sets": ["tune"], "tune": 60}, ("--sets", "tune"), "its --tune is 60, this bench's 0"),
    ]
    for i, (saved_args, argv, said) in enumerate(cases):
        saved = saved_bench(tmp_path / f"saved{i}.json.gz", **saved_args)
        res = bench(*common, *argv, "--evals-from", str(saved))
        assert res.returncode == 2 and said in res.stderr and str(saved) in res.stderr, (argv, res.stderr[-2000:])
        assert not root.exists() or not [p for p in root.iterdir() if p.is_dir()]
    res = bench(*common, "--sets", "heldout", "--evals-from", str(tmp_path / "none.json.gz"))
    assert res.returncode == 2 and "--evals-from" in res.stderr and "not a saved bench's evals" in res.stderr


def test_ablation_arms_are_chosen_and_a_saved_bench_of_before_the_choice_reads_as_both(tmp_path):
    import argparse

    from bench import learning
    from bench.learning_args import ablation_arms, parse
    a = parse("x", ["--ablation", "rl-only", "--seeds", "2", "--no-controls", "--sets", "heldout"])
    assert a.ablation == ["rl-only"] and set(learning.plan(a, [])) == {"seed0", "seed1", "rl-only-seed0",
                                                                        "rl-only-seed1"}
    assert "(bench/learning.py --ablation rl-only --sets heldout --no-controls)" in learning.heading(
        argparse.Namespace(**{**vars(a), "base_draws": 5, "quick": False}))
    both = parse("x", ["--ablation", "--seeds", "1", "--no-controls", "--sets", "heldout"])
    assert ablation_arms(both) == ("rl-only", "plain") and "(bench/learning.py --ablation --sets heldout" in \
        learning.heading(argparse.Namespace(**{**vars(both), "base_draws": 5, "quick": False}))
    assert parse("x", ["--sets", "heldout"]).ablation == []
    refused = bench("--ablation", "teacher", "--sets", "heldout")
    assert refused.returncode == 2 and "--ablation: unknown teacher; choose among rl-only, plain" in refused.stderr
    # a saved bench of before the arms could be chosen holds --ablation as True or False, and no overrides
    assert ablation_arms(argparse.Namespace(ablation=True)) == ("rl-only", "plain")
    assert ablation_arms(argparse.Namespace(ablation=False)) == ()
    old = saved_bench(tmp_path / "old.json.gz", ablation=False)
    data = json.loads(gzip.decompress(old.read_bytes()))
    del data["args"]["overrides"], data["args"]["config"]
    old.write_bytes(gzip.compress(json.dumps(data).encode()))
    res = bench("--tables-from", str(old))
    assert res.returncode == 0 and "the teacher's part" not in res.stdout, res.stderr[-2000:]


def test_two_saved_benches_are_paired_as_one_and_each_ones_arm_is_tabled(tmp_path):
    """--evals-from twice: the plain reward's arm from one file, RL without the warm-start from another
    (the arms of two sessions); nothing is trained, both arms are tabled, and the evals saved hold both."""
    first = saved_bench(tmp_path / "plain.json.gz")
    second = saved_bench(tmp_path / "rl-only.json.gz", ablation=["rl-only"])
    data = json.loads(gzip.decompress(second.read_bytes()))
    data["finals"] = {k.replace("plain-", "rl-only-"): v for k, v in data["finals"].items()}
    second.write_bytes(gzip.compress(json.dumps(data).encode()))
    root = tmp_path / "bench"
    res = bench("--seeds", "2", "--sets", "heldout", "--no-controls", "--base-draws", "2", "--ablation", "rl-only",
                "--evals-from", str(first), "--evals-from", str(second), "--root", str(root), "--no-record")
    assert res.returncode == 0, res.stderr[-3000:]
    assert not [p for p in root.iterdir() if p.is_dir()], list(root.iterdir())
    parts = res.stdout.split("**The recipe's parts**")[1]
    assert "| RL without the warm-start (update.warm_start=false) - base | heldout (6) |" in parts, parts
    assert "| the teacher's part in RL: default - plain reward | heldout (6) | +0.0938 [" in parts, parts
    # and what the warm-start adds before the same RL epochs: the default against RL without it, by seed
    assert "| the warm-start's part: default - RL without it | heldout (6) | +0.0938 [" in parts, parts
    assert "seed0, seed1, rl-only-seed0, rl-only-seed1, plain-seed0, plain-seed1" in res.stdout
    again = bench("--tables-from", str(next(root.glob("*.json.gz"))))
    assert again.returncode == 0 and "(bench/learning.py --ablation rl-only --sets heldout --no-controls " \
        f"--base-draws 2 --evals-from {first} --evals-from {second})" in again.stdout, again.stdout[:500]
    assert again.stdout.split("**The recipe's parts**")[1].split("\n\n")[0] == parts.split("\n\n")[0]
