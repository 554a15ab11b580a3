"""Shared fixtures: a tiny randomly initialised Llama with the SmolLM2 tokenizer (seconds, not minutes)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch


def pytest_collection_modifyitems(config, items):
    """The slow tests first (stable otherwise): pytest-xdist hands tests out in this order, and a
    minute-long test handed out last keeps one worker busy after the other has finished (`make test`
    runs `--dist worksteal`, so that queued tests move to whichever worker is free)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)

# keep tests off the network and on the machine's cores
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    # `make test` runs one worker per core (pytest-xdist): one thread each, in this process and in the
    # CLI subprocesses the tests start. Two threads per worker would oversubscribe the cores, and
    # torch's threads spin: sampling 300 tokens on the tiny model took 34-55 s so, 5 s with one thread.
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
else:
    torch.set_num_threads(min(2, os.cpu_count() or 1))


def _tiny_llama(init: float):
    """(model, tokenizer): a 2-layer, 64-wide Llama with the SmolLM2 tokenizer, seeded."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from pipeline.engines.model import embedded_tokenizer_dir
    tok = AutoTokenizer.from_pretrained(embedded_tokenizer_dir())
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=True, initializer_range=init)
    torch.manual_seed(0)
    return LlamaForCausalLM(cfg), tok


def _save(model, tok, out: Path) -> Path:
    """Write atomically: a concurrent or killed build never leaves a half-written model."""
    import shutil
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    try:
        os.replace(tmp, out)
    except OSError:  # another process (a parallel test run) finished the same build first: keep its copy
        if not (out / "config.json").exists():
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def build_tiny_model(out: Path) -> Path:
    if (out / "config.json").exists():
        return out
    # a wide init makes the output distribution peaky, so a toy reward on one token has signal
    return _save(*_tiny_llama(0.6), out)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> str:
    from pipeline.store.paths import cache_root
    return str(build_tiny_model(cache_root() / "models" / "tiny-llama-smollm2-tok-v2"))


@pytest.fixture
def tiny_config(tmp_path, tiny_model):
    """Overrides for a tiny, fast epoch in a temp run dir."""
    return tiny_overrides(tmp_path / "runs", tiny_model)


@pytest.fixture(scope="session")
def _epoch1_run(tmp_path_factory, tiny_model) -> Path:
    """A run dir holding tiny_config's finished epoch 1, made once a process."""
    from pipeline.config.file import load_config
    from pipeline.run.runner import Runner
    base = tmp_path_factory.mktemp("epoch1") / "runs"
    Runner(load_config(None, tiny_overrides(base, tiny_model))).run_epoch(1)
    return base


@pytest.fixture
def epoch1_config(tmp_path, tiny_model, _epoch1_run):
    """tiny_config whose run dir already holds a finished epoch 1 (a copy of one made once): for tests that
    start from a finished epoch and damage or vary it."""
    import shutil
    shutil.copytree(_epoch1_run, tmp_path / "runs")
    return tiny_overrides(tmp_path / "runs", tiny_model)


def tiny_overrides(run_dir: Path, tiny_model: str) -> list[str]:
    return [f"run.dir={run_dir}", f"student.model={tiny_model}", "student.lora.r=4", "student.lora.alpha=8",
            "data.prompts_per_epoch=3", "sample.num_samples=3", "sample.max_new_tokens=24",
            "update.micro_batch_size=3", "update.grad_accum=1", "judge.execution.timeout_s=5",
            "eval.max_problems=3", "eval.max_new_tokens=16",
            # float32 sampling, as the update computes: the cache tests rely on an eval whose greedy
            # answers a small change of the adapter leaves alone (bf16 rounding of the merged
            # weights moves them); bf16 sampling has its own epoch (test_decode.py)
            "sample.dtype=float32",
            # config.yaml turns the warm-start on; these epochs start from the base model, and the
            # warm-start has tests of its own (test_epoch_e2e.py) that turn it back on
            "update.warm_start=false"]


def build_brevity_model(out: Path, steps: int = 300, lr: float = 3e-3) -> Path:
    """The tiny Llama taught, by 300 supervised steps (about 45 s on 2 cores, once per machine:
    cached like the tiny model), to answer the short prompts of configs/length_reward.yaml
    with 1 to 24 words (uniformly). A random model has
    no answer lengths to choose between (it never says EOS, and 49k random embeddings give no
    "fewer words" direction a KL-bounded step can take); this one does, so a test can see RL
    shift the lengths the way the reward 2 - words/16 asks."""
    import json
    import random

    from pipeline.config.schema import Config
    from pipeline.engines.hf import chat_prompt
    if (out / "config.json").exists():
        return out
    model, tok = _tiny_llama(0.02)
    root = Path(__file__).resolve().parent.parent
    prompts = [json.loads(line)["prompt"] for line in (root / "data/problems/short_prompts.jsonl").open()]
    words = ["the", "cat", "sat", "on", "a", "mat", "and", "it", "was", "good"]
    rng = random.Random(0)
    run_cfg = Config()
    encoded = [chat_prompt(tok, run_cfg, p) for p in prompts]
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for _ in range(steps):
        batch = []
        for _ in range(16):
            p = rng.choice(encoded)
            n = rng.randint(1, 24)
            ans = tok.encode(" ".join(rng.choice(words) for _ in range(n)) + ".", add_special_tokens=False)
            batch.append((p, ans + [tok.eos_token_id]))
        width = max(len(p) + len(a) for p, a in batch)
        ids = torch.full((len(batch), width), tok.pad_token_id)
        attn = torch.zeros_like(ids)
        target = torch.zeros_like(ids, dtype=torch.bool)  # positions whose next token is an answer token
        for i, (p, a) in enumerate(batch):
            ids[i, : len(p) + len(a)] = torch.tensor(p + a)
            attn[i, : len(p) + len(a)] = 1
            target[i, len(p) - 1: len(p) + len(a) - 1] = True
        hidden = model.model(input_ids=ids, attention_mask=attn).last_hidden_state
        logits = model.lm_head(hidden[target])            # only where an answer token is predicted
        labels = ids[:, 1:][target[:, :-1]]
        loss = torch.nn.functional.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    return _save(model, tok, out)


@pytest.fixture(scope="session")
def brevity_model(tmp_path_factory) -> str:
    return brevity_model_path()


def brevity_model_path() -> str:
    from pipeline.store.paths import cache_root
    return str(build_brevity_model(cache_root() / "models" / "tiny-llama-brevity-v1"))


@pytest.fixture(scope="session")
def ocaml_compiler() -> str:
    """ocamlc's path. Missing, the OCaml tests fail (never skip) with how to install it: `make setup`
    installs it, so a machine without it is a setup problem the suite must show."""
    from judges.ocaml import CompilerMissing, compiler_path
    try:
        return compiler_path("ocamlc")
    except CompilerMissing as e:
        pytest.fail(str(e), pytrace=False)


def count_loads(monkeypatch) -> list[str]:
    """Patch AutoModelForCausalLM.from_pretrained to record each load of base weights; returns the list."""
    from transformers import AutoModelForCausalLM
    real = AutoModelForCausalLM.from_pretrained.__func__
    loads: list[str] = []

    def counting(cls, name, *a, **kw):
        loads.append(str(name))
        return real(cls, name, *a, **kw)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", classmethod(counting))
    return loads


@pytest.fixture
def base_model(tmp_path, tiny_model) -> str:
    """The tiny model with its chat template taken away: a base model's tokenizer."""
    import json
    import shutil
    plain = tmp_path / "base"
    shutil.copytree(tiny_model, plain)
    cfg_file = plain / "tokenizer_config.json"
    tc = json.loads(cfg_file.read_text())
    tc.pop("chat_template", None)
    cfg_file.write_text(json.dumps(tc))
    (plain / "chat_template.jinja").unlink(missing_ok=True)
    return str(plain)
