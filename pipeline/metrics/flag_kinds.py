"""What the report's flags are: each flag's name and meaning (FLAGS, which docs/reading-the-report.md and
the report's glossary print), its severities, and the Flag record `flags.analyse` raises."""
from __future__ import annotations

from dataclasses import dataclass

# -- health checks ----------------------------------------------------------------------
SEVERITIES = ("critical", "warning", "recovered")
"""recovered: a reward or loss flag whose fall a later epoch undid (the epoch it came back at is said), or a KL
flag whose update left a policy that sampled the next epoch near its reference."""

FLAGS: dict[str, str] = {
    "non_finite": "a recorded figure is NaN or infinite (a diverged loss, a NaN advantage, a judge's NaN score): "
                  "every check that reads it is blind, so the epoch is flagged whole",
    "reward_regression": "reward/mean fell by more than report.regression_drop from the previous epoch, and the 95% "
                         "interval of the change lies below 0 (paired by prompt where both epochs scored the same "
                         "prompts, a plain t interval below 5 of them; else Welch's, over the two epochs' prompt means; one "
                         "prompt: the threshold alone): a fall inside the interval is noise, not a regression. Critical "
                         "when the whole interval lies beyond 5 x report.regression_drop",
    "reward_decline": "reward/mean below the best earlier epoch (not the previous one) by more than "
                      "report.regression_drop, with the 95% interval of the change from that epoch below 0: a slow "
                      "decline whose every step is inside the noise (reward_regression compares neighbours)",
    "loss_rising": "loss/total at the highest of the last report.loss_rising_epochs+1 RL epochs and more than 5% "
                   "(at least 0.001) above its value report.loss_rising_epochs epochs before (the warm-start, epoch 0, "
                   "trains another loss and is left out) and by more than loss/policy's spread over the window (its "
                   "noise, near 0 by construction); with teacher rows in the update, loss/policy + loss/kl or "
                   "loss/sft must rise by the same rule (their number alone moves loss/total); while kl/k3 stays "
                   "within report.kl_high x the KL target, loss/total less loss/kl must rise (the policy moving from "
                   "its reference as it learns raises loss/kl with nothing wrong)",
    "best_of_n_vs_mean": "reward/best_of_n rose, by more than report.regression_drop and a quarter of the mean's fall, "
                         "while reward/mean fell by more than report.regression_drop",
    "eval_regression": "eval/pass@1 or eval/score fell from the previous eval, or from the run's first, with the 95% "
                       "interval of the change, paired by problem (a plain paired t interval below 5 problems), below "
                       "0: the held-out score fell beyond noise",
    "no_signal": "score/student_mean below report.min_student_score, or more than half of the first epoch's groups "
                 "at zero spread while the student scores below 0.5 (unsolved, not solved): the run cannot learn as "
                 "configured (replaces mode_collapse at that epoch)",
    "mode_collapse": "reward/frac_zero_std above report.max_frac_zero_std (its cause read from the answers: most cut "
                     "off, completion/truncated_frac; the same text, completion/diversity; the student's score)",
    "entropy_collapse": "policy/entropy below report.min_entropy, or fallen report.entropy_falls epochs running to more than "
                        "report.entropy_drop below its highest earlier value (swings that recover are not flagged); RL "
                        "epochs only (the warm-start's entropy, epoch 0, is over the teacher's answers at T=1). An epoch "
                        "whose update diverged (its kl/k3, or the next epoch's kl/k3_start, above report.kl_explode x "
                        "the KL target) is no value to fall from: a diverged policy's entropy is noise",
    "kl_high": "kl/k3 above report.kl_high x the KL target (report.kl_target; update.kl_target with "
               "update.kl_mode=adaptive)",
    "kl_exploding": "kl/k3 above report.kl_explode x the KL target (both KL flags recovered when the next epoch's "
                    "kl/k3_start, the policy the update made, is back under report.kl_high x the target)",
    "negative_k1": "kl/k1_start (the sampled tokens under the policy that sampled them, against the reference, "
                   "before any update step) below report.negative_k1 (a run without kl/k1_start is not checked: the "
                   "update's kl/k1 is below 0 by construction once a step moves the policy)",
    "sampler_mismatch": "logprobs/sampler_gap above report.max_sampler_gap, or logprobs/sampler_outside above "
                        "report.max_sampler_outside, or an RL epoch sampled with sample.top_p < 1 or sample.top_k > 0 "
                        "(a truncation the update does not apply: its gap is at most -ln(top_p), 0.105 nats at "
                        "0.9, below what the figures' thresholds see)",
    "reward_cv_high": "reward/cv above report.max_reward_cv, when select.advantage=raw (grpo/mean advantages are "
                      "within-group: spread across prompts does not reach the gradient; reward/frac_zero_std is the "
                      "spread that matters)",
    "clip_high": "policy/clip_ratio (the share of tokens whose ratio the update clipped) above report.max_clip_ratio: "
                 "the update moves the policy further than update.clip_eps lets the gradient follow (the clipped "
                 "surrogate only: reinforce and loss_type=sapo clip nothing, cispo keeps every token's gradient)",
    "nothing_trained": "an RL epoch whose update trained no token (update/trained_tokens 0, or select/kept_frac 0): "
                       "the policy did not change",
    "schedule_ended": "an RL epoch past update.planned_epochs whose learning rate ended at 0 (optim/lr_last): the LR "
                      "schedule spans the planned epochs, and an epoch after them learns nothing",
    "truncation_high": "completion/truncated_frac above report.max_truncated_frac (risen from below it as the policy "
                       "that sampled diverged, kl/k3_start or the previous update's kl/k3 above report.kl_explode x the "
                       "KL target: said to be the divergence's symptom)",
    "judge_parse_failures": "judge/parse_failures above report.max_parse_failure_frac of the epoch's judgements "
                            "(judge/judgements)",
    "judge_cost": "judge/cost_usd above report.max_cost_per_epoch_usd",
    "teacher_weak": "with reward.kind=ratio, score/teacher_mean below report.min_teacher_score",
    "teacher_missing": "with reward.kind=ratio, prompts without a teacher score (reward/no_teacher_score: no teacher "
                       "answer, or one the judge could not read): their students' ratio is taken against a perfect "
                       "teacher, score / (1 + reward.eps), so the teacher-relative part is lost there. Critical when "
                       "no prompt of the epoch (data/prompts) has one",
    "unscored": "no answer of the epoch scored (no reward figures at all), or judge/skipped (answers left out: "
                "judge.skip_missing, refused requests) above report.max_parse_failure_frac of its judgements",
    "teacher_below_student": "with reward.kind=ratio, score/teacher_mean below score/student_mean by more than "
                             "report.regression_drop: the ratio rewards beating a weaker teacher, and "
                             "update.teacher_sft_coef imitates its answers",
}


@dataclass(frozen=True)
class Flag:
    name: str
    """One of FLAGS."""
    epoch: int
    severity: str
    """critical | warning."""
    evidence: str
    """The numbers that raised it."""
    advice: str
    """Which config keys to change, and which way."""
