"""eval: the policy on held-out problems, greedy decoding, scored by the execution judge.

Figures: eval/score (mean judge score), eval/pass@1 (share of problems whose greedy answer
passes every test), per source as eval/<source>/score and eval/<source>/pass@1.
Early stopping reads these; `rlaif eval 0` measures the base model before any training.
"""
from __future__ import annotations

import random
import statistics
from contextlib import nullcontext

import torch
from tqdm import tqdm

from data.schema import Problem
from pipeline import dist
from pipeline.config import Config
from pipeline.model import load_tokenizer, merged, student_model
from pipeline.runner import Ctx
from pipeline.sample import batch_size, cache_kwargs, chat_prompt, finish, left_pad
from pipeline.scoring import Judging
from pipeline.tables import save_table


def eval_problems(cfg: Config) -> list[tuple[str, Problem]]:
    from data.loaders import load_source
    out = []
    for src in cfg.eval.sources:
        probs = load_source(src)
        if cfg.eval.max_problems and len(probs) > cfg.eval.max_problems:
            probs = random.Random(0).sample(probs, cfg.eval.max_problems)
        out += [(src, p) for p in probs]
    return out


@torch.no_grad()
def greedy(model, tok, prompts: list[list[int]], max_new: int, batch_size: int, **gen_kw) -> list[tuple[str, str]]:
    """(text, finish_reason) per prompt, greedy decoding, prompts sorted by length to pad less."""
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    out: dict[int, tuple[str, str]] = {}
    device = next(model.parameters()).device
    for b in tqdm(range(0, len(order), batch_size), desc="eval", unit="batch", dynamic_ncols=True):
        idx = order[b: b + batch_size]
        ids, attn = left_pad([prompts[i] for i in idx], tok.pad_token_id, device)
        width = ids.shape[1]
        gen = model.generate(input_ids=ids, attention_mask=attn, do_sample=False, max_new_tokens=max_new,
                             pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, **gen_kw)
        for i, row in zip(idx, gen[:, width:].tolist()):
            _, text, reason = finish(tok, row, [], max_new)
            out[i] = (text, reason)
    return [out[i] for i in range(len(prompts))]


def run(ctx: Ctx) -> None:
    cfg = ctx.cfg
    probs = eval_problems(cfg)
    if not probs:
        ctx.figures = {}
        save_table([], ctx.out)
        return
    tok = load_tokenizer(cfg.student)
    policy = ctx.inputs.get("update")
    adapter = policy / "adapter" if policy is not None else None
    every = [chat_prompt(tok, cfg, p.prompt) for _, p in probs]
    prompts = [every[i] for i in dist.shard(every)]  # this rank's problems (all of them with one process)
    if cfg.eval.engine == "vllm":  # greedy in vLLM, the adapter from disk (pipeline/engine_vllm.py)
        from pipeline import engine_vllm
        engine_vllm.require("eval.engine")
        answers = engine_vllm.greedy(cfg, tok, prompts, cfg.eval.max_new_tokens, adapter) if prompts else []
    else:
        model = student_model(cfg, adapter=adapter)
        size = batch_size(model, cfg.sample.batch_size, max(len(p) for p in every), cfg.eval.max_new_tokens)
        with merged(model) if cfg.sample.merge_lora else nullcontext():
            answers = greedy(model, tok, prompts, cfg.eval.max_new_tokens, size, **cache_kwargs(cfg))
    answers = dist.merge(dist.gather(answers))  # rank 0 judges every answer and writes the table
    if not dist.is_main():
        return
    j = Judging(cfg)
    try:
        scores = j.score_all([(p, text, reason == "length") for (_, p), (text, reason) in zip(probs, answers)],
                             desc="eval judge")
    finally:
        j.cache.close()
    rows = []
    for (src, p), (text, reason), s in zip(probs, answers, scores):
        bd = s.breakdown or {}
        rows.append({"source": src, "problem_id": p.id, "text": text, "finish_reason": reason, "value": s.value,
                     "passed": bool(bd.get("total")) and bd.get("passed") == bd.get("total")})
    save_table(rows, ctx.out)
    ctx.rows = len(rows)
    figures: dict[str, float] = {}
    for src in [None, *cfg.eval.sources]:
        sel = [r for r in rows if src is None or r["source"] == src]
        if not sel:
            continue
        prefix = "eval" if src is None else f"eval/{src}"
        figures[f"{prefix}/score"] = statistics.fmean(r["value"] or 0.0 for r in sel)
        figures[f"{prefix}/pass@1"] = sum(r["passed"] for r in sel) / len(sel)
    figures["eval/problems"] = len(rows)
    ctx.figures = figures
