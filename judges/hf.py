"""A local transformers model as judge or teacher (no API, no cost; the same rubric and cache).

The judge is asked for the rubric's JSON and parsed with `rubric.parse`; a model that does not
answer in JSON gives `None` (counted as a parse failure), never 0. Greedy decoding, so a
judgement is a pure function of the cache key's ingredients.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import torch

from data.schema import Problem
from judges import rubric
from judges.base import Generation, Score
from judges.cache import cache_key
from judges.hashing import sha256_text

JSON_HINT = ('\n\nAnswer with one JSON object only, e.g. {"correctness": 7, "efficiency": 6, '
             '"readability": 8, "overall": 7}.')


class HFJudge:
    kind = "hf"

    def __init__(self, model: str, load: Callable[[str, str], tuple[Any, Any]], max_new_tokens: int = 128,
                 teacher_max_new_tokens: int = 384, device: str = "auto"):
        self.model_id = model
        self.device = device  # run.device
        self.load = load  # (model id, device) -> (tokenizer, model): the pipeline's own model loading
        self.tok = self.model = None  # loaded on the first call: keys and dry-runs need no weights
        self.max_new_tokens = max_new_tokens
        self.teacher_max_new_tokens = teacher_max_new_tokens
        self._lock = threading.Lock()  # one generate at a time on this model

    def ingredients(self) -> dict[str, Any]:
        return {"kind": "hf", "model": self.model_id, "base_url": "", "rubric": rubric.rubric_hash(),
                "parser": rubric.PARSER_VERSION, "params": {"max_new_tokens": self.max_new_tokens, "greedy": True,
                                                            "json_hint": JSON_HINT}}

    def teacher_ingredients(self) -> dict[str, Any]:
        return {"kind": "hf-teacher", "model": self.model_id, "base_url": "",
                "params": {"max_new_tokens": self.teacher_max_new_tokens, "greedy": True}}

    def key(self, problem: Problem, completion: str, reference: str | None) -> str:
        own = {} if problem.language == "python" else {"rubric": rubric.rubric_hash(problem.language)}
        return cache_key({**self.ingredients(), **own, "prompt": sha256_text(problem.prompt),
                          "completion": sha256_text(completion),
                          "reference": sha256_text(reference) if reference is not None else None})

    def teacher_key(self, problem: Problem) -> str:
        return cache_key({**self.teacher_ingredients(), "prompt": sha256_text(problem.prompt)})

    def _load(self) -> None:
        self.tok, self.model = _loaded(self.model_id, self.device, self.load)

    @torch.no_grad()
    def _generate(self, system: str, user: str, max_new: int) -> str:
        with self._lock:
            if self.model is None:
                self._load()
        msgs = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
        ids = self.tok.apply_chat_template(msgs, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        ids = {k: v.to(self.model.device) for k, v in ids.items()}
        with self._lock:
            out = self.model.generate(**ids, do_sample=False, max_new_tokens=max_new,
                                      pad_token_id=self.tok.pad_token_id)
        return self.tok.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)

    def estimate_usd(self, *a, **kw) -> float:
        return 0.0

    estimate_generate_usd = estimate_usd

    def score(self, problem: Problem, completion: str, reference: str | None = None) -> Score:
        system, user = rubric.build_prompt(problem.prompt, completion, reference, problem.language)
        raw = self._generate(system, user + JSON_HINT, self.max_new_tokens)
        value, breakdown = rubric.parse(raw)
        return Score(value=value, breakdown=breakdown, raw=raw)

    def generate(self, problem: Problem) -> Generation:
        text = self._generate("", problem.prompt, self.teacher_max_new_tokens)
        return Generation(text=text, raw=text, usage={}, cost_usd=0.0)


_LOADED: dict[tuple[str, str], tuple[Any, Any]] = {}


def _loaded(model_id: str, device: str, load: Callable[[str, str], tuple[Any, Any]]):
    """(tokenizer, model) of a judge/teacher model on run.device, loaded once per process (the
    teacher and judge stages and eval's judging share it)."""
    if (model_id, device) not in _LOADED:
        _LOADED[(model_id, device)] = load(model_id, device)
    return _LOADED[(model_id, device)]
