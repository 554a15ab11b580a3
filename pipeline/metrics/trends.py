"""The health flags read across epochs (`trend_flags`, called by flags.analyse): a reward regression from
one epoch to the next, a slow decline below the best earlier epoch, best-of-N rising while the mean
falls, and the loss rising over report.loss_rising_epochs epochs. A fall that a later epoch undid keeps its
flag, with the severity "recovered" (the report's glance counts it apart).

An epoch's reward is of the policy that sampled it: the one epoch N-1's update made (and promoted).
So the advice for a fall at epoch N reruns epoch N-1's update as a variant, not epoch N's."""
from __future__ import annotations

import math
from typing import Any, Callable

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.advice import key_change, kl_lever, kl_target
from pipeline.metrics.doc import as_number, series

STILL_KL = 1e-3
"""kl/k3_start below this: the policy that sampled the epoch has hardly moved from the reference (a reward
regression is then more likely the prompts drawn than the update)."""


def variant_advice(e: int) -> str:
    """How to try a change on the update that made the policy epoch e sampled from (epoch e - 1's)."""
    if e <= 1:   # epoch 1 samples from the warm-start (epoch 0) or the base model: no RL update made it
        return f"try it on a fresh run, or `rlaif update {e} update.lr=...` for what comes after"
    return (f"try it as a variant of the update that made the policy epoch {e} sampled: `rlaif update {e - 1} "
            f"update.lr=...`, `rlaif compare {e - 1}`, `rlaif promote {e - 1} VARIANT`, then `rlaif epoch {e}` "
            f"samples from it")


def recovered(e: int) -> str:
    """The advice's opening for a fall that a later epoch undid (the flag's severity is then "recovered")."""
    return (f"it came back by epoch {e} (one stretch's turn: the prompts drawn, or an update a later one undid), so "
            "no change is needed unless it recurs; if it does, ")


def trend_flags(ms: list[dict], cfg: ReportConfig, s: dict[str, Any], flag: Callable[..., None]) -> None:
    """Raise the across-epoch flags of `ms` (sorted by epoch) through `flag(name, epoch, evidence, advice,
    severity)`; `s` the run's flat settings, as `analyse` takes them."""
    lower_lr, raise_kl = key_change("update.lr", "lower", s), kl_lever(s)
    epochs = [m["epoch"] for m in ms]
    rewards = series(ms, "reward/mean")
    bon = dict(series(ms, "reward/best_of_n"))
    regressed = set()
    for i in range(1, len(rewards)):
        (e0, r0), (e1, r1) = rewards[i - 1], rewards[i]
        ci = ms[epochs.index(e1)].get("_reward/change_ci")
        if r1 >= r0 - cfg.regression_drop or (ci is not None and math.isfinite(ci[1]) and ci[1] >= 0):
            continue  # not down by the threshold, or down inside its interval (paired by prompt): noise; one prompt: the threshold alone
        best_e, best_r = max(rewards[:i], key=lambda er: er[1])
        back = next(((e, r) for e, r in rewards[i + 1:] if r >= r0 - cfg.regression_drop), None)
        if not back:
            regressed.add(e1)   # (a recovered one says nothing of a decline after it)
        moved = as_number(ms[epochs.index(e1)].get("kl/k3_start"))
        # the policy that sampled is its reference, or nearly (not with kl_reference=previous: they are one policy)
        still = moved is not None and moved < STILL_KL and s.get("update.kl_reference") != "previous"
        d0, d1 = (as_number(ms[epochs.index(e)].get("curriculum/difficulty_mean")) for e in (e0, e1))
        harder = d0 is not None and d1 is not None and d1 > d0   # other prompts, harder ones: part of the fall is theirs
        sure = ci is not None and math.isfinite(ci[1])
        # critical: the whole interval beyond 5 thresholds (the fall's point alone, where no interval was made)
        worst = (ci[1] if sure else r1 - r0) < -5 * cfg.regression_drop
        changed = settings_moved(ms[epochs.index(e0)], ms[epochs.index(e1)])
        other = ms[epochs.index(e1)].get("_reward/other_prompts")   # (the report's: None where it did not say)
        same = (other or {}).get("same")
        held = same is not None and same["ci"][1] >= 0   # these prompts did not fall since an earlier epoch drew them
        former = ms[epochs.index(e1)].get("_lineage/former")   # e1 sampled from a variant e0 did not choose
        flag("reward_regression", e1,
             f"reward/mean {r0:.4f} -> {r1:.4f} ({r1 - r0:+.4f}"
             + (f", 95% [{ci[0]:+.4f}, {ci[1]:+.4f}]" if sure else "") + f"; threshold -{cfg.regression_drop}); "
             f"best so far {best_r:.4f} at epoch {best_e}" + (f"; kl/k3_start {moved:.3g}" if moved is not None else "")
             + (f"; curriculum/difficulty_mean {d0:.3g} -> {d1:.3g}" if harder else "")
             + (f"; settings changed since epoch {e0}: {changed}" if changed else "")
             + (f"; epoch {e1} was sampled from epoch {e0}'s {former}" + (
                 "" if former.endswith("remade") else ", not its chosen policy") if former else "")
             + (f"; other prompts than epoch {e0}'s" + (
                 f" (these prompts at epoch {same['from']}: {same['a']:.4f}, now {same['b']:.4f}, 95% "
                 f"[{same['ci'][0]:+.4f}, {same['ci'][1]:+.4f}])" if same else "") if other is not None else "")
             + (f"; back to {back[1]:.4f} at epoch {back[0]}" if back else ""),
             (recovered(back[0]) if back else "")
             + (f"epoch {e1} continues the line epoch {e0}'s choice left (its answers are of {former}, not of the "
                f"policy epoch {e0}'s reward came from), so the two do not measure one line: `rlaif epoch {e1}` remakes "
                "it from the chosen policy; read the reward then; if it recurs, " if former else
                f"epoch {e1} sampled, judged or rewarded with other settings than epoch {e0} ({changed}): its reward "
                "measures other answers or on another scale, so the fall is more likely the settings' than the "
                "update's; read the reward between epochs of the same settings; if the update is the cause, "
                if changed else
                f"these prompts scored no worse than at epoch {same['from']}, so the fall is the prompts this epoch "
                "drew, not the update: data.pool_size fixes the prompts every epoch, a larger data.prompts_per_epoch "
                "averages over more; if it recurs, " if held else
                ("the policy that sampled has hardly moved from its reference (kl/k3_start below "
                 f"{STILL_KL:g}), so the fall is more likely the prompts this epoch drew than the update: " if still else
                 "this epoch drew harder prompts (curriculum/difficulty_mean rose), which account for part of the fall: ")
                + "data.pool_size fixes the prompts every epoch, a larger data.prompts_per_epoch averages over more; "
                "if the update is the cause, " if still or harder else "")
             + f"{lower_lr} or {raise_kl}; {variant_advice(e1)}",
             "recovered" if back else "critical" if worst and not (still or changed or held or former) else "warning")
        # the best completions up by more than the threshold and a quarter of the mean's fall: a smaller rise
        # beside a large fall is the prompts' and the sampling's wobble, not the best pulling away
        if e0 in bon and e1 in bon and bon[e1] - bon[e0] > max(cfg.regression_drop, (r0 - r1) / 4):
            k = int(as_number(s.get("sample.num_samples")) or 4)
            cur = int(as_number(s.get("select.top_k")) or 0)
            top_k = max(2, (cur or k) // 2)
            flag("best_of_n_vs_mean", e1,
                 f"reward/best_of_n {bon[e0]:.4f} -> {bon[e1]:.4f} ({bon[e1] - bon[e0]:+.4f}) while reward/mean "
                 f"{r0:.4f} -> {r1:.4f} ({r1 - r0:+.4f}): the best completions improve, the typical one gets worse",
                 "train on the best of each group: "
                 + (f"set select.top_k (e.g. {cur} -> {top_k}, best-of-N filtering) or " if top_k < (cur or k) else "")
                 + f"raise select.min_reward; {lower_lr} or {raise_kl}")

    # a slow decline: below the best earlier epoch beyond noise, where no single step was a regression
    by_e = dict(rewards)
    for m in ms:
        e, fb = m["epoch"], m.get("_reward/from_best")
        if not isinstance(fb, dict) or e not in by_e or fb["from"] not in by_e or any(
                fb["from"] < r <= e for r in regressed):   # a regression since the best says it already
            continue
        r_best, r1 = by_e[fb["from"]], by_e[e]
        if r1 < r_best - cfg.regression_drop and (fb["ci"][1] < 0 or not math.isfinite(fb["ci"][1])):
            back = next(((ep, r) for ep, r in rewards if ep > e and r >= r_best - cfg.regression_drop), None)
            flag("reward_decline", e,
                 f"reward/mean {r1:.4f} at epoch {e} against {r_best:.4f} at epoch {fb['from']}, its best "
                 f"({r1 - r_best:+.4f}, 95% [{fb['ci'][0]:+.4f}, {fb['ci'][1]:+.4f}]): "
                 + " -> ".join(f"{v:.4f}" for ep, v in rewards if fb["from"] <= ep <= e)
                 + (f"; back to {back[1]:.4f} at epoch {back[0]}" if back else ""),
                 (recovered(back[0]) if back else "") + f"{lower_lr} or {raise_kl}; {variant_advice(e)}; the evals "
                 f"say whether the held-out score fell too; eval.patience stops a run whose eval stops improving",
                 "recovered" if back else "warning")
    loss_rising(ms, cfg, s, flag, lower_lr, raise_kl)


def settings_moved(m0: dict, m1: dict) -> str:
    """The settings two epochs sampled, judged or rewarded with that differ ('sample.max_new_tokens 4 -> 8'), from
    each epoch's own record (`_sample/settings`, the report's); '' where they agree or were not recorded."""
    a, b = m0.get("_sample/settings") or {}, m1.get("_sample/settings") or {}
    moved = [f"{k} {a[k]} -> {b[k]}" for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]
    return ", ".join(moved[:4]) + (f" and {len(moved) - 4} more" if len(moved) > 4 else "")


def within_kl(m: dict, cfg: ReportConfig, s: dict[str, Any]) -> bool:
    """Epoch m's kl/k3 at most report.kl_high x the KL target (update.kl_target under adaptive KL, else
    report.kl_target): the policy's distance from its reference is in budget."""
    k3 = as_number(m.get("kl/k3"))
    return k3 is not None and k3 <= cfg.kl_high * kl_target(s, cfg.kl_target)[0]


def _rises(window: list[float], noise: float = 0.0) -> bool:
    """The window's last value is its highest and more than 5% (at least 0.001, and more than `noise`)
    above its first."""
    start, end = window[0], window[-1]
    return end == max(window) and end - start > max(0.05 * abs(start), 1e-3, noise)


def loss_rising(ms: list[dict], cfg: ReportConfig, s: dict[str, Any], flag: Callable[..., None],
                lower_lr: str, raise_kl: str) -> None:
    """Loss rising k epochs running. Rule: epoch i is flagged when the loss is the highest of epochs
    i-k..i and more than 5% (at least 0.001) above the loss k epochs before. So a dip inside the window
    (0.3853 -> 0.3552 -> 0.4473) does not hide a rise over it, noise on a flat loss does not count, and
    a loss that is falling at the latest epoch is not flagged. loss/policy, which group-normalised
    advantages hold near 0, wobbles by its own noise: a rise no larger than its spread over the window
    (max - min) is that noise, not a rise. With teacher rows in the update, loss/total also holds their
    NLL x update.teacher_sft_coef, whose number alone moves it: then loss/policy + loss/kl, or loss/sft,
    must rise by the same rule, each judged where it was recorded at the window's ends (an epoch trained
    on teacher rows alone has no RL part). While kl/k3 stays in budget (`within_kl`), loss/kl rising is the
    policy moving from its reference as it learns: loss/total less loss/kl must rise."""
    k = cfg.loss_rising_epochs
    rl_epochs = [m for m in ms if int(m["epoch"]) >= 1]   # epoch 0: the warm-start's supervised loss and entropy
    loss = series(rl_epochs, "loss/total")
    # trained at lr 0 (schedule_ended's): read where lr_next is recorded too (before, lr_last was the next step's rate)
    idle = {int(m["epoch"]) for m in rl_epochs if "optim/lr_next" in m and as_number(m.get("optim/lr_last")) == 0}
    for i in range(k, len(loss)):
        if loss[i][0] in idle:   # its loss moves with its prompts alone: no learning rate to lower
            continue
        window = [v for _, v in loss[i - k: i + 1]]
        start, end = window[0], window[-1]
        span = [m for m in rl_epochs if loss[i - k][0] <= int(m["epoch"]) <= loss[i][0]]
        cols = {key: [as_number(m.get(key)) for m in span]
                for key in ("loss/policy", "loss/kl", "loss/sft", "select/teacher_rows")}
        pol = [v for v in cols["loss/policy"] if v is not None]
        noise = max(pol) - min(pol) if len(pol) > 1 else 0.0
        if not _rises(window, noise):
            continue
        # the policy moving from its reference while its KL stays in budget (at most report.kl_high x the target)
        # raises loss/kl as it learns: that part of the rise is no fault, so the rest must rise on its own
        drift = within_kl(span[-1], cfg, s)
        kl_at = {int(m["epoch"]): as_number(m.get("loss/kl")) for m in span}
        if drift and all(kl_at.get(e) is not None for e, _ in loss[i - k: i + 1]) and not _rises(
                [v - kl_at[e] for e, v in loss[i - k: i + 1]], noise):
            continue
        teacher = cols["select/teacher_rows"]
        rising: list[str] = []   # with teacher rows: which part of loss/total rose
        if any(teacher):
            rl = [None if p is None or q is None else p + (0.0 if drift else q)
                  for p, q in zip(cols["loss/policy"], cols["loss/kl"])]
            rising = [name for name, vals, nz in (("loss/policy" + ("" if drift else " + loss/kl"), rl, noise),
                                                  ("loss/sft", cols["loss/sft"], 0.0))
                      if vals[0] is not None and vals[-1] is not None and _rises([v for v in vals if v is not None], nz)]
            if not rising:
                continue
        parts = "; ".join(f"{key} " + " -> ".join("-" if v is None else f"{v:.4g}" for v in vals)
                          for key, vals in cols.items() if any(v is not None for v in vals))
        back = next(((e, v) for e, v in loss[i + 1:] if v <= start), None)   # the loss came down to the window's start
        flag("loss_rising", loss[i][0],
             f"loss/total over epochs {loss[i - k][0]}..{loss[i][0]}: "
             f"{' -> '.join(f'{v:.4f}' for v in window)} ({end - start:+.4f}"
             # (no percentage of a start near 0: +152874329% says nothing)
             + (f", {100 * (end - start) / abs(start):+.0f}%)" if abs(start) >= 0.1 * abs(end - start) else ")")
             + (f" ({parts})" if parts else "") + (f"; back to {back[1]:.4f} at epoch {back[0]}" if back else ""),
             (recovered(back[0]) if back else "") + f"{lower_lr}; if loss/kl carries the rise, the policy is drifting from the reference: {raise_kl}"
             + ("; loss/total also holds update.teacher_sft_coef x the teacher rows' NLL (select/teacher_rows: "
                f"prompts the student's best answer lost), whose number alone moves it: the rise is in {' and '.join(rising)}"
                if rising else "")
             + (" alone, the NLL of other teacher answers each epoch (harder ones to imitate raise it as the student "
                "drifting from them does): if it recurs, " + key_change("update.teacher_sft_coef", "raise", s)
                if rising == ["loss/sft"] else ""),
             "recovered" if back else "warning")
