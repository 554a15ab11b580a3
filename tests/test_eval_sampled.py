"""The sampled eval: n answers per problem, seeded per problem and sample, unbiased pass@k, the
reference NLL; and `rlaif compare-evals` on real eval directories."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from pipeline.metrics.significance import pass_at_k
from pipeline.metrics.evals import load_eval


def rlaif(*args: str) -> int:
    return main(list(args))


SAMPLED = ["eval.num_samples=4", "eval.temperature=1.0", "eval.max_problems=4"]


def _eval(over: list[str]) -> tuple[Path, list[dict], dict]:
    r = Runner(load_config(None, over))
    m = r.run_eval(0)
    d = r.epoch_dir(0) / f"eval-{m['fingerprint'][:8]}"
    return d, load_eval(d), m["figures"]


def test_sampled_eval_rows_figures_and_reproducible(tiny_config, tmp_path):
    d, rows, fig = _eval(tiny_config + SAMPLED)
    assert len(rows) == 4 and all(r["n"] == 4 and len(r["texts"]) == 4 and len(r["passed"]) == 4 for r in rows)
    for r in rows:
        assert r["correct"] == sum(r["passed"]) and r["pass@1"] == r["correct"] / 4
        assert r["ref_nll"] is not None and r["ref_nll"] > 0
    assert fig["eval/samples"] == 4 and fig["eval/problems"] == 4
    assert {"eval/pass@1", "eval/pass@2", "eval/pass@4", "eval/score", "eval/ref_nll"} <= set(fig)
    assert fig["eval/pass@2"] == pytest.approx(sum(pass_at_k(4, r["correct"], 2) for r in rows) / 4)
    assert len({t for r in rows for t in r["texts"]}) > 4  # sampled: the answers of a problem differ
    # the same eval elsewhere, one sequence per batch: the same answers (each has its own stream)
    other = [x.replace(str(tmp_path / "runs"), str(tmp_path / "other")) for x in tiny_config]
    _, rows_b, _ = _eval(other + SAMPLED + ["sample.batch_size=1"])
    assert [r["texts"] for r in rows_b] == [r["texts"] for r in rows]
    # another run.seed draws other answers
    _, rows_c, _ = _eval(tiny_config + SAMPLED + ["run.seed=7"])
    assert [r["texts"] for r in rows_c] != [r["texts"] for r in rows]
    # and compare-evals reads them: two draws of the same model
    assert rlaif("compare-evals", str(d), f"{d}", *tiny_config) == 0


def test_greedy_stays_the_default(tiny_config):
    _, rows, fig = _eval(tiny_config)
    assert all(r["n"] == 1 for r in rows) and fig["eval/samples"] == 1 and "eval/pass@2" not in fig


def test_n_samples_at_temperature_zero_is_refused(tiny_config, capsys):
    assert rlaif("eval", "0", *tiny_config, "eval.num_samples=4") == 2
    assert "eval.temperature" in capsys.readouterr().err


def test_the_eval_checks_its_prompts_as_the_sample_stage_does(tiny_config, capsys):
    """A prompt plus eval.max_new_tokens beyond the model's context (the tiny model's: 1024 tokens) is
    refused before any generation. data.max_prompt_tokens, the training prompts' limit, is not the
    eval's: raising it would remake every epoch's samples."""
    assert rlaif("eval", "0", *tiny_config, "eval.max_new_tokens=1020") == 2
    err = capsys.readouterr().err
    assert "eval.max_new_tokens=1020 exceeds the model's context of 1024 tokens" in err
    assert rlaif("eval", "0", *tiny_config, "data.max_prompt_tokens=16") == 0


def test_reference_nll_is_the_answers_token_nll(tiny_config):
    """eval/ref_nll against a direct forward pass over prompt + reference answer + eos."""
    from pipeline.stages.eval import eval_problems
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.engines.hf import chat_prompt
    from pipeline.stages.judging import as_answer
    cfg = load_config(None, tiny_config)
    _, rows, _ = _eval(tiny_config)
    src, p = eval_problems(cfg)[0]
    tok = load_tokenizer(cfg.student)
    model = student_model(cfg)
    prompt = chat_prompt(tok, cfg, p.prompt)
    ans = tok.encode(as_answer(p.reference, p.language), add_special_tokens=False) + [tok.eos_token_id]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt + ans])).logits[0, len(prompt) - 1:-1].float()
    want = -torch.log_softmax(logits, -1).gather(-1, torch.tensor(ans)[:, None]).mean().item()
    got = next(r["ref_nll"] for r in rows if r["problem_id"] == p.id)
    # the eval's batched forward and this one: the derived float32 bound at the logits' magnitude
    from tests.tolerance import logits_tolerance
    bound = logits_tolerance(model, len(prompt) + len(ans), float(logits.abs().max()), 1, logprobs=True)
    assert abs(got - want) <= bound


def test_compare_evals_errors_name_what_to_do(tiny_config, tmp_path, capsys):
    assert rlaif("compare-evals", str(tmp_path / "nope"), str(tmp_path / "nope"), *tiny_config) == 2
    assert "nope: no such directory" in capsys.readouterr().err
    assert rlaif("compare-evals", str(tmp_path), str(tmp_path), *tiny_config) == 2
    assert "not a finished eval directory" in capsys.readouterr().err
    assert rlaif("compare-evals", f"{tmp_path}@x", f"{tmp_path}@0", *tiny_config) == 2
    assert "epoch number" in capsys.readouterr().err
    assert rlaif("compare-evals", f"{tmp_path}@3", f"{tmp_path}@0", *tiny_config) == 2
    err = capsys.readouterr().err   # epoch 3 never trained: the command that makes it, not `rlaif eval 3`
    assert "has no finished update" in err and "`rlaif epoch 3`" in err and "rlaif eval 3" not in err, err
    assert rlaif("compare-evals", f"{tmp_path}@0", f"{tmp_path}@3", *tiny_config) == 2
    assert "has no finished eval; run `rlaif eval 0`" in capsys.readouterr().err


def test_compare_evals_of_different_sources_says_so(tiny_config, tmp_path, capsys):
    d1, _, _ = _eval(tiny_config + ["eval.max_problems=5"])
    d2, _, _ = _eval(tiny_config + ["eval.sources=[humaneval]", "eval.max_problems=5"])
    assert rlaif("compare-evals", str(d1), str(d2), *tiny_config) == 2
    assert "share no eval source" in capsys.readouterr().err


def test_a_sampled_eval_beside_the_greedy_one_leaves_the_epochs_figures(tiny_config):
    """`rlaif eval 0 eval.num_samples=4 ...` after the greedy eval: epoch 0's metrics.json took the sampled
    figures, so the metrics table showed them while the report's intervals read the greedy eval."""
    import json
    greedy = tiny_config + ["eval.max_problems=4"]
    r = Runner(load_config(None, greedy))
    r.run_eval(0)
    before = json.loads((r.epoch_dir(0) / "metrics.json").read_text())
    assert before["eval/samples"] == 1
    Runner(load_config(None, tiny_config + SAMPLED)).run_eval(0)
    assert json.loads((r.epoch_dir(0) / "metrics.json").read_text()) == before


def test_the_sampled_eval_lines_of_measuring_learning_as_typed(epoch1_config, tmp_path, monkeypatch, capsys):
    """docs/measuring-learning.md's three lines as typed (epoch 1 in place of 4, on the tiny run): the base
    model's and the policy's sampled evals, 8 answers a problem, then compare-evals of the two by their
    epoch numbers (this config's run, runs/default, read from the working directory)."""
    import shlex
    page = (Path(__file__).resolve().parents[1] / "docs/measuring-learning.md").read_text()
    lines = ["rlaif eval 0 eval.num_samples=8 eval.temperature=0.6", "rlaif eval 4 eval.num_samples=8 eval.temperature=0.6",
             "rlaif compare-evals 0 4  "]
    assert all(line in page for line in lines)
    monkeypatch.chdir(tmp_path)   # epoch1_config's run: runs/default here; no config.yaml here
    over = [o for o in epoch1_config if not o.startswith("run.dir=")]
    for line in lines[:2]:
        assert main([*shlex.split(line.replace("eval 4", "eval 1"))[1:], *over]) == 0
    sampled = {}
    for n in (0, 1):
        sampled[n] = [d for d in (tmp_path / "runs/default" / f"epoch-00{n}").glob("eval-*") if load_eval(d)[0]["n"] == 8]
        assert len(sampled[n]) == 1 and [r["n"] for r in load_eval(sampled[n][0])] == [8, 8, 8], n
    capsys.readouterr()
    assert main([*shlex.split(lines[2].replace(" 4", " 1"))[1:], *over]) == 0
    out = capsys.readouterr().out   # the newest evals of the two epochs: the sampled ones just made
    assert f"A: runs/default/epoch-000/{sampled[0][0].name}\nB: runs/default/epoch-001/{sampled[1][0].name}" in out, out
    counts = re.search(r"won/lost/tied (\d+)/(\d+)/(\d+)", out)
    assert counts and sum(map(int, counts.groups())) == 3, out
