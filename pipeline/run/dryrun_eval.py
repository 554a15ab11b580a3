"""The dry run's line for the eval's paid judge calls: its problems without tests are scored by the run's own
judge where it needs no tests (pipeline/stages/eval.by_run_judge), an API judge paid for each new answer."""
from __future__ import annotations

from pipeline.stages.judging import LLM, as_answer, components, judge_model, make_model


def eval_lines(runner, n: int, done: set[str], plan, tail) -> list[str]:
    """Epoch n's eval judgements by an LLM judge: eval.num_samples answers to each problem without tests, each
    priced as eval.max_new_tokens long and missing (the eval draws its answers after the update: an upper bound).
    tail: the dry run's ending of a line (its cost, or what a replay does with the misses)."""
    from pipeline.stages.eval import by_run_judge
    from pipeline.stages.problems import eval_problems
    cfg = runner.cfg
    kinds = [k for k in components(cfg) if k in LLM]
    probs = [p for _, p in eval_problems(cfg) if by_run_judge(cfg, p)] if kinds and "eval" not in done else []
    filler = "x " * (cfg.eval.max_new_tokens * 2)   # ~max_new_tokens tokens of text
    items = [(p, filler, as_answer(p.reference, p.language) if cfg.judge.show_teacher and p.reference else None)
             for p in probs for _ in range(cfg.eval.num_samples)]
    lines = []
    for kind in kinds if items else ():
        who = f"eval judge ({kind} {judge_model(cfg, kind)})"
        m = make_model(kind, judge_model(cfg, kind), cfg) if kind != "hf" else None   # (hf: a local model, not loaded)
        live = sum(m.estimate_usd(*it) for it in items) if m else 0.0
        cost = "$0 (local)" if kind == "hf" else f"~${live:.4f} live (the eval calls live, never a batch)"
        lines.append(f"{who}: {len(items)} judgements of the eval's {len(probs)} problems without tests, at most "
                     f"(answers not drawn yet){tail(cfg, len(items), cost)}")
        plan.add(who, len(items), live, live, False)   # live in the batch sum too
        plan.bound = True
    return lines
