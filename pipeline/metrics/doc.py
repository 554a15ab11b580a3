"""What every per-epoch metric means.

`metrics.json` keys are namespaced like CleanRL's (`loss/policy`, `kl/k3`). METRICS is the
one place they are documented: the report's glossary, its trend column ("better"/"worse"),
the health checks (pipeline/metrics/flags.py) and `python -m pipeline.metrics.doc` all read it. Also
here: `code_diversity`, the measure behind `completion/diversity`.
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Literal

Good = Literal["higher", "lower", "target", ""]


@dataclass(frozen=True)
class Metric:
    meaning: str
    good: Good
    """Which direction is good: higher, lower, target (near a set value), '' (context only)."""
    stage: str
    """The stage that records it."""


METRICS: dict[str, Metric] = {
    # reward: ratio reward student / (teacher + eps), DESIGN.md "The epoch"
    "reward/mean": Metric("mean reward of the completions that train: with reward.kind=ratio student/(teacher+reward.eps) clipped to [0, reward.clip_max], with direct the judge score; plus the shaping terms (reward/shaping_*); an unscored completion counts as reward.none_as where that is set and is dropped otherwise. Not recorded when no completion has a reward", "higher", "reward"),
    "reward/std": Metric("population std of the rewards over all completions", "", "reward"),
    "reward/cv": Metric("std / mean of the rewards over the whole batch: mostly how much prompts differ in difficulty, which GRPO's per-group advantages remove; it matters only with select.advantage=raw", "", "reward"),
    "reward/best_of_n": Metric("mean over prompts of the best of its K rewards (what best-of-N sampling would earn)", "higher", "reward"),
    "reward/frac_zero_std": Metric("share of prompt groups whose K rewards are all equal (no GRPO learning signal)", "lower", "reward"),
    "reward/shaping_overlong": Metric("mean overlong penalty per completion (reward.overlong_buffer, reward.overlong_penalty; DAPO's soft overlong punishment), <= 0", "", "reward"),
    "reward/shaping_length": Metric("mean length penalty per completion (-reward.length_penalty x length / sample.max_new_tokens), <= 0", "", "reward"),
    "reward/shaping_improve": Metric("mean improvement bonus per completion (reward.improve_bonus x the score's rise over the problem's last score), >= 0", "", "reward"),
    "score/student_mean": Metric("mean judge score (0..1) of the student's completions", "higher", "reward"),
    "breakdown/structure": Metric("execution judge: mean structure credit of the student's completions (closed code block / END)", "higher", "judge"),
    "breakdown/static": Metric("Python: mean static-check credit (parses; 1 - 0.25 per pyflakes error)", "higher", "judge"),
    "breakdown/load": Metric("Python: share of completions whose module loads and defines the entry point", "higher", "judge"),
    "breakdown/typecheck": Metric("OCaml: mean type-check credit (1 - judge.ocaml.error_penalty per compiler error; syntax error 0)", "higher", "judge"),
    "breakdown/compile": Metric("OCaml: mean compile credit (1 = links with the test harness, 0.5 = module only)", "higher", "judge"),
    "breakdown/tests": Metric("execution judge: mean fraction of tests passed", "higher", "judge"),
    "breakdown/<part>_ok": Metric("share of completions with full credit on that part (typecheck_ok: type-checks; compile_ok: compiles; tests_ok: passes every test)", "higher", "judge"),
    "score/teacher_mean": Metric("mean judge score of the teacher's answers (the ratio's denominator)", "higher", "reward"),
    "reward/no_teacher_score": Metric("with reward.kind=ratio, prompts rewarded without a teacher score (no teacher answer, or one the judge could not read): their students' ratio is taken against a perfect teacher, score / (1 + reward.eps)", "lower", "reward"),
    "score/student_unscored": Metric("student completions the judge could not score (value None)", "lower", "reward"),
    # the update, DESIGN.md "The update"
    "loss/total": Metric("per row, policy loss + update.kl_coef x KL, and for the teacher's rows (update.teacher_sft_coef) that coefficient x their NLL; the mean over rows and steps", "lower", "update"),
    "loss/policy": Metric("clipped-surrogate (or REINFORCE) term; near 0 with group-normalised advantages", "", "update"),
    "loss/kl": Metric("update.kl_coef x KL term of the loss", "lower", "update"),
    "loss/sft": Metric("mean per-token NLL of the teacher's answers the update imitates (update.teacher_sft_coef; the warm-start's whole loss); not recorded in an epoch without teacher rows", "lower", "update"),
    "kl/k3": Metric("KL(pi || ref), k3 estimator exp(ref-logp)-(ref-logp)-1, never negative (Schulman 2020, joschu.net/blog/kl-approx.html)", "target", "update"),
    "kl/k1": Metric("KL(pi || ref), k1 estimator mean(logp-ref), averaged over the update's steps: once a step moves pi it estimates KL(old || ref) - KL(old || pi), so it can go below 0 without anything wrong (always, at epoch 1 when the reference is the policy that sampled); kl/k1_start is the one that tells a sampling mismatch", "target", "update"),
    "kl/k3_start": Metric("KL(policy that sampled this epoch || ref), k3, before any update step: where the epoch starts (kl/k3 averages over the update's own steps too)", "target", "logprobs"),
    "kl/k1_start": Metric("KL(policy that sampled this epoch || ref), k1, before any update step; away from kl/k3_start (negative: the negative_k1 flag) = the sampled tokens were not drawn from that policy at sample.temperature (sample.top_p/top_k truncation, a sample.dtype other than student.dtype, another sample.engine)", "target", "logprobs"),
    "kl/coef": Metric("KL coefficient the update ended with (update.kl_coef, or where update.kl_mode=adaptive steered it)", "", "update"),
    "policy/entropy": Metric("mean token entropy (nats) of the policy in the update's forward pass, over the student's completions at sample.temperature (the warm-start: over the teacher's answers, at T = 1)", "higher", "update"),
    "policy/clip_ratio": Metric("share of tokens where the clip binds (policy/clip_low + policy/clip_high: a ratio outside [1 - update.clip_eps, 1 + update.clip_eps_high] on the side its advantage pushes it; TRL's clip_ratio/region_mean), each completion's share averaged over the completions (TRL averages over each micro-batch's tokens; the per-token indicators are TRL's, tests/test_loss_trl.py). loss_type=cispo: the share whose weight its cap update.clip_eps_high bounds (TRL's cispo_clip_ratio; those tokens keep a gradient); reinforce and sapo clip nothing (0)", "lower", "update"),
    "policy/clip_low": Metric("share of tokens clipped at 1 - update.clip_eps (ratio below it with a negative advantage: TRL's clip_ratio/low_mean)", "lower", "update"),
    "policy/clip_high": Metric("share of tokens clipped at 1 + update.clip_eps_high (ratio above it with a positive advantage: TRL's clip_ratio/high_mean); loss_type=cispo: a ratio above clip_eps_high itself, the weight's cap (TRL's cispo_clip_ratio)", "lower", "update"),
    "policy/sampler_weight": Metric("mean update.sampler_correction weight pi_old / pi_sampler over the trained tokens (1: the sampler was the trainer; recorded when the correction is on)", "", "update"),
    "optim/grad_norm": Metric("gradient norm before clipping, mean over optimizer steps", "", "update"),
    "optim/lr": Metric("the peak learning rate (update.lr)", "", "update"),
    "optim/lr_last": Metric("the learning rate of the update's last optimizer step (with update.optimizer_state=carry it falls across the run's planned epochs, each epoch continuing from the position the last left, schedule.pt; 0 past update.planned_epochs: the epoch learned nothing)", "", "update"),
    "optim/lr_next": Metric("the learning rate the next optimizer step would take: where the schedule stands after this update, the next epoch's first step under update.optimizer_state=carry", "", "update"),
    "optim/steps": Metric("optimizer steps taken", "", "update"),
    "update/trained_tokens": Metric("completion tokens the update trained on", "", "update"),
    "logprobs/tokens": Metric("completion tokens whose sampling-policy and reference logprobs were computed once for every update variant", "", "logprobs"),
    "logprobs/sampler_gap": Metric("mean |sampler's logprob - trainer's logprob| (nats) of the sampled tokens of the completions select kept, both under the policy that sampled at sample.temperature; every engine records its own (hf, generate, vllm). Numerics alone give ~1e-6 in float32 and 0.01-0.02 from a bfloat16 sampling copy (sample.dtype); a different distribution (top-p/top-k, another temperature, a generation_config processor) gives tenths", "lower", "logprobs"),
    "logprobs/sampler_outside": Metric("share of sampled tokens whose ratio sampler / trainer probability lies outside [0.5, 2] (|delta logp| > ln 2): tokens PPO's clip would treat as off-policy before the update moved anything", "lower", "logprobs"),
    "logprobs/sampler_gap_max": Metric("largest |sampler's logprob - trainer's logprob| of one sampled token (see logprobs/sampler_gap)", "lower", "logprobs"),
    "update/tokens_per_s": Metric("update throughput (tokens per second)", "higher", "update"),
    "update/variant": Metric("the chosen update variant directory (update-<fingerprint8>)", "", "update"),
    # sampling
    "completion/length_mean": Metric("mean completion length (tokens)", "", "sample"),
    "completion/truncated_frac": Metric("share of completions that hit sample.max_new_tokens", "lower", "sample"),
    "completion/diversity": Metric("1 - mean pairwise token similarity of a prompt's completions, averaged over prompts (code_diversity)", "higher", "sample"),
    "sample/generated_tokens": Metric("tokens the student generated", "", "sample"),
    "sample/tokens_per_s": Metric("sampling throughput (tokens per second)", "higher", "sample"),
    # select
    "select/kept_frac": Metric("share of completions kept for the update (threshold, best-of-N, zero-spread groups)", "", "select"),
    "select/groups_dropped_zero_std": Metric("prompt groups dropped because their rewards were all equal", "lower", "select"),
    "select/teacher_rows": Metric("teacher answers added to the update's batch (update.teacher_sft_coef > 0: one per prompt whose best student answer scores below the teacher's)", "", "select"),
    # eval and curriculum
    "eval/score": Metric("mean judge score on held-out problems (of each problem's eval.num_samples answers; greedy by default): the execution judge's, and for a problem without tests the run's own judge's (judge.kind: an LLM judge, your reward functions) where it needs no tests", "higher", "eval"),
    "eval/pass@1": Metric("share of held-out problems whose answer passes every test, over the problems with tests (absent when none has); with eval.num_samples=n the unbiased pass@1, the mean of c/n (eval/pass@k for k <= n likewise); `rlaif report` says whether a change is beyond noise", "higher", "eval"),
    "eval/ref_nll": Metric("mean per-token NLL (nats) of the held-out problems' reference answers (the data's `reference` field, whatever the teacher) under the policy: distillation that moves before pass@1 does; over the problems that have a reference, absent when none has", "lower", "eval"),
    "eval/pass@k": Metric("with eval.num_samples=n, the unbiased pass@k for each k <= n among 1, 5, 10, ... (Chen et al. 2021): the chance that one of k answers passes", "higher", "eval"),
    "eval/<source>/<figure>": Metric("eval/score, eval/pass@1 and eval/ref_nll of one source of eval.sources alone (e.g. eval/builtin:heldout/pass@1), when the eval reads a source by name; good as its figure is (ref_nll: lower)", "", "eval"),
    "eval/problems": Metric("held-out problems evaluated", "", "eval"),
    "eval/samples": Metric("answers per held-out problem (eval.num_samples)", "", "eval"),
    "eval/unscored": Metric("held-out answers the judge could not score: of a problem with tests (a sandbox or judge "
                            "fault) counted as failed in eval/score and eval/pass@*, `rlaif eval N --force` judges them "
                            "again; of one the run's own judge scores (eval/untested), its None left out of eval/score, "
                            "as training leaves it out", "lower", "eval"),
    "eval/untested": Metric("held-out problems without tests, scored by the run's own judge (judge.kind, when it needs no tests): in eval/score, not in eval/pass@k", "", "eval"),
    "eval/judge_api_calls": Metric("calls the eval made to the run's own judge for problems without tests (eval/untested); the rest from the judge cache", "lower", "eval"),
    "eval/judge_cache_hits": Metric("the eval's judgements of problems without tests answered by the judge cache", "", "eval"),
    "eval/judge_cost_usd": Metric("dollars the eval paid an API judge for problems without tests (counted in the run's judge spend and judge.budget_usd)", "lower", "eval"),
    "eval/reference_failures": Metric("held-out problems whose reference answer (the data's `reference` field) fails their "
                                      "own tests (a warning names them): a wrong test or reference, which every policy "
                                      "fails too; over the problems with a reference, absent when none has; 0 is the "
                                      "only healthy value", "lower", "eval"),
    "curriculum/easy": Metric("chosen prompts in the easy difficulty bucket", "", "prompts"),
    "curriculum/medium": Metric("chosen prompts in the medium bucket", "", "prompts"),
    "curriculum/hard": Metric("chosen prompts in the hard bucket", "", "prompts"),
    "curriculum/difficulty_mean": Metric("mean estimated difficulty of the chosen prompts", "", "prompts"),
    "curriculum/in_band": Metric("chosen prompts whose recent student success lies in [curriculum.band_low, band_high]", "higher", "prompts"),
    "curriculum/out_of_band": Metric("chosen prompts seen before and outside the learnable band", "", "prompts"),
    "curriculum/unseen": Metric("chosen prompts the student has not been scored on yet", "", "prompts"),
    "curriculum/pool_in_band": Metric("prompts of the whole training set inside the band (when it dries up, adaptive explores)", "", "prompts"),
    "data/prompts": Metric("prompts drawn this epoch", "", "prompts"),
    # judge and teacher: what they cost
    "judge/api_calls": Metric("judgements computed (cache misses: API calls or sandbox runs)", "", "judge"),
    "judge/cache_hits": Metric("judgements answered from the cache, with no call now (those a stopped attempt of this stage paid for count in judge/cost_usd; judge/api_calls counts the last attempt's calls)", "higher", "judge"),
    "judge/cost_usd": Metric("dollars spent on judge calls this epoch, the calls of its attempts a kill, an error or the budget stopped included", "lower", "judge"),
    "judge/saved_usd": Metric("dollars the cache saved this epoch (answers an earlier epoch or run paid for; not those the stage's own stopped attempts paid)", "higher", "judge"),
    "judge/parse_failures": Metric("answers (the student's and the teacher's) the judge could not score (parse failure, a problem without tests, sandbox error)", "lower", "judge"),
    "judge/skipped": Metric("judgements left out and unscored, not parse failures: missing from the cache (judge.mode=replay with judge.skip_missing), batch items that failed (judge.batch_failed=missing), requests the API refused (a 400/413/422 about one request)", "lower", "judge"),
    "judge/<component>_mean": Metric("with judge.kind=mix, one component's mean score (0..1) over the student's scored answers, before the mix's weights (judge/execution_mean, judge/anthropic_mean, ...: TRL's rewards/<func>/mean)", "higher", "judge"),
    "judge/python/<function>_mean": Metric("with several reward functions (a list in judge.python.function, or judge.python.weights), one function's mean value over the student's answers it scored, before judge.python.weights (judge/python/format_reward_mean, ...: TRL's rewards/<func>/mean); a name two functions share carries its index (reward_0, reward_1)", "", "judge"),
    "judge/judgements": Metric("answers judged this epoch (the student's and the teacher's; each once, whatever judge.mix holds): judge/parse_failures' denominator", "", "judge"),
    "judge/reference_failures": Metric("with teacher.kind=reference and an execution judge: reference answers that fail their own problem's tests (a warning names them); the reward divides by their scores, so 0 is the only healthy value", "lower", "judge"),
    "teacher/missing": Metric("prompts with no teacher answer", "lower", "teacher"),
    "teacher/skipped": Metric("teacher answers missing from the cache and left out (judge.mode=replay with judge.skip_missing, or judge.batch_failed=missing)", "lower", "teacher"),
    "judge/batches": Metric("batches submitted to the provider's batch API this epoch (judge.batch)", "", "judge"),
    "judge/batches_resumed": Metric("batches a killed or timed-out run had submitted, polled again instead of paid again", "", "judge"),
    "judge/batch_failed": Metric("batch items that came back expired, errored or canceled (then handled per judge.batch_failed)", "lower", "judge"),
    "teacher/batches": Metric("batches of teacher answers submitted this epoch (teacher.batch)", "", "teacher"),
    "teacher/batches_resumed": Metric("teacher batches of a killed or timed-out run, polled again", "", "teacher"),
    "teacher/batch_failed": Metric("teacher batch items that came back expired, errored or canceled", "lower", "teacher"),
    "teacher/cost_usd": Metric("dollars spent on teacher answers this epoch (model teachers), its stopped attempts' calls included", "lower", "teacher"),
    "teacher/api_calls": Metric("teacher answers generated this epoch (cache misses: API calls or local generations)", "", "teacher"),
    "teacher/cache_hits": Metric("teacher answers answered from the cache, with no call now (those a stopped attempt paid for count in teacher/cost_usd)", "higher", "teacher"),
    "teacher/saved_usd": Metric("dollars the cache saved on teacher answers this epoch", "higher", "teacher"),
    # time
    "time/<stage>_s": Metric("wall seconds of one stage (as recorded when it ran; a reused stage keeps its time)", "", "runner"),
    "memory/<stage>_peak_gib": Metric("peak GPU memory allocated by torch during the stage (GiB); recorded only when the stage ran on a GPU", "", "any"),
    "time/epoch_s": Metric("sum of the stage seconds of the epoch's chosen chain", "lower", "runner"),
}


def metric_info(key: str) -> Metric | None:
    """The table entry of a key; `time/sample_s` finds the `time/<stage>_s` pattern."""
    if key in METRICS:
        return METRICS[key]
    if key.startswith("breakdown/") and key.endswith("_ok"):
        return METRICS["breakdown/<part>_ok"]
    if key.startswith("time/") and key.endswith("_s"):
        return METRICS["time/<stage>_s"]
    if key.startswith("memory/") and key.endswith("_peak_gib"):
        return METRICS["memory/<stage>_peak_gib"]
    if key.startswith("judge/python/") and key.endswith("_mean"):
        return METRICS["judge/python/<function>_mean"]
    if key.startswith("judge/") and key.endswith("_mean"):
        return METRICS["judge/<component>_mean"]
    if re.fullmatch(r"eval/pass@\d+", key):
        return METRICS["eval/pass@k"]
    if key.startswith("eval/") and key.count("/") >= 2:   # one source's figure (hf:org/name's too): good as the figure is
        figure = metric_info("eval/" + key.rsplit("/", 1)[1])
        per = METRICS["eval/<source>/<figure>"]
        return replace(per, good=figure.good) if figure else per if key.count("/") == 2 else None
    return None


def metrics_markdown() -> str:
    lines = ["| metric | good | stage | meaning |", "|---|---|---|---|"]
    lines += [f"| `{k}` | {m.good or '-'} | {m.stage} | {m.meaning.replace('|', chr(92) + '|')} |"   # KL(pi || ref)
              for k, m in METRICS.items()]
    return "\n".join(lines)


# -- code diversity ----------------------------------------------------------------------


# -- helpers ------------------------------------------------------------------------------
def as_number(v: Any) -> float | None:
    """A finite number, or None for missing / non-numeric / NaN."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def series(epochs: list[dict], key: str) -> list[tuple[int, float]]:
    return [(int(m["epoch"]), v) for m in epochs if (v := as_number(m.get(key))) is not None]


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    """Identifiers, numbers and single punctuation marks; whitespace is ignored."""
    return _TOKEN.findall(text)


def code_diversity(completions: list[str]) -> float:
    """1 - mean pairwise similarity of one prompt's completions, in [0, 1].

    Similarity is difflib.SequenceMatcher's ratio (2 x matched / total) over *token* lists
    (identifiers, numbers, punctuation; whitespace ignored), autojunk off, so it respects
    order (unlike a Jaccard of token sets) and reformatting does not count as diversity.
    0 = all completions identical; near 1 = nothing in common. Fewer than 2 completions
    gives 0.0 (no spread can be measured).
    """
    toks = [_tokens(c) for c in completions]
    sims = [difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
            for i, a in enumerate(toks) for b in toks[i + 1:]]
    return 1.0 - sum(sims) / len(sims) if sims else 0.0


def diversity_of_groups(groups: Iterable[list[str]]) -> float:
    """Mean code_diversity over prompts (groups of fewer than 2 completions are skipped)."""
    vals = [code_diversity(g) for g in groups if len(g) >= 2]
    return sum(vals) / len(vals) if vals else 0.0


if __name__ == "__main__":
    print(metrics_markdown())
