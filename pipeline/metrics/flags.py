"""When a run's metrics say it is unhealthy: the report's flags, each with its evidence and advice.

`analyse` is a pure function over the recorded metric dicts (metrics.json per epoch), thresholds
from `report.*` in the config; each flag names the config keys to change and which way.

Deliberately left out: statistical tests across epochs (a few epochs of a few dozen prompts
cannot carry them); the thresholds are rules of thumb, tuned in config.
"""
from __future__ import annotations

import math
from typing import Any

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.advice import (bounded_judge, key_change, kl_lever, kl_target, no_signal_flag, passes_advice,
                                     stop_advice)
from pipeline.metrics.doc import as_number, series
from pipeline.metrics.flag_kinds import FLAGS, SEVERITIES, Flag
from pipeline.metrics.trends import trend_flags

TIED_BY_TRUNCATION = 0.5
"""completion/truncated_frac above which mode_collapse blames the length limit: with most answers cut off a
group's rewards tie (sample.max_new_tokens=4 cut 86% off, the length judge then scored them alike)."""


def analyse(epochs: list[dict], cfg: ReportConfig, settings: dict[str, Any] | None = None) -> list[Flag]:
    """Flags raised by the recorded metrics of a run (one dict per epoch, each with "epoch").

    `settings` (flat "section.key" -> value, the run's config) sharpens the advice ("2e-05 -> 1e-05"
    instead of "lower update.lr") and turns on the checks a setting calls for (select.advantage=raw, a
    truncated sampler); an epoch's own `_sample/settings` (its sample, judge and reward stages' settings, put there
    by the report) comes before it. Missing metrics skip their checks.
    """
    s = settings or {}
    ms = sorted(epochs, key=lambda m: m["epoch"])
    flags: list[Flag] = []

    def flag(name: str, epoch: int, evidence: str, advice: str, severity: str = "warning") -> None:
        flags.append(Flag(name, epoch, severity, evidence, advice))

    lower_lr, raise_kl = key_change("update.lr", "lower", s), kl_lever(s)

    trend_flags(ms, cfg, s, flag)   # across epochs: reward regression and decline, best-of-N, loss rising
    rl_epochs = [m for m in ms if int(m["epoch"]) >= 1]   # epoch 0: the warm-start's supervised loss and entropy
    # an epoch whose update trained the teacher's rows alone measured their entropy (at T = 1), not the policy's
    entropy = series([m for m in rl_epochs if as_number(m.get("select/kept_frac")) != 0], "policy/entropy")
    target, target_key = kl_target(s, cfg.kl_target)
    adaptive = target_key == "update.kl_target"
    levels = _entropy_levels(entropy, ms, cfg.kl_explode * target)
    collapsing = set()  # epochs where entropy fell `entropy_falls` times running, far below its earlier peak
    for i in range(cfg.entropy_falls, len(entropy)):
        run = [v for _, v in entropy[i - cfg.entropy_falls: i + 1]]
        peak = max((v for ep, v in levels if ep < entropy[i][0]), default=None)
        if all(b < a for a, b in zip(run, run[1:])) and peak is not None and run[-1] < (1 - cfg.entropy_drop) * peak:
            collapsing.add(entropy[i][0])
    by_epoch = {int(m["epoch"]): m for m in ms}
    rollback: dict[int, int] = {}   # truncation_high, a divergence's symptom -> the epoch whose update to redo
    first_rl = min((int(m["epoch"]) for m in ms if as_number(m.get("reward/frac_zero_std")) is not None), default=None)
    for m in ms:
        e = int(m["epoch"])
        get = lambda key: as_number(m.get(key))  # noqa: E731
        # the settings this epoch sampled, judged and rewarded with, where the report recorded them (a run may
        # change them between epochs), else the run's
        own = {**s, **(m.get("_sample/settings") or {})}
        cut = _truncation(own)
        raise_t = key_change("sample.temperature", "raise", own, factor=1.2)
        raise_k = key_change("sample.num_samples", "raise", own)

        bad = sorted(k for k, v in m.items() if isinstance(v, float) and not math.isfinite(v) and not k.startswith("_"))
        if bad:
            flag("non_finite", e, ", ".join(f"{k} {m[k]}" for k in bad[:8]) + (f" (+{len(bad) - 8} more)" if len(bad) > 8 else ""),
                 f"the checks that read these figures see nothing. A NaN loss, KL or entropy: the update diverged "
                 f"(the update stops before writing NaN weights; an older run's adapter may hold them): {lower_lr}, "
                 f"update.max_grad_norm, then `rlaif update {e} update.lr=...`; a NaN reward or score: look at the "
                 f"judgements (`rlaif samples {e} --worst K`)", "critical")

        fz = get("reward/frac_zero_std")
        blind = no_signal_flag(m, e == first_rl, cfg, own)
        if blind:
            flag("no_signal", e, *blind, "critical")
        elif fz is not None and fz > cfg.max_frac_zero_std:
            st, div, cut_off = get("score/student_mean"), get("completion/diversity"), get("completion/truncated_frac")
            bounded = bounded_judge(s)   # a reward function: any range
            why = (f"{cut_off:.0%} of the answers are cut off (completion/truncated_frac {cut_off:.3f}) and tie at what "
                   f"the judge gives a cut-off answer: the length limit, not the judge, makes the groups equal; "
                   + key_change("sample.max_new_tokens", "raise", own)
                   if cut_off is not None and cut_off > TIED_BY_TRUNCATION else
                   "a group's answers are (nearly) the same text (completion/diversity "
                   f"{div:.3f}): sampling is too sharp" if div is not None and div < 0.05 else
                   "the answers differ (completion/diversity "
                   f"{div:.3f}) yet score the same: the judge does not tell them apart (a constant or coarse reward)"
                   if div is not None and div > 0.5 and not bounded else
                   "most groups score the same low value, the prompts are too hard: narrow data.difficulties "
                   "(e.g. drop hard)" if bounded and st is not None and st < 0.1 else
                   "most groups are solved by every sample: add harder prompts (data.difficulties)"
                   if bounded and st is not None and st > 0.9 else "adjust the prompt mix (data.difficulties)")
            flag("mode_collapse", e,
                 f"reward/frac_zero_std {fz:.3f} > {cfg.max_frac_zero_std}: {fz:.0%} of prompt groups have all K rewards "
                 f"equal and give no learning signal" + (f" (score/student_mean {st:.3f})" if st is not None else ""),
                 f"{raise_t} and {raise_k} so groups spread; if it rose after updates, {lower_lr}; {why}; "
                 f"curriculum.strategy=adaptive prefers prompts the student solves only sometimes")

        ent = get("policy/entropy") if get("select/kept_frac") != 0 else None
        if e >= 1 and ent is not None and (ent < cfg.min_entropy or e in collapsing):
            peak = max((v for ep, v in levels if ep < e), default=ent)
            left = [str(ep) for ep, _ in entropy if ep < e and ep not in dict(levels)]
            flag("entropy_collapse", e,
                 f"policy/entropy {ent:.4f} nats (highest earlier {peak:.4f}"
                 + (f", epoch{'s' * (len(left) > 1)} {', '.join(left)} left out: diverged" if left else "")
                 + f"; floor {cfg.min_entropy}; fell {cfg.entropy_falls} epochs running by more than "
                 f"{cfg.entropy_drop:.0%}: {e in collapsing})",
                 f"the policy is becoming deterministic: {raise_t}, {raise_k}, {lower_lr}, {raise_kl}",
                 "critical" if ent < cfg.min_entropy else "warning")

        k3 = get("kl/k3")
        if k3 is not None and k3 > cfg.kl_high * target:
            explode = k3 > cfg.kl_explode * target
            # the policy this update made, read where it sampled the next epoch: back near its reference, the
            # update's average was a few steps' (or tokens') spike, not where the policy went
            after, before = (as_number(next((n for n in ms if int(n["epoch"]) == x), {}).get(k))
                             for x, k in ((e + 1, "kl/k3_start"), (e - 1, "kl/k3")))
            back = (after is not None and after <= cfg.kl_high * target and own.get("update.kl_reference") != "previous"
                    and not (before is not None and before > cfg.kl_high * target))   # (a spike each epoch: it recurs)
            flag("kl_exploding" if explode else "kl_high", e,
                 f"kl/k3 {k3:.4g} = {k3 / target:.3g} x {target_key} {target:g} "
                 f"(flag above {cfg.kl_explode if explode else cfg.kl_high} x)"
                 + (f"; kl/k3_start {get('kl/k3_start'):.4g} (the policy that sampled, against the reference: the "
                    f"update's kl/k3 averages over its steps, where one token's ratio can dominate)"
                    if get("kl/k3_start") is not None else "")
                 + (f"; the policy it made is back at kl/k3_start {after:.4g} at epoch {e + 1}" if back else ""),
                 ("a spike inside the update, not where it left the policy (that sampled the next epoch near its "
                  "reference), so no change is needed unless it recurs; if it does, " if back else
                  "the policy moves away from the reference too fast: ")
                 + f"{raise_kl}, {lower_lr}, "
                 + (f"or {key_change('update.kl_horizon', 'lower', own)} so the adaptive coefficient reacts sooner"
                    if adaptive else "or let update.kl_mode=adaptive steer the coefficient toward update.kl_target")
                 + passes_advice(s)
                 + (f"; consider promoting an earlier variant (`rlaif compare {e}`)" if explode and not back else ""),
                 "recovered" if back else "critical" if explode else "warning")

        # Not the update's kl/k1: it averages over the update's steps, and once a step moves the policy
        # it estimates KL(old || ref) - KL(old || new), below 0 by construction where the reference is
        # the policy that sampled (epoch 1 after the warm-start: measured -0.0104 with kl/k1_start 0.0).
        k1_key = "kl/k1_start"
        k1 = get(k1_key)
        if k1 is not None and k1 < cfg.negative_k1:
            flag("negative_k1", e,
                 f"{k1_key} {k1:.4f} < {cfg.negative_k1}" + (f" (kl/k3 {k3:.4f})" if k3 is not None else "")
                 + (f"; this run samples with {', '.join(cut)}" if cut else ""),
                 "k1 = mean(log pi - log ref) estimates a KL only when the tokens were drawn from pi; a KL cannot be "
                 "negative, so the sampled tokens did not come from the distribution the KL is computed on (pi at "
                 "sample.temperature, without dropout); k3 stays >= 0 and hides this. " + _mismatch_first(own)
                 + "Likely causes: a truncation the KL does not apply (sample.top_p=1 and sample.top_k=0); sampling "
                 "in another dtype (sample.dtype other than student.dtype: sample.dtype=float32); the engine's kernels "
                 "(sample.engine=vllm: compare with sample.engine=hf on the same epoch)")

        gap, outside = get("logprobs/sampler_gap"), get("logprobs/sampler_outside")
        # a truncation in the settings mismatches by construction, where the figures may not show it: the
        # sampler's logprob is the renormalised nucleus's, so the gap is at most -ln(top_p) (0.105 at 0.9)
        sampled = e >= 1 and (gap is not None or get("reward/mean") is not None)   # an RL epoch
        if (gap is not None and gap > cfg.max_sampler_gap) or (outside is not None and outside > cfg.max_sampler_outside) \
                or (cut and sampled):
            flag("sampler_mismatch", e,
                 (f"this run samples with {', '.join(cut)}: the update's ratio and KL read the untruncated "
                  "distribution; " if cut and sampled else "")
                 + (f"logprobs/sampler_gap {gap:.4f} nats (report.max_sampler_gap {cfg.max_sampler_gap})" if gap is not None
                    else "logprobs/sampler_gap not recorded")
                 + (f", largest {get('logprobs/sampler_gap_max'):.3f}" if get("logprobs/sampler_gap_max") is not None else "")
                 + (f", {outside:.1%} of tokens with a ratio outside [0.5, 2] (report.max_sampler_outside "
                    f"{cfg.max_sampler_outside:.0%})" if outside is not None else ""),
                 "the engine that sampled (sample.engine) gave its tokens other probabilities than the update's model "
                 "does: the update's ratio and KL assume the tokens came from its own distribution (kl/k1_start then "
                 "reads off kl/k3_start, either way). " + _mismatch_first(own) + "Likely causes, in order: a truncation "
                 "the update does not apply (sample.top_p=1 and sample.top_k=0); a logits processor of the model's generation_config (repetition_penalty, "
                 "no_repeat_ngram_size: our engines leave them out, so look for rows sampled elsewhere); the dtype "
                 "(sample.dtype other than student.dtype: set sample.dtype=float32 to sample the trained weights "
                 "themselves); the engine (vLLM's kernels and merged LoRA: compare with sample.engine=hf on the same epoch)")

        cv = get("reward/cv")
        if cv is not None and cv > cfg.max_reward_cv and own.get("select.advantage", "grpo") == "raw":
            mean, std = get("reward/mean"), get("reward/std")
            flag("reward_cv_high", e,
                 f"reward/cv {cv:.3f} > {cfg.max_reward_cv}"
                 + (f" (reward/mean {mean:.4f}, std {std:.4f})" if mean is not None and std is not None else ""),
                 "with select.advantage=raw the reward itself is the advantage, so a few outliers carry the "
                 "gradient: set select.advantage=grpo (per-group normalisation)"
                 + (f", or {key_change('reward.clip_max', 'lower', own)} or {key_change('reward.eps', 'raise', own)} (a weak "
                    f"teacher answer inflates the ratio)" if own.get("reward.kind", "ratio") == "ratio" else "")
                 + "; if most rewards are 0, use easier prompts (data.difficulties)")

        clip = get("policy/clip_ratio")
        clipped_surrogate = own.get("update.algorithm", "grpo") == "grpo" and own.get("update.loss_type") not in ("cispo", "sapo")
        if clip is not None and clip > cfg.max_clip_ratio and clipped_surrogate:
            flag("clip_high", e,
                 f"policy/clip_ratio {clip:.3f} > report.max_clip_ratio {cfg.max_clip_ratio}"
                 + (f" (low {get('policy/clip_low'):.3f}, high {get('policy/clip_high'):.3f})"
                    if get("policy/clip_low") is not None and get("policy/clip_high") is not None else ""),
                 f"the clipped tokens give no gradient, so the update learns from few: {lower_lr}"
                 + passes_advice(s) + "; or a larger batch per optimizer step (update.grad_accum)")

        tt, kept = get("update/trained_tokens"), get("select/kept_frac")
        if e >= 1 and (tt == 0 or (kept == 0 and not get("select/teacher_rows"))):   # teacher rows alone still train
            flag("nothing_trained", e,
                 f"update/trained_tokens {tt if tt is not None else '-'}, select/kept_frac {kept if kept is not None else '-'}",
                 "every answer was dropped before the update: "
                 + (f"{get('score/student_unscored'):.0f} answers were unscored, and reward.none_as=None drops them "
                    f"(`rlaif samples {e} --worst K` shows why the judge left them out; reward.none_as=0 trains on them); "
                    if get("score/student_unscored") and "reward.none_as" in s and s["reward.none_as"] is None else "")
                 + "select.drop_zero_std (every group at zero spread: see reward/frac_zero_std), select.min_reward "
                 "above every reward, or update.mask_truncated_completions with every answer cut off (raise "
                 "sample.max_new_tokens)",
                 "critical")

        planned, lr_last = as_number(own.get("update.planned_epochs")), get("optim/lr_last")
        carried = own.get("update.optimizer_state", "carry") == "carry" and own.get("update.scheduler") != "constant"
        if e >= 1 and planned and e > planned and lr_last == 0 and get("optim/lr") and carried:   # reset: every epoch ends at 0
            flag("schedule_ended", e,
                 f"epoch {e} > update.planned_epochs {planned:.0f}; optim/lr_last 0 ({own.get('update.scheduler', 'cosine')} "
                 f"schedule over the planned epochs)",
                 f"set update.planned_epochs to the epochs you mean to run (e.g. {e}) and rerun from the first epoch "
                 f"past it (`rlaif epoch {int(planned) + 1} --force`), or update.scheduler=constant")

        tr = get("completion/truncated_frac")
        if tr is not None and tr > cfg.max_truncated_frac:
            # risen from a low level as the policy that sampled blew up (its kl/k3_start, the kl/k3 of the update
            # that made it; this update's where kl/k3_start is not recorded): a diverged policy runs on to the limit
            # (update.lr=0.5: 0 -> 0.97 at the epoch kl/k3_start reached 13)
            was = as_number(by_epoch.get(e - 1, {}).get("completion/truncated_frac"))
            start = get("kl/k3_start")
            blown = next(((k, v) for k, v in (("kl/k3_start", start), (f"epoch {e - 1}'s kl/k3", as_number(
                by_epoch.get(e - 1, {}).get("kl/k3"))), ("kl/k3", k3 if start is None else None))
                          if v is not None and v > cfg.kl_explode * target), None)
            # the epoch before was cut off little (or was this symptom already): redo the update that made its policy
            since = rollback.get(e - 1, e - 1 if was is not None and was <= cfg.max_truncated_frac else None)
            symptom = blown if e >= 2 and since else None
            if symptom:
                rollback[e] = since
            flag("truncation_high", e,
                 f"completion/truncated_frac {tr:.3f} > {cfg.max_truncated_frac}"
                 + (f" (completion/length_mean {get('completion/length_mean'):.0f} tokens)" if get("completion/length_mean") is not None else "")
                 + (f"; {f'up from {was:.3f} at epoch {e - 1}' if since == e - 1 else f'high since epoch {since + 1}'} "
                    f"as {symptom[0]} reached {symptom[1]:.4g} = {symptom[1] / target:.3g} x {target_key} {target:g}"
                    if symptom else ""),
                 (f"likely a symptom of the divergence, not a short limit: the policy that sampled epoch {e} moved "
                  f"far from its reference and its answers run on. {lower_lr} and roll back (`rlaif update {since} "
                  f"update.lr=...`) before a longer limit; if it persists, " if symptom else "")
                 + key_change("sample.max_new_tokens", "raise", own) + stop_advice(own)
                 + ("; truncated answers score x judge.execution.truncation_factor (judge.ocaml.truncation_factor for "
                    "OCaml)" if own.get("judge.kind", "execution") in ("execution", "mix") else ""))

        pf = get("judge/parse_failures")
        if pf:
            # judge/judgements: each answer once; older runs lack it (api calls + cache hits count an answer once
            # a judge.mix component)
            n_j = get("judge/judgements") or (get("judge/api_calls") or 0) + (get("judge/cache_hits") or 0)
            frac = pf / n_j if n_j else 1.0
            if frac > cfg.max_parse_failure_frac:
                flag("judge_parse_failures", e,
                     f"judge/parse_failures {pf:.0f} of {n_j:.0f} judgements ({frac:.1%} > {cfg.max_parse_failure_frac:.0%})",
                     f"look at them: `rlaif samples {e} --worst K` shows each one's reason. Execution judge: a "
                     f"problem without tests, or a sandbox that could not start (its message says why; an answer that "
                     f"runs out of judge.execution.timeout_s is scored, not left out); LLM judges: fix the rubric's "
                     f"output format or the judge.model; a reward function (judge.kind=python) returned None, NaN or "
                     f"inf for them. reward.none_as decides what an unscored completion earns (None = dropped)")

        cost = get("judge/cost_usd")
        if cost is not None and cost > cfg.max_cost_per_epoch_usd:
            flag("judge_cost", e,
                 f"judge/cost_usd ${cost:.2f} > ${cfg.max_cost_per_epoch_usd:.2f} per epoch "
                 f"(api_calls {get('judge/api_calls') or 0:.0f}, cache_hits {get('judge/cache_hits') or 0:.0f})",
                 f"cap it with judge.budget_usd; {key_change('sample.num_samples', 'lower', own)} or "
                 f"{key_change('data.prompts_per_epoch', 'lower', own)}; use a cheaper judge.model or judge.kind=execution/mix; "
                 f"reruns and `rlaif replay` answer from the cache for free")

        ch = m.get("_eval/change")   # a list of changes (pass@1 and score, from the previous and the first eval)
        fell = [c for c in (ch if isinstance(ch, list) else [ch] if isinstance(ch, dict) else []) if c["ci"][1] < 0]
        if fell:
            flag("eval_regression", e, "; ".join(
                 f"eval/{c.get('metric', 'pass@1')} {c['a']:.4f} at epoch {c['from']} -> {c['b']:.4f} ({c['b'] - c['a']:+.4f}, "
                 f"95% [{c['ci'][0]:+.4f}, {c['ci'][1]:+.4f}] over {c['problems']} problems, paired)" for c in fell),
                 f"the policy got worse on held-out problems: {lower_lr} or {raise_kl}, as a variant "
                 f"(`rlaif update {e} update.lr=...`, `rlaif compare {e}`); eval.patience stops a run whose eval "
                 f"stops improving")

        ts = get("score/teacher_mean")
        if ts is not None and ts < cfg.min_teacher_score and own.get("reward.kind", "ratio") == "ratio":
            flag("teacher_weak", e,
                 f"score/teacher_mean {ts:.3f} < {cfg.min_teacher_score}: reward = student / (teacher + reward.eps) "
                 f"then mostly measures reward.eps"
                 + (f"; teacher/missing {get('teacher/missing'):.0f}" if get("teacher/missing") else ""),
                 f"use a stronger teacher (teacher.kind=anthropic|openai with teacher.model) or check the references; "
                 f"{key_change('reward.eps', 'raise', own, factor=5)} to damp the ratio")
        # runs before reward/no_teacher_score counted only the answers that never came
        tm = get("reward/no_teacher_score") if get("reward/no_teacher_score") is not None else get("teacher/missing")
        if tm and own.get("reward.kind", "ratio") == "ratio" and own.get("teacher.kind") != "none":
            absent, n = get("teacher/missing") or 0, get("data/prompts")
            unread, skipped, every = tm - absent, get("judge/skipped") or 0, bool(n) and tm >= n
            flag("teacher_missing", e,
                 (f"{tm:.0f} of {n:.0f}" if n else f"{tm:.0f}") + f" prompts without a teacher score (teacher/missing "
                 f"{absent:.0f}" + (f", {unread:.0f} teacher answers unscored" + (
                     f": judge/skipped {skipped:.0f}, judgements not in the cache a replay skipped" if skipped else
                     ", the judge could not read them") if unread > 0 else "")
                 + "): their students' ratio is taken against a perfect teacher, score / (1 + reward.eps), "
                 + ("so the reward has no teacher at all: the student's own score, scaled" if every else
                    "so the teacher-relative part of the reward is lost there"),
                 (f"import the rest of the cache (rlaif cache import FILE) or judge them live (`rlaif epoch {e} "
                  "--force`); " if skipped and unread > 0 else "")
                 + ("teacher.kind=reference takes each row's `reference` field as the teacher's answer, and "
                    f"{absent:.0f} rows have none: add a `reference` to the data, use a model teacher "
                    "(teacher.kind=anthropic|openai|hf with teacher.model), or reward.kind=direct"
                    + ("; for the rest, the judge's parse failures" if unread > 0 else "")
                    if own.get("teacher.kind") == "reference" and absent else
                    "look at the teacher stage's warnings (an API teacher's refused or cut-off answers: raise "
                    "teacher.max_tokens, which asks again; an answer given empty is cached as given) and the judge's "
                    "parse failures, or use reward.kind=direct"),
                 "critical" if every else "warning")
        unscored, skipped, answers = get("score/student_unscored"), get("judge/skipped"), get("judge/judgements")
        nothing = bool(unscored) and get("reward/mean") is None
        if nothing or (skipped and (not answers or skipped / answers > cfg.max_parse_failure_frac)):
            flag("unscored", e,
                 f"score/student_unscored {unscored or 0:.0f}" + (f", judge/skipped {skipped:.0f}" if skipped else "")
                 + (f" (judge/judgements {answers:.0f}, the teacher's answers among them)" if answers else "")
                 + ("; no reward figures: nothing was scored" if nothing else ""),
                 f"`rlaif samples {e} --worst K` shows why; judge.skip_missing or the API's refusals leave answers "
                 f"out (`rlaif epoch {e} --force` asks again); reward.none_as gives an unscored answer a reward "
                 f"instead of dropping it", "critical" if nothing else "warning")
        st = get("score/student_mean")
        if (ts is not None and st is not None and ts >= cfg.min_teacher_score and ts < st - cfg.regression_drop
                and own.get("reward.kind", "ratio") == "ratio"):
            sft = as_number(own.get("update.teacher_sft_coef"))
            flag("teacher_below_student", e,
                 f"score/teacher_mean {ts:.3f} < score/student_mean {st:.3f}: the student's answers score above the "
                 f"teacher's, so most ratios exceed 1 (capped at reward.clip_max)",
                 "use a stronger teacher.model; or train on the student's own score, reward.kind=direct"
                 + (f", with update.teacher_sft_coef=0 (now {sft:.4g}: the update imitates the teacher's answers where "
                    "the student's best scores below them)" if sft else ""))

    order = {n: i for i, n in enumerate(FLAGS)}
    return sorted(flags, key=lambda f: (f.epoch, SEVERITIES.index(f.severity), order[f.name]))


def _truncation(s: dict[str, Any]) -> list[str]:
    """The run's sampling truncation ('sample.top_p=0.9'), which the update does not apply."""
    return [f"sample.{k}={s[f'sample.{k}']}" for k, off in (("top_p", 1.0), ("top_k", 0.0))
            if as_number(s.get(f"sample.{k}")) not in (None, off)]


def _mismatch_first(s: dict[str, Any]) -> str:
    """The sampler-mismatch cause this run's own settings show, said first ('' when none does)."""
    cut = _truncation(s)
    if cut:
        return f"This run samples with {', '.join(cut)}: set {' and '.join(c.split('=')[0] + ('=1' if 'top_p' in c else '=0') for c in cut)}. "
    if (s.get("sample.dtype") in ("bfloat16", "float16") and s.get("student.dtype") == "float32"
            and s.get("sample.engine") != "vllm"):
        return (f"This run samples with sample.dtype={s['sample.dtype']} and trains in float32: sample.dtype=float32 "
                f"samples the trained weights themselves. ")
    return ""


def _entropy_levels(entropy: list[tuple[int, float]], ms: list[dict], explode_at: float) -> list[tuple[int, float]]:
    """The epochs' entropies a collapse is measured from: not an epoch whose update diverged (its kl/k3, or the
    next epoch's kl/k3_start, the policy it made, above `explode_at` or not finite). A diverging policy's entropy
    is no level to fall from (update.lr=0.5: 6.61 nats at epoch 1, then 2.37, a healthy run's level, was read as
    a collapse). An entropy that rose without a KL blow-up stays a peak: a policy can fall from it."""
    by_epoch = {int(m["epoch"]): m for m in ms}

    def blown(m: dict, key: str) -> bool:
        v = m.get(key)
        return (isinstance(v, float) and not math.isfinite(v)) or (as_number(v) or 0.0) > explode_at
    return [(e, v) for e, v in entropy
            if not blown(by_epoch[e], "kl/k3") and not blown(by_epoch.get(e + 1, {}), "kl/k3_start")]
