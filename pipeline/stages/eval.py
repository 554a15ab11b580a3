"""eval: the policy on held-out problems, scored by the execution judge, one row per problem (a problem
without tests by the run's own judge where it needs none: a score, no pass/fail).

Greedy by default (eval.num_samples=1, eval.temperature=0: the epoch loop's cheap check). With
eval.num_samples=n at eval.temperature>0, each problem gets n sampled answers, each from its own
random stream keyed by the run's seed, the epoch (eval.seed_per_epoch), the problem and the
sample's index (pipeline/engines/hf.py's `SeededSampler`): an eval is reproducible and does not depend
on the batch size or the process count. Per problem: c of n correct, the unbiased pass@k (Chen et
al. 2021), the mean graded score, and the per-token NLL of the teacher's answer (the reference)
under the policy: a continuous distillation metric that moves before pass@1 does.

Figures: eval/score, eval/pass@1 (and eval/pass@k for k <= n), eval/ref_nll; per source as
eval/<source>/... . `rlaif eval 0` measures the base model; `rlaif compare-evals A B` says whether
two evals differ beyond noise (pipeline/metrics/significance.py).
"""
from __future__ import annotations

import logging
import os
import statistics
from concurrent.futures import ThreadPoolExecutor

import torch
from tqdm import tqdm

from judges.base import short_of
from pipeline.config.errors import RunError
from pipeline.store import dist
from pipeline.config.schema import Config
from pipeline.engines.hf import (batch_size, cache_kwargs, chat_prompt, check_prompts, context_length, generate,
                                greedy, reference_greedy, template_prefix)
from pipeline.engines.forward import collate, to_device, token_logprobs
from pipeline.stages.judging import (PARTS, Judging, as_answer, components, execution_parts, full_credit_shares,
                                     language_judges, paid_for, settle_stage)
from pipeline.engines.model import load_tokenizer, student_model
from pipeline.stages.problems import eval_problems
from pipeline.engines.sampling_weights import sampling_model
from pipeline.metrics.significance import ks_for, pass_at_k
from pipeline.stages import Ctx
from pipeline.store.tables import save_table

log = logging.getLogger("rlaif")


def sampled(cfg: Config) -> bool:
    return cfg.eval.temperature > 0


def sampling_config(cfg: Config) -> Config:
    """The sample section the eval's sampled answers are drawn with: eval.num_samples at
    eval.temperature, eval.max_new_tokens, no top-p/top-k truncation, no stop strings (as greedy)."""
    sc = cfg.sample.model_copy(update={"num_samples": cfg.eval.num_samples, "temperature": cfg.eval.temperature,
                                       "top_p": 1.0, "top_k": 0, "max_new_tokens": cfg.eval.max_new_tokens,
                                       "stop": [], "stop_after_code": False,
                                       "engine": "generate" if cfg.eval.engine == "generate" else "hf"})
    return cfg.model_copy(update={"sample": sc})


def eval_seed(cfg: Config, epoch: int) -> int:
    """The eval's sampling seed; its keys ("eval:<source>:<id>") keep its streams apart from the
    sample stage's (same run.seed, same epoch, other keys)."""
    return cfg.run.seed * 1000 + (epoch if cfg.eval.seed_per_epoch else 0)


@torch.no_grad()
def reference_nll(model, tok, prompts: list[list[int]], answers: list[str | None], batch: int = 8) -> list[float | None]:
    """Mean per-token NLL (nats) of each answer, as the teacher rows of the update tokenise it (its
    text and eos), after its prompt; one forward pass each, batches of similar length. None where
    a problem has no reference."""
    rows = [{"prompt_ids": p, "completion_ids": tok.encode(a, add_special_tokens=False) + [tok.eos_token_id],
             "index": i} for i, (p, a) in enumerate(zip(prompts, answers)) if a]
    rows.sort(key=lambda r: len(r["prompt_ids"]) + len(r["completion_ids"]))
    out: list[float | None] = [None] * len(prompts)
    device = next(model.parameters()).device
    for b in range(0, len(rows), batch):
        chunk = rows[b: b + batch]
        t = to_device(collate(chunk, tok.pad_token_id), device)
        lp = token_logprobs(model, t, 1.0)[0].float()                                         # (B, Kc)
        mask = t["completion_mask"].to(lp.device)
        nll = -(lp * mask).sum(-1) / mask.sum(-1)
        for r, v in zip(chunk, nll.tolist()):
            out[r["index"]] = v
    return out


def answer(cfg: Config, ctx: Ctx, tok, prompts: list[list[int]], keys: list[str], first: int, adapter,
           with_nll: list[str | None] | None):
    """This rank's answers: n (text, finish_reason) per prompt, and the references' NLLs."""
    n, model = cfg.eval.num_samples, None
    if cfg.eval.engine == "vllm":  # the adapter from disk (pipeline/engines/vllm.py)
        from pipeline.engines import vllm as engine_vllm
        engine_vllm.require("eval.engine")
        if not prompts:
            texts = []
        elif sampled(cfg):
            # vLLM seeds by prompt index: offset, so eval problem i does not replay sample prompt i's draws
            rows = engine_vllm.sample(sampling_config(cfg), tok, prompts, adapter, eval_seed(cfg, ctx.epoch) + 10**9,
                                      first=first)
            texts = [[(r["text"], r["finish_reason"]) for r in rows[i * n:(i + 1) * n]] for i in range(len(prompts))]
        else:
            texts = [[a] for a in engine_vllm.greedy(cfg, tok, prompts, cfg.eval.max_new_tokens, adapter)]
    else:
        model = student_model(cfg, adapter=adapter)
        with sampling_model(model, cfg) as m:
            if sampled(cfg):
                rows = generate(m, tok, prompts, sampling_config(cfg), seed=eval_seed(cfg, ctx.epoch),
                                keys=keys, desc="eval") if prompts else []
                texts = [[(r["text"], r["finish_reason"]) for r in rows[i * n:(i + 1) * n]] for i in range(len(prompts))]
            elif cfg.eval.engine == "generate":
                size = batch_size(m, cfg.sample.batch_size, max((len(p) for p in prompts), default=1),
                                  cfg.eval.max_new_tokens)
                texts = [[a] for a in reference_greedy(m, tok, prompts, cfg.eval.max_new_tokens, size,
                                                       **cache_kwargs(cfg))]
            else:
                texts = [[a] for a in greedy(m, tok, prompts, cfg.eval.max_new_tokens, cfg.sample.batch_size,
                                             prefix=template_prefix(tok, cfg),
                                             decode_step=cfg.sample.decode_step)]
    nll = [None] * len(prompts)
    if with_nll is not None and prompts and any(with_nll):
        model = model or student_model(cfg, adapter=adapter)
        nll = reference_nll(model, tok, prompts, with_nll)
    return texts, nll


def run(ctx: Ctx) -> None:
    cfg = ctx.cfg
    probs = eval_problems(cfg)
    if not probs:
        ctx.figures = {}
        save_table([], ctx.out)
        return
    tok = load_tokenizer(cfg.student)
    policy = ctx.inputs.get("update")
    adapter = policy / "adapter" if policy is not None else None
    every = [chat_prompt(tok, cfg, p.prompt) for _, p in probs]
    check_prompts(cfg, every, [f"{src}:{p.id}" for src, p in probs], cfg.eval.max_new_tokens, "eval.max_new_tokens",
                  context_length(cfg), prompt_limit=False)   # the model's context, before any generation
    mine = dist.shard(every)  # this rank's problems (all of them with one process)
    refs = [as_answer(p.reference, p.language) if p.reference else None for _, p in probs]
    texts, nll = answer(cfg, ctx, tok, [every[i] for i in mine], [f"eval:{probs[i][0]}:{probs[i][1].id}" for i in mine],
                        mine[0] if mine else 0, adapter, [refs[i] for i in mine] if cfg.eval.reference_nll else None)
    parts = dist.merge(dist.gather(list(zip(texts, nll))))  # rank 0 judges every answer and writes the table
    if not dist.is_main():
        return
    items = [(p, text, reason == "length") for (_, p), (answers, _) in zip(probs, parts) for text, reason in answers]
    scores, paid = score(ctx, items)
    checked = reference_checks(cfg, [p for _, p in probs])
    rows, at = [], 0
    for (src, p), (answers, ref_nll), (ref_ok, _) in zip(probs, parts, checked):
        mine_scores, at = scores[at: at + len(answers)], at + len(answers)
        tested = not by_run_judge(cfg, p)   # else no pass/fail: the run's judge gives a score alone
        passed = [bool((s.breakdown or {}).get("total")) and s.breakdown.get("passed") == s.breakdown.get("total")
                  if tested else None for s in mine_scores]
        values = [s.value for s in mine_scores]
        given = [v for v in values if v is not None]   # the run's judge's None (cannot score) is left out, as in training
        rows.append({"source": src, "problem_id": p.id, "n": len(answers), "correct": sum(passed) if tested else None,
                     "pass@1": sum(passed) / len(answers) if tested else None,
                     "score": statistics.fmean(v or 0.0 for v in values) if tested else
                     statistics.fmean(given) if given else None,
                     "ref_nll": ref_nll, "texts": [t for t, _ in answers], "finish_reasons": [r for _, r in answers],
                     "values": values, "passed": passed, "reference_passed": ref_ok,
                     **part_shares(p.language, mine_scores)})
    rows = every_part(rows)
    save_table(rows, ctx.out)
    ctx.rows = len(rows)
    ctx.figures = {**figures(rows, cfg.eval.sources), **paid}
    wrong = say_reference_failures(probs, checked)
    if any(ok is not None for ok, _ in checked):
        ctx.figures["eval/reference_failures"] = wrong
    unscored = [r["problem_id"] for r in rows for v in r["values"] if v is None and r["correct"] is not None]
    if unscored:   # each counts as a failed answer (score 0) in the figures: said, and counted in eval/unscored
        first = next(s for s in scores if s.value is None)
        log.warning("eval: %d of %d answers could not be scored (e.g. problem %s: %s); they count as failed in "
                    "eval/score and eval/pass@*, a judge fault rather than the policy's: `rlaif eval %d%s --force` "
                    "judges them again", len(unscored), len(items), unscored[0],
                    str((first.breakdown or {}).get("error") or first.raw or "no reason given")[:200], ctx.epoch,
                    " --warm-start" if ctx.epoch == 0 and ctx.inputs.get("update") is not None else "")


def by_run_judge(cfg: Config, problem) -> bool:
    """Whether the eval scores this problem's answers with the run's own judge (judge.kind: an LLM judge, your
    reward functions): it has no tests to run, and that judge needs none (Config.eval_judge). Such a problem has
    a score and no pass/fail: it is left out of eval/pass@k. Every other answer is the execution judge's."""
    return not problem.tests and not problem.test_code and not cfg.uses_execution


def score(ctx: Ctx, items: list[tuple]) -> tuple[list, dict[str, float]]:
    """Each (problem, answer, truncated)'s Score through the judge cache: the execution judge's, or the run's
    judge's for a problem without tests (`by_run_judge`; an LLM judge shown the problem's reference where
    judge.show_teacher says so, its calls paid for as the judge stage's are); and what those calls cost
    (eval/judge_api_calls, eval/judge_cache_hits, eval/judge_cost_usd)."""
    from judges.mix import combine
    from pipeline.stages.scoring import score_components
    cfg = ctx.cfg
    own = [i for i, (p, _, _) in enumerate(items) if by_run_judge(cfg, p)]
    rest = sorted(set(range(len(items))) - set(own))
    out: list = [None] * len(items)
    if rest:
        j = Judging(cfg)
        try:
            for i, s in zip(rest, j.score_all([items[i] for i in rest], desc="eval judge")):
                out[i] = s
        finally:
            j.cache.close()
    if not own:
        return out, {}
    shown = [as_answer(p.reference, p.language) if cfg.judge.show_teacher and p.reference else None
             for p, _, _ in (items[i] for i in own)]
    paid = paid_for(ctx, "eval")
    per, fig = score_components(cfg, [(*items[i], r) for i, r in zip(own, shown)], ctx.run_dir, None, paid)
    weights = components(cfg)
    for n, i in enumerate(own):
        out[i] = combine({k: per[k][n] for k in weights}, weights)
    cost, _ = settle_stage(ctx, paid, fig["judge/cost_usd"], fig["judge/saved_usd"])
    return out, {"eval/judge_api_calls": fig["judge/api_calls"], "eval/judge_cache_hits": fig["judge/cache_hits"],
                 "eval/judge_cost_usd": cost}


def check_tests(cfg: Config) -> None:
    """The eval's problems without tests (e.g. a validation split carved out of a file without them): scored
    by the run's own judge where it needs no tests (an LLM judge, reward functions: a score, no pass@1, an
    API judge's calls paid every epoch), else by the execution judge, which has nothing to run (0 every epoch)."""
    probs = eval_problems(cfg)
    bare: dict[str, list[str]] = {}
    for src, p in probs:
        if not p.tests and not p.test_code:
            bare.setdefault(src, []).append(p.id)
    if not bare:
        return
    count = sum(map(len, bare.values()))
    metric = cfg.eval.early_stop_metric
    if cfg.eval.patience and "/pass@" in metric and count == len(probs) and not cfg.uses_execution:
        raise RunError(f"eval.early_stop_metric={metric}, but none of the eval's {count} problems has tests: the run's "
                       f"judge (judge.kind={cfg.judge.kind}) scores them, with no pass/fail, so {metric} is never "
                       "recorded and early stopping would never stop the run; set eval.early_stop_metric=eval/score")
    where = "; ".join(f"{len(ids)} of {src}" + (f" (data.validation_size of data.source={cfg.data.source})"
                                                 if src == "validation" else "")
                      + f": {', '.join(ids[:3])}{', ...' if len(ids) > 3 else ''}" for src, ids in bare.items())
    if not cfg.uses_execution:
        api = {"anthropic", "openai"} & set(cfg.judge.mix if cfg.judge.kind == "mix" else {cfg.judge.kind})
        log.info(
            "%d of the eval's %d problems have no tests (%s): the eval scores their answers with judge.kind=%s "
            "(eval/score; eval/pass@1 counts only problems with tests)%s", count, len(probs), where, cfg.judge.kind,
            f", each epoch's new answers paid to the API judge ({'/'.join(sorted(api))}; eval/judge_cost_usd) like "
            "the judge stage's" if api else "")
        return
    log.warning(
        "%d of the eval's %d problems have no tests (%s): the eval scores them with the execution judge, as "
        "judge.kind=%s does, so theirs score 0 and every epoch's eval/pass@1 and eval/score count them as "
        "failed, whatever the policy learns; give those rows tests (or test_code), name an eval source with "
        "tests (eval.sources=[my.jsonl:heldout], builtin:heldout), or turn the eval off with eval.sources=[]",
        count, len(probs), where, cfg.judge.kind)


def reference_checks(cfg: Config, problems: list, cached: bool = True) -> list[tuple[bool | None, str | None]]:
    """(passes, the first failure) of each problem's reference answer against its own tests: a wrong test,
    or a wrong reference, caps pass@1 on that problem without a word otherwise. Through the judge cache
    (once per problem, then free), or with `cached=False` straight from the judges, writing nothing (the
    dry run). (None, None) for a problem without a reference or tests, and under judge.mode=replay for a
    reference not in the cache."""
    out: list[tuple[bool | None, str | None]] = [(None, None)] * len(problems)
    idx = [i for i, p in enumerate(problems) if p.reference and (p.tests or p.test_code)]
    items = [(problems[i], as_answer(problems[i].reference, problems[i].language), False) for i in idx]
    if not items:
        return out
    if cached:
        if cfg.judge.mode == "replay":
            cfg = cfg.model_copy(update={"judge": cfg.judge.model_copy(update={"skip_missing": True})})
        j = Judging(cfg)
        try:
            scores = j.score_all(items, desc="eval references")
        finally:
            j.cache.close()
    else:
        judges = language_judges(cfg)
        with ThreadPoolExecutor(max_workers=cfg.judge.workers or os.cpu_count() or 1) as pool:
            scores = list(tqdm(pool.map(lambda it: judges[it[0].language].score(*it), items), total=len(items),
                               desc="checking references", unit="ref", dynamic_ncols=True, leave=False))
    for i, s in zip(idx, scores):
        bd = s.breakdown or {}
        if s.value is None or not bd.get("total"):
            continue                        # not judged (a judge fault, or skipped in a replay): unknown
        ok = bd.get("passed") == bd.get("total")
        out[i] = (ok, None if ok else str(bd.get("error") or f"{bd.get('passed')} of {bd.get('total')} tests passed")[:160])
    return out


def reference_verdicts(named: list[tuple[str, object]], checked: list[tuple[bool | None, str | None]]
                       ) -> tuple[list[str], dict[str, list[str]]]:
    """Of (name, problem)s and their reference_checks: those whose reference fails its own tests ("name: why"), and
    those scored 0 as shorter than a judge's min_lines, their tests never run: names per "<key>=<value>"."""
    failing, short = [], {}
    for (name, p), (ok, why) in zip(named, checked):
        under = short_of(why, p.language) if ok is False else None
        if under:
            short.setdefault(f"{under[0]}={under[1]}", []).append(name)
        elif ok is False:
            failing.append(f"{name}: {why}")
    return failing, short


def failures_in_words(failing: list, short: dict[str, list]) -> str:
    """What a count of failing references did: 'fail their own tests', 'have fewer lines of code than
    judge.ocaml.min_lines=8', or both, counted."""
    if not short:
        return "fail their own tests"
    if not failing and len(short) == 1:
        return f"have fewer lines of code than {next(iter(short))}"
    return "fail (" + ", ".join([f"{len(failing)} their own tests"] * bool(failing) +
                                [f"{len(v)} under {k}" for k, v in short.items()]) + ")"


def listed(names: list[str], what: str, n: int = 3) -> str:
    """The first `n` names, then how many more, each of them logged at DEBUG."""
    if len(names) <= n:
        return "; ".join(names)
    log.debug("%s, all %d: %s", what, len(names), "; ".join(names))
    return "; ".join(names[:n]) + f"; ... {len(names) - n} more (run.log_level=DEBUG names them all)"


def say_short_references(where: str, short: dict[str, list[str]], known: int, what: str, harm: str) -> None:
    """Warn of the references scored 0 as shorter than a judge's min_lines (reference_verdicts): their tests
    never ran, and the judge's rule, not the tests, is what to change."""
    for key, names in short.items():
        log.warning("%s: %d of %d %s have fewer lines of code than %s (%s): the judge scores an answer that short 0 "
                    "without running its tests, %s; lower %s (0 scores answers of any length) if answers this short are "
                    "right", where, len(names), known, what, key, listed(names, f"{where}: {what} under {key}"), harm,
                    key.split("=")[0])


def say_reference_failures(probs: list[tuple[str, object]], checked: list[tuple[bool | None, str | None]]) -> int:
    """Warn of the (source, problem)s whose reference fails its own tests, or is shorter than the judge's
    min_lines (reference_checks); their count."""
    failing, short = reference_verdicts([(f"{src}:{p.id}", p) for src, p in probs], checked)
    known = sum(ok is not None for ok, _ in checked)
    if failing:   # the test (or the reference) is wrong: an answer like the reference fails, pass@1 capped there
        log.warning("eval: %d of the %d reference answers of the eval's problems fail their own tests (%s): an "
                    "answer that does what the reference does fails them too, and eval/pass@1 counts it as failed; "
                    "fix the tests or the reference (`rlaif judge --problem ID --completion FILE` shows the breakdown)",
                    len(failing), known, listed(failing, "eval: the references failing their own tests"))
    say_short_references("eval", short, known, "reference answers of the eval's problems",
                         "so an answer as short as the reference fails, and eval/pass@1 counts it as failed")
    return len(failing) + sum(map(len, short.values()))


def part_shares(language: str, scores) -> dict[str, float]:
    """<part>_ok: the share of a problem's answers with full credit on each part of the execution
    judge's score (OCaml: structure_ok is a well-formed answer, typecheck_ok one that type-checks;
    Python: structure, static, load, tests); none when the judge gave no such breakdown."""
    bds = [execution_parts(s.breakdown) for s in scores]
    parts = PARTS.get(language or "python", ())
    if not bds or not parts or not all(all(k in b for k in parts) for b in bds):
        return {}
    return full_credit_shares(bds, parts)


def every_part(rows: list[dict]) -> list[dict]:
    """Every row with every <part>_ok column any row has (None where its language or judge has no
    such part): the table's columns are the first row's, so a Python problem first would drop the
    OCaml rows' typecheck_ok."""
    keys = sorted({k for r in rows for k in r if k.endswith("_ok")})
    return [{**r, **{k: None for k in keys if k not in r}} for r in rows]


def figures(rows: list[dict], sources: list[str]) -> dict[str, float]:
    """eval/... over every problem, and eval/<source>/... per source."""
    out: dict[str, float] = {}
    n = min(r["n"] for r in rows)
    for src in [None, *sources]:
        sel = [r for r in rows if src is None or r["source"] == src]
        if not sel:
            continue
        prefix = "eval" if src is None else f"eval/{src}"
        if scores := [r["score"] for r in sel if r["score"] is not None]:   # (None: the run's judge scored none)
            out[f"{prefix}/score"] = statistics.fmean(scores)
        tested = [r for r in sel if r["correct"] is not None]   # (not those the run's judge scored: by_run_judge)
        for k in ks_for(n) if tested else ():
            out[f"{prefix}/pass@{k}"] = statistics.fmean(pass_at_k(r["n"], r["correct"], k) for r in tested)
        nlls = [r["ref_nll"] for r in sel if r["ref_nll"] is not None]
        if nlls:
            out[f"{prefix}/ref_nll"] = statistics.fmean(nlls)
    out["eval/problems"] = len(rows)
    out["eval/samples"] = n
    out["eval/unscored"] = sum(v is None for r in rows for v in r["values"])
    out["eval/untested"] = sum(r["correct"] is None for r in rows)
    return out
