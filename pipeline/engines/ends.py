"""Where a completion ends, one rule for every engine: the ids that end a turn, the decode loop's
`Stopper`, transformers' generate's stopping criterion (`CompletionStops`) and `finish`, the cut every
engine's rows go through (the decode loop's, generate's and vLLM's).

- A turn ends at the tokenizer's eos or at any eos id of the model's generation_config (`end_ids`:
  an int or a list; Llama-3-Instruct, Gemma-it and Qwen2.5-Instruct ship several, and transformers'
  generate and vLLM stop at each). The decode loop also ends a row at the pad token. The token that
  ended the row is kept in its ids (the update trains the policy to end there): finish_reason eos.
- A stop string, or (sample.stop_after_code) the close of the first code block, is looked for in the
  completion's own text, never in its prompt's: transformers' StopStringCriteria reads prompt and
  completion as one, and a chat prompt ends "assistant\\n": the stop string "\\n```\\n" would fire on
  an answer that opens with a bare fence.
"""
from __future__ import annotations

import re

import torch

# a fence line, complete with its newline: ``` or ```python (group 1: the language tag)
_FENCE_LINE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[ \t]*\n", re.M)


def code_end(text: str) -> int | None:
    """Where the answer's first fenced code block ends: just past its closing ``` line (newline
    included), or None while no block has closed. The first fence line opens the block whatever it
    looks like, so a bare ``` that opens an answer is never taken for a close (the stop string
    "\n```\n" is); the close is the next bare ``` line."""
    fences = _FENCE_LINE.finditer(text)
    if next(fences, None) is None:
        return None
    return next((f.end() for f in fences if not f.group(1)), None)


def end_ids(tok, generation_config=None) -> frozenset[int]:
    """The ids that end a turn: the tokenizer's eos and every eos_token_id of the generation_config
    (the model's: `model.generation_config`), an int or a list."""
    extra = getattr(generation_config, "eos_token_id", None)
    extra = list(extra) if isinstance(extra, (list, tuple)) else [extra]
    return frozenset(int(t) for t in (tok.eos_token_id, *extra) if t is not None)


def model_end_ids(tok, model) -> frozenset[int]:
    """`end_ids` of a model (a PeftModel or the sampling copy: its base's generation_config)."""
    return end_ids(tok, getattr(model, "generation_config", None))


def _with_pad(tok, ends) -> set[int]:
    return set(end_ids(tok) if ends is None else ends) | ({tok.pad_token_id} - {None})


class Stopper:
    """Whether a row is done after its newest token (ids: its completion's, never its prompt's): an
    end id (`end_ids`; None: the tokenizer's eos) or pad, max_new, a stop string, or (code) the first
    code block closed. Text checks decode the row only when its newest token could end one."""

    def __init__(self, tok, max_new: int, stop: list[str], code: bool, ends=None):
        self.tok, self.max_new, self.stop, self.code = tok, max_new, stop, code
        self.ends = _with_pad(tok, ends)
        self.last_chars = {s[-1] for s in stop if s}
        self.text_of: dict[int, str] = {}

    def __call__(self, ids: list[int]) -> bool:
        t = ids[-1]
        if t in self.ends or len(ids) >= self.max_new:
            return True
        return self.could_end(t) and self.text_ends(ids)

    def could_end(self, t: int) -> bool:
        """Whether token t could complete a stop string (it holds one's last character) or a fence
        line (a newline)."""
        if not (self.stop or self.code):
            return False
        piece = self.text_of.get(t)
        if piece is None:
            piece = self.text_of[t] = self.tok.decode([t])
        return bool((self.stop and any(c in piece for c in self.last_chars)) or (self.code and "\n" in piece))

    def text_ends(self, ids: list[int]) -> bool:
        """The completion's text holds a stop string or (code) a closed code block."""
        text = self.tok.decode(ids, skip_special_tokens=True)
        return bool(any(s in text for s in self.stop) or (self.code and code_end(text) is not None))


class CompletionStops:
    """generate's stopping criterion for stop strings and sample.stop_after_code: `Stopper`'s text
    check over each row's completion (its tokens past `width`, the padded prompts' width) only. eos
    and max_new are generate's own criteria."""

    def __init__(self, tok, width: int, stop: list[str], code: bool):
        self.width, self.stopper = width, Stopper(tok, 0, stop, code)

    def __call__(self, input_ids: torch.Tensor, scores, **kwargs) -> torch.Tensor:
        done = [False] * input_ids.shape[0]
        if input_ids.shape[1] > self.width:
            for i, t in enumerate(input_ids[:, -1].tolist()):
                if self.stopper.could_end(t):
                    done[i] = self.stopper.text_ends(input_ids[i, self.width:].tolist())
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


def finish(tok, ids: list[int], stop: list[str], max_new: int, code: bool = False,
           ends=None) -> tuple[list[int], str, str]:
    """Cut a completion's ids (as an engine drew them, generate's padding after) where it ended.
    Returns (ids kept, text, finish_reason). ends: the ids that end a turn (`end_ids`; None: the
    tokenizer's eos); the pad token ends a row too.

    - A stop string (code=True, sample.stop_after_code: the close of the first code block) in the
      text before the first end id or pad: the ids cut to the shortest prefix whose text holds it,
      the text that prefix's own, so text and ids agree: the stop string and a closing fence are
      kept, and so is the rest of the last token where it runs past them ("\\n\\n" where the stop
      string is "\\n```"): the judge scores the text of the ids the update trains on. stop.
    - Else an end id or pad: the model ended the row with it (generate pads a row only after an end
      id or a stop `CompletionStops` found in its completion, which the case above takes): kept in
      the ids, not in the text (an end id the tokenizer does not call special would show): eos.
    - Else the whole row: length at max_new tokens (eos short of it).
    """
    last = _with_pad(tok, ends)
    end = next((i for i, t in enumerate(ids) if t in last), None)
    body = ids if end is None else ids[:end]

    def text(x: list[int]) -> str:
        return tok.decode(x, skip_special_tokens=True)

    def stops(s: str) -> bool:
        return any(x in s for x in stop) or (code and code_end(s) is not None)

    if (stop or code) and stops(text(body)):
        k = next(k for k in range(1, len(body) + 1) if stops(text(body[:k])))
        return body[:k], text(body[:k]), "stop"
    if end is not None:
        return ids[: end + 1], text(body), "eos"
    return ids, text(ids), ("length" if len(ids) >= max_new else "eos")
