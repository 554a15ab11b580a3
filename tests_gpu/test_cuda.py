"""On CUDA what tests/test_device.py pins down on the CPU: a whole tiny epoch (warm-start, sample,
judge, logprobs, update, eval) with run.device=cuda, one load of the weights per process, merged-LoRA
sampling against unmerged (bf16 tolerance) with the base weights restored bit for bit, chunked
logprobs against unchunked, the max_batch_tokens split against one pass, and 2 processes against 1
where the machine has 2 GPUs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pipeline.engines import forward, head
from pipeline.stages import update_loop
from pipeline.config.file import load_config
from pipeline.engines.model import Student, load_student, merged
from pipeline.run.runner import Runner

ROOT = Path(__file__).resolve().parent.parent


def test_a_tiny_epoch_runs_on_the_gpu_with_one_load(cuda_config, monkeypatch):
    from tests.conftest import count_loads
    loads = count_loads(monkeypatch)
    Student.release()
    cfg = load_config(None, [*cuda_config, "update.warm_start=true", "update.sft_epochs=1", "data.difficulties=[easy]",
                             "eval.num_samples=2", "eval.temperature=1.0"])
    r = Runner(cfg)
    res = r.run_epoch(1)
    assert {"prompts", "sample", "teacher", "judge", "reward", "select", "logprobs", "update", "eval"} <= set(res)
    assert len(loads) == 1, loads  # warm-start, sample, logprobs, update, eval: one copy of the weights
    m = json.loads((r.epoch_dir(1) / "metrics.json").read_text())
    for k in ("reward/mean", "loss/total", "kl/k3", "eval/pass@1", "eval/ref_nll"):
        assert k in m and m[k] == m[k], k  # present and not NaN
    assert Student._current is not None and next(Student._current.base.parameters()).device.type == "cuda"


def _lora_with_signal(cfg):
    torch.manual_seed(0)
    model = load_student(cfg.student, trainable=True, device="cuda")
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.2)
    return model.eval()


def test_merged_lora_matches_unmerged_and_restores_the_weights(tiny_model):
    """Merged-LoRA sampling in bf16 adds no error beyond bf16's own: against the float32 model holding
    the same weights, merged and unmerged bf16 logits both lie within bf16 rounding (about 6% of the
    logits' norm on this deliberately peaky tiny model, where a missing or wrong merge is off by more
    than 100%), and the base weights come back bit for bit."""
    over = [f"student.model={tiny_model}", "student.lora.r=4", "run.device=cuda"]
    model = _lora_with_signal(load_config(None, [*over, "student.dtype=bfloat16"]))
    exact_model = load_student(load_config(None, [*over, "student.dtype=float32"]).student, trainable=True,
                               device="cuda").eval()
    same = dict(model.named_parameters())
    with torch.no_grad():
        for n, p in exact_model.named_parameters():
            p.copy_(same[n].float())                  # the bf16 model's values, computed in float32
    ids = torch.randint(5, 4000, (8, 64), device="cuda")
    base_w = {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" not in n}
    with torch.no_grad():
        exact = exact_model(input_ids=ids).logits.float()
        unmerged = model(input_ids=ids).logits.float()
        with merged(model):
            assert any(not torch.equal(base_w[n], p) for n, p in model.named_parameters() if n in base_w)
            got = model(input_ids=ids).logits.float()
        with model.disable_adapter():
            without = model(input_ids=ids).logits.float()
    assert next(model.parameters()).dtype == torch.bfloat16
    rel = {k: float((v - exact).norm() / exact.norm()) for k, v in
           (("merged", got), ("unmerged", unmerged), ("no adapter", without))}
    assert rel["merged"] < 0.15 and rel["unmerged"] < 0.15 and rel["no adapter"] > 0.5, rel
    assert rel["merged"] < 2 * rel["unmerged"], rel
    assert all(torch.equal(base_w[n], p) for n, p in model.named_parameters() if n in base_w)  # bit for bit


def test_chunked_logprobs_equal_unchunked(tiny_model, monkeypatch):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "run.device=cuda"])
    model = _lora_with_signal(cfg).train()
    gen = torch.Generator().manual_seed(2)
    rows = [{"prompt_ids": torch.randint(5, 4000, (7,), generator=gen).tolist(),
             "completion_ids": torch.randint(5, 4000, (3 + 2 * i,), generator=gen).tolist(), "index": i}
            for i in range(5)]
    got = []
    # the whole head at once, its log-softmax a row at a time, the fused head (CUDA's default) a row a chunk
    for fused, chunk in ((False, forward.LOGIT_CHUNK_ELEMS), (False, 1), (True, 1)):
        monkeypatch.setattr(forward, "FUSED_HEAD", fused)
        monkeypatch.setattr(forward, "LOGIT_CHUNK_ELEMS", chunk)
        monkeypatch.setattr(forward, "FUSED_CHUNK_ELEMS", chunk)
        model.zero_grad()
        batch = forward.to_device(forward.collate(rows, 0), "cuda")
        logp, ent = forward.token_logprobs(model, batch, 0.7, with_entropy=True)
        (logp * batch["completion_mask"]).sum().backward()
        got.append((logp.detach(), ent, {n: p.grad.float().clone() for n, p in model.named_parameters() if p.requires_grad}))
    # the LM head's matmul split by rows: float32 rounding of another tiling at most
    for other in got[1:]:
        torch.testing.assert_close(other[0], got[0][0], atol=1e-4, rtol=1e-4)
        torch.testing.assert_close(other[1], got[0][1], atol=1e-4, rtol=1e-4)
        for n, g in got[0][2].items():
            torch.testing.assert_close(other[2][n], g, atol=1e-3, rtol=1e-2)


def test_auto_token_budget_split_equals_one_pass(tiny_model):
    gen = torch.Generator().manual_seed(4)
    prompts = [torch.randint(5, 4000, (5 + p,), generator=gen).tolist() for p in range(4)]
    rows = [{"prompt_ids": prompts[i // 2], "completion_ids": torch.randint(5, 4000, (2 + i % 5,), generator=gen).tolist(),
             "advantage": (-1.0) ** i} for i in range(8)]
    out = {}
    for budget in ("auto", 20):
        cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=4",
                                 "update.grad_accum=1", "update.lr=1e-2", f"update.max_batch_tokens={budget}",
                                 "run.device=cuda", "student.dtype=float32"])
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True, device="cuda")
        start = torch.cat([p.detach().flatten() for n, p in model.named_parameters() if "lora_" in n])
        fig = update_loop.train(model, rows, cfg.update, 1.0, 0, seed=1, show_progress=False)
        moved = torch.cat([p.detach().flatten() for n, p in model.named_parameters() if "lora_" in n]) - start
        out[budget] = (moved, fig)
    assert forward.token_budget(model, "auto", training=True) is not None  # auto sizes a budget on CUDA
    assert (out[20][0] - out["auto"][0]).norm() / out["auto"][0].norm() < 1e-3
    for k in ("loss/total", "kl/k3", "optim/grad_norm"):
        assert out[20][1][k] == pytest.approx(out["auto"][1][k], rel=1e-3, abs=1e-6), k


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 GPUs: the 2-process DDP check runs where there are")
def test_two_processes_make_the_one_process_epoch(cuda_config, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = {}
    for n in (1, 2):
        over = [x.replace(str(tmp_path / "runs"), str(tmp_path / f"runs{n}")) for x in cuda_config]
        cmd = [sys.executable, "-m", "pipeline.cli", "epoch", "1", "--processes", str(n), *over]
        res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        assert res.returncode == 0, res.stderr[-3000:]
        runs[n] = Runner(load_config(None, over))
    m1 = json.loads((runs[1].epoch_dir(1) / "metrics.json").read_text())
    m2 = json.loads((runs[2].epoch_dir(1) / "metrics.json").read_text())
    assert m2["reward/mean"] == m1["reward/mean"]  # the same samples and judgements
    assert m2["loss/total"] == pytest.approx(m1["loss/total"], rel=2e-2)  # bf16 all-reduce order


def test_the_decode_loop_runs_on_cuda(tiny_model):
    """The hf engine's decode loop (pipeline/engines/decode.py, sample.decode_step's default there) on CUDA
    in float32: the rows of transformers' generate under the same streams where no rounding tie parts
    them (most of them), and greedy answers of the same shape. In bf16 a random-weight model's nearly
    flat distributions part rows at the first rounding difference (on an H200 0 of 12 stayed whole):
    there the sampler-gap test holds each drawn token's logprob to the logprobs stage's."""
    from pipeline.engines import hf as engine_hf
    from pipeline.engines.model import load_tokenizer
    cfg = load_config(None, [f"student.model={tiny_model}", "run.device=cuda", "sample.num_samples=4",
                             "sample.max_new_tokens=16", "sample.temperature=1.0", "student.dtype=float32"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student, device="cuda")
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Hi", "Reverse a string.")]
    stats: dict = {}
    ours = engine_hf.generate(model, tok, prompts, cfg, seed=2, stats=stats)
    assert stats["step"] == "decode_step+graphs"           # sample.decode_step=auto on CUDA: CUDA graphs
    ref = engine_hf.reference_generate(model, tok, prompts, cfg, seed=2)
    same = sum(a["completion_ids"] == b["completion_ids"] for a, b in zip(ours, ref))
    assert len(ours) == 12 and same >= 6, same
    assert all(len(g["sampler_logprobs"]) == g["length"] for g in ours)
    answers = engine_hf.greedy(model, tok, prompts, 16, "auto")
    assert len(answers) == 3 and all(r in ("eos", "length") for _, r in answers)


def test_the_loss_on_cuda_in_bf16_with_a_float32_head(coder_model, tmp_path):
    """The update on CUDA in bf16: logprobs from a float32 LM head (head.fp32_head) within bf16
    rounding of the float32 model's (on the Qwen2.5-Coder-shaped student: a real model's scales, where
    the tiny peaky one's logprobs near -30 part by tenths of a nat in bf16), a finite loss whose
    gradient moves LoRA B, the optimizer state written for the next epoch, and a sampler correction
    and clip-higher that run there too."""
    from pipeline.engines.model import load_tokenizer
    over = [f"student.model={coder_model}", "run.device=cuda", "student.lora.r=4", "update.micro_batch_size=2",
            "update.grad_accum=1", "update.lr=1e-2", "update.clip_eps_high=0.28",
            "update.sampler_correction=token_truncate", "update.loss_type=dapo"]
    cfg = load_config(None, [*over, "student.dtype=bfloat16"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10 + i, 11], "advantage": (-1.0) ** i,
             "sampler_logprobs": [-3.0, -3.1, -2.9]} for i in range(4)]
    bf16 = load_student(cfg.student, trainable=True, device="cuda")
    fp32 = load_student(load_config(None, [*over, "student.dtype=float32"]).student, trainable=True, device="cuda")
    batch = forward.to_device(forward.collate([{**r, "index": i} for i, r in enumerate(rows)], 0), "cuda")
    with torch.no_grad():
        a, _ = forward.token_logprobs(bf16, batch, 0.7)
        b, _ = forward.token_logprobs(fp32, batch, 0.7)
    assert a.dtype == torch.float32 and float((a - b).abs().max()) < 0.1 and float((a - b).abs().mean()) < 0.02, \
        (float((a - b).abs().max()), float((a - b).abs().mean()))
    torch.manual_seed(0)
    fig = update_loop.train(bf16, rows, cfg.update, 0.7, tok.pad_token_id, show_progress=False, fresh_adapter=True,
                       epoch=1, save_to=tmp_path / "adapter")
    assert all(v == v for v in fig.values() if isinstance(v, float)) and fig["optim/steps"] == 2
    assert "policy/sampler_weight" in fig and (tmp_path / "optimizer.pt").exists()
    assert max(float(p.abs().max()) for n, p in bf16.named_parameters() if "lora_B" in n) > 0


def test_the_float32_head_on_tf32_cores_keeps_float32_accuracy():
    """head.ExactTF32Linear, the float32 head's matmul on CUDA: hidden states and weights holding
    bf16 values give the float32 GEMM's logits within float32 summation error (TF32 holds them
    exactly), and a gradient within TF32's rounding of the float32 one, which the bf16 cast back into
    the model rounds further anyway; the TF32 switch is off again afterwards."""
    from tests.tolerance import tolerance
    g = torch.Generator(device="cuda").manual_seed(0)
    h = torch.randn(4, 64, 1536, device="cuda", generator=g).bfloat16().float().requires_grad_(True)
    w = (0.02 * torch.randn(49152, 1536, device="cuda", generator=g)).bfloat16().float()
    up = torch.randn(4, 64, 49152, device="cuda", generator=g)
    torch.backends.cuda.matmul.allow_tf32 = False
    y = head.ExactTF32Linear.apply(h, w, None)
    (y * up).sum().backward()
    got, h.grad = h.grad, None
    want = torch.nn.functional.linear(h, w)
    (want * up).sum().backward()
    assert torch.backends.cuda.matmul.allow_tf32 is False
    mag = float((h.detach().abs() @ w.abs().T).max())
    assert float((y - want).abs().max()) <= tolerance(torch.float32, mag, [1536], elements=y.numel())
    gmag = float((up.abs() @ w.abs()).max())
    tf32_u = 2.0 ** -11   # TF32's unit roundoff (10 mantissa bits): the gradient's one extra rounding
    assert float((got - h.grad).abs().max()) <= 2 * tf32_u * gmag + tolerance(torch.float32, gmag, [49152],
                                                                              elements=got.numel())


def _coder_shaped(out: Path) -> Path:
    """A Qwen2.5-Coder-1.5B-shaped student (its attention: 12 query heads of 128, 2 key/value heads,
    biased q/k/v; its MLP width; tied embeddings), 2 layers, random weights, the SmolLM2 tokenizer, and
    the generation_config Qwen2.5-Coder-1.5B-Instruct ships: repetition_penalty 1.1, top_k 20, top_p 0.8."""
    from transformers import AutoTokenizer, GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    from pipeline.engines.model import embedded_tokenizer_dir
    from tests.conftest import _save
    if (out / "config.json").exists():
        return out
    tok = AutoTokenizer.from_pretrained(embedded_tokenizer_dir())
    conf = Qwen2Config(vocab_size=len(tok), hidden_size=1536, intermediate_size=8960, num_hidden_layers=2,
                       num_attention_heads=12, num_key_value_heads=2, max_position_embeddings=4096,
                       tie_word_embeddings=True, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                       pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Qwen2ForCausalLM(conf)
    model.generation_config = GenerationConfig(do_sample=True, repetition_penalty=1.1, top_k=20, top_p=0.8,
                                               temperature=0.7, bos_token_id=tok.bos_token_id,
                                               eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    return _save(model.cpu(), tok, out)


@pytest.fixture(scope="module")
def coder_model() -> str:
    from pipeline.store.paths import cache_root
    return str(_coder_shaped(cache_root() / "models" / "qwen2.5-coder-shaped-2l-random"))


@pytest.mark.parametrize("dtype,mean_bound,max_bound", [("float32", 1e-4, 1e-3), ("bfloat16", 0.02, 0.25)])
def test_sampler_logprobs_match_the_trainers_despite_the_generation_config(coder_model, dtype, mean_bound, max_bound):
    """On CUDA, a Qwen2.5-Coder-shaped student whose generation_config holds repetition_penalty, top_k and
    top_p: the decode loop's logprob of every sampled token against the logprobs stage's recomputation
    (rollout_logprobs, as the stage calls it) differs by float rounding only, in float32 and in bf16
    (the trainer's LM head in float32). Had the generation_config reached the sampler, top_k 20 over a
    49k vocabulary would part them by nats. The figures go to $RLAIF_GPU_FIGURES/sampler_gap.json."""
    from pipeline.engines import hf as engine_hf
    from pipeline.engines.forward import rollout_logprobs
    from pipeline.engines.model import load_tokenizer
    cfg = load_config(None, [f"student.model={coder_model}", "run.device=cuda", f"student.dtype={dtype}",
                             "sample.num_samples=8", "sample.max_new_tokens=48", "sample.temperature=0.7"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student, device="cuda").eval()
    assert model.generation_config.top_k == 20 and model.generation_config.repetition_penalty == 1.1
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Reverse a string.", "Sum a list.")]
    gens = engine_hf.generate(model, tok, prompts, cfg, seed=3)
    rows = [{"prompt_ids": prompts[g["group"]], **g} for g in gens]
    old, _ = rollout_logprobs(model, rows, 0.7, tok.pad_token_id, policy_is_reference=True)
    gap = torch.cat([(torch.tensor(r["sampler_logprobs"]) - old[i].float().cpu()).abs() for i, r in enumerate(rows)])
    fig = {"dtype": dtype, "tokens": len(gap), "mean": float(gap.mean()), "max": float(gap.max()),
           "mean_logprob": float(torch.cat([old[i].float().cpu() for i in range(len(rows))]).mean()),
           "device": torch.cuda.get_device_name()}
    print(json.dumps(fig))
    if os.environ.get("RLAIF_GPU_FIGURES"):
        with open(Path(os.environ["RLAIF_GPU_FIGURES"]) / "sampler_gap.json", "a") as f:
            f.write(json.dumps(fig) + "\n")
    assert len(gap) == sum(g["length"] for g in gens) > 0
    assert fig["mean"] < mean_bound and fig["max"] < max_bound, fig


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("fast", ["ours", "graphs"])
def test_our_decode_step_on_cuda_matches_transformers_forward(coder_model, dtype, fast):
    """sample.decode_step=ours on CUDA (pipeline/engines/decode_step.py with `grouped_attention`), and graphs
    (the same step replayed from CUDA graphs, the live rows padded to their bucket), against the
    decode loop through transformers' forward, on the Qwen2.5-Coder-shaped student: float32 draws the
    same tokens (greedy and sampled) with logprobs within float32 rounding. In bf16 a random-weight
    model's nearly flat distributions part rows at the first rounding difference (on the CPU 0 of 12
    sampled rows stayed whole), so there the logprob of each token ours drew is held to the logprobs
    stage's recomputation, as the sampler-gap test does."""
    from pipeline.engines.decode import decode
    from pipeline.engines.decode_step import make_step
    from pipeline.engines.hf import chat_prompt, row_seed, warpers
    from pipeline.engines.model import load_tokenizer
    from types import SimpleNamespace
    cfg = load_config(None, [f"student.model={coder_model}", "run.device=cuda", f"student.dtype={dtype}"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student, device="cuda").eval()
    assert make_step(model, 200, 8, ("cuda",)) is not None and make_step(model, 200, 8) is None
    prompts = [chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Reverse a string.", "Sum a list.")]
    warp = warpers(SimpleNamespace(temperature=0.7, top_k=0, top_p=1.0))
    seeds = [[row_seed(5, str(g), j) for j in range(4)] for g in range(3)]
    runs = {}
    for step in (fast, "transformers"):
        stats = {}
        sampled = decode(model, tok, prompts, 4, 32, 12, seeds=seeds, warp=lambda z: warp(None, z), decode_step=step,
                         stats=stats)
        greedy = decode(model, tok, prompts, 1, 32, 3, decode_step=step)
        runs[step] = ([r for rows in sampled for r in rows], [rows[0]["ids"] for rows in greedy], stats["step"])
    assert runs[fast][2] == {"ours": "decode_step", "graphs": "decode_step+graphs"}[fast]
    assert runs["transformers"][2] == "transformers"
    (ours, g_ours, _), (ref, g_ref, _) = runs[fast], runs["transformers"]
    same = [i for i, (a, b) in enumerate(zip(ours, ref)) if a["ids"] == b["ids"]]
    gap = max(max(abs(x - y) for x, y in zip(ours[i]["logps"], ref[i]["logps"])) for i in same) if same else 0.0
    if dtype == "float32":
        assert len(same) == len(ref) and g_ours == g_ref and gap < 1e-3, (len(same), gap)
        return
    from pipeline.engines.forward import rollout_logprobs
    rows = [{"prompt_ids": prompts[i // 4], "completion_ids": r["ids"]} for i, r in enumerate(ours)]
    old, _ = rollout_logprobs(model, rows, 0.7, tok.pad_token_id, policy_is_reference=True)
    d = torch.cat([(torch.tensor(r["logps"]) - old[i].float().cpu()).abs() for i, r in enumerate(ours)])
    assert float(d.mean()) < 0.02 and float(d.max()) < 0.25, (float(d.mean()), float(d.max()))


def test_a_resumed_update_with_lora_dropout_on_cuda_equals_the_uninterrupted_one(tiny_model, tmp_path, monkeypatch):  # noqa: F811
    """LoRA dropout on CUDA draws from the GPU's generator: the checkpoint keeps its state, so an update
    killed and resumed draws the same masks (tests/test_update.py checks the rest on the CPU)."""
    from tests.tolerance import assert_same_parameters
    from pipeline.engines.model import load_tokenizer
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "student.lora.dropout=0.1",
                             "student.dtype=float32", "update.micro_batch_size=2", "update.grad_accum=1",
                             "update.epochs=2", "update.lr=1e-2", "run.device=cuda"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7], "completion_ids": [9, 10 + i, 11], "advantage": (-1.0) ** i} for i in range(6)]

    def fresh():
        torch.manual_seed(0)
        torch.cuda.manual_seed_all(0)
        return load_student(cfg.student, trainable=True, device="cuda")

    def lora(m):
        return {n: p.detach().float().cpu().clone() for n, p in m.named_parameters() if "lora_" in n}

    a = fresh()
    update_loop.train(a, rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False)
    real, calls = update_loop.policy_loss, {"n": 0}

    def crash_on_fifth(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(update_loop, "policy_loss", crash_on_fifth)
    ckpt = tmp_path / "ckpt"
    with pytest.raises(KeyboardInterrupt):
        update_loop.train(fresh(), rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False,
                          checkpoint=ckpt, checkpoint_every=1)
    monkeypatch.setattr(update_loop, "policy_loss", real)
    torch.cuda.manual_seed_all(12345)   # the resumed process's generator starts elsewhere: the checkpoint sets it
    c = fresh()
    torch.cuda.manual_seed_all(12345)
    update_loop.train(c, rows, cfg.update, 1.0, tok.pad_token_id, seed=3, show_progress=False,
                      checkpoint=ckpt, checkpoint_every=1)
    assert_same_parameters(lora(c), lora(a), lora(fresh()), a, 6, 18)
