"""Learning happens: on a toy reward, 20 updates raise the mean reward, change the LoRA
parameters and leave the base weights untouched."""
from __future__ import annotations

import statistics

import pytest

import torch

from pipeline.engines import hf as engine_hf

from pipeline.train import rl
from pipeline.stages import update_loop
from pipeline.config.file import load_config
from pipeline.engines.model import load_student, load_tokenizer


def toy_reward(ids: list[int], target: set[int]) -> float:
    """Toy reward: the share of generated tokens that fall in the `target` set."""
    return sum(t in target for t in ids) / max(len(ids), 1)


@pytest.mark.slow
def test_twenty_updates_raise_toy_reward(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=8", "student.lora.alpha=16",
                             "sample.num_samples=8", "sample.temperature=1.0", "sample.max_new_tokens=12", "update.lr=3e-2", "update.epochs=2",
                             "update.kl_coef=0.0", "update.micro_batch_size=8", "update.grad_accum=1",
                             "update.warmup_ratio=0.0", "update.scheduler=constant"])
    tok = load_tokenizer(cfg.student)
    torch.manual_seed(0)  # the fresh LoRA init draws from the global RNG: independent of test order
    model = load_student(cfg.student, trainable=True)
    base_before = {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" not in n}
    lora_before = {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" in n}
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Say something.", "Write code.")]

    # the target: the 256 tokens the base model already favours after the prompts, so the reward
    # starts small (~10-20%) but with variance in every group
    model.eval()
    with torch.no_grad():
        probs = torch.stack([model(input_ids=torch.tensor([p])).logits[0, -1].softmax(-1) for p in prompts]).mean(0)
    target = set(probs.topk(256).indices.tolist())

    def rollout(seed: int) -> tuple[list[dict], float]:
        model.eval()
        gens = engine_hf.generate(model, tok, prompts, cfg, seed=seed)
        rows = []
        for g in range(len(prompts)):
            group = [x for x in gens if x["group"] == g]
            rewards = [toy_reward(x["completion_ids"], target) for x in group]
            for x, a in zip(group, rl.advantages(rewards, "grpo")):
                rows.append({"prompt_ids": prompts[g], "completion_ids": x["completion_ids"], "advantage": a, "r": x})
        return rows, statistics.fmean(toy_reward(x["completion_ids"], target) for x in gens)

    history = []
    for step in range(20):
        rows, mean_r = rollout(seed=step)
        history.append(mean_r)
        update_loop.train(model, rows, cfg.update, cfg.sample.temperature, tok.pad_token_id, seed=step, show_progress=False)
    after = statistics.fmean(rollout(seed=1000 + i)[1] for i in range(3))
    before = statistics.fmean(history[:3])
    print("toy reward per update:", [round(h, 3) for h in history], "after:", round(after, 3))
    assert after > before + 0.1, f"mean toy reward did not rise: before {before:.3f}, after {after:.3f}"
    assert any(not torch.equal(p, lora_before[n]) for n, p in model.named_parameters() if "lora_" in n)
    for n, p in model.named_parameters():
        if "lora_" not in n:
            assert torch.equal(p, base_before[n]), f"base weight {n} changed"
