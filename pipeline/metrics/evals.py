"""A run's evals read and compared (`rlaif compare-evals`, the report, the learning bench): an eval
directory or RUN@N (epoch N's chosen policy's eval), its per-problem rows, and their paired
comparison (pipeline/metrics/significance.py's intervals)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from pipeline.metrics.significance import CONFIDENCE, compare, prob_improvement, recipe_interval, resolution_advice

METRICS = (("pass@1", True), ("score", True), ("ref_nll", False))
# OCaml evals also compare the share of well-formed answers and of answers that type-check (the eval
# table's structure_ok and typecheck_ok): what moves first for a student that writes no passing OCaml
OCAML_PARTS = (("structure_ok", True), ("typecheck_ok", True))


def judged_key(m: dict) -> str:
    """An eval manifest's judge beyond the execution judge (eval_judge and the code that is not a harness), as one
    key: evals of other keys score their problems without tests on other scales."""
    code = {k: v for k, v in (m.get("code") or {}).items() if "harness" not in k}
    return json.dumps([(m.get("config") or {}).get("eval_judge"), code], sort_keys=True, default=str)


def resolve_eval(spec: str) -> Path:
    """An eval's directory from a spec: the directory itself (runs/x/epoch-004/eval-1a2b3c4d), or
    RUN_DIR@N for the newest finished eval of epoch N (0 = the base model, never the warm-start's:
    name its directory) of that run."""
    from pipeline.store.artifacts import read_manifest
    if "@" in spec:
        run, _, n = spec.rpartition("@")
        if not n.isdigit():
            raise ValueError(f"{spec!r}: after @ comes an epoch number (runs/default@4)")
        if not run:
            raise ValueError(f"{spec!r}: no run directory before @; write RUN_DIR@{n} (e.g. runs/default@{n})")
        edir = Path(run) / f"epoch-{int(n):03d}"
        # epoch 0: the base model's eval, not one of the warm-start's adapter (`rlaif eval 0 --warm-start`)
        found = [(str(m.get("started_at", "")), p, m) for p in edir.glob("eval-*") if (m := read_manifest(p))
                 and not (int(n) == 0 and (edir / f"update-{m.get('inputs', {}).get('update', '')[:8]}").exists())]
        if not found and int(n) > 0 and _chosen_update_fp(edir) is None:   # epoch N not trained: no policy to eval
            raise ValueError(f"{edir} has no finished update: epoch {int(n)} of that run has not run (or not to "
                             f"its end); `rlaif epoch {int(n)}` trains and evaluates it")
        if not found:
            raise ValueError(f"{edir} has no finished eval; run `rlaif eval {int(n)}` for that run first")
        chosen = _chosen_update_fp(edir)   # epoch N's policy: the chosen update's eval, not another variant's
        of_chosen = [f for f in found if f[2].get("inputs", {}).get("update") == chosen]
        if int(n) > 0 and chosen is not None and not of_chosen:
            raise ValueError(f"{edir}: its chosen update ({chosen[:8]}) has no finished eval (other variants' "
                             f"have); run `rlaif eval {int(n)}`, or name an eval directory")
        return max(of_chosen or found, key=lambda f: f[0])[1]
    d = Path(spec)
    if not d.exists():
        raise ValueError(f"{d}: no such directory; give runs/<run>/epoch-NNN/eval-<fp8>, runs/<run>@N or N alone (epoch N of the config's run)")
    m = read_manifest(d)
    if not m or m.get("stage") != "eval":
        raise ValueError(f"{d} is not a finished eval directory (no manifest.json of stage eval); give "
                         "runs/<run>/epoch-NNN/eval-<fp8> or runs/<run>@N")
    return d


def _chosen_update_fp(edir: Path) -> str | None:
    """The fingerprint of an epoch directory's chosen update (chosen.json, else the last finished)."""
    import json
    from pipeline.store.artifacts import read_manifest
    ups = [(p, m) for p in edir.glob("update-*") if (m := read_manifest(p)) and m.get("stage") == "update"]
    try:
        name = json.loads((edir / "chosen.json").read_text()).get("update")
    except (OSError, ValueError, AttributeError):
        name = None
    named = [m for p, m in ups if p.name == name]
    if named:
        return named[0].get("fingerprint")
    return max(ups, key=lambda pm: pm[1].get("finished_at", 0))[1].get("fingerprint") if ups else None


def load_eval(d) -> list[dict]:
    """An eval's rows, one per problem (eval stage v2); an older per-answer table is refused."""
    from pipeline.store.tables import load_table
    try:
        rows = load_table(Path(d))
    except OSError as e:
        raise ValueError(f"{d}: its table cannot be read ({e}); rerun that eval (`rlaif eval N`)") from None
    if rows and "correct" not in rows[0]:
        raise ValueError(f"{d} was written by an older eval stage (one row per answer); rerun it with "
                         "`rlaif eval N` to get the per-problem table compare-evals reads")
    return rows


def per_problem(rows: list[dict], metric: str, source: str | None = None) -> dict[str, float]:
    """{source:problem_id: value} of one metric (pass@1, score, ref_nll) from an eval's rows; pass@k for
    k > 1 is worked out from each row's n and correct (Chen et al.'s unbiased estimator, as the eval's
    own figure), on the problems with at least k answers."""
    if metric.startswith("pass@") and metric != "pass@1":
        from pipeline.metrics.significance import pass_at_k
        k = int(metric.removeprefix("pass@"))
        return {f"{r['source']}:{r['problem_id']}": pass_at_k(r["n"], r["correct"], k) for r in rows
                if r.get("n", 0) >= k and r.get("correct") is not None and (source is None or r["source"] == source)}
    # a value that is no number (None, NaN) leaves its problem out: one NaN made the mean and interval NaN
    return {f"{r['source']}:{r['problem_id']}": float(r[metric]) for r in rows
            if r.get(metric) is not None and float(r[metric]) == float(r[metric])
            and (source is None or r["source"] == source)}


def mean_draws(draws: list[dict[str, float]]) -> dict[str, float]:
    """Per problem, the mean over draws of the same model (the problems every draw has)."""
    keys = set(draws[0]).intersection(*draws[1:])
    return {k: sum(d[k] for d in draws) / len(draws) for k in keys}


def eval_mode(config: dict) -> tuple:
    """(eval.num_samples, eval.temperature) an eval was made with, from its manifest's config: greedy and sampled
    evals measure different things, so only evals of one mode are read against each other."""
    return config.get("eval.num_samples"), config.get("eval.temperature")


def wider_ks(*evals: list[dict]) -> list[int]:
    """The k > 1 of pass@k that every one of these evals reports (eval.num_samples answers a problem)."""
    from pipeline.metrics.significance import ks_for
    n = min((r["n"] for rows in evals for r in rows), default=1)
    return [k for k in ks_for(n) if k > 1]


DRAWS_SAID = ("; A's {} evals are draws of one model (its per-problem mean; their shared shift in the interval, "
              "and P(improve) pairs each B run with each draw)")
SEEDS_SAID = (" with B's seeds' own variance (3 or more seeds: each seed's shift shared by its problems, paired by "
              "seed when A has as many runs; never narrower than Student's t over the seeds' means)")


def compare_evals(a_dirs: list, b_dirs: list, confidence: float = CONFIDENCE) -> list[str]:
    """The text of `rlaif compare-evals`: per source (and over all when several), each metric's
    paired comparison, and for one run a side, how many problems would resolve what is seen. With 3
    or more B runs (seeds) against one A or as many, the interval carries the seeds' own variance
    (`significance.recipe_interval`), as the learning bench's does. Several A runs against another
    number of B runs (one or more) are draws of one model, the base, as in the bench: B against their
    per-problem mean, their shift in the interval."""
    for side, dirs in (("A", a_dirs), ("B", b_dirs)):   # one eval twice is no second seed or draw
        if twice := sorted({str(d) for d in dirs if sum(Path(x).resolve() == Path(d).resolve() for x in dirs) > 1}):
            raise ValueError(f"{side} names {', '.join(twice)} more than once: several runs of a side are seeds "
                             "(or draws), each an eval of its own")
    a_rows, b_rows = [load_eval(d) for d in a_dirs], [load_eval(d) for d in b_dirs]
    for side, dirs, rows in (("A", a_dirs, a_rows), ("B", b_dirs, b_rows)):
        empty = [str(d) for d, r in zip(dirs, rows) if not r]
        if empty:
            raise ValueError(f"{side}: {', '.join(empty)} holds no problem (an eval of an empty set); rerun it "
                             "with eval.sources that have problems")
    sa, sb = ({r["source"] for rows in side for r in rows} for side in (a_rows, b_rows))
    if not sa & sb:
        raise ValueError(f"A and B share no eval source (A: {', '.join(sorted(sa)) or '-'}; B: "
                         f"{', '.join(sorted(sb)) or '-'}); RUN@N takes the newest eval of epoch N's chosen policy: "
                         "name the eval directories instead")
    sources = sorted(sa & sb)
    n = min((r["n"] for rows in (*a_rows, *b_rows) for r in rows), default=1)
    draws = 1 < len(a_dirs) != len(b_dirs)    # A: draws of one model (the base), averaged per problem
    seeds = len(b_dirs) >= 3 and (draws or len(a_dirs) in (1, len(b_dirs)))   # B's seeds measure their own variance
    out = [f"A: {', '.join(map(str, a_dirs))}", f"B: {', '.join(map(str, b_dirs))}",
           f"B - A per problem, mean over problems and seeds; {100 * confidence:.0f}% t interval over "
           f"problems{SEEDS_SAID if seeds else ''}{DRAWS_SAID.format(len(a_dirs)) if draws else ''}; at least "
           f"{n} answer(s) per problem"]
    from pipeline.store.artifacts import read_manifest
    modes = {eval_mode(c) for d in (*a_dirs, *b_dirs) if (c := (read_manifest(Path(d)) or {}).get("config") or {})}
    if len(modes) > 1:   # a greedy eval against a sampled one: the difference is partly the protocol
        out.append("WARNING: these evals were made differently (eval.num_samples, eval.temperature: "
                   + ", ".join(f"{k} at T={t}" for k, t in sorted(modes, key=str)) + "): greedy and sampled "
                   "pass@1 measure different things; compare evals made alike (`rlaif eval N` with the same settings)")
    for src in ([None] if len(sources) == 1 else [*sources, None]):
        out.append("")
        out.append(f"[{src or 'all sources'}]" if len(sources) > 1 else f"[{sources[0] if sources else '-'}]")
        ocaml = any(r.get("typecheck_ok") is not None for rows in a_rows for r in rows if src in (None, r["source"]))
        wider = [(f"pass@{k}", True) for k in wider_ks(*a_rows, *b_rows)]
        for metric, higher in (*METRICS, *wider, *(OCAML_PARTS if ocaml else ())):
            a = [per_problem(r, metric, src) for r in a_rows]
            b = [per_problem(r, metric, src) for r in b_rows]
            if not all(a) or not all(b):
                continue
            if draws:
                mean = [mean_draws(a)]
                p = recipe_interval(compare(mean, b, metric, higher, confidence), a, mean, b)
                p = dataclasses.replace(p, prob_improvement=prob_improvement(a, b, higher))
            else:
                p = compare(a, b, metric, higher, confidence)
            if seeds and not draws:
                p = recipe_interval(p, a[:1] if len(a) == 1 else [], a, b, paired=len(a) == len(b))
            out.append(p.line())
            if len(a) == len(b) == 1 and metric == "pass@1":
                keys = sorted(set(a[0]) & set(b[0]))
                advice = resolution_advice(p, [b[0][k] - a[0][k] for k in keys], min(r["n"] for r in a_rows[0]),
                                           [a[0][k] for k in keys], [b[0][k] for k in keys],
                                           min(r["n"] for r in b_rows[0]))
                if advice:
                    out.append(f"  {advice}")
    return out
