"""Devices and one copy of the weights: run.device, dtype auto, one load per process, merged-LoRA
sampling, chunked log-softmax, token-budget micro-batches, no host syncs in the update's loop.

These run on the CPU; what they pin down (the same numbers whichever way a batch is cut, no
per-micro-batch syncs, fingerprints blind to the device) is what makes the CUDA path safe."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from pipeline.engines import hf as engine_hf

from pipeline.engines import forward
from pipeline.stages import update_loop
from pipeline.config.file import load_config
from pipeline.engines.model import Student, load_student, load_tokenizer, merged, resolve_device, resolve_dtype, student_model


def test_device_and_dtype_resolve_and_a_missing_gpu_fails_before_any_work(tiny_config, tmp_path, capsys):
    from pipeline.cli.main import main
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
    assert resolve_dtype("bfloat16", torch.device("cpu")) == torch.bfloat16
    assert forward.resolve_share_prompt("auto", torch.device("cpu")) is True
    assert forward.resolve_share_prompt("auto", torch.device("cuda")) is False
    assert forward.resolve_share_prompt(False, torch.device("cpu")) is False
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the missing-GPU error cannot happen here")
    rc = main(["epoch", "1", *tiny_config, "run.device=cuda"])
    err = capsys.readouterr().err
    assert rc == 2 and "run.device=cuda" in err and "sees no CUDA GPU" in err, err
    assert not (tmp_path / "runs").exists()  # nothing was started, not even the run directory
    with pytest.raises(Exception, match="run.device"):
        load_config(None, ["run.device=gpu"])  # not a device name: a config error naming the key


def test_fingerprints_do_not_change_with_device_dtype_or_batch_layout(tiny_config):
    from pipeline.run.runner import Runner

    def fps(*over):
        cfg = load_config(None, [*tiny_config, *over])
        return {st.name: fp for st, fp, _, _ in Runner(cfg).plan(1)}

    base = fps()
    for runtime in (["run.device=cpu"], ["student.dtype=bfloat16"], ["sample.batch_size=7"],
                    ["update.share_prompt=false"], ["update.max_batch_tokens=64"],
                    ["update.activation_checkpointing=true"], ["sample.merge_lora=false"]):
        assert fps(*runtime) == base, runtime
    changed = fps("update.lr=1e-3")
    assert changed["update"] != base["update"] and changed["sample"] == base["sample"]


def test_an_epoch_loads_the_weights_once(tiny_config, monkeypatch):
    """rlaif epoch 1 with the warm-start (epoch 0's update, then sample, logprobs, update, eval), and
    an update-only variant after it in the same process: one load of the base weights in all."""
    from pipeline.run.runner import Runner
    from tests.conftest import count_loads
    loads = count_loads(monkeypatch)
    Student.release()
    cfg = load_config(None, [*tiny_config, "update.warm_start=true", "update.sft_epochs=1",
                             "data.difficulties=[easy]"])
    res = Runner(cfg).run_epoch(1)
    assert {"sample", "logprobs", "update", "eval"} <= set(res)
    assert len(loads) == 1, loads
    variant = load_config(None, [*tiny_config, "update.warm_start=true", "update.sft_epochs=1",
                                 "data.difficulties=[easy]", "update.lr=3e-3"])
    Runner(variant).run_epoch(1, update_only=True)
    assert len(loads) == 1, loads
    assert len(Runner(variant).update_variants(1)) == 2


def _lora_with_signal(cfg):
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.2)  # a trained-looking adapter: it changes what the model samples
    return model.eval()


def test_merged_lora_samples_the_same_tokens_and_restores_the_weights(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "sample.num_samples=4",
                             "sample.max_new_tokens=20", "sample.batch_size=8", "sample.temperature=1.0"])
    tok = load_tokenizer(cfg.student)
    model = _lora_with_signal(cfg)
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Hi", "Reverse a string.")]
    base_w = {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" not in n}
    unmerged = [g["completion_ids"] for g in engine_hf.generate(model, tok, prompts, cfg, seed=3)]
    with merged(model):
        assert any(not torch.equal(base_w[n], p) for n, p in model.named_parameters() if n in base_w)
        got = [g["completion_ids"] for g in engine_hf.generate(model, tok, prompts, cfg, seed=3)]
    assert got == unmerged
    assert all(torch.equal(base_w[n], p) for n, p in model.named_parameters() if n in base_w)  # exactly back
    with model.disable_adapter():
        plain = [g["completion_ids"] for g in engine_hf.generate(model, tok, prompts, cfg, seed=3)]
    assert plain != unmerged  # the adapter really is applied when merged


def test_chunked_log_softmax_gives_the_same_values_and_gradients(tiny_model, monkeypatch):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    model = _lora_with_signal(cfg).train()
    gen = torch.Generator().manual_seed(2)
    rows = [{"prompt_ids": torch.randint(5, 4000, (7,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (3 + 2 * i,), generator=gen).tolist(), "index": i}
            for i in range(5)]
    got = []
    for chunk in (forward.LOGIT_CHUNK_ELEMS, 1):  # all at once, then one sequence at a time
        monkeypatch.setattr(forward, "LOGIT_CHUNK_ELEMS", chunk)
        model.zero_grad()
        batch = forward.collate(rows, 0)
        logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
        (logp * batch["completion_mask"]).sum().backward()
        got.append((logp.detach(), ent, {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}))
    from tests.test_shared_prompt import assert_same_forward
    batch = forward.collate(rows, 0)     # the head's matmul and the log-softmax cut into other blocks
    assert_same_forward(model, got[1], got[0], batch, 0.7)


def _train_rows(n: int) -> list[dict]:
    gen = torch.Generator().manual_seed(4)
    prompts = [torch.randint(5, 4000, (5 + p,), generator=gen).tolist() for p in range(n // 2)]
    return [{"prompt_ids": prompts[i // 2], "completion_ids": torch.randint(5, 4000, (2 + i % 5,), generator=gen).tolist(),
             "advantage": (-1.0) ** i} for i in range(n)]


def test_token_budget_splits_micro_batches_without_changing_the_update(tiny_model):
    """update.max_batch_tokens cuts a micro-batch into several forward/backward passes: the
    trained adapter and the figures are those of the uncut micro-batch."""
    rows = _train_rows(8)
    out = {}

    def lora(m):
        return torch.cat([p.detach().flatten() for n, p in m.named_parameters() if "lora_" in n])

    for budget in ("auto", 20):
        cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=4",
                                 "update.grad_accum=1", "update.lr=1e-2", f"update.max_batch_tokens={budget}"])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        start = lora(model)
        fig = update_loop.train(model, rows, cfg.update, 1.0, 0, seed=1, show_progress=False)
        out[budget] = (lora(model) - start, fig)
    assert forward.split_by_tokens(rows[:4], 20) != [rows[:4]]  # the budget did cut
    moved = out["auto"][0]
    assert moved.norm() > 0
    # the same steps up to float summation order (Adam's normalisation magnifies that noise on
    # near-zero gradients, so the whole step is compared, not each element): the derived relative
    # bound of the training's chain (tests/tolerance.py)
    from tests.tolerance import adapter_tolerance, gradient_tolerance, tolerance
    tokens = sum(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in rows)
    keys = max(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in rows)
    assert (out[20][0] - moved).norm() / moved.norm() <= adapter_tolerance(model, keys, tokens, 1.0, 1)
    rel = gradient_tolerance(model, keys, tokens)
    for k in ("loss/total", "kl/k3", "policy/entropy", "optim/grad_norm"):
        # abs: a figure near 0 (k3 near the reference) is a mean over the tokens of terms up to ~1
        assert out[20][1][k] == pytest.approx(out["auto"][1][k], rel=rel, abs=tolerance(torch.float32, 1.0, [tokens])), k


def test_update_loop_does_not_wait_on_the_device_per_micro_batch(tiny_model, monkeypatch):
    """float(tensor), .item(), .tolist(), int() and bool() on a tensor wait for the device. Counted
    where pipeline code calls them during train(): as many with 8 micro-batches per optimizer step
    as with 1 (the same steps), so none happens per micro-batch."""
    pkg = str(Path(forward.__file__).parent)
    calls = {"n": 0}

    def counted(name):
        real = getattr(torch.Tensor, name)

        def wrapper(self, *a, **kw):
            if sys._getframe(1).f_code.co_filename.startswith(pkg):
                calls["n"] += 1
            return real(self, *a, **kw)
        return wrapper

    for name in ("__float__", "__int__", "__bool__", "item", "tolist"):
        monkeypatch.setattr(torch.Tensor, name, counted(name))
    rows = _train_rows(16)
    counts = {}
    for accum, mb in ((1, 8), (8, 1)):
        cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", f"update.micro_batch_size={mb}",
                                 f"update.grad_accum={accum}", "update.kl_mode=adaptive"])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        calls["n"] = 0
        fig = update_loop.train(model, rows, cfg.update, 1.0, 0, seed=1, show_progress=False, fresh_adapter=True)
        assert fig["optim/steps"] == 2
        counts[accum] = calls["n"]
    assert counts[8] == counts[1], counts


@pytest.mark.filterwarnings("error::FutureWarning")
def test_stages_share_one_student_and_switch_adapters(tiny_model, tmp_path):
    """student_model: the same base weights serve the bare model, a fresh trainable LoRA, a saved
    adapter with the KL reference beside it, and the bare model again, each as if loaded alone; and
    without a FutureWarning in the log (peft's read of transformers' deprecated checkpointing flag)."""
    from pipeline.engines.model import save_adapter
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4"])
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    alone = load_student(cfg.student)(ids).logits
    Student.release()
    m = student_model(cfg)
    torch.testing.assert_close(m(ids).logits, alone, atol=0, rtol=0)
    m = student_model(cfg, trainable=True)
    assert any(p.requires_grad for p in m.parameters())
    with torch.no_grad():
        for n, p in m.named_parameters():
            if "lora_B" in n:
                p.normal_(0, 0.2)
    adapted = m(ids).logits.detach()
    save_adapter(m, tmp_path / "a")
    assert (tmp_path / "a" / "adapter_config.json").exists()
    torch.testing.assert_close(load_student(cfg.student, adapter=tmp_path / "a")(ids).logits, adapted)
    m = student_model(cfg, adapter=tmp_path / "a", extra={"reference": tmp_path / "a"})
    assert set(m.peft_config) == {m.active_adapter, "reference"} and not any(p.requires_grad for p in m.parameters())
    torch.testing.assert_close(m(ids).logits, adapted)
    torch.testing.assert_close(student_model(cfg)(ids).logits, alone, atol=0, rtol=0)
    assert Student.get(cfg.student, "cpu") is Student._current


def test_activation_estimate_matches_the_peak_measured_at_3b():
    """update.max_batch_tokens=auto divides free GPU memory by this estimate. On an H100 a LoRA
    forward + backward of 16 x 612 tokens on the Qwen2.5-3B shape peaked at 72.5 GiB, 6.2 GiB of
    it the bf16 weights: 7.3 MB a token."""
    from transformers import Qwen2Config
    c = Qwen2Config(hidden_size=2048, num_hidden_layers=36, intermediate_size=11008, num_attention_heads=16,
                    num_key_value_heads=2, vocab_size=49152)
    measured = (72.5 - 6.2) * 2**30 / (16 * 612)
    est = forward.bytes_per_token(c, 2, training=True)
    assert 0.9 * measured < est < 1.3 * measured  # a little conservative, never optimistic by much
    assert forward.bytes_per_token(c, 2, training=True, checkpointing=True) < est / 10
    assert forward.bytes_per_token(c, 2, training=False) < est / 10


def test_static_cache_samples_the_same_tokens(tiny_model):
    """sample.static_cache (on CUDA transformers compiles the decode step with it): the same
    completions under one seed as the default dynamic cache with its shared-prompt prefill."""
    out = {}
    for static in (False, True):
        cfg = load_config(None, [f"student.model={tiny_model}", "sample.num_samples=3", "sample.max_new_tokens=12",
                                 "sample.batch_size=6", "sample.temperature=1.0", f"sample.static_cache={static}"])
        tok = load_tokenizer(cfg.student)
        model = load_student(cfg.student)
        prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Hi, sort a list")]
        out[static] = [g["completion_ids"] for g in engine_hf.generate(model, tok, prompts, cfg, seed=2)]
    assert out[True] == out[False] and len({tuple(c) for c in out[True]}) > 2
