"""The update's loop (`train`): micro-batches in prompt-group order, each a forward/backward pass
(or several within update.max_batch_tokens) whose loss is `pipeline.train.loss.policy_loss` for the
student's rows and the teacher rows' NLL; an optimizer step every update.grad_accum micro-batches;
then the artifacts the next epoch reads (the adapter, the optimizer's state, the schedule's place).
The update stage (update.py) and the warm-start call it."""
from __future__ import annotations

import logging
import math
import time
from contextlib import nullcontext
from pathlib import Path

import torch
from tqdm import tqdm

from pipeline.config.errors import RunError
from pipeline.config.update import UpdateConfig
from pipeline.engines.forward import (collate, prompt_ordered, resolve_share_prompt, right_aligned, rollout_logprobs,
                                      split_by_tokens, to_device, token_budget, token_logprobs)
from pipeline.engines.model import save_adapter
from pipeline.store import dist
from pipeline.train.loss import high_entropy_mask, loss_norms, policy_loss, settings, trained_len
from pipeline.train.optim import (OPTIMIZER, SCHEDULE, load_carried, last_step_lr, lr_schedule, readable_checkpoint, restore,
                                  save_checkpoint, save_schedule)

log = logging.getLogger("rlaif")


def correction_weights(rows: list[dict], old: dict, uc: UpdateConfig, width: int, device) -> torch.Tensor | None:
    """update.sampler_correction's weights, (N, width) right-aligned as `right_aligned`: each row's
    pi_old / pi_sampler (`pipeline.train.loss.sampler_correction`) from the sampler's own logprobs; 1 for a
    row without them (or a teacher row). None when the correction is off."""
    if uc.sampler_correction == "none":
        return None
    from pipeline.train.loss import sampler_correction
    w = {}
    for i, r in enumerate(rows):
        n = len(r["completion_ids"])
        s = r.get("sampler_logprobs")
        if s is not None and i in old and len(s) == len(old[i]) == n:
            w[i] = sampler_correction(old[i][None].float(), torch.tensor(s, dtype=torch.float32)[None],
                                      torch.ones(1, n), uc.sampler_correction, uc.sampler_correction_min,
                                      uc.sampler_correction_max).expand(1, n)[0]
        else:
            w[i] = torch.ones(n)
    return right_aligned(w, len(rows), width, device)


def adapt_kl_coef(coef, kl, target: float, horizon: float):
    """Proportional controller of Ziegler et al. 2019 (arXiv:1909.08593, section 2.2):
    beta <- beta * (1 + clip(KL / target - 1, -0.2, 0.2) / horizon), per optimizer step.
    Floats or device tensors (the update keeps beta on the device: no sync per step)."""
    err = kl / target - 1
    err = err.clamp(-0.2, 0.2) if isinstance(err, torch.Tensor) else max(-0.2, min(0.2, err))
    return coef * (1 + err / horizon)


def seq_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean over each sequence's tokens, (B, T) -> (B,) (GRPO's 1/|o_i| normalisation)."""
    return (x * mask).sum(-1) / mask.sum(-1).clamp(min=1)


FIGURES = ("loss/total", "loss/policy", "loss/kl", "loss/sft", "kl/k1", "kl/k3", "policy/entropy", "policy/clip_ratio",
           "policy/clip_low", "policy/clip_high")
"""The update's per-row figures; each is reported as its mean over the rows it applies to."""


def train(model, rows: list[dict], uc: UpdateConfig, temperature: float, pad_id: int, seed: int = 0,
          show_progress: bool = True, fresh_adapter: bool = False, kl_coef: float | None = None,
          sft_coef: float | None = None, checkpoint: Path | None = None,
          checkpoint_every: int = 0, logprobs: tuple[dict, dict] | None = None,
          max_len: int | None = None, save_to: Path | None = None, epoch: int | None = None,
          optimizer_state: dict | None = None, schedule_start: int | None = None) -> dict[str, float]:
    """Run `uc.epochs` passes of the policy-gradient update over `rows` (in place on `model`).

    rows: dicts with prompt_ids, completion_ids, advantage. Returns the update's figures.
    fresh_adapter: the adapter is newly initialised (LoRA B = 0), so the policy before the
    update *is* the reference and one no-grad forward pass per row is saved.
    kl_coef: the starting KL coefficient (default uc.kl_coef; adaptive runs carry it across epochs).
    Rows with `sft: True` are teacher answers: their loss is sft_coef (default
    uc.teacher_sft_coef) x the mean token NLL at T = 1, in place of the policy-gradient loss.
    checkpoint: a directory for `state.pt`, written every `checkpoint_every` optimizer steps and
    resumed from when present (adapter, optimizer, scheduler, logprobs, counters, RNG).
    logprobs: (old, ref) as `rollout_logprobs` returns them (the logprobs stage's, shared by every
    update variant of the epoch); computed here when None.
    max_len: dr_grpo's constant (the sampling max_new_tokens; default the longest completion in rows).
    save_to: where rank 0 writes the trained adapter (a PEFT adapter directory), and with `epoch`
    the optimizer's state (OPTIMIZER) and the schedule's position (SCHEDULE) beside it for the next epoch.
    epoch: this RL epoch, for the run-long schedule (update.optimizer_state=carry; `lr_schedule`);
    None: a whole schedule in this call. optimizer_state: the AdamW state to continue from;
    schedule_start: the optimizer steps the run has taken (`carried_schedule`; None: estimated).

    Micro-batches take the rows in prompt-group order (groups in a seeded order per pass, a group's rows
    together; a group that does not fit spills into the next micro-batch). One longer than
    update.max_batch_tokens runs as several forward/backward passes, each weighted by its share
    of the micro-batch's rows, so the gradients are the micro-batch's. Nothing in the loop waits
    for the device: figures, the KL coefficient and grad norms stay there until the end (or a
    checkpoint).
    """
    sft_coef = uc.teacher_sft_coef if sft_coef is None else sft_coef
    from accelerate import Accelerator
    from accelerate.utils import DistributedType, set_seed

    device = next(model.parameters()).device
    # gradient accumulation is ours (below), not accelerate's: its sync points follow a prepared
    # DataLoader, and every rank here walks the same list of global micro-batches
    accelerator = Accelerator(cpu=device.type == "cpu")
    if accelerator.distributed_type == DistributedType.DEEPSPEED:
        raise RunError("the update does not run under DeepSpeed yet (it accumulates gradients itself, and "
                       "DeepSpeed's engine steps on every backward); use DDP (no accelerate config) or FSDP")
    set_seed(seed)
    world, rank = accelerator.num_processes, accelerator.process_index
    share_prompt = resolve_share_prompt(uc.share_prompt, device)
    if share_prompt and world > 1:
        # DDP prepares one reduction per forward call; the shared-prompt path calls the model twice
        share_prompt = False
        if uc.share_prompt is True:
            log.warning("update.share_prompt=true is ignored with %d processes (DDP needs one forward per backward)", world)
    if share_prompt and uc.activation_checkpointing:
        # a checkpointed model in training runs without its key/value cache: the prompt's keys/values
        # would never reach its completions' pass (transformers returns none)
        share_prompt = False
        if uc.share_prompt is True:
            log.warning("update.share_prompt=true is ignored with update.activation_checkpointing=true (a "
                        "checkpointed model trains without its key/value cache)")
    # mask_truncated_completions (DAPO's overlong filtering; TRL's option of the same name): a completion
    # cut at max_new_tokens trains no token, policy or KL
    loss_s = settings(uc)
    if uc.mask_truncated_completions and any(not r.get("sft") and "finish_reason" not in r for r in rows):
        raise RunError("update.mask_truncated_completions needs each answer's finish_reason, which this epoch's select "
                       "stage did not keep (it was made by an older version); remake it from disk with `rlaif epoch N "
                       "--only select --force` (N: this epoch), then rerun the update")
    rows = [{**r, "index": i, "trained_len": trained_len(r, uc.mask_truncated_completions)} for i, r in enumerate(rows)]
    max_len = max_len or max([len(r["completion_ids"]) for r in rows] + [1])
    any_pg = any(not r.get("sft") for r in rows)

    def pass_loader(p: int, skip: int = 0) -> list[list[dict]]:
        """Pass p's micro-batches (lists of rows) in a seeded order of its own, so a resumed run sees
        the same ones: prompt groups in a random order, each group's rows together. The same on every
        rank: each takes its share of every micro-batch (`my_share`)."""
        ordered = prompt_ordered(rows, seed * 1000 + p)
        mbs = [ordered[b:b + uc.micro_batch_size] for b in range(0, len(ordered), uc.micro_batch_size)]
        for w in range(0, len(mbs), uc.grad_accum):     # an optimizer step's window of micro-batches
            window = mbs[w:w + uc.grad_accum]
            for mb, norms in zip(window, loss_norms(window, uc.loss_type, max_len)):
                for r, norm in zip(mb, norms):
                    r["norm"] = norm
                    r["sft_norm"] = len(mb) * len(window)
        return mbs[skip:]

    def my_passes(mb: list[dict]) -> list[tuple[list[dict], list[float]]]:
        """This rank's forward/backward passes over its contiguous share of a global micro-batch, as
        (rows, weights): the student's rows, then the teacher's (a pass holds one kind: the teacher's
        run at T = 1). Every rank makes as many passes as the rank with the most (a share longer than
        the token budget takes several): DDP and FSDP communicate in every forward, so the counts must
        match. Filler passes run the micro-batch's first row at weight 0."""
        def passes(share: list[dict]) -> list[list[dict]]:
            kinds = ([r for r in share if not r.get("sft")], [r for r in share if r.get("sft")])
            return [part for rs in kinds if rs for part in split_by_tokens(rs, budget)]
        shares = [mb[len(mb) * r // world: len(mb) * (r + 1) // world] for r in range(world)]
        mine = [(part, [1.0] * len(part)) for part in passes(shares[rank])]
        n = max(len(passes(sh)) or 1 for sh in shares)
        return mine + [(mb[:1], [0.0])] * (n - len(mine))

    n_mb = math.ceil(len(rows) / uc.micro_batch_size)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=uc.lr, weight_decay=uc.weight_decay)
    if optimizer_state is not None:
        load_carried(optimizer, optimizer_state, params, uc, "update")
    steps = math.ceil(n_mb / uc.grad_accum) * uc.epochs
    scheduler = lr_schedule(optimizer, uc, steps, epoch, schedule_start)
    # the scheduler is stepped by hand once per optimizer step: accelerate's wrapper would step it
    # once per process, which makes the schedule N times faster on N processes
    model, optimizer = accelerator.prepare(model, optimizer)
    peft_model = accelerator.unwrap_model(model)
    params = [p for p in model.parameters() if p.requires_grad]  # FSDP replaces them with its own
    budget = token_budget(model, uc.max_batch_tokens, training=True, checkpointing=uc.activation_checkpointing)
    if world > 1 and budget is not None:  # one budget for all ranks (each measured its own free memory)
        import torch.distributed as tdist
        b = torch.tensor(budget, device=device)
        tdist.all_reduce(b, op=tdist.ReduceOp.MIN)
        budget = int(b)
    # FSDP (from the user's accelerate config) shards the weights: the adapter is saved from the
    # gathered state dict, and no resume checkpoint is written (it would hold this rank's shards)
    sharded = accelerator.distributed_type == DistributedType.FSDP
    if sharded:
        if checkpoint_every:
            log.warning("update: no resume checkpoints under FSDP; a killed update starts over")
        checkpoint_every = 0
        if epoch is not None:
            log.warning("update: the optimizer state is not carried to the next epoch under FSDP (it is sharded); "
                        "each epoch starts a fresh AdamW at its place in the schedule")

    # logp under the policy before any step (for the ratio) and under the reference (adapter off):
    # given by the logprobs stage (shared by every update variant of the epoch), else computed here
    resuming = checkpoint is not None and (checkpoint / "state.pt").exists() and readable_checkpoint(checkpoint / "state.pt")
    if logprobs is not None:
        old, ref = logprobs
    elif not resuming:
        old, ref = rollout_logprobs(model, rows, temperature, pad_id, fresh_adapter, uc.micro_batch_size,
                                    share_prompt, max_tokens=uc.max_batch_tokens)
    else:
        old, ref = {}, {}  # restored from the checkpoint below
    model.train()

    zero = torch.zeros((), device=device)
    st = {"coef": uc.kl_coef if kl_coef is None else kl_coef, "sums": {k: [zero, zero] for k in FIGURES + (("policy/sampler_weight",) if uc.sampler_correction != "none" else ())},
          "grad_norms": [], "trained_tokens": zero, "pass": 0, "done_in_pass": 0}
    if resuming:
        st, old, ref = restore(checkpoint / "state.pt", peft_model, optimizer, scheduler)
        log.info("update: resuming from %s (pass %d, micro-batch %d)", checkpoint, st["pass"], st["done_in_pass"])
    width = max(len(r["completion_ids"]) for r in rows)
    old_all, ref_all = right_aligned(old, len(rows), width, device), right_aligned(ref, len(rows), width, device)  # (N, W)
    is_all = correction_weights(rows, old, uc, width, device)                                             # (N, W) or None
    coef = torch.as_tensor(st["coef"], dtype=torch.float32, device=device)
    sums, grad_norms = st["sums"], st["grad_norms"]
    step_kl = [zero, zero]
    t0 = time.time()
    bar = tqdm(total=n_mb * uc.epochs, initial=st["pass"] * n_mb + st["done_in_pass"], desc="update", unit="mb",
               dynamic_ncols=True, disable=not show_progress or not dist.is_main())   # (TQDM_DISABLE: not given)

    def add(name: str, per_row: torch.Tensor, weight: torch.Tensor) -> None:
        n, d = sums[name]
        sums[name] = [n + (per_row * weight).sum(), d + weight.sum()]

    def micro_batch_pass(part: list[dict], weights: list[float], sync: bool) -> None:
        """One forward/backward pass over rows of one kind (the student's at the sampling temperature,
        the teacher's answers at T = 1), each row weighted (0: a filler pass), its figures summed.
        sync: the optimizer step's last pass, where the gradients are all-reduced."""
        nonlocal step_kl
        with nullcontext() if sync else accelerator.no_sync(model):
            batch = to_device(collate(part, pad_id, share_prompt), device)
            w = torch.tensor(weights, device=device)                                 # (B,) 0: filler
            mask = batch["completion_mask"]                                          # (B, Kc)
            sft_pass = bool(part[0].get("sft"))
            logp, ent = token_logprobs(model, batch, 1.0 if sft_pass else temperature, with_entropy=True)
            kc = logp.shape[1]
            is_sft = batch["sft"]                                                    # (B,)
            pg_w = 1 - is_sft
            mask = mask * batch["trains"][:, None]                                   # mask_truncated_completions
            # update.top_entropy_quantile: the surrogate on the pass's high-entropy trained tokens, the threshold
            # over every rank's (a collective: then every rank's every pass calls it, filler and teacher passes too)
            q = uc.top_entropy_quantile
            ent_mask = high_entropy_mask(ent, mask * (pg_w * w > 0)[:, None], q, accelerator if world > 1 else None) \
                if q < 1 and (world > 1 or not sft_pass) else None
            # teacher rows have no old/ref logprobs (right_aligned leaves 0): policy_loss ignores them
            pg_seq, terms = policy_loss(logp, old_all[batch["index"], -kc:], ref_all[batch["index"], -kc:],
                                        batch["advantage"], mask * pg_w[:, None], batch["norm"], coef, loss_s,
                                        None if is_all is None else is_all[batch["index"], -kc:], ent_mask)
            sft_seq = seq_mean(-logp, batch["completion_mask"])                     # (B,)
            row_loss = torch.where(is_sft.bool(), sft_coef * sft_seq / batch["sft_norm"], pg_seq)
            # DDP averages the gradients over the ranks, and each rank holds a share of the rows: x world
            accelerator.backward((row_loss * w).sum() * world)
            with torch.no_grad():
                k3 = seq_mean(terms["k3"], mask)
                ent_w = w * (1 - is_sft) if any_pg else w  # the student's rows (the warm-start: the teacher's)
                pg_w, is_sft = pg_w * w * (mask.sum(-1) > 0), is_sft * w
                add("loss/total", torch.where(is_sft.bool(), sft_coef * sft_seq,
                                              seq_mean(terms["policy"] + coef * terms["kl"], mask)), w)
                add("loss/policy", seq_mean(terms["policy"], mask), pg_w)
                add("loss/kl", coef * seq_mean(terms["kl"], mask), pg_w)
                add("loss/sft", sft_seq, is_sft)
                add("kl/k1", seq_mean(terms["k1"], mask), pg_w)
                add("kl/k3", k3, pg_w)
                add("policy/entropy", seq_mean(ent, batch["completion_mask"]), ent_w)
                add("policy/clip_ratio", seq_mean(terms["clip_low"] + terms["clip_high"], mask), pg_w)
                add("policy/clip_low", seq_mean(terms["clip_low"], mask), pg_w)
                add("policy/clip_high", seq_mean(terms["clip_high"], mask), pg_w)
                if is_all is not None:
                    add("policy/sampler_weight", seq_mean(is_all[batch["index"], -kc:], mask), pg_w)
                step_kl = [step_kl[0] + (k3 * pg_w).sum(), step_kl[1] + pg_w.sum()]
                st["trained_tokens"] = st["trained_tokens"] + (mask * w[:, None]).sum()

    def optimizer_step() -> None:
        """Clip the gradients, steer the adaptive KL coefficient by the step's KL, step the optimizer
        and the schedule."""
        nonlocal coef, step_kl
        grad_norms.append(accelerator.clip_grad_norm_(params, uc.max_grad_norm))
        if uc.kl_mode == "adaptive":
            if world > 1:  # every rank's rows: the coefficient must stay the same on all
                step_kl = list(accelerator.reduce(torch.stack(step_kl), "sum"))
            coef = adapt_kl_coef(coef, step_kl[0] / step_kl[1].clamp(min=1), uc.kl_target, uc.kl_horizon)
        step_kl = [zero, zero]
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()

    def write_artifacts() -> None:
        """Rank 0 writes the trained adapter to save_to, and with `epoch` the schedule's place and the
        optimizer's state beside it for the next epoch (gathered first under FSDP: a collective)."""
        full = accelerator.get_state_dict(model) if sharded else None  # a collective: every rank calls it
        if accelerator.is_main_process:
            save_adapter(peft_model, save_to, state_dict=full)
            if epoch is not None:
                save_schedule(save_to.parent / SCHEDULE, scheduler)  # not sharded: every rank's is the same
                if not sharded:
                    torch.save(optimizer.state_dict(), save_to.parent / OPTIMIZER)

    def gathered_figures() -> dict[str, float]:
        """The figures over every rank's rows, read from the device once."""
        nonlocal sums
        if world > 1:
            keys = list(sums)
            total = accelerator.reduce(torch.stack([torch.as_tensor(x, device=device, dtype=torch.float32)
                                                    for k in keys for x in sums[k]]
                                                   + [torch.as_tensor(st["trained_tokens"], device=device,
                                                                      dtype=torch.float32)]), "sum")
            sums = {k: [total[2 * i], total[2 * i + 1]] for i, k in enumerate(keys)}
            st["trained_tokens"] = total[-1]
        keys = list(sums)
        nd = torch.stack([torch.as_tensor(x, device=device, dtype=torch.float32) for k in keys for x in sums[k]]).tolist()
        # the one sync; a figure no row reached (the policy's KL and clip in an epoch of teacher rows alone) is
        # left out, not written as a 0 that reads as a policy at its reference
        figures = {k: nd[2 * i] / max(nd[2 * i + 1], 1) for i, k in enumerate(keys) if nd[2 * i + 1] > 0}
        secs = time.time() - t0
        trained_tokens = int(st["trained_tokens"])
        figures.update({
            "optim/grad_norm": float(torch.stack([torch.as_tensor(g, device=device) for g in grad_norms]).mean())
            if grad_norms else 0.0,
            "optim/lr": uc.lr, "optim/lr_last": last_step_lr(scheduler), "optim/lr_next": scheduler.get_last_lr()[0], "kl/coef": float(coef),
            "optim/steps": len(grad_norms), "update/trained_tokens": trained_tokens,
            "update/tokens_per_s": round(trained_tokens / max(secs, 1e-9), 2),
        })
        return figures

    # the loop: passes over the rows, micro-batches, an optimizer step every grad_accum of them
    for p in range(st["pass"], uc.epochs):
        skip = st["done_in_pass"] if p == st["pass"] else 0
        for i, mb in enumerate(pass_loader(p, skip), start=skip):
            # an optimizer step every grad_accum micro-batches, and at the end of each pass
            stepped = (i + 1) % uc.grad_accum == 0 or i == n_mb - 1
            parts = my_passes(mb)
            for j, (part, weights) in enumerate(parts):
                micro_batch_pass(part, weights, sync=stepped and j == len(parts) - 1)
            if stepped:
                optimizer_step()
            st["done_in_pass"] += 1
            st["coef"] = coef
            if stepped:
                dist.kill_point(f"update-step-{len(grad_norms)}")
            bar.update(1)
            if checkpoint is not None and checkpoint_every and stepped and len(grad_norms) % checkpoint_every == 0:
                # never a diverged state on disk for a rerun to resume into (every rank: it reduces)
                check_finite(params, grad_norms, accelerator, world, device, epoch, any_pg)
                if accelerator.is_main_process:  # the state is the same on every rank: rank 0 writes it
                    save_checkpoint(checkpoint / "state.pt", st, old, ref, peft_model, optimizer, scheduler)
        st["pass"], st["done_in_pass"] = p + 1, 0
    bar.close()
    check_finite(params, grad_norms, accelerator, world, device, epoch, any_pg)
    if save_to is not None:
        write_artifacts()
    if sharded:  # the weights were sharded in place: the next stage loads them anew
        from pipeline.engines.model import Student
        Student.release()
    return gathered_figures()


def check_finite(params: list[torch.Tensor], grad_norms: list, accelerator, world: int, device, epoch: int | None,
                 rl: bool = True) -> None:
    """A diverged update (a NaN or infinite loss or gradient) leaves NaN in the weights: an error
    before anything is written, never a NaN adapter a later epoch samples from. One sync."""
    flags = [torch.stack([torch.isfinite(p).all() for p in params]).all().float()] if params else []
    norms = torch.stack([torch.as_tensor(g, device=device, dtype=torch.float32) for g in grad_norms]) if grad_norms \
        else torch.zeros(0, device=device)
    bad_weights = torch.stack(flags).min() < 1 if flags else torch.tensor(False)
    if world > 1:   # every rank must agree, or one raises while the others wait in a collective
        bad_weights = accelerator.reduce(bad_weights.float().reshape(1).to(device), "sum")[0] > 0
    if not bool(bad_weights) and bool(torch.isfinite(norms).all()):
        return
    steps = (~torch.isfinite(norms)).nonzero().flatten().tolist()
    where = (f"the gradient norm of optimizer step {steps[0] + 1} of {len(grad_norms)} was "
             f"{float(norms[steps[0]])}" if steps else "the trained weights hold NaN or infinite values")
    if not rl:
        raise RunError(f"update: the supervised update on the teacher's answers diverged ({where}): nothing was "
                       f"written. The warm-start: rerun `rlaif epoch 0` with a lower update.sft_lr (or "
                       f"update.max_grad_norm); an RL epoch of teacher rows alone: a lower update.teacher_sft_coef")
    again = f"`rlaif update {epoch} update.lr=...`" if epoch is not None else "the update"
    raise RunError(f"update: the update diverged ({where}): nothing was written, and the epoch's samples, judgements "
                   f"and logprobs are kept. Rerun {again} with a lower update.lr (or update.max_grad_norm, "
                   f"update.kl_coef higher); a NaN advantage or logprob in the rows (`rlaif samples`) does the same")
