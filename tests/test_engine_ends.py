"""Where a completion ends (pipeline/engines/ends.py), the same for every engine: the model's own
end-of-turn ids, stop strings over the completion alone, the ending token kept, a text that is the
kept ids' own; rows that end at their first token, however many."""
from __future__ import annotations

import sys
from types import SimpleNamespace

import torch
from transformers import AutoTokenizer

from pipeline.config.file import load_config
from pipeline.engines import hf as engine_hf
from pipeline.engines.decode import decode
from pipeline.engines.ends import CompletionStops, end_ids, finish
from pipeline.engines.model import load_student, load_tokenizer


def setup(model_path: str, *over: str):
    cfg = load_config(None, [f"student.model={model_path}", "sample.num_samples=2", "sample.max_new_tokens=12",
                             "sample.temperature=1.0", "sample.dtype=float32", *over])
    tok = load_tokenizer(cfg.student)
    return cfg, tok, [engine_hf.chat_prompt(tok, cfg, q) for q in ("write f", "Hi")]


def first_new(ids: list[int], tok) -> int:
    """The first position from 2 on whose token came neither before it nor is the eos."""
    return next(i for i in range(2, len(ids)) if ids[i] not in ids[:i] and ids[i] != tok.eos_token_id)


def test_the_models_own_end_of_turn_ids_end_a_row(tiny_model):
    """generation_config.eos_token_id a list (Gemma-it, Llama-3-Instruct and Qwen2.5-Instruct ship
    one): the decode loop, greedy and sampled, and transformers' generate (sample.engine=generate)
    end a row at any of its ids, as generate does under the model's own config, and keep it: eos.
    One row each, so the row computes the same numbers with the list as without."""
    cfg, tok, prompts = setup(tiny_model, "sample.num_samples=1")
    model, prompt = load_student(cfg.student), prompts[:1]
    runs = {"loop": lambda: engine_hf.generate(model, tok, prompt, cfg, seed=1),
            "generate": lambda: engine_hf.reference_generate(model, tok, prompt, cfg, seed=1),
            "loop, greedy": lambda: [(decode(model, tok, prompt, 1, 12, 4)[0][0]["ids"], None)]}
    for name, run in runs.items():
        model.generation_config.eos_token_id = tok.eos_token_id
        row = run()[0]
        free = row[0] if name == "loop, greedy" else row["completion_ids"]
        i = first_new(free, tok)
        model.generation_config.eos_token_id = [tok.eos_token_id, free[i]]
        row = run()[0]
        assert (row[0] if name == "loop, greedy" else row["completion_ids"]) == free[: i + 1], name
        if name != "loop, greedy":
            assert row["finish_reason"] == "eos" and row["text"] == tok.decode(free[:i], skip_special_tokens=True)
    cut = row[0]                                                      # greedy, ended at its own end id
    own = model.generate(torch.tensor(prompt), attention_mask=torch.ones(1, len(prompt[0]), dtype=torch.long),
                         do_sample=False, max_new_tokens=12)[0, len(prompt[0]):].tolist()
    assert own == cut                                                 # where generate itself stops
    want = [(tok.decode(cut[:-1], skip_special_tokens=True), "eos")]
    assert engine_hf.greedy(model, tok, prompt, 12, 4) == want == engine_hf.reference_greedy(model, tok, prompt, 12, 4)


def test_a_pad_the_model_ends_with_is_kept(tiny_model):
    """pad != eos, pad one of the model's end ids (Qwen2.5-Instruct's <|endoftext|>): the row keeps
    it and ended (eos), at the max_new-th token too; a pad ends a row even where it is no end id."""
    tok = AutoTokenizer.from_pretrained(tiny_model)
    tok.pad_token = "<|endoftext|>"
    pad, eos = tok.pad_token_id, tok.eos_token_id
    assert pad != eos
    ends = end_ids(tok, SimpleNamespace(eos_token_id=[eos, pad]))
    assert ends == {eos, pad} and end_ids(tok, SimpleNamespace(eos_token_id=7)) == {eos, 7} and end_ids(tok) == {eos}
    assert finish(tok, [100, 200, pad], [], 3, ends=ends) == ([100, 200, pad], tok.decode([100, 200]), "eos")
    assert finish(tok, [100, pad, 300, 400], [], 4) == ([100, pad], tok.decode([100]), "eos")
    assert finish(tok, [100, 200, 300], [], 3, ends=ends)[2] == "length"


def scripted(tok, script: dict[int, int]):
    """A one-layer Llama whose next token is script[its last token] with probability 1 (its layer adds
    nothing to the residual, and the LM head gives that token a logit of 800, every other 0)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=1,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=False)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).eval()
    with torch.no_grad():
        for w in (model.model.layers[0].self_attn.o_proj.weight, model.model.layers[0].mlp.down_proj.weight,
                  model.model.embed_tokens.weight, model.lm_head.weight):
            w.zero_()
        for d, (a, b) in enumerate(script.items()):
            model.model.embed_tokens.weight[a, d] = 1.0
            model.lm_head.weight[b, d] = 100.0
    return model


def test_a_stop_string_is_looked_for_in_the_completion_alone(tiny_model):
    """The prompt ends "assistant\\n" and the answer opens with a bare fence: "```\\n" with the
    prompt's newline holds the stop string "\\n```\\n", the answer alone does not. Both engines
    write on to the first "\\n```\\n" of the answer itself (generate's own stop-string criterion
    would end the row at once, and its padding would pass for a sampled eos)."""
    cfg, tok, prompts = setup(tiny_model)
    cfg = cfg.model_copy(update={"sample": cfg.sample.model_copy(update={"stop": ["\n```\n"]})})
    fence, newline = tok.encode("```\n", add_special_tokens=False)
    assert all(p[-1] == newline for p in prompts)
    model = scripted(tok, {newline: fence, fence: newline})
    want = ([fence, newline, fence, newline], "```\n```\n", "stop")
    for engine in (engine_hf.generate, engine_hf.reference_generate):
        rows = engine(model, tok, prompts, cfg, seed=0)
        assert [(r["completion_ids"], r["text"], r["finish_reason"]) for r in rows] == [want] * 4, engine.__name__
    width = len(prompts[0])
    stops = CompletionStops(tok, width, ["\n```\n"], False)
    assert stops(torch.tensor([prompts[0] + [fence, newline]]), None).tolist() == [False]
    assert stops(torch.tensor([prompts[0] + want[0]]), None).tolist() == [True]
    code = setup(tiny_model, "sample.stop_after_code=true")[0]               # the block closes at the same token
    assert [r["completion_ids"] for r in engine_hf.reference_generate(model, tok, prompts, code, seed=0)] == [want[0]] * 4


def test_the_text_is_the_kept_ids_own(tiny_model):
    """A last token that runs past the stop string ("\\n\\n" after "\\n```"): the text holds it too,
    so the judge scores the text of the ids the update trains on."""
    tok = load_tokenizer(load_config(None, [f"student.model={tiny_model}"]).student)
    enc = lambda s: tok.encode(s, add_special_tokens=False)                 # noqa: E731
    two = enc("\n\n")
    assert len(two) == 1
    ids = enc("x") + enc("\n") + enc("```") + two + enc("def")
    kept, text, reason = finish(tok, ids, ["\n```\n"], 160)
    assert (kept, text, reason) == (ids[:-1], "x\n```\n\n", "stop") and tok.decode(kept) == text
    block = enc("Here:\n```\nx = 1\n```") + two + enc("More")
    kept, text, reason = finish(tok, block, [], 160, code=True)
    assert reason == "stop" and kept == block[:-1] and text == tok.decode(kept) == "Here:\n```\nx = 1\n```\n\n"


def test_rows_that_end_at_their_first_token_one_after_another(tiny_model):
    """More completions than Python's recursion limit, each ending at its first token (max_new 1):
    each frees its slot for the next, in a loop (a recursion per row would raise RecursionError)."""
    cfg, tok, prompts = setup(tiny_model)
    model = load_student(cfg.student)
    k = sys.getrecursionlimit() + 50
    done = decode(model, tok, prompts[:1], k, 1, 4)[0]
    assert len(done) == k and all(len(r["ids"]) == 1 for r in done)
