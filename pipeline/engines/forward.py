"""The forward pass: per-token log pi(y_t) of (prompt, completion) rows under a model.

It serves the logprobs stage (no grad: the old policy's and the reference's
logprobs, computed once per epoch and read by every update variant), the update (with grad) and
the eval's reference NLL.
Logprobs are taken at the *sampling temperature*: mismatched generation settings are the classic
source of "negative KL".

Layout: prompt + completion left-padded, so every completion ends at the last position and only
its `Kc` last positions need logits (`logits_to_keep`). Two ways to run a batch, same values:

- padded: one forward over (B, T). What a GPU wants: one large kernel per layer, no loop.
- shared prompt (`update.share_prompt`): each distinct prompt once, its keys/values (with their
  autograd graph) repeated over its completions. Fewer FLOPs, a Python loop per prompt: what a
  CPU wants.

The full-vocabulary logits are turned into float32 log-softmax a chunk of sequences at a time
(`logprobs_from_logits`), so float32 logits never exist for more than `LOGIT_CHUNK_ELEMS` at once;
in training each chunk is recomputed in the backward pass instead of kept. On CUDA (FUSED_HEAD) the
padded forward goes further: the model returns its last hidden states and the head itself runs a
chunk of rows at a time (`head.fused_head`), so the float32 logits never exist whole (the whole
head held 6.3-6.4 copies of a micro-batch's logits at its peak, the fused 2.6-2.7: bench/head_memory.py
on the CPU). A batch longer than `update.max_batch_tokens` padded tokens runs as several passes (`split_by_tokens`).
"""
from __future__ import annotations

import random
from contextlib import contextmanager
from pathlib import Path

import torch
from torch.utils.checkpoint import checkpoint

from pipeline.engines.head import fp32_head, fused_head, head_linear, hidden_states_out, unwrapped
from pipeline.engines.hf import left_pad
from pipeline.config.errors import RunError

LOGIT_CHUNK_ELEMS = 1 << 28
"""float32 logits (sequences x positions x vocabulary) turned into log-softmax at once: 1 GiB. On
the CPU's default shapes (micro-batch 4 x 160 tokens x 49k vocabulary) one chunk holds it all."""

FUSED_CHUNK_ELEMS = 1 << 25
"""float32 logits one chunk of the fused head computes at once (128 MiB)."""
FUSED_HEAD: bool | str = "auto"
"""Whether the padded forward applies the LM head itself, a chunk of rows at a time (`head.fused_head`),
so the float32 logits of a whole batch (a 3B student's micro-batch of 16 x 512 completion tokens: 1.6 GB,
and as much again for each copy the log-softmax and its gradient make) never exist at once. auto: on
CUDA (where memory decides a pass's size); on the CPU one piece costs no recompute."""

LOGPROBS_FILE = "logprobs.pt"


def collate(rows: list[dict], pad_id: int, share_prompt: bool = False) -> dict[str, torch.Tensor]:
    """Left-pad prompt+completion so every completion ends at the last position.

    Then the logits we need are the last `max completion length` positions only
    (`logits_to_keep`), which skips most of the LM head's work on the prompt. With
    share_prompt the batch also carries its prompt groups (each distinct prompt and its rows)
    and the completions right-padded, for `token_logprobs`' shared-prompt forward.
    """
    seqs = [r["prompt_ids"] + r["completion_ids"] for r in rows]
    kc = max(len(r["completion_ids"]) for r in rows)
    input_ids, attn = left_pad(seqs, pad_id)                                                # (B, T), (B, T)
    mask = torch.tensor([[0.0] * (kc - len(r["completion_ids"])) + [1.0] * len(r["completion_ids"]) for r in rows])  # (B, Kc)
    out = {"input_ids": input_ids, "attention_mask": attn, "completion_mask": mask,
           "advantage": torch.tensor([float(r.get("advantage", 0.0)) for r in rows]),     # (B,)
           "sft": torch.tensor([float(bool(r.get("sft"))) for r in rows]),                # (B,) teacher rows
           "index": torch.tensor([r["index"] for r in rows]),
           "norm": torch.tensor([float(r.get("norm", max(len(r["completion_ids"]), 1))) for r in rows]),  # (B,)
           "sft_norm": torch.tensor([float(r.get("sft_norm", 1)) for r in rows]),                  # (B,)
           "trains": torch.tensor([float(r.get("trained_len", 1) > 0) for r in rows])}             # (B,) 0: masked out
    if share_prompt and all(r["prompt_ids"] and r["completion_ids"] for r in rows):
        pos = {id(r): j for j, r in enumerate(rows)}
        out["groups"] = [(torch.tensor([g[0]["prompt_ids"]]), torch.tensor([pos[id(r)] for r in g]))  # (1, P), (G,)
                         for g in _by_prompt(rows)]
        out["right_ids"] = torch.tensor([r["completion_ids"] + [pad_id] * (kc - len(r["completion_ids"]))
                                         for r in rows])                                   # (B, Kc)
    return out


def to_device(batch: dict, device) -> dict:
    """A collated batch on the model's device; on CUDA through pinned memory, so the copy does not
    wait for the GPU's queue (a pageable host-to-device copy synchronises the stream). device: a
    torch.device or its name."""
    device = torch.device(device)
    if device.type != "cuda":
        return batch

    def move(x):
        if isinstance(x, torch.Tensor):
            return x.pin_memory().to(device, non_blocking=True)
        if isinstance(x, (list, tuple)):
            return type(x)(move(v) for v in x)
        return x
    return {k: move(v) for k, v in batch.items()}


def _by_prompt(rows: list[dict]) -> list[list[dict]]:
    """Rows grouped by prompt, in first-seen order."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r["prompt_ids"]), []).append(r)
    return list(groups.values())


def prompt_ordered(rows: list[dict], seed: int | None = None) -> list[dict]:
    """Rows with each prompt's completions next to each other (groups in a seeded random order
    when seed is given), so that consecutive micro-batches hold whole prompt groups."""
    groups = _by_prompt(rows)
    if seed is not None:
        random.Random(seed).shuffle(groups)
    return [r for g in groups for r in g]


def split_by_tokens(rows: list[dict], budget: int | None) -> list[list[dict]]:
    """Consecutive runs of rows whose padded size (rows x longest row) stays within budget (at
    least one row each); all rows in one run when budget is None."""
    if not budget:
        return [rows]
    out: list[list[dict]] = []
    cur: list[dict] = []
    longest = 0
    for r in rows:
        n = len(r["prompt_ids"]) + len(r["completion_ids"])
        if cur and max(longest, n) * (len(cur) + 1) > budget:
            out.append(cur)
            cur, longest = [], 0
        cur.append(r)
        longest = max(longest, n)
    return out + [cur] if cur else out


def token_budget(model, setting: int | str, training: bool, checkpointing: bool = False) -> int | None:
    """update.max_batch_tokens -> padded tokens per forward pass, None for no limit. auto: no limit
    on the CPU; on CUDA, 60% of the free GPU memory over `bytes_per_token`."""
    if setting != "auto":
        return int(setting)
    param = next(model.parameters())
    if param.device.type != "cuda":
        return None
    c = unwrapped(model).config   # the update's model under DDP on several GPUs holds no config itself
    c = c.get_text_config() if hasattr(c, "get_text_config") else c
    free, _ = torch.cuda.mem_get_info(param.device)
    return max(256, int(0.6 * free / bytes_per_token(c, param.element_size(), training, checkpointing)))


def bytes_per_token(c, elem: int, training: bool, checkpointing: bool = False) -> int:
    """An estimate of one token's activation memory in a forward pass of a decoder of config c:
    per layer about (18 x hidden + 6 x intermediate) values kept for the backward pass, in every
    layer (training), in one layer plus each layer's input (activation checkpointing), or in one
    layer at a time (no grad); plus its logits and their gradient. Qwen2.5-3B's shape gives 7.4 MB
    a token plus the logits, against 7.2 MB measured on an H100 (LoRA forward + backward of
    16 x 612 tokens: 72.5 GiB peak, 6 GiB of it weights)."""
    h, layers = c.hidden_size, c.num_hidden_layers
    inter = getattr(c, "intermediate_size", None) or 4 * h
    layer = (18 * h + 6 * inter) * elem
    logit = 4  # the LM head computes in float32 (`fp32_head`), whatever the weights' dtype
    if not training:
        return layer + c.vocab_size * logit
    if checkpointing:
        return layers * h * elem + layer + 2 * c.vocab_size * logit
    return layers * layer + 2 * c.vocab_size * logit


def _logp_piece(logits: torch.Tensor, target: torch.Tensor, temperature: float) -> torch.Tensor:
    x = logits.float() / temperature
    return x.gather(-1, target[..., None])[..., 0] - torch.logsumexp(x, -1)


@torch.no_grad()
def _no_grad_entropy(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    x = logits.float() / temperature
    lse = torch.logsumexp(x, -1, keepdim=True)
    return lse[..., 0] - (torch.exp(x - lse) * x).sum(-1)


def logprobs_from_logits(logits: torch.Tensor, target: torch.Tensor, temperature: float,
                         with_entropy: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """log softmax(logits / T) at the targets, (B, K), and optionally the entropy (no grad).

    Computed in float32 a chunk of sequences at a time (LOGIT_CHUNK_ELEMS), so a bf16 model's
    (B, K, V) logits never exist in float32 all at once; with grad, each chunk runs under
    activation checkpointing so its float32 copy is recomputed in backward, not kept."""
    b, k, v = logits.shape
    rows = max(1, LOGIT_CHUNK_ELEMS // max(k * v, 1))
    if rows >= b:
        lp = _logp_piece(logits, target, temperature)
        return lp, (_no_grad_entropy(logits, temperature) if with_entropy else None)
    lps, ents = [], []
    for s in range(0, b, rows):
        x, t = logits[s:s + rows], target[s:s + rows]
        lps.append(checkpoint(_logp_piece, x, t, temperature, use_reentrant=False) if x.requires_grad
                   else _logp_piece(x, t, temperature))
        if with_entropy:
            ents.append(_no_grad_entropy(x, temperature))
    return torch.cat(lps), (torch.cat(ents) if with_entropy else None)


def _shares_a_prompt(batch: dict) -> bool:
    """Whether the shared-prompt path pays for this batch (update.share_prompt): some prompt of it
    has several rows. Rows of distinct prompts (the warm-start's, the teacher's) run as one padded
    batch: the per-prompt loop would make two calls a row, 1.86x the time of the padded batch on the
    default warm-start's rows (bench/warm_start.py), for the same values."""
    return "groups" in batch and any(rows.shape[0] > 1 for _, rows in batch["groups"])


def token_logprobs(model, batch: dict, temperature: float, with_entropy: bool = False):
    """log pi(y_t) for the completion tokens, (B, Kc); optionally the entropy per token."""
    if _shares_a_prompt(batch):
        return _shared_prompt_logprobs(model, batch, temperature, with_entropy)
    kc = batch["completion_mask"].shape[1]
    # positions as generation saw them under left padding
    pos = (batch["attention_mask"].cumsum(-1) - 1).clamp(min=0)
    target = batch["input_ids"][:, -kc:]
    parts = fused_head(model) if _fuse(batch["input_ids"]) else None
    if parts is not None:   # the head a chunk of rows at a time: (B, Kc, V) float32 logits never at once
        with hidden_states_out(model):
            h = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=pos,
                      logits_to_keep=kc + 1).logits[:, :-1]                                # (B, Kc, H)
        return _fused_logprobs(h, target, parts, temperature, with_entropy)
    with fp32_head(model):
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=pos,
                       logits_to_keep=kc + 1).logits[:, :-1]                               # (B, Kc, V)
    return logprobs_from_logits(logits, target, temperature, with_entropy)


def _fuse(ids: torch.Tensor) -> bool:
    return ids.is_cuda if FUSED_HEAD == "auto" else bool(FUSED_HEAD)


def _head_piece(h, target, w, b, temperature: float, with_entropy: bool):
    x = head_linear(h, w, b)
    return _logp_piece(x, target, temperature), (_no_grad_entropy(x, temperature) if with_entropy else None)


def _fused_logprobs(h: torch.Tensor, target: torch.Tensor, parts, temperature: float, with_entropy: bool):
    """logprobs_from_logits of the head's logits of hidden states h (B, Kc, H), FUSED_CHUNK_ELEMS of
    float32 logits at a time; with grad each chunk's logits are recomputed in the backward pass from
    its hidden states (the head's forward twice: on a 1.5B or 3B student about 2% of the update's FLOPs)."""
    (b, k, _), (w, bias) = h.shape, parts
    rows = max(1, FUSED_CHUNK_ELEMS // max(k * w.shape[0], 1))
    lps, ents = [], []
    for s in range(0, b, rows):
        args = (h[s:s + rows], target[s:s + rows], w, bias, temperature, with_entropy)
        lp, ent = checkpoint(_head_piece, *args, use_reentrant=False) if h.requires_grad else _head_piece(*args)
        lps.append(lp)
        ents.append(ent)
    return torch.cat(lps), (torch.cat(ents) if with_entropy else None)


def _shared_prompt_logprobs(model, batch: dict, temperature: float, with_entropy: bool):
    """token_logprobs with each prompt run once: per prompt group of the batch, the prompt's keys
    and values (with their autograd graph) are repeated over the group's completions, which run
    on top of them. Same values and gradients as the left-padded batch, without a copy of the
    prompt per completion."""
    ids, mask = batch["right_ids"], batch["completion_mask"]                               # (B, Kc) each
    kc = ids.shape[1]
    lens = mask.sum(-1).long()
    arange = torch.arange(kc, device=ids.device)
    right = (arange[None, :] < lens[:, None]).long()                                       # (B, Kc) right-padded
    shift = (kc - lens)[:, None]
    src = (arange[None, :] - shift).clamp(min=0)                                           # right -> left layout
    logp_rows, ent_rows, order = [], [], []
    for prompt, rows in batch["groups"]:                                                   # (1, P), (G,)
        g, p = rows.shape[0], prompt.shape[1]
        with fp32_head(model):
            head = model(input_ids=prompt, use_cache=True, logits_to_keep=1)
            cache = head.past_key_values
            cache.batch_repeat_interleave(g)
            tail = model(input_ids=ids[rows], attention_mask=torch.cat([right.new_ones(g, p), right[rows]], 1),
                         position_ids=torch.arange(p, p + kc, device=ids.device).expand(g, kc), past_key_values=cache,
                         use_cache=True, logits_to_keep=kc)
        # the prompt's last position predicts the first completion token
        logits = torch.cat([head.logits[:, -1:].expand(g, 1, -1), tail.logits[:, :-1]], 1)  # (G, Kc, V)
        lp, ent = logprobs_from_logits(logits, ids[rows], temperature, with_entropy)
        logp_rows.append(torch.gather(lp, 1, src[rows]))
        if with_entropy:
            ent_rows.append(torch.gather(ent, 1, src[rows]))
        order.append(rows)
    inverse = torch.empty_like(lens)
    inverse[torch.cat(order)] = torch.arange(len(lens), device=lens.device)
    logp = torch.cat(logp_rows)[inverse] * mask                                            # (B, Kc)
    ent = torch.cat(ent_rows)[inverse] * mask if with_entropy else None
    return logp, ent


def resolve_share_prompt(setting: bool | str, device) -> bool:
    """update.share_prompt auto: on for the CPU, off for CUDA (its per-prompt loop measured 3x slower
    there than one padded batch: 2.9k vs 8.4k trained tokens/s on an H100 at 1.5B)."""
    return device.type == "cpu" if setting == "auto" else bool(setting)


def right_aligned(values: dict[int, torch.Tensor], n: int, width: int, device) -> torch.Tensor:
    """(n, width): row i holds values[i] at its right end, zeros before (rows without values stay
    zero). `collate` ends every completion at the last position, so `[:, -Kc:]` of the rows of a
    batch lines up with its (B, Kc) logprobs. width: the longest completion of the rows."""
    out = torch.zeros(n, max(width, 1))
    for i, v in values.items():
        if len(v):
            out[i, width - len(v):] = v
    return out.to(device)


def rollout_logprobs(model, rows: list[dict], temperature: float, pad_id: int, policy_is_reference: bool,
                     batch_size: int = 8, share_prompt: bool | str = "auto", reference: str | None = None,
                     max_tokens: int | str | None = "auto") -> tuple[dict[int, torch.Tensor], dict[int, torch.Tensor]]:
    """Per-token logp of each row's completion under the policy that sampled it (old: the active
    adapter) and under the reference, no grad. Rows with `sft` need neither and get none.
    reference: the name of a second adapter loaded into the model to serve as the reference (the
    warm-start, update.kl_reference=start); None: the base model (the adapter disabled).
    policy_is_reference: a new adapter (LoRA B = 0), or the reference adapter itself: one pass
    under the active adapter, not two. (Until logprobs v5 that one pass
    ran with the adapter disabled, so epoch 1 after a warm-start took the base model's logprobs
    as old and reference: a clipped ratio and a KL pull toward the base model from its first step.)
    share_prompt: batch by prompt group, as the update does (`update.share_prompt`).
    max_tokens: padded tokens per forward pass (`update.max_batch_tokens`). The results come back
    to the host once, after the last batch."""
    peft_model = getattr(model, "module", model)
    has_adapter = hasattr(peft_model, "disable_adapter")
    device = next(model.parameters()).device
    share_prompt = resolve_share_prompt(share_prompt, device)

    @contextmanager
    def as_reference():
        if reference is None:
            with peft_model.disable_adapter():
                yield
            return
        active = peft_model.active_adapter
        trainable = any(p.requires_grad for p in peft_model.parameters())
        peft_model.set_adapter(reference, inference_mode=True)
        try:
            yield
        finally:
            peft_model.set_adapter(active, inference_mode=not trainable)

    todo = [{**r, "index": i} for i, r in enumerate(rows) if not r.get("sft")]
    if share_prompt:  # one prompt's completions together: each prompt runs once per batch
        todo = prompt_ordered(todo)
    else:  # by length, which wastes less on padding
        todo.sort(key=lambda r: len(r["prompt_ids"]) + len(r["completion_ids"]))
    budget = token_budget(model, max_tokens, training=False) if max_tokens is not None else None
    batches = [part for b in range(0, len(todo), batch_size) for part in split_by_tokens(todo[b:b + batch_size], budget)]
    outs = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for chunk in batches:
            batch = to_device(collate(chunk, pad_id, share_prompt), device)
            lp, _ = token_logprobs(model, batch, temperature)  # the active adapter: the policy
            if policy_is_reference or not has_adapter:
                rp = lp  # the policy is the reference: under the active adapter, never the adapter disabled
            else:
                with as_reference():
                    rp, _ = token_logprobs(model, batch, temperature)
            outs.append((chunk, lp, rp))
    model.train(was_training)
    old, ref = {}, {}
    for chunk, lp, rp in outs:  # keep only the real tokens
        lp, rp = lp.float().cpu(), rp.float().cpu()
        for j, r in enumerate(chunk):
            n = len(r["completion_ids"])
            old[r["index"]], ref[r["index"]] = lp[j, lp.shape[1] - n:].clone(), rp[j, rp.shape[1] - n:].clone()
    return old, ref


def save_logprobs(d: Path, n_rows: int, old: dict, ref: dict) -> None:
    """The logprobs stage's output: per selected row, its completion tokens' logprobs under the
    policy that sampled (old) and the KL reference (ref); read back by `load_logprobs`."""
    torch.save({"rows": n_rows, "old": old, "ref": ref}, d / LOGPROBS_FILE)


def load_logprobs(d: Path, n_rows: int) -> tuple[dict, dict]:
    lp = torch.load(d / LOGPROBS_FILE, weights_only=True)
    if lp["rows"] != n_rows:
        raise RunError(f"{d / LOGPROBS_FILE} holds logprobs for {lp['rows']} rows but the selected batch has "
                       f"{n_rows}; recompute it with `rlaif epoch {int(d.parent.name.split('-')[1])} --only logprobs --force`")
    return lp["old"], lp["ref"]
