"""sample: the student policy of epoch N-1 writes K completions per prompt.

The prompts through the model's chat template, checked against data.max_prompt_tokens and the
model's context; the generation itself is the hf engine's (pipeline/engines/hf.py: the decode loop
of pipeline/engines/decode.py, or transformers' generate with `sample.engine=generate`) or, with
`sample.engine=vllm`, vLLM's (pipeline/engines/vllm.py). Same rows either way; the loop and vLLM
also keep the sampler's own logprob of each token. With several processes each rank samples its share (pipeline/store/dist.py);
rank 0 writes the rows and the figures (generated tokens, truncation, diversity).
"""
from __future__ import annotations

import time

from pipeline.store import dist
from pipeline.engines.hf import chat_prompt, check_prompts, generate
from pipeline.engines.model import load_tokenizer, resolve, student_model
from pipeline.engines.sampling_weights import sampling_model
from pipeline.stages import POLICY, Ctx
from pipeline.store.tables import load_table, save_table


def run(ctx: Ctx) -> None:
    cfg = ctx.cfg
    prompts = load_table(ctx.inputs["prompts"], json_cols=("problem",))
    tok = load_tokenizer(cfg.student)
    ids = [chat_prompt(tok, cfg, p["problem"]["prompt"]) for p in prompts]
    names = [p["problem_id"] for p in prompts]
    check_prompts(cfg, ids, names, cfg.sample.max_new_tokens, "sample.max_new_tokens", None)   # before any model loads
    vllm = cfg.sample.engine == "vllm"
    if vllm:  # the base model in vLLM, the adapter from disk (pipeline/engines/vllm.py); no HF copy here
        from pipeline.engines import vllm as engine_vllm
        engine_vllm.require("sample.engine")
        from transformers import AutoConfig
        model_config = AutoConfig.from_pretrained(resolve(cfg.student.model))
    else:
        model = student_model(cfg, adapter=ctx.inputs[POLICY])
        model_config = model.config
    check_prompts(cfg, ids, names, cfg.sample.max_new_tokens, "sample.max_new_tokens",
                  getattr(model_config, "max_position_embeddings", None), prompt_limit=False)   # (checked above)
    seed = cfg.run.seed * 1000 + (ctx.epoch if cfg.sample.seed_per_epoch else 0)
    mine = dist.shard(ids)  # this rank's prompts (all of them with one process)
    seen: dict[str, int] = {}
    keys = []  # a prompt's id, and its occurrence when the epoch holds it twice (prompts_per_epoch > pool)
    for p in prompts:
        n = seen[p["problem_id"]] = seen.get(p["problem_id"], 0) + 1
        keys.append(p["problem_id"] if n == 1 else f"{p['problem_id']}#{n - 1}")
    t = time.time()
    if vllm:
        gens = engine_vllm.sample(cfg, tok, [ids[i] for i in mine], ctx.inputs[POLICY], seed, first=mine[0] if mine else 0)
    else:
        with sampling_model(model, cfg) as m:
            gens = generate(m, tok, [ids[i] for i in mine], cfg, seed=seed, keys=[keys[i] for i in mine])
    secs = time.time() - t
    dist.kill_point("sample")
    rows = []
    for g in gens:
        i = mine[g.pop("group")]
        rows.append({"problem_id": prompts[i]["problem_id"], "prompt_ids": ids[i], **g})
    parts = dist.gather((rows, secs))
    if not dist.is_main():
        return
    rows, secs = dist.merge([r for r, _ in parts]), max(s for _, s in parts)
    save_table(rows, ctx.out)
    from pipeline.metrics.doc import diversity_of_groups
    groups: dict[str, list[str]] = {}
    for r in rows:
        groups.setdefault(r["problem_id"], []).append(r["text"])
    n_tok = sum(r["length"] for r in rows)
    ctx.rows = len(rows)
    ctx.figures = {
        "sample/generated_tokens": n_tok,
        "sample/tokens_per_s": round(n_tok / max(secs, 1e-9), 2),
        "completion/length_mean": n_tok / max(len(rows), 1),
        "completion/truncated_frac": sum(r["finish_reason"] == "length" for r in rows) / max(len(rows), 1),
        "completion/diversity": diversity_of_groups(groups.values()),
    }
