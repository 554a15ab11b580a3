"""sample.engine=vllm / eval.engine=vllm against the hf engine, on a tiny random model (vLLM's CPU
build, `make test-vllm`). One vLLM engine serves the whole module (`engine_vllm.kept`): a start
costs tens of seconds on two cores."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="the vLLM tests run in .venv-vllm: `make test-vllm`")

from pipeline.engines import hf as engine_hf  # noqa: E402

from pipeline.engines import vllm as engine_vllm
from pipeline.stages import sample as sample_stage  # noqa: E402
from pipeline.config.file import load_config  # noqa: E402
from pipeline.engines.hf import greedy as hf_greedy  # noqa: E402
from pipeline.engines.forward import rollout_logprobs  # noqa: E402
from pipeline.stages.logprobs import sampler_gap
from pipeline.engines.model import load_student, load_tokenizer  # noqa: E402

QUESTIONS = ("Add two numbers.", "Hi", "Reverse a string, please.")


def config(model: str, *over: str):
    return load_config(None, [f"student.model={model}", "student.lora.r=8", "student.lora.alpha=16",
                              "sample.num_samples=3", "sample.max_new_tokens=16", "sample.temperature=0.7",
                              "sample.batch_size=9", *over])


@pytest.fixture(scope="module")
def env(vllm_tiny_model):
    cfg = config(vllm_tiny_model)
    tok = load_tokenizer(cfg.student)
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in QUESTIONS]
    with engine_vllm.kept(cfg, max_model_len=1024, max_lora_rank=8):
        yield cfg, tok, prompts


def test_rows_have_the_hf_schema_and_seeds_reproduce(env, lora_adapter):
    cfg, tok, prompts = env
    a = engine_vllm.sample(cfg, tok, prompts, lora_adapter, seed=7)
    hf = engine_hf.generate(load_student(cfg.student, lora_adapter), tok, prompts, cfg, seed=7)
    assert set(a[0]) == set(hf[0]) | {"sampler_logprobs"}
    assert [(r["group"], r["sample_idx"]) for r in a] == [(r["group"], r["sample_idx"]) for r in hf]
    for r in a:
        assert (r["completion_ids"], r["text"], r["finish_reason"]) == engine_hf.finish(
            tok, r["completion_ids"], [], cfg.sample.max_new_tokens)  # already cut as the hf engine cuts
        assert r["length"] == len(r["completion_ids"]) == len(r["sampler_logprobs"])
        assert r["finish_reason"] in ("eos", "length") and 1 <= r["length"] <= cfg.sample.max_new_tokens
        assert (r["finish_reason"] == "eos") == (r["completion_ids"][-1] == tok.eos_token_id)
    b = engine_vllm.sample(cfg, tok, prompts, lora_adapter, seed=7)
    assert [r["completion_ids"] for r in a] == [r["completion_ids"] for r in b]
    c = engine_vllm.sample(cfg, tok, prompts, lora_adapter, seed=8)
    assert [r["completion_ids"] for r in a] != [r["completion_ids"] for r in c]
    assert len({tuple(r["completion_ids"]) for r in a}) > len(prompts)  # a prompt's K samples differ


def test_the_adapter_is_applied_and_greedy_matches_hf(env, lora_adapter):
    """A LoRA with non-zero B changes the greedy tokens, in vLLM as in transformers, and vLLM's greedy
    answers are the hf engine's, token for token (float32, a peaky model: no near-ties)."""
    cfg, tok, prompts = env
    base = engine_vllm.greedy(cfg, tok, prompts, 16, None)
    tuned = engine_vllm.greedy(cfg, tok, prompts, 16, lora_adapter)
    assert base != tuned
    assert base == hf_greedy(load_student(cfg.student), tok, prompts, 16, 8)
    assert tuned == hf_greedy(load_student(cfg.student, lora_adapter), tok, prompts, 16, 8)


def test_stop_strings_cut_as_the_hf_engine_cuts(env, vllm_tiny_model):
    """Same seed with and without a stop string: the stopped completion is exactly what
    engine_hf.finish (the hf engine's cut) makes of the unstopped one: the stop string kept in the
    text, the ids cut to the shortest prefix that holds it."""
    cfg, tok, prompts = env
    free = engine_vllm.sample(cfg, tok, prompts, None, seed=3)
    stop = None
    for r in free:  # a plain word the model wrote after a few tokens
        for t in r["completion_ids"][3:10]:
            w = tok.decode([t])
            if w.strip().isalpha() and len(w.strip()) >= 4 and r["text"].count(w) == 1:
                stop, row = w, r
                break
        if stop:
            break
    assert stop, "no plain word in the samples to stop on"
    scfg = config(vllm_tiny_model, f"sample.stop=[{stop!r}]")
    cut = engine_vllm.sample(scfg, tok, prompts, None, seed=3)
    got = next(r for r in cut if (r["group"], r["sample_idx"]) == (row["group"], row["sample_idx"]))
    ids, text, reason = engine_hf.finish(tok, row["completion_ids"], [stop], cfg.sample.max_new_tokens)
    assert reason == "stop" and text.endswith(stop) and len(ids) < len(row["completion_ids"])
    assert (got["completion_ids"], got["text"], got["finish_reason"]) == (ids, text, reason)
    assert got["sampler_logprobs"] == row["sampler_logprobs"][:len(ids)]


def test_sampler_logprobs_are_the_trainers_at_the_sampling_temperature(env, lora_adapter):
    """vLLM's logprob of each sampled token (processed: after temperature) against the logprobs
    stage's under the same adapter: equal within float32 noise; at another temperature, far apart,
    which is what logprobs/sampler_gap is there to show."""
    cfg, tok, prompts = env
    rows = [{**r, "prompt_ids": prompts[r["group"]]} for r in engine_vllm.sample(cfg, tok, prompts, lora_adapter, 11)]
    model = load_student(cfg.student, lora_adapter)
    old, _ = rollout_logprobs(model, rows, cfg.sample.temperature, tok.pad_token_id, policy_is_reference=True)
    gap = sampler_gap(rows, old)
    assert gap["logprobs/sampler_gap"] < 1e-3, gap
    wrong, _ = rollout_logprobs(model, rows, 1.0, tok.pad_token_id, policy_is_reference=True)
    assert sampler_gap(rows, wrong)["logprobs/sampler_gap"] > 0.05


def test_sample_and_eval_stages_with_the_vllm_engine(env, vllm_tiny_model, lora_adapter, tmp_path):
    """The stages themselves: sample_stage.run writes the hf engine's columns (plus sampler_logprobs);
    eval_stage.run writes the same eval table (every column: answers, finish reasons, scores) and the
    same figures as with eval.engine=hf, both in float32 (vLLM runs student.dtype; the hf engine's
    default bf16 sampling copy is a nearby policy whose greedy answers part from it)."""
    from pipeline.stages import eval as eval_stage
    from pipeline.stages import Ctx, POLICY
    from pipeline.run.runner import Runner
    from pipeline.store.tables import load_table
    over = [f"run.dir={tmp_path / 'runs'}", "data.prompts_per_epoch=2", "eval.max_problems=3",
            "eval.max_new_tokens=16", "judge.execution.timeout_s=5", "sample.dtype=float32"]
    tables, evals = {}, {}
    policy = tmp_path / "update"
    policy.mkdir()
    (policy / "adapter").symlink_to(Path(lora_adapter).resolve())
    for engine in ("hf", "vllm"):
        cfg = config(vllm_tiny_model, *over, f"run.name={engine}", f"sample.engine={engine}", f"eval.engine={engine}")
        r = Runner(cfg)
        r.run_epoch(1, only="prompts")
        out = tmp_path / f"sample-{engine}"
        out.mkdir()
        sample_stage.run(Ctx(cfg=cfg, epoch=1, out=out, inputs={"prompts": r.epoch_dir(1) / "prompts", POLICY: lora_adapter},
                       run_dir=r.run_dir))
        tables[engine] = load_table(out)
        out = tmp_path / f"eval-{engine}"
        out.mkdir()
        ctx = Ctx(cfg=cfg, epoch=1, out=out, inputs={"update": policy}, run_dir=r.run_dir)
        eval_stage.run(ctx)
        evals[engine] = (ctx.figures, load_table(out))        # whole rows: no column named here to drift
    assert set(tables["vllm"][0]) == set(tables["hf"][0]) | {"sampler_logprobs"}
    assert len(tables["vllm"]) == len(tables["hf"]) == 6
    (fv, rv), (fh, rh) = evals["vllm"], evals["hf"]
    assert len(rv) == len(rh)
    for a, b in zip(rv, rh):                                   # every column of every row, named where it differs
        assert set(a) == set(b)
        diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
        assert not diff, f"{a['problem_id']}: vllm, hf differ in {diff}"
    assert fv == fh
