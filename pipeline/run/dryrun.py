"""`rlaif epoch N --dry-run`: the data a run reads, and for every epoch the command runs (the
warm-start's included) how many teacher and judge calls are missing from the cache and what they
would cost live and through the batch APIs (half price), calling nothing; then the sum over them.

Exact where the answers to judge already exist (samples on disk); otherwise an upper bound
from prompts x num_samples, priced as if each answer used all of sample.max_new_tokens. A later
epoch's prompts are known before the epochs ahead of it run when curriculum.strategy=none (a seeded
walk); another strategy picks them from the student's scores, so they are counted as problems not
asked for yet (an upper bound on the teacher's answers and their judgements). An answer an earlier
epoch of the same command asks for is in the cache by then: the teacher answers a problem once.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from data.schema import Problem
from judges.cache import JudgeCache
from pipeline.run.dryrun_eval import eval_lines
from pipeline.store.artifacts import load_complete
from pipeline.stages.judging import LLM, Judging, as_answer, batching, cache_dir, components, judge_model, judged_text, make_model
from pipeline.stages.problems import choose_prompts, warm_start_problems
from pipeline.store.tables import load_table
from pipeline.stages.spend import spent_usd

HEADER = "calls it would make (a dry run makes none; the cache answers the rest):"


def _prices(estimate, missing: list, batch: bool) -> tuple[str, float, float | None]:
    """('~$live live, ~$batch batch' (worst cases), marking the one this run uses; live; batch or None)."""
    live = sum(estimate(*m) for m in missing)
    try:
        half = sum(estimate(*m, batch=True) for m in missing)
        said = f"~${half:.4f} batch"
    except KeyError:
        half, said = None, "batch: no batch price for this model (judge.prices)"
    used = " (this run: batch)" if batch else ""
    return f"~${live:.4f} live, {said}{used}", live, half


class _NoCache:
    """The judge cache where none exists yet: every key missing."""

    def get(self, key: str) -> None:
        return None

    def close(self) -> None:
        pass


class _Plan:
    """What the epochs estimated before this one ask for (the cache holds it by the time this one
    runs), and the sums over all of them."""

    def __init__(self):
        self.asked: dict[str, int] = {}   # problem id -> the epoch whose teacher stage asks for its answer
        self.judged: set[str] = set()     # problems whose teacher answer an earlier epoch judges
        self.totals: dict[str, list] = {}  # who -> [calls, live $, batch $ or None, batch used]
        self.bound = False                 # some judge count is an upper bound (samples not drawn yet)
        self.guessed = False               # some epoch's prompts are guessed (an upper bound on its teacher's)

    def add(self, who: str, calls: int, live: float = 0.0, half: float | None = 0.0, used: bool = False) -> None:
        t = self.totals.setdefault(who, [0, 0.0, 0.0, used])
        t[0] += calls
        t[1] += live
        t[2] = None if t[2] is None or half is None else t[2] + half


def _up_to_date(runner, n: int) -> set[str]:
    """Epoch n's stages finished with this config's fingerprints, from the rows (and policy) their inputs hold now, and
    whose input stages are reused too (one made again may give other rows): a run reuses them, calling nothing."""
    from pipeline.config.errors import RunError
    from pipeline.run.freshness import stale_inputs
    try:
        plan = runner.plan(n, outside := runner.outside_inputs(n))
    except RunError:   # the policy it starts from is not there yet: nothing of it is done
        return set()
    dirs, done = {**outside[1], **{st.name: d for st, _, d, _ in plan}}, set()
    for st, fp, d, _ in plan:   # (in order: an input stage comes first)
        if ((m := load_complete(d, fp, verify=False)) is not None and all(k in done for k in st.inputs if k in dirs and k not in outside[1])
                and not stale_inputs(m, {k: dirs.get(k) for k in st.inputs if k != "reference"})):
            done.add(st.name)
    return done


def _reused(stage: str, n: int, lines: list[str], replay: bool = False) -> list[str]:
    """A finished stage's cache counts, said as what remaking it would call: this run calls nothing."""
    return [f"{stage}: done, reused: nothing is called (`rlaif {'replay' if replay else 'epoch'} {n} --force` "
            "would remake it" + (" from the cache" if replay else "") + "; then "
            + "; ".join(lines) + ")"] if lines else []


def _tail(cfg, missing: int, cost: str) -> str:
    """What a line's misses mean: their cost live, or in a replay (which calls nothing) whether they stop it."""
    if cfg.judge.mode != "replay":
        return f", {cost}"
    if not missing:
        return ": the replay has them all"
    return (": the replay skips and counts them (judge.skip_missing, judge/skipped)" if cfg.judge.skip_missing else
            ": judge.mode=replay stops on them (judge.skip_missing=true skips and counts them)")


def _problems(runner, n: int, done: set[str], first: bool, plan: _Plan) -> tuple[list[Problem], str]:
    """Epoch n's problems and the header that says what they are."""
    cfg = runner.cfg
    if "prompts" in done:
        rows = load_table(runner.epoch_dir(n) / "prompts", json_cols=("problem",))
        problems = [Problem.from_json(p["problem"]) for p in rows]
    elif n == 0:
        problems = warm_start_problems(cfg)
    else:
        ids, by_id, _, _ = choose_prompts(cfg, runner.run_dir, n)
        problems = [by_id[i] for i in ids]
        if not first and cfg.curriculum.strategy != "none":   # picked from scores not known yet
            plan.guessed = True
            chosen = set(ids)
            order = sorted(problems + [p for i, p in by_id.items() if i not in chosen],
                           key=lambda p: (p.id in plan.judged, p.id in plan.asked))
            return order[:len(ids)], (f"epoch {n}: {len(ids)} prompts (curriculum.strategy={cfg.curriculum.strategy} "
                                      "picks them from the scores of the epochs before it: counted as problems no "
                                      "epoch before it has, where any are left; an upper bound)")
        if not first:
            return problems, (f"epoch {n}: {len(problems)} prompts (known now: curriculum.strategy=none walks "
                              "them in a seeded order)")
    if n == 0:
        extra = " and data.warm_start_sources'" if cfg.data.warm_start_sources else ""
        return problems, (f"epoch 0, the supervised warm-start: {len(problems)} problems (the training problems of "
                          f"data.difficulties{extra})")
    return problems, f"epoch {n}: {len(problems)} prompts"


def _teacher(runner, n, problems, done, cache, plan: _Plan) -> tuple[list[str], dict[str, str | None]]:
    """The teacher's line of epoch n, and each problem's answer text where the cache has it."""
    cfg = runner.cfg
    kind = cfg.teacher.kind
    if kind == "reference":
        none = sum(not p.reference for p in problems)
        lacking = f"; {none} problems have none (teacher score None)" if none else ""
        return ([f"teacher (reference): {len(problems)} answers, the dataset's solutions, nothing called{lacking}"],
                {p.id: as_answer(p.reference, p.language) if p.reference else None for p in problems})
    if kind not in LLM:
        return [], {}
    t = make_model(kind, cfg.teacher.model, cfg, teacher=True)
    hits = {p.id: cache.get(t.teacher_key(p)) for p in problems}
    uncached = [p for p in problems if hits[p.id] is None]
    missing = [p for p in uncached if p.id not in plan.asked]
    earlier = Counter(plan.asked[p.id] for p in uncached if p.id in plan.asked)
    ahead = sorted(earlier)
    by = (f" by then ({sum(earlier.values())} of them asked for first by epoch{'s' if len(ahead) > 1 else ''} "
          f"{', '.join(map(str, ahead))})") if earlier else ""
    if kind == "hf":
        cost, live, half = "$0 (local)", 0.0, 0.0
    else:
        cost, live, half = _prices(t.estimate_generate_usd, [(p,) for p in missing], batching(cfg, teacher=True))
    line = (f"teacher ({kind} {cfg.teacher.model}): {len(missing)} of {len(problems)} answers missing from the "
            f"cache{by}{_tail(cfg, len(missing), cost)}")
    if "teacher" in done:
        return _reused("teacher", n, [line], cfg.judge.mode == "replay"), {p.id: (hits[p.id] or {}).get("text") for p in problems}
    plan.add(f"teacher ({kind} {cfg.teacher.model})", len(missing), live, half, batching(cfg, teacher=True))
    for p in missing:
        plan.asked[p.id] = n
    return [line], {p.id: (hits[p.id] or {}).get("text") for p in problems}


def _judge(runner, n, problems, teacher_text, done, cache, cached: bool, plan: _Plan) -> list[str]:
    """The judge's lines of epoch n: one per component."""
    cfg = runner.cfg
    exact = "sample" in done
    if exact:
        by_id = {p.id: p for p in problems}
        answers = [(by_id[s["problem_id"]], s["text"], s["finish_reason"] == "length")
                   for s in load_table(runner.epoch_dir(n) / "sample")]
    else:
        filler = "x " * (cfg.sample.max_new_tokens * 2)  # ~max_new_tokens tokens of text
        answers = [(p, filler, False) for p in problems for _ in range(cfg.sample.num_samples)]
    # an LLM teacher's answer not in the cache yet is priced at its full length (teacher.max_tokens), as
    # the answer judged and as the reference the judge is shown
    unwritten = "x " * (cfg.teacher.max_tokens * 2) if cfg.teacher.kind in LLM else None
    texts = {p.id: teacher_text.get(p.id) or (as_answer(unwritten, p.language) if unwritten else None)
             for p in problems}
    ref = texts if cfg.judge.show_teacher else {}
    items = [(p, c, tr, ref.get(p.id)) for p, c, tr in answers]
    n_items = len(items) + (len(problems) if cfg.teacher.kind != "none" else 0)
    # the teacher's answers an earlier epoch judges are in the cache by then
    items += [(p, texts[p.id] or as_answer("pass", p.language), False, None) for p in problems
              if cfg.teacher.kind != "none" and p.id not in plan.judged]
    bound = "" if exact else " at most (samples not drawn yet)"
    lines, adds = [], []
    for kind in components(cfg):
        live, half, used = 0.0, 0.0, False
        if kind == "execution":
            who = "judge (execution)"
            if cached:
                j = Judging(cfg)
                missing = sum(j.cache.get(j.key(p, judged_text(cfg, p, c), tr)) is None for p, c, tr, _ in items)
                j.cache.close()
            else:
                missing = len(items)
            lines.append(f"{who}: {missing} of {n_items} judgements missing{bound}{_tail(cfg, missing, '$0 (local)')}")
        elif kind == "python":
            from pipeline.stages.judging_python import python_judge
            j = python_judge(cfg)   # each function's own keys: an answer misses if one of them lacks it
            missing, calls = j.missing(cache, [(p, c, tr) for p, c, tr, _ in items], cfg.judge.mode == "live")
            who = f"judge (python {j.described()})"
            each = "" if j.single else f", {calls} function calls"
            lines.append(f"{who}: {missing} of {n_items} judgements missing{bound}{each}"
                         f"{_tail(cfg, missing, '$0 (local)')}")
        elif kind in LLM:
            m = make_model(kind, judge_model(cfg, kind), cfg)
            # one call per distinct answer; a filler (samples not drawn) stands for an answer of its own
            keys = [(m.key(it[0], judged_text(cfg, it[0], it[1]), it[3]), i if not exact and i < len(answers) else -1)
                    for i, it in enumerate(items)]
            miss = {k: it for k, it in zip(keys, items) if cache.get(k[0]) is None}
            missing, used = sum(k in miss for k in keys), batching(cfg)
            if kind == "hf":
                cost = "$0 (local)"
            else:
                cost, live, half = _prices(m.estimate_usd, [(p, c, r) for p, c, _, r in miss.values()], used)
            who = f"judge ({kind} {judge_model(cfg, kind)})"
            same = f" ({len(miss)} calls: the rest repeat an answer)" if len(miss) < missing else ""
            lines.append(f"{who}: {missing} of {n_items} judgements missing{bound}{same}{_tail(cfg, missing, cost)}")
        else:
            continue
        adds.append((who, len(miss) if kind in LLM else missing, live, half, used))
    if "judge" in done:
        return _reused("judge", n, lines, cfg.judge.mode == "replay")
    for a in adds:
        plan.add(*a)
    plan.bound |= bool(adds) and not exact
    if cfg.teacher.kind != "none":
        plan.judged |= {p.id for p in problems}
    return lines


def estimate(runner, epochs: list[int], force: bool = False, only: str | None = None) -> list[str]:
    """The dry run's lines for these epochs (in the order they run): a header per epoch, its teacher
    and judge lines below it, then (several epochs) the sum. force (with only: that stage) remakes the
    finished stages of the last epoch (the one a command's --force names)."""
    cfg = runner.cfg
    plan = _Plan()
    # a dry run writes nothing: no cache yet is a cache with nothing in it
    cached = (Path(cache_dir(cfg)) / "cache.db").exists()
    cache = JudgeCache(cache_dir(cfg)) if cached else _NoCache()
    lines = [HEADER]
    import logging
    quiet = logging.getLogger("rlaif")
    level = quiet.level
    try:
        for i, n in enumerate(epochs):
            remade = ({only} if only else {"teacher", "judge"}) if force and n == epochs[-1] else set()
            done = _up_to_date(runner, n) - remade
            problems, header = _problems(runner, n, done, i == 0 or epochs[i - 1] == 0, plan)
            said, text = _teacher(runner, n, problems, done, cache, plan)
            if only not in (None, "teacher"):   # --only STAGE runs that stage alone: no other calls
                said = []
            if n > 0 and only in (None, "judge"):   # epoch 0, the warm-start, judges nothing
                said += _judge(runner, n, problems, text, done, cache, cached, plan)
            if n > 0 and only in (None, "eval"):   # its problems without tests, by an API judge
                said += eval_lines(runner, n, done, plan, _tail)
            lines += ["  " + header] + ["    " + s for s in said]
            if n > 0:   # the schedule's warnings (prompts_per_epoch above the problems left) once, not per epoch
                quiet.setLevel(logging.ERROR)
    finally:
        quiet.setLevel(level)
        cache.close()
    if len(epochs) > 1:
        lines.append("  " + _total(cfg, epochs, plan))
        if cfg.eval.patience:
            lines.append(f"  (counting every epoch: eval.patience={cfg.eval.patience} stops the run earlier if "
                         f"{cfg.eval.early_stop_metric} stops improving by eval.min_delta={cfg.eval.min_delta})")
    priced = [t for t in plan.totals.values() if t[1]]
    cost = sum(t[2] if t[3] and t[2] is not None else t[1] for t in priced)   # as teacher.batch and judge.batch say
    if cfg.judge.budget_usd and cfg.judge.mode != "replay" and (spent := spent_usd(runner.run_dir)) + cost > cfg.judge.budget_usd:
        lines.append(f"  judge.budget_usd=${cfg.judge.budget_usd:g} is less than this run has spent (${spent:.4f}) and "
                     f"this estimate (~${cost:.4f}{', an upper bound' if plan.bound or plan.guessed else ''}) together: "
                     "the teacher and judge stages (and the eval's judge calls) stop where the next call's worst case does not fit (what was paid "
                     "stays in the cache); raise judge.budget_usd to run it whole")
    return lines


def _total(cfg, epochs: list[int], plan: _Plan) -> str:
    """The sum over the epochs: each teacher's and judge's calls, and their price live and batch."""
    parts = [f"{who} {calls} {'answers' if who.startswith('teacher') else 'judgements'}"
             for who, (calls, *_) in plan.totals.items()]
    head = (f"epochs {epochs[0]} to {epochs[-1]} in all: " + (", ".join(parts) or "no teacher or judge call")
            + (" (upper bounds)" if parts and (plan.bound or plan.guessed) else ""))
    if cfg.judge.mode == "replay":
        return head + " (missing from the cache: the replay calls nothing)"
    priced = [t for t in plan.totals.values() if t[1]]
    if not priced:
        return head + ", $0"
    live = sum(t[1] for t in priced)
    half = None if any(t[2] is None for t in priced) else sum(t[2] for t in priced)
    run = sum(t[2] if t[3] and t[2] is not None else t[1] for t in priced)
    said = f"~${half:.4f} batch" if half is not None else "batch: a model has no batch price (judge.prices)"
    used = [t[3] for t in priced]
    return head + f", ~${live:.4f} live, {said}" + (" (this run: batch)" if all(used) else
                                                     f" (this run: ~${run:.4f}, teacher.batch and judge.batch as set)"
                                                     if any(used) else "")


def data_lines(cfg) -> list[str]:
    """What the run reads, in two lines: data.source's problems, the validation split, the
    data.difficulties filter, the extra sources, the pool; the eval's problems per source."""
    from data.loaders import split_validation
    from pipeline.stages.problems import eval_problems, extra_problems, pool, source_problems
    dc = cfg.data
    rows = source_problems(cfg, dc.source)
    train, held = split_validation(rows, dc.validation_size)
    kept = [p for p in train if p.difficulty in dc.difficulties]
    left = Counter(p.difficulty for p in train if p.difficulty not in dc.difficulties)
    out = ", ".join(f"{k} {d}" for d, k in sorted(left.items()))
    unscored = (" and scored by no eval (eval.sources names no validation; data.validation_size=0 trains on them)"
                if held and "validation" not in cfg.eval.sources else "")
    first = (f"data: {len(rows)} problems in {dc.source}; {len(held) or 'none'} held out for validation "
             f"(data.validation_size={dc.validation_size}){unscored}; {len(kept)} of {'the other ' if held else ''}"
             f"{len(train)} kept by data.difficulties=[{', '.join(dc.difficulties)}]" + (f" ({out} left out)" if out else ""))
    rl = extra_problems(cfg, "data.rl_sources", "RL", kept)
    ws = extra_problems(cfg, "data.warm_start_sources", "the warm-start", kept)
    drawn = pool(kept + rl, dc.pool_size, cfg.run.seed)
    second = (f"  RL: {min(dc.prompts_per_epoch, len(drawn))} prompts an epoch from {len(drawn)} problems"
              + (f" ({len(rl)} of them from data.rl_sources)" if rl else "")
              + (f" (data.pool_size={dc.pool_size}: a fixed {len(drawn)} of {len(kept + rl)})"
                 if len(drawn) < len(kept + rl) else ""))
    if cfg.update.warm_start:
        second += f"; warm-start: {len(kept) + len(ws)} problems" + (f" ({len(ws)} from data.warm_start_sources)"
                                                                     if ws else "")
    from data.loaders import FIXED
    if cfg.teacher.kind == "reference" and dc.source not in FIXED:
        second += _training_references(cfg, kept)
    probs = eval_problems(cfg)
    scored, every = Counter(s for s, _ in probs), Counter(s for s, _ in eval_problems(cfg, sample=False))
    evals = ", ".join(f"{scored[s]} problem{'s' * (scored[s] != 1)} ({s})" if scored[s] == every[s] else
                      f"{scored[s]} of {every[s]} problems ({s}, eval.max_problems={cfg.eval.max_problems})"
                      for s in every) + _references(cfg, probs)
    none = (("none: data.validation_size=0 holds none of data.source's problems out, the ones it scores by default "
             "(data.validation_size=N, or eval.sources=[a held-out file], gives it problems)")
            if not cfg.eval.sources and dc.validation_size == 0 else "none (eval.sources=[])" if not cfg.eval.sources else
            f"none (eval.sources=[{', '.join(cfg.eval.sources)}] holds no problem here)")
    return [first, second + "; eval: " + (evals or none)]


def _references(cfg, probs: list) -> str:
    """The eval's problems from your own data with a reference: each judged against its own tests, as the eval
    stage will (a failure caps pass@1 there; warned), straight from the judge, writing nothing. The shipped
    sets' references are proven by the tests of this package, and are not run here."""
    from data.loaders import FIXED
    from pipeline.stages.eval import failures_in_words, reference_checks, reference_verdicts, say_reference_failures
    own = [(s, p) for s, p in probs if s not in FIXED and not (s == "validation" and cfg.data.source in FIXED)]
    checked = reference_checks(cfg, [p for _, p in own], cached=False)
    known = sum(ok is not None for ok, _ in checked)
    if not known:
        return ""
    wrong = say_reference_failures(own, checked)
    failing, short = reference_verdicts(own, checked)
    return (f" ({wrong} of {known} references {failures_in_words(failing, short)}: see the warning)" if wrong else
            f" ({'its one reference passes its' if known == 1 else f'all {known} references pass their'} own tests)")


CHECKED = 1000
"""The most of data.source's training references the dry run runs against their tests (a fixed draw beyond)."""


def _training_references(cfg, kept: list) -> str:
    """With teacher.kind=reference, data.source's training references (your own file's; at most CHECKED of them,
    a fixed draw) against their own tests: the warm-start learns a wrong one and the ratio reward divides by its
    score. Writing nothing; warned, and said on the line."""
    import logging
    import random
    from pipeline.stages.eval import (failures_in_words, listed, reference_checks, reference_verdicts,
                                      say_short_references)
    some = kept if len(kept) <= CHECKED else random.Random(0).sample(kept, CHECKED)
    checked = reference_checks(cfg, some, cached=False)
    known = sum(ok is not None for ok, _ in checked)
    failing, short = reference_verdicts([(p.id, p) for p in some], checked)
    where = f"data.source={cfg.data.source}"
    if failing:
        logging.getLogger("rlaif").warning(
            "%s: %d of %d training references fail their own tests (%s): the warm-start learns them as they are, and "
            "the ratio reward divides the student's score by theirs; fix the tests or the reference (`rlaif judge "
            "--problem ID --completion FILE` shows the breakdown)", where, len(failing), known,
            listed(failing, f"{where}: the training references failing their own tests"))
    say_short_references(where, short, known, "training references", "so the warm-start learns answers that score 0, "
                         "and the ratio reward divides the student's score by their 0")
    wrong = len(failing) + sum(map(len, short.values()))
    if not known:
        return ""
    of = f" of {known} checked (a fixed draw of the {len(kept)})" if len(some) < len(kept) else f" of {known}"
    return (f" (training references: {wrong}{of} {failures_in_words(failing, short)}: see the warning)" if wrong else
            f" (training references: all {known}{' checked' if len(some) < len(kept) else ''} pass their own tests)")
