"""`rlaif export N OUT`: a trained policy as a model that loads without rlaif or PEFT, as a user types it."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import torch

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from tests.tolerance import assert_close, logits_tolerance

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_model):
    """One epoch of the tiny model, with a learning rate that moves the adapter well past rounding,
    and an update variant beside it."""
    root = tmp_path_factory.mktemp("export")
    over = [f"run.dir={root / 'runs'}", f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
            "data.prompts_per_epoch=3", "sample.num_samples=3", "sample.max_new_tokens=24",
            "update.micro_batch_size=3", "update.grad_accum=1", "eval.max_problems=2", "eval.max_new_tokens=8",
            "sample.dtype=float32", "update.warm_start=false", "select.drop_zero_std=false",
            "select.advantage=mean", "reward.none_as=0.0", "update.lr=0.02"]
    assert main(["epoch", "1", *over]) == 0
    assert main(["update", "1", *over, "update.lr=0.005"]) == 0
    return root, over, Runner(load_config(None, over))


def _logits(model, ids):
    with torch.no_grad():
        return model(input_ids=ids).logits.float()


def test_merged_export_loads_with_transformers_alone_and_is_the_trained_policy(trained, capsys):
    root, over, r = trained
    out = root / "merged"
    capsys.readouterr()
    assert main(["export", "1", str(out), *over]) == 0
    said = capsys.readouterr().out
    chosen, m = r.chosen_update(1)
    assert f"exported epoch 1's policy {chosen.name} (merged, float32" in said
    assert f"load it with AutoModelForCausalLM.from_pretrained({str(out)!r}), or `vllm serve {out}`" in said   # its path
    assert not (out / "adapter_config.json").exists() and (out / "model.safetensors").exists()
    modes = {f.name: f.stat().st_mode & 0o777 for f in out.iterdir()}
    assert len(set(modes.values())) == 1, modes     # the weights readable as every other file (umask's)

    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    exported = AutoModelForCausalLM.from_pretrained(out).eval()
    base = AutoModelForCausalLM.from_pretrained(r.cfg.student.model).eval()
    ids = torch.tensor([[1, 520, 33, 1095, 17, 42, 7, 900, 311, 12]])
    plain = _logits(base, ids)
    adapted = _logits(PeftModel.from_pretrained(base, str(chosen / "adapter")).eval(), ids)
    got = _logits(exported, ids)
    # W + sBA merged once against W x + s B(A x): the same sums in another order, one more rounding a weight
    atol = logits_tolerance(exported, ids.shape[1], float(adapted.abs().max()), adapted.numel())
    assert_close(got, adapted, atol, "merged export against the adapter over its base")
    assert float((adapted - plain).abs().max()) > 10 * atol, "the adapter learned nothing: the check cannot fail"

    info = json.loads((out / "rlaif.json").read_text())
    assert info["update"] == chosen.name and info["fingerprint"] == m["fingerprint"] and info["epoch"] == 1
    assert info["merged"] and info["dtype"] == "float32" and info["base_model"] == r.cfg.student.model
    assert info["system_prompt"] == r.cfg.student.system_prompt and info["prompt_format"] == "chat"
    assert info["eval"]["eval/problems"] == 2    # the epoch's own eval of this policy
    assert AutoTokenizer.from_pretrained(out).chat_template   # the student's prompts need its template

    # the model card's code block, run as a user pastes it (PATH = "." from inside the directory)
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlibrary_name: transformers")
    code = re.search(r"````python\n(.*?)````", card, re.S).group(1).replace("max_new_tokens=256", "max_new_tokens=4")
    assert "You are a helpful Python programmer" in code       # prompted as it was trained
    res = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]


def test_adapter_export_a_variant_and_bf16(trained, capsys):
    root, over, r = trained
    (first, m1), (second, _) = r.update_variants(1)
    out = root / "adapter"
    assert main(["export", "1", str(out), "--adapter", "--variant", first.name[:11], *over]) == 0
    assert f"exported epoch 1's variant {first.name} (adapter," in capsys.readouterr().out
    assert (out / "adapter_config.json").exists() and not (out / "model.safetensors").exists()
    assert json.loads((out / "rlaif.json").read_text())["fingerprint"] == m1["fingerprint"]
    from peft import PeftModel
    from transformers import AutoModelForCausalLM
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    want = _logits(PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(r.cfg.student.model),
                                             str(first / "adapter")).eval(), ids)
    got = _logits(PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(r.cfg.student.model),
                                            str(out)).eval(), ids)
    assert torch.equal(got, want)    # the same adapter file, the same kernels: bit for bit
    assert "library_name: peft" in (out / "README.md").read_text()

    half = root / "bf16"
    assert main(["export", "1", str(half), "--dtype", "bfloat16", *over]) == 0
    assert json.loads((half / "config.json").read_text())["dtype"] == "bfloat16"
    assert json.loads((half / "rlaif.json").read_text())["update"] == second.name   # the chosen: the last made
    assert AutoModelForCausalLM.from_pretrained(half).dtype == torch.bfloat16


def test_mistakes_say_what_to_do_and_lose_nothing(trained, capsys):
    root, over, r = trained
    out = root / "kept"
    out.mkdir()
    (out / "mine.txt").write_text("a user's file")
    assert main(["export", "1", str(out), *over]) == 2
    err = capsys.readouterr().err   # no --force offered where it would not work
    assert "is not empty: give a new directory (it holds no export of rlaif, no rlaif.json" in err and "or --force" not in err
    assert main(["export", "1", str(out), "--force", *over]) == 2    # --force replaces only an earlier export
    assert "holds files that are not an export of rlaif (no rlaif.json)" in capsys.readouterr().err
    assert (out / "mine.txt").read_text() == "a user's file"
    again = root / "again"
    assert main(["export", "1", str(again), "--adapter", *over]) == 0
    (again / ".git").mkdir()   # a clone of the Hub repo it is pushed to, and notes: kept by --force
    (again / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (again / "NOTES.md").write_text("mine")
    stale = root / ".tmp-again-999999999-abcdef"   # a killed export's partial weights (a pid no process has)
    stale.mkdir()
    (stale / "model.safetensors").write_bytes(b"partial")
    capsys.readouterr()
    assert main(["export", "1", str(again), *over]) == 2   # over an earlier export: --force offered
    assert "is not empty: give a new directory, or --force to replace the export it holds" in capsys.readouterr().err
    assert main(["export", "1", str(again), "--force", *over]) == 0
    assert "kept what the earlier export did not write: .git, NOTES.md" in capsys.readouterr().out
    assert (again / "model.safetensors").exists() and not (again / "adapter_config.json").exists()
    assert (again / "NOTES.md").read_text() == "mine" and (again / ".git" / "HEAD").exists() and not stale.exists()
    assert "NOTES.md" not in json.loads((again / "rlaif.json").read_text())["files"]
    for place in (r.run_dir, r.run_dir.parent, r.run_dir / "inside"):   # never over (nor into) the run
        assert main(["export", "1", str(place), "--force", *over]) == 2
        assert "the run" in capsys.readouterr().err
    assert (r.epoch_dir(1) / "metrics.json").exists()

    assert main(["export", "2", str(root / "none"), *over]) == 2
    assert "epoch 2 has no finished update" in capsys.readouterr().err
    assert main(["export", "0", str(root / "none"), *over]) == 2
    assert "unless the supervised warm-start ran: `rlaif epoch 0`" in capsys.readouterr().err
    assert main(["export", "1", str(root / "none"), "--variant", "update-zz", *over]) == 2
    assert "has no update variant 'update-zz'" in capsys.readouterr().err
    assert main(["export", "1", str(root / "none"), *over, "run.name=other"]) == 2
    assert "no run at" in capsys.readouterr().err
    assert not (root / "none").exists()
    # epoch 0 (the warm-start) has neither samples nor an RL update: said as such, not "run epoch 0 first"
    assert main(["samples", "0", *over]) == 2
    assert "epoch 0 is the supervised warm-start: it samples nothing" in capsys.readouterr().err
    assert main(["update", "0", *over]) == 2
    assert "has no RL update to rerun" in capsys.readouterr().err

    chosen, _ = r.chosen_update(1)
    weights = chosen / "adapter" / "adapter_model.safetensors"
    good = weights.read_bytes()
    try:
        weights.write_bytes(good[:-8] + bytes(8))
        assert main(["export", "1", str(root / "bad"), *over]) == 2
        err = capsys.readouterr().err
        assert "adapter/adapter_model.safetensors was changed after it was written (checksum" in err and "--variant" in err
        assert not (root / "bad").exists()
    finally:
        weights.write_bytes(good)


def test_auto_dtype_is_the_checkpoints_own(tmp_path, tiny_model):
    """--dtype auto reads the stored dtype from config.json before loading (a model loaded in another
    dtype reports that one, whatever it was saved in)."""
    from transformers import AutoModelForCausalLM
    from pipeline.run.export import _dtype
    half = tmp_path / "bf16"
    AutoModelForCausalLM.from_pretrained(tiny_model, dtype=torch.bfloat16).save_pretrained(half)
    assert _dtype("auto", str(half)) == "bfloat16" and _dtype("auto", tiny_model) == "float32"
    assert _dtype("float16", str(half)) == "float16"


def test_the_model_card_reads_the_policy_against_the_base_models_eval(trained, capsys):
    """Without an eval of the base model the card gives the policy's own figures; after `rlaif eval 0`
    it adds the paired comparison with its intervals, without the run's local paths."""
    root, over, r = trained
    chosen = r.chosen_update(1)
    assert r.eval_of(1, chosen[1]["fingerprint"]) is not None, "the epoch's eval of its chosen policy"
    assert main(["export", "1", str(root / "card1"), "--adapter", *over]) == 0
    assert "Against the base model" not in (card := (root / "card1" / "README.md").read_text())
    assert json.loads((root / "card1" / "rlaif.json").read_text())["reward"] == "ratio" and "teacher-relative" in card
    assert main(["eval", "0", *over]) == 0
    assert main(["export", "1", str(root / "card2"), "--adapter", *over]) == 0
    card = (root / "card2" / "README.md").read_text()
    assert "Against the base model on the same problems" in card and "this policy - the base model" in card, card
    assert re.search(r"pass@1 +[\d.]+ -> [\d.]+ +diff [+-][\d.]+ \[", card) and str(root) not in card, card
    capsys.readouterr()


def test_a_warm_start_export_is_carded_as_supervised():
    from pipeline.run.export import model_card
    info = {"base_model": "HuggingFaceTB/SmolLM2-135M-Instruct", "base_model_path": "/x", "merged": True, "dtype": "float32",
            "system_prompt": "", "prompt_format": "chat", "chat_template_kwargs": {}, "run": "r", "update": "update-1",
            "eval": None, "eval_vs_base": None}
    warm, rl = model_card({**info, "epoch": 0}), model_card({**info, "epoch": 1})
    assert "- sft" in warm and "- grpo" not in warm and "before any reinforcement learning" in warm
    assert "- grpo" in rl and "reinforcement learning from a teacher-relative reward" in rl
    assert "reinforcement learning from the judge's score) on" in model_card({**info, "epoch": 1, "reward": "direct"})
