"""sample: finish reasons, stop strings, K samples per prompt, seeded."""
from __future__ import annotations

from pipeline.engines import hf as engine_hf
from pipeline.stages import sample as sample_stage
from pipeline.config.file import load_config
from pipeline.engines.model import load_student, load_tokenizer


def test_finish_reasons(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}"])
    tok = load_tokenizer(cfg.student)
    hello = tok.encode("hello world", add_special_tokens=False)
    ids, text, reason = engine_hf.finish(tok, hello + [tok.eos_token_id, tok.pad_token_id], [], 10)
    assert reason == "eos" and text == "hello world" and ids[-1] == tok.eos_token_id
    ids, text, reason = engine_hf.finish(tok, hello + [tok.eos_token_id], [" world"], 10)
    assert reason == "stop" and text == "hello world" and ids == hello  # the stop string is kept
    fence = tok.encode("```python\nx = 1\n```\nAlternatively", add_special_tokens=False)
    ids, text, reason = engine_hf.finish(tok, fence, ["\n```\n"], 50)
    assert reason == "stop" and text == "```python\nx = 1\n```\n" and len(ids) < len(fence)
    ids, text, reason = engine_hf.finish(tok, hello, [], len(hello))
    assert reason == "length" and ids == hello


def test_generate_k_per_prompt_is_seeded(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}", "sample.num_samples=3", "sample.max_new_tokens=6",
                             "sample.batch_size=4"])
    tok = load_tokenizer(cfg.student)
    model = load_student(cfg.student)
    prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("a", "bb", "ccc")]
    a = engine_hf.generate(model, tok, prompts, cfg, seed=7)
    b = engine_hf.generate(model, tok, prompts, cfg, seed=7)
    assert [x["completion_ids"] for x in a] == [x["completion_ids"] for x in b]
    assert [(x["group"], x["sample_idx"]) for x in a] == [(g, k) for g in range(3) for k in range(3)]
    assert all(x["finish_reason"] in ("eos", "length") and 1 <= x["length"] <= 6 for x in a)
    c = engine_hf.generate(model, tok, prompts, cfg, seed=8)
    assert [x["completion_ids"] for x in a] != [x["completion_ids"] for x in c]


def test_shared_prompt_prefill_samples_the_same_tokens(tiny_model):
    """sample.share_prompt (engine=generate): each prompt is prefilled once and its cache copied to its K samples.
    With the same seed the completions equal those of K separate prefills, token for token, up to float
    ties (a batch of 1 and a batch of K prefill through matmul kernels that may round differently: on an
    AMX CPU they do, and the tiny random model's 49k near-equal probabilities make ties common)."""
    from tests.test_decode import assert_same_up_to_ties
    out, rows = {}, {}
    for share in (False, True):
        cfg = load_config(None, [f"student.model={tiny_model}", "sample.num_samples=4", "sample.max_new_tokens=24",
                                 "sample.batch_size=8", "sample.temperature=1.0", f"sample.share_prompt={share}",
                                 "sample.engine=generate"])
        tok = load_tokenizer(cfg.student)
        model = load_student(cfg.student)
        prompts = [engine_hf.chat_prompt(tok, cfg, q) for q in ("Add two numbers.", "Hi", "Reverse a string, please.")]
        rows[share] = engine_hf.generate(model, tok, prompts, cfg, seed=5)
        out[share] = [x["completion_ids"] for x in rows[share]]
    assert len(out[True]) == 12
    assert_same_up_to_ties(model, cfg, prompts, rows[True], rows[False], 5)
    assert len({tuple(c) for c in out[True]}) > 3  # samples of one prompt differ: the copies are independent


def test_seed_per_epoch_false_gives_an_unchanged_policy_the_same_samples(tiny_config, tmp_path):
    """sample.seed_per_epoch=false: epochs 1 and 2 draw the same random numbers, so the same policy
    samples the same completions (common random numbers); true (the code default): they differ."""
    from pipeline.stages import Ctx, POLICY
    from pipeline.run.runner import Runner
    from pipeline.store.tables import load_table
    got = {}
    for per_epoch in ("true", "false"):
        cfg = load_config(None, [*tiny_config, f"run.name=seed-{per_epoch}", f"sample.seed_per_epoch={per_epoch}"])
        r = Runner(cfg)
        r.run_epoch(1, only="prompts")
        texts = []
        for epoch in (1, 2):
            out = tmp_path / f"sample-{per_epoch}-{epoch}"
            out.mkdir()
            sample_stage.run(Ctx(cfg=cfg, epoch=epoch, out=out, inputs={"prompts": r.epoch_dir(1) / "prompts", POLICY: None},
                           run_dir=r.run_dir))
            texts.append([row["completion_ids"] for row in load_table(out)])
        got[per_epoch] = texts
    assert got["false"][0] == got["false"][1]
    assert got["true"][0] != got["true"][1]


def test_code_end_closes_the_first_block_never_at_a_bare_opening_fence():
    assert engine_hf.code_end("```python\nx = 1\n```\nAlternatively") == len("```python\nx = 1\n```\n")
    bare = "Here:\n```\nx = 1\n```\nmore"
    assert engine_hf.code_end(bare) == len("Here:\n```\nx = 1\n```\n")
    assert "\n```\n" in bare[:len("Here:\n```\n")]  # where the stop string would have cut it
    assert engine_hf.code_end("```python\nx = 1\n```") is None  # the close's line has not ended yet
    assert engine_hf.code_end("```python\nx = 1\n```ocaml\ny\n") is None  # a tagged fence does not close
    assert engine_hf.code_end("no code\n") is None and engine_hf.code_end("```py\n") is None


def test_finish_cuts_after_the_code_block(tiny_model):
    cfg = load_config(None, [f"student.model={tiny_model}"])
    tok = load_tokenizer(cfg.student)
    text = "Here:\n```\nx = 1\n```\nAlternatively, a loop"
    ids = tok.encode(text, add_special_tokens=False)
    kept, got, reason = engine_hf.finish(tok, ids, [], 100, code=True)
    assert reason == "stop" and got == "Here:\n```\nx = 1\n```\n" and tok.decode(kept) == got
    assert engine_hf.finish(tok, ids, ["\n```\n"], 100)[1] == "Here:\n```\n"  # the stop string's bare-fence cut
    # no closed block: cut by eos or length as before
    assert engine_hf.finish(tok, ids[:8], [], 8, code=True)[2] == "length"


def test_stop_after_code_samples_a_prefix_of_the_same_answer():
    """The embedded student (it writes a ```python block, then prose): with sample.stop_after_code each
    answer is the answer the same stream gives without it, cut just after its first code block, and
    generation stops there."""
    out, cfg = {}, load_config(None, [])
    tok, model = load_tokenizer(cfg.student), load_student(cfg.student)   # (once: the flag is the sampler's alone)
    for flag in (False, True):
        cfg = load_config(None, ["sample.num_samples=3", "sample.max_new_tokens=96", "sample.temperature=0.7",
                                 f"sample.stop_after_code={flag}"])
        prompts = [engine_hf.chat_prompt(tok, cfg, "Write a Python function add(a, b) that returns a + b.")]
        out[flag] = engine_hf.generate(model, tok, prompts, cfg, seed=3)
    closed = 0
    for free, cut in zip(out[False], out[True]):
        assert free["completion_ids"][:len(cut["completion_ids"])] == cut["completion_ids"]
        end = engine_hf.code_end(free["text"])
        if end is not None and end < len(free["text"]):
            closed += 1
            assert cut["finish_reason"] == "stop" and cut["text"] == free["text"][:end]
            assert cut["length"] < free["length"]
    assert closed >= 2, [x["text"] for x in out[False]]
