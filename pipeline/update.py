"""update: policy-gradient steps with a KL penalty on a LoRA adapter -> the policy of epoch N.

For each completion token t (logp = log pi(y_t | y_<t, x), recomputed by a forward pass at
the *sampling temperature*, since mismatched generation settings are the classic source of
"negative KL"):

    ratio  = exp(logp - logp_old)                          # logp_old: the policy before this update
    policy = -min(ratio * A, clip(ratio, 1-e, 1+e) * A)    # grpo (PPO clip, Schulman et al. 2017)
           = -logp * A                                     # reinforce (Williams 1992)
    d      = ref - logp                                    # ref: update.kl_reference (warm-start or base)
    kl     = exp(d) - d - 1                                # k3, never negative (http://joschu.net/blog/kl-approx.html)
           | -d (k1) | d^2 / 2 (k2)
    loss   = mean over sequences of (sum over its tokens of policy + kl_coef * kl) / norm
    norm   = its own length                               # grpo (GRPO eq. 3)
           | mean length of the optimizer step's rows     # dapo (DAPO's token-level loss)
           | max_new_tokens                               # dr_grpo (Dr. GRPO)

Dividing each sequence by its own length (grpo) favours long completions among the ones with
negative advantage (each of their tokens is pushed down less) and short ones among the positive
(Liu et al. 2025, "Understanding R1-Zero-Like Training"); dapo and dr_grpo give every token of the
step the same weight. TRL's GRPOTrainer offers the same three under `loss_type`.

AdamW, warmup + cosine (or linear / constant / restarts) from `transformers.get_scheduler`,
gradient clipping and accumulation, `update.epochs` passes over the batch; all on
`accelerate`, so `accelerate launch` can shard it over processes. Left out on purpose:
value heads, reward models, and any loss variant we have no user for.
"""
from __future__ import annotations

import logging
import math
import os
import random
import shutil
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
from trl.trainer.utils import entropy_from_logits, selective_log_softmax

from pipeline.artifacts import read_manifest
from pipeline.config import UpdateConfig
from pipeline.model import check_adapter_base, load_student, resolve
from pipeline.runner import POLICY, REFERENCE, Ctx, RunError
from pipeline.sample import left_pad
from pipeline.tables import load_table

log = logging.getLogger("rlaif")


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
           "advantage": torch.tensor([float(r["advantage"]) for r in rows]),              # (B,)
           "sft": torch.tensor([float(bool(r.get("sft"))) for r in rows]),                # (B,) teacher rows
           "index": torch.tensor([r["index"] for r in rows]),
           "norm": torch.tensor([float(r.get("norm", max(len(r["completion_ids"]), 1))) for r in rows])}  # (B,)
    if share_prompt and all(r["prompt_ids"] and r["completion_ids"] for r in rows):
        pos = {id(r): j for j, r in enumerate(rows)}
        out["groups"] = [(torch.tensor([g[0]["prompt_ids"]]), torch.tensor([pos[id(r)] for r in g]))  # (1, P), (G,)
                         for g in _by_prompt(rows)]
        out["right_ids"] = torch.tensor([r["completion_ids"] + [pad_id] * (kc - len(r["completion_ids"]))
                                         for r in rows])                                   # (B, Kc)
    return out


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


def token_logprobs(model, batch: dict, temperature: float, with_entropy: bool = False):
    """log pi(y_t) for the completion tokens, (B, Kc); optionally the entropy per token."""
    if "groups" in batch:
        return _shared_prompt_logprobs(model, batch, temperature, with_entropy)
    kc = batch["completion_mask"].shape[1]
    # positions as generation saw them under left padding
    pos = (batch["attention_mask"].cumsum(-1) - 1).clamp(min=0)
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], position_ids=pos,
                   logits_to_keep=kc + 1).logits[:, :-1] / temperature                     # (B, Kc, V)
    logp = selective_log_softmax(logits, batch["input_ids"][:, -kc:])                      # (B, Kc)
    ent = None
    if with_entropy:
        with torch.no_grad():
            ent = entropy_from_logits(logits)
    return logp, ent


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
        head = model(input_ids=prompt, use_cache=True, logits_to_keep=1)
        cache = head.past_key_values
        cache.batch_repeat_interleave(g)
        tail = model(input_ids=ids[rows], attention_mask=torch.cat([right.new_ones(g, p), right[rows]], 1),
                     position_ids=torch.arange(p, p + kc, device=ids.device).expand(g, kc), past_key_values=cache,
                     use_cache=True, logits_to_keep=kc)
        # the prompt's last position predicts the first completion token
        logits = torch.cat([head.logits[:, -1:].expand(g, 1, -1), tail.logits[:, :-1]], 1) / temperature  # (G, Kc, V)
        logp_rows.append(torch.gather(selective_log_softmax(logits, ids[rows]), 1, src[rows]))
        if with_entropy:
            with torch.no_grad():
                ent_rows.append(torch.gather(entropy_from_logits(logits), 1, src[rows]))
        order.append(rows)
    inverse = torch.empty_like(lens)
    inverse[torch.cat(order)] = torch.arange(len(lens), device=lens.device)
    logp = torch.cat(logp_rows)[inverse] * mask                                            # (B, Kc)
    ent = torch.cat(ent_rows)[inverse] * mask if with_entropy else None
    return logp, ent


def pad_left(xs: list[torch.Tensor], width: int) -> torch.Tensor:
    """Stack 1-D tensors, zero-padded on the left to `width` (matches `collate`'s layout)."""
    return torch.stack([torch.cat([x.new_zeros(width - len(x)), x]) for x in xs])


def kl_terms(logp: torch.Tensor, ref: torch.Tensor, estimator: str) -> dict[str, torch.Tensor]:
    d = ref - logp
    k1, k2, k3 = -d, 0.5 * d**2, torch.exp(d) - d - 1
    return {"k1": k1, "k2": k2, "k3": k3, "loss": {"k1": k1, "k2": k2, "k3": k3}[estimator]}


def save_checkpoint(path: Path, st: dict, old: dict, ref: dict, model, optimizer, scheduler) -> None:
    """Everything a resumed update needs, written atomically (temp file + rename)."""
    from peft import get_peft_model_state_dict
    tmp = path.with_suffix(".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state": st, "old": old, "ref": ref, "adapter": get_peft_model_state_dict(model),
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state()}, tmp)
    os.replace(tmp, path)


def restore(path: Path, model, optimizer, scheduler) -> tuple[dict, dict, dict]:
    from peft import set_peft_model_state_dict
    ck = torch.load(path, weights_only=False)  # our own file, written by save_checkpoint
    set_peft_model_state_dict(model, ck["adapter"])
    optimizer.load_state_dict(ck["optimizer"])
    scheduler.load_state_dict(ck["scheduler"])
    torch.set_rng_state(ck["rng"])
    return ck["state"], ck["old"], ck["ref"]


def rollout_logprobs(model, rows: list[dict], temperature: float, pad_id: int, policy_is_reference: bool,
                     batch_size: int = 8, share_prompt: bool = True, reference: str | None = None
                     ) -> tuple[dict[int, torch.Tensor], dict[int, torch.Tensor]]:
    """Per-token logp of each row's completion under the policy that sampled it (old: the active
    adapter) and under the reference, no grad. Rows with `sft` need neither and get none.
    reference: the name of a second adapter loaded into the model to serve as the reference (the
    warm-start, update.kl_reference=start); None: the base model (the adapter disabled).
    policy_is_reference: a new adapter (LoRA B = 0), or the reference adapter itself: one pass
    under the active adapter, not two. (Until logprobs v5 that one pass
    ran with the adapter disabled, so epoch 1 after a warm-start took the base model's logprobs
    as old and reference: a clipped ratio and a KL pull toward the base model from its first step.)
    share_prompt: batch by prompt group, as the update does (`update.share_prompt`)."""
    from contextlib import contextmanager
    peft_model = getattr(model, "module", model)
    has_adapter = hasattr(peft_model, "disable_adapter")

    @contextmanager
    def as_reference():
        if reference is None:
            with peft_model.disable_adapter():
                yield
            return
        active = peft_model.active_adapter
        peft_model.set_adapter(reference)
        try:
            yield
        finally:
            peft_model.set_adapter(active)

    todo = [{**r, "index": i} for i, r in enumerate(rows) if not r.get("sft")]
    if share_prompt:  # one prompt's completions together: each prompt runs once per batch
        todo = prompt_ordered(todo)
    else:  # by length, which wastes less on padding than the update's shuffled order
        todo.sort(key=lambda r: len(r["prompt_ids"]) + len(r["completion_ids"]))
    batches = [todo[b:b + batch_size] for b in range(0, len(todo), batch_size)]
    old, ref = {}, {}
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for chunk in batches:
            batch = collate(chunk, pad_id, share_prompt)
            lp, _ = token_logprobs(model, batch, temperature)  # the active adapter: the policy
            if policy_is_reference or not has_adapter:
                rp = lp  # the policy is the reference: under the active adapter, never the adapter disabled
            else:
                with as_reference():
                    rp, _ = token_logprobs(model, batch, temperature)
            lens = batch["completion_mask"].sum(-1).long().tolist()
            for j, i in enumerate(batch["index"].tolist()):  # keep only the real tokens
                old[i], ref[i] = lp[j, lp.shape[1] - lens[j]:].clone(), rp[j, rp.shape[1] - lens[j]:].clone()
    model.train(was_training)
    return old, ref


def adapt_kl_coef(coef: float, kl: float, target: float, horizon: float) -> float:
    """Proportional controller of Ziegler et al. 2019 (arXiv:1909.08593, section 2.2):
    beta <- beta * (1 + clip(KL / target - 1, -0.2, 0.2) / horizon), per optimizer step."""
    return coef * (1 + max(-0.2, min(0.2, kl / target - 1)) / horizon)


def length_norms(ordered: list[dict], rows_per_step: int, loss_type: str, max_len: int) -> list[float]:
    """The number each row's token sum is divided by in the policy loss, for `ordered` (one pass's
    rows in loader order; an optimizer step takes `rows_per_step` of them in turn).
    grpo: the row's own length; dapo: the mean length of the step's policy-gradient rows (so every
    token of the step weighs the same, and a step of equal lengths loses exactly what grpo does);
    dr_grpo: max_len, a constant."""
    if loss_type == "grpo":
        return [float(max(len(r["completion_ids"]), 1)) for r in ordered]
    if loss_type == "dr_grpo":
        return [float(max_len)] * len(ordered)
    out: list[float] = []
    for s in range(0, len(ordered), rows_per_step):
        step = ordered[s:s + rows_per_step]
        pg = [len(r["completion_ids"]) for r in step if not r.get("sft")]
        out += [max(sum(pg) / len(pg), 1.0) if pg else 1.0] * len(step)
    return out


def seq_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over each sequence's tokens, (B, T) -> (B,) (GRPO's 1/|o_i| normalisation)."""
    return (x * mask).sum(-1) / mask.sum(-1).clamp(min=1)


def masked_seq_mean(x: torch.Tensor, mask: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """Mean over each sequence's tokens, then over the sequences with weight 1 (all by default)."""
    per = seq_mean(x, mask)
    if weight is None:
        return per.mean()
    return (per * weight).sum() / weight.sum().clamp(min=1)


def train(model, rows: list[dict], uc: UpdateConfig, temperature: float, pad_id: int, seed: int = 0,
          show_progress: bool = True, fresh_adapter: bool = False, kl_coef: float | None = None,
          sft_coef: float | None = None, checkpoint: Path | None = None,
          checkpoint_every: int = 0, logprobs: tuple[dict, dict] | None = None,
          max_len: int | None = None) -> dict[str, float]:
    """Run `uc.epochs` passes of the policy-gradient update over `rows` (in place on `model`).

    rows: dicts with prompt_ids, completion_ids, advantage. Returns the update's figures.
    fresh_adapter: the adapter is newly initialised (LoRA B = 0), so the policy before the
    update *is* the reference and one no-grad forward pass per row is saved.
    kl_coef: the starting KL coefficient (default uc.kl_coef; adaptive runs carry it across epochs).
    Rows with `sft: True` are teacher answers: their loss is sft_coef (default
    uc.teacher_sft_coef) x the mean token NLL, in place of the policy-gradient loss.
    checkpoint: a directory for `state.pt`, written every `checkpoint_every` optimizer steps and
    resumed from when present (adapter, optimizer, scheduler, logprobs, counters, RNG).
    logprobs: (old, ref) as `rollout_logprobs` returns them (the logprobs stage's, shared by every
    update variant of the epoch); computed here when None.
    max_len: dr_grpo's constant (the sampling max_new_tokens; default the longest completion in rows).
    """
    sft_coef = uc.teacher_sft_coef if sft_coef is None else sft_coef
    from accelerate import Accelerator
    from accelerate.utils import set_seed
    from transformers import get_scheduler

    accelerator = Accelerator(gradient_accumulation_steps=uc.grad_accum, cpu=not torch.cuda.is_available())
    set_seed(seed)
    rows = [{**r, "index": i} for i, r in enumerate(rows)]
    max_len = max_len or max([len(r["completion_ids"]) for r in rows] + [1])

    def pass_loader(p: int, skip: int = 0):
        """Pass p's micro-batches in a seeded order of its own, so a resumed run sees the same ones.
        share_prompt: prompt groups in a random order, each group's rows together."""
        if uc.share_prompt:
            ordered = prompt_ordered(rows, seed * 1000 + p)
        else:
            order = list(range(len(rows)))
            random.Random(seed * 1000 + p).shuffle(order)
            ordered = [rows[i] for i in order]
        for r, norm in zip(ordered, length_norms(ordered, uc.micro_batch_size * uc.grad_accum, uc.loss_type, max_len)):
            r["norm"] = norm
        dl = accelerator.prepare(DataLoader(ordered, batch_size=uc.micro_batch_size,
                                            collate_fn=lambda b: collate(b, pad_id, uc.share_prompt)))
        return accelerator.skip_first_batches(dl, skip) if skip else dl

    n_mb = math.ceil(len(rows) / uc.micro_batch_size)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=uc.lr, weight_decay=uc.weight_decay)
    steps = math.ceil(n_mb / uc.grad_accum) * uc.epochs
    scheduler = get_scheduler(uc.scheduler, optimizer, num_warmup_steps=int(uc.warmup_ratio * steps),
                              num_training_steps=steps)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
    peft_model = accelerator.unwrap_model(model)

    # logp under the policy before any step (for the ratio) and under the reference (adapter off):
    # given by the logprobs stage (shared by every update variant of the epoch), else computed here
    resuming = checkpoint is not None and (checkpoint / "state.pt").exists()
    if logprobs is not None:
        old, ref = logprobs
    elif not resuming:
        old, ref = rollout_logprobs(model, rows, temperature, pad_id, fresh_adapter, uc.micro_batch_size,
                                    uc.share_prompt)
    else:
        old, ref = {}, {}  # restored from the checkpoint below
    model.train()

    st = {"coef": uc.kl_coef if kl_coef is None else kl_coef, "sums": {}, "count": 0, "grad_norms": [],
          "trained_tokens": 0, "pass": 0, "done_in_pass": 0}
    if checkpoint is not None and (checkpoint / "state.pt").exists():
        st, old, ref = restore(checkpoint / "state.pt", peft_model, optimizer, scheduler)
        log.info("update: resuming from %s (pass %d, micro-batch %d)", checkpoint, st["pass"], st["done_in_pass"])
    coef, sums, grad_norms = st["coef"], st["sums"], st["grad_norms"]
    step_kl: list[float] = []
    t0 = time.time()
    bar = tqdm(total=n_mb * uc.epochs, initial=st["pass"] * n_mb + st["done_in_pass"], desc="update", unit="mb",
               dynamic_ncols=True, disable=not show_progress)
    for p in range(st["pass"], uc.epochs):
        for batch in pass_loader(p, st["done_in_pass"] if p == st["pass"] else 0):
            with accelerator.accumulate(model):
                mask, adv = batch["completion_mask"], batch["advantage"][:, None]            # (B, Kc), (B, 1)
                logp, ent = token_logprobs(model, batch, temperature, with_entropy=True)
                idx = batch["index"].tolist()
                is_sft = batch["sft"]                                                        # (B,)
                pg_w = 1 - is_sft
                zero = logp.new_zeros(0)
                old_lp = pad_left([old.get(i, zero) for i in idx], logp.shape[1]).detach()
                ref_lp = pad_left([ref.get(i, zero) for i in idx], logp.shape[1]).detach()
                old_lp = torch.where(is_sft[:, None].bool(), logp.detach(), old_lp)  # sft rows: unused
                ref_lp = torch.where(is_sft[:, None].bool(), logp.detach(), ref_lp)
                if uc.algorithm == "grpo":
                    ratio = torch.exp(logp - old_lp)
                    clipped = torch.clamp(ratio, 1 - uc.clip_eps, 1 + uc.clip_eps)
                    policy_tok = -torch.min(ratio * adv, clipped * adv)
                else:
                    ratio = torch.ones_like(logp)
                    policy_tok = -logp * adv
                kl = kl_terms(logp, ref_lp, uc.kl_estimator)
                pg_seq = ((policy_tok + coef * kl["loss"]) * mask).sum(-1) / batch["norm"]   # (B,)
                sft_seq = seq_mean(-logp, mask)                                              # (B,)
                loss = torch.where(is_sft.bool(), sft_coef * sft_seq, pg_seq).mean()
                policy_loss = masked_seq_mean(policy_tok, mask, pg_w)
                kl_loss = masked_seq_mean(kl["loss"], mask, pg_w)
                accelerator.backward(loss)
                step_kl.append(float(masked_seq_mean(kl["k3"].detach(), mask, pg_w)))
                if accelerator.sync_gradients:
                    grad_norms.append(float(accelerator.clip_grad_norm_(params, uc.max_grad_norm)))
                    if uc.kl_mode == "adaptive":
                        coef = adapt_kl_coef(coef, sum(step_kl) / len(step_kl), uc.kl_target, uc.kl_horizon)
                    step_kl = []
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                stepped = accelerator.sync_gradients
            with torch.no_grad():
                clipped_frac = ((ratio - 1).abs() > uc.clip_eps).float()
                for k, v in {"loss/total": loss, "loss/policy": policy_loss, "loss/kl": coef * kl_loss,
                             "loss/sft": masked_seq_mean(sft_seq[:, None], torch.ones_like(sft_seq[:, None]), is_sft),
                             "kl/k1": masked_seq_mean(kl["k1"], mask, pg_w), "kl/k3": masked_seq_mean(kl["k3"], mask, pg_w),
                             "policy/entropy": masked_seq_mean(ent, mask),
                             "policy/clip_ratio": masked_seq_mean(clipped_frac, mask, pg_w)}.items():
                    sums[k] = sums.get(k, 0.0) + float(v)
            st["count"] += 1
            st["trained_tokens"] += int(mask.sum())
            st["done_in_pass"] += 1
            st["coef"] = coef
            bar.update(1)
            if checkpoint is not None and checkpoint_every and stepped and len(grad_norms) % checkpoint_every == 0:
                save_checkpoint(checkpoint / "state.pt", st, old, ref, peft_model, optimizer, scheduler)
        st["pass"], st["done_in_pass"] = p + 1, 0
    bar.close()
    secs = time.time() - t0
    figures = {k: v / max(st["count"], 1) for k, v in sums.items()}
    trained_tokens = st["trained_tokens"]
    figures.update({
        "optim/grad_norm": sum(grad_norms) / max(len(grad_norms), 1), "optim/lr": uc.lr, "kl/coef": coef,
        "optim/steps": len(grad_norms), "update/trained_tokens": trained_tokens,
        "update/tokens_per_s": round(trained_tokens / max(secs, 1e-9), 2),
    })
    return figures


def previous_kl_coef(policy: Path | None) -> float | None:
    """The adaptive KL coefficient where the previous epoch's update left it."""
    if policy is None:
        return None
    m = read_manifest(policy.parent)
    return (m or {}).get("figures", {}).get("kl/coef")


LOGPROBS_FILE = "logprobs.pt"


def run_logprobs(ctx: Ctx) -> None:
    """logprobs: each selected completion's per-token logp under the sampling policy and under the
    reference, computed once per epoch and read by every update variant (a sweep over lr or
    kl_coef pays for these no-grad forward passes once, not once per variant)."""
    from pipeline.model import load_tokenizer
    cfg = ctx.cfg
    rows = load_table(ctx.inputs["select"])
    tok = load_tokenizer(cfg.student)
    old, ref = {}, {}
    policy, reference = ctx.inputs[POLICY], ctx.inputs.get(REFERENCE)
    if any(not r.get("sft") for r in rows):
        model, ref_name = load_student(cfg.student, adapter=policy), None
        if reference is not None and reference != policy:
            if policy is None:
                raise RunError(f"update.kl_reference=start names {reference} as the reference, but epoch "
                               f"{ctx.epoch - 1}'s policy is the base model; use update.kl_reference=base")
            check_adapter_base(reference, resolve(cfg.student.model))
            model.load_adapter(str(reference), adapter_name="reference")
            ref_name = "reference"
        old, ref = rollout_logprobs(model, rows, cfg.sample.temperature, tok.pad_token_id,
                                    policy_is_reference=policy == reference, batch_size=cfg.update.micro_batch_size,
                                    share_prompt=cfg.update.share_prompt, reference=ref_name)
    torch.save({"rows": len(rows), "old": old, "ref": ref}, ctx.out / LOGPROBS_FILE)
    ctx.rows = len(old)
    ctx.figures = {"logprobs/tokens": sum(len(v) for v in old.values()), **start_kl(old, ref)}


def start_kl(old: dict, ref: dict) -> dict[str, float]:
    """KL(policy that sampled the epoch || reference), k1 and k3 per token, mean over sequences:
    where the epoch starts, before any update step (the update's kl/k3 also counts its own steps)."""
    if not old:
        return {}
    kls = [kl_terms(old[i], ref[i], "k3") for i in old]
    return {f"kl/{k}_start": sum(float(kl[k].mean()) for kl in kls) / len(kls) for k in ("k1", "k3")}


def load_logprobs(d: Path, n_rows: int) -> tuple[dict, dict]:
    lp = torch.load(d / LOGPROBS_FILE, weights_only=True)
    if lp["rows"] != n_rows:
        raise RunError(f"{d / LOGPROBS_FILE} holds logprobs for {lp['rows']} rows but the selected batch has "
                       f"{n_rows}; recompute it with `rlaif epoch {int(d.parent.name.split('-')[1])} --only logprobs --force`")
    return lp["old"], lp["ref"]


def run(ctx: Ctx) -> None:
    from pipeline.model import load_tokenizer
    cfg = ctx.cfg
    rows = load_table(ctx.inputs["select"])
    tok = load_tokenizer(cfg.student)
    torch.manual_seed(cfg.run.seed)  # a fresh adapter's LoRA A init draws from the global RNG
    model = load_student(cfg.student, adapter=ctx.inputs[POLICY], trainable=True)
    coef = previous_kl_coef(ctx.inputs[POLICY]) if cfg.update.kl_mode == "adaptive" else None
    ckpt = ctx.run_dir / f"epoch-{ctx.epoch:03d}" / f".ckpt-update-{ctx.fingerprint[:8]}"
    if rows:
        logprobs = load_logprobs(ctx.inputs["logprobs"], len(rows)) if ctx.inputs.get("logprobs") else None
        ctx.figures = train(model, rows, cfg.update, cfg.sample.temperature, tok.pad_token_id, max_len=cfg.sample.max_new_tokens,
                            seed=cfg.run.seed * 1000 + ctx.epoch, fresh_adapter=ctx.inputs[POLICY] is None,
                            kl_coef=coef, checkpoint=ckpt, checkpoint_every=cfg.run.checkpoint_every,
                            logprobs=logprobs)
    else:
        log.warning("update: the selected batch is empty (every group had zero reward spread or was filtered); "
                    "the policy is carried over unchanged. Consider more samples per prompt "
                    "(sample.num_samples) or select.drop_zero_std=false")
        ctx.figures = {"update/trained_tokens": 0, "optim/steps": 0, "kl/coef": coef or cfg.update.kl_coef}
    model.save_pretrained(ctx.out / "adapter")
    ctx.rows = len(rows)
    ctx.on_success.append(lambda: shutil.rmtree(ckpt, ignore_errors=True))


def run_sft(ctx: Ctx) -> None:
    """Supervised warm-start (epoch 0): a fresh adapter learns the teacher's answers (token NLL)."""
    from pipeline.model import load_tokenizer
    from pipeline.sample import chat_prompt
    cfg = ctx.cfg
    tok = load_tokenizer(cfg.student)
    prompts = {p["problem_id"]: p["problem"] for p in load_table(ctx.inputs["prompts"], json_cols=("problem",))}
    rows = [{"prompt_ids": chat_prompt(tok, cfg, prompts[t["problem_id"]]["prompt"]),
             "completion_ids": tok.encode(t["text"], add_special_tokens=False) + [tok.eos_token_id],
             "advantage": 0.0, "sft": True} for t in load_table(ctx.inputs["teacher"]) if t["text"]]
    if not rows:
        raise RunError("epoch 0 (supervised warm-start) found no teacher answers; "
                       "it needs references in the data or a teacher model (teacher.kind)")
    torch.manual_seed(cfg.run.seed)
    model = load_student(cfg.student, trainable=True)
    uc = cfg.update.model_copy(update={"lr": cfg.update.sft_lr, "epochs": cfg.update.sft_epochs})
    ctx.figures = train(model, rows, uc, 1.0, tok.pad_token_id, seed=cfg.run.seed, fresh_adapter=True, sft_coef=1.0)
    model.save_pretrained(ctx.out / "adapter")
    ctx.rows = len(rows)
