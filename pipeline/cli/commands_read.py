"""The commands that read finished runs: `rlaif compare`, `compare-evals`, `promote`, `status`, `report`,
`samples`, `metrics`."""

import logging


from pipeline.config.schema import Config

from pipeline.cli.common import existing_run
from pipeline.stages import POLICY
from pipeline.store.artifacts import read_manifest

log = logging.getLogger("rlaif")


def cmd_compare(cfg: Config, a) -> int:
    from pipeline.config.errors import RunError
    r = existing_run(cfg, a)
    variants = r.update_variants(a.n)
    if not variants and a.n == 0:
        raise RunError(f"epoch 0 (the supervised warm-start) of run {r.run_dir} has not run: update.warm_start=true "
                       "runs it before epoch 1, `rlaif epoch 0` alone; `rlaif epoch 0 update.sft_lr=...` makes "
                       "another warm-start beside it")
    if not variants:
        raise RunError(f"epoch {a.n} of run {r.run_dir} has no update yet: run `rlaif epoch {a.n}` first")
    chosen = r.chosen_update(a.n)
    import json
    selection = read_manifest(r.epoch_dir(a.n) / "select") or {}

    def settings(m: dict) -> dict:
        """A variant's update settings (an RL update records its section whole; the warm-start its update.sft_*
        keys one by one) and those of the selection it trained on (recorded beside it; a run made before that
        was recorded: known only while the selection it read is the epoch's current one)."""
        conf = m.get("config", {})
        out = {f"update.{k}": v for k, v in conf["update"].items()} if "update" in conf else \
            {k: v for k, v in conf.items() if k.startswith("update.")}
        chose = m.get("select_config")
        if chose is None and selection and m.get("inputs", {}).get("select") == selection.get("fingerprint"):
            chose = selection.get("config", {})
        return out | {k: v for k, v in (chose or {}).items() if k.startswith("select.")}
    confs = [settings(m) for _, m in variants]
    # the settings that tell the variants apart (lr and kl_coef when none does); a selection's settings among the
    # variants that know them (one made before they were recorded, on a selection made again since, knows none)
    keys = sorted(k for k in set().union(*confs) if len({json.dumps(c.get(k), sort_keys=True) for c in confs
                                                         if k in c or not k.startswith("select.")}) > 1)
    keys = keys or ([f"update.{k}" for k in (("sft_lr", "sft_epochs") if a.n == 0 else ("lr", "kl_coef"))])
    metrics = ["loss/total", "loss/policy", "kl/k3", "kl/k1", "optim/grad_norm", "policy/entropy", "eval/score",
               "eval/pass@1"]
    cols = keys + metrics
    evals, paths = {}, {}
    for _, m in variants:  # each variant's eval: the one this config asks for, else the epoch loop's
        found = r.eval_of(a.n, m["fingerprint"])
        if found:
            paths[m["fingerprint"]], evals[m["fingerprint"]] = found[0], found[1].get("figures", {})
    widths = [max(16, len(c) + 2) for c in cols]   # a long key's name never runs into the next column's
    print(f"{'':2}{'variant':<18}" + "".join(f"{c:>{w}}" for c, w in zip(cols, widths)))
    # a variant trained on another selection than the epoch's current one (its samples, or its select settings,
    # made again since): its training figures are not of the same rows as the others'
    current = selection.get("fingerprint")
    other_rows = {p for p, m in variants if current and m.get("inputs", {}).get("select") not in (None, current)}
    for p, m in variants:
        fig, conf = {**m.get("figures", {}), **evals.get(m["fingerprint"], {})}, confs[[v[0] for v in variants].index(p)]
        vals = [conf.get(k) for k in keys] + [fig.get(c) for c in metrics]
        mark = "*" if chosen and chosen[0] == p else "~" if p in other_rows else " "
        print(f"{mark} {p.name:<18}" + "".join(
            f"{v:>{w}.4g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else
            f"{'-':>{w}}" if v is None else f"{str(v)[:w - 1]:>{w}}" for v, w in zip(vals, widths)))
    print("* = chosen policy (the next epoch starts from it); change with `rlaif promote N VARIANT`")
    if other_rows:
        print(f"~ = trained on another selection than the epoch's current one (its samples or select settings made "
              f"again since): {', '.join(p.name for p in sorted(other_rows))}")
    from pipeline.report.noise import variant_lines
    lines = variant_lines(paths.get(chosen[1]["fingerprint"]) if chosen else None,
                          [(p.name, paths[m["fingerprint"]]) for p, m in variants
                           if m["fingerprint"] in paths and not (chosen and chosen[0] == p)])
    if lines:
        print("eval against the chosen variant's, problem by problem (95% interval over problems; `rlaif compare-evals`):")
        print("\n".join(lines))
    return 0


def cmd_compare_evals(cfg: Config, a) -> int:
    from pipeline.config.errors import RunError
    from pipeline.metrics.evals import compare_evals, resolve_eval
    from pipeline.metrics.evals import judged_key
    from pipeline.store.artifacts import read_manifest
    from pathlib import Path
    mine = Path(cfg.run.dir) / cfg.run.name   # N alone: epoch N of this config's run, RUN_DIR@N
    sides = [[f"{mine}@{s.strip()}" if s.strip().isdigit() and not Path(s).exists() else s
              for s in side.split(",") if s] for side in (a.a, a.b)]
    for spec in (s for side in sides for s in side):
        check_eval_spec(spec, cfg)
    try:
        a_dirs, b_dirs = ([resolve_eval(s) for s in side] for side in sides)
        print("\n".join(compare_evals(a_dirs, b_dirs, a.confidence)))
        if len({judged_key(read_manifest(d) or {}) for d in (*a_dirs, *b_dirs)}) > 1:   # a problem without tests scored by other judge settings or code: another scale
            print("note: these evals' problems without tests were scored by the run's judge with other settings or "
                  "code (judge.*, a reward function's file): their eval/score is on other scales, not a change of "
                  "the policy's")
    except ValueError as e:
        raise RunError(str(e)) from None
    return 0


def check_eval_spec(spec: str, cfg: Config) -> None:
    """A compare-evals RUN_DIR@N whose run directory is not there fails saying so, not that it has no eval yet."""
    from pathlib import Path

    from pipeline.config.errors import RunError
    run, at, n = spec.rpartition("@")
    if not at or not n.strip().isdigit() or Path(run).is_dir():   # RUN_DIR@N: N an epoch number
        return
    away = f" ({Path(run).absolute()}: a relative path is read from the working directory)" if not Path(
        run).is_absolute() else ""
    mine = Path(cfg.run.dir) / cfg.run.name
    raise RunError(f"{spec}: the run directory {run} does not exist{away}; RUN_DIR@N names a run's own directory, "
                   f"<run.dir>/<run.name> (this config's: {mine}@{n}), and N an epoch of it, whose newest "
                   "finished eval of the chosen update it compares")


def cmd_promote(cfg: Config, a) -> int:
    r = existing_run(cfg, a)
    r.lock()   # not while an epoch of the run reads its policies
    try:
        refuse_another_line(r, a.n, r.find_variant(a.n, a.variant))
        p = r.promote(a.n, a.variant)
    finally:
        r.unlock()
    made = (r.epoch_dir(a.n + 1) / "sample" / "manifest.json").exists()   # (from this very policy: no note)
    ev = r.eval_of(a.n, (read_manifest(p) or {}).get("fingerprint", ""))   # (one of no problem: eval.sources=[])
    print(f"epoch {a.n}: chosen policy is now {p.name}; " + (
        later_epochs_note(r, a.n) or f"epoch {a.n + 1} {'was sampled' if made else 'will start'} from it")
        + (f"; it has no eval (killed, or made without one): `rlaif eval {a.n}` scores it"
           if cfg.eval.sources != [] and (ev is None or ev[1].get("rows") == 0) else ""))
    return 0


def refuse_another_line(r, n: int, d) -> None:
    """A variant of epoch n trained from another policy of epoch n-1 than the one epoch n's answers now come
    from (epoch n-1's choice changed and epoch n was sampled again): its rows are gone, and chosen it would
    make the run's chosen policies a line no run trained. Refused, naming the way back to its line."""
    from pipeline.config.errors import RunError
    parent = ((read_manifest(d) or {}).get("inputs") or {}).get(POLICY)
    sampled = ((read_manifest(r.epoch_dir(n) / "sample") or {}).get("inputs") or {}).get(POLICY)
    if n < 1 or not parent or not sampled or parent == sampled:
        return
    named = next((p.name for p, m in r.update_variants(n - 1) if m.get("fingerprint") == parent), None)
    raise RunError(f"epoch {n}: {d.name} was trained from another policy of epoch {n - 1} ("
                   + (named or "one no longer there") + f") than the one epoch {n}'s answers were sampled from since, "
                   f"on answers that are gone (`rlaif compare {n}` marks it ~): chosen, it would make the run's line of "
                   f"policies one no run trained; " + (f"`rlaif promote {n - 1} {named}` then `rlaif epoch {n}` samples "
                                                       f"epoch {n} from its parent again (the judge cache answers), "
                                                       f"and it can be chosen" if named else
                                                       f"choose among epoch {n}'s variants of its current answers"))


def later_epochs_note(r, n: int) -> str | None:
    """What a new chosen policy of epoch n means for the epochs already run after it, if any."""
    later = [e for e in r.epochs() if e > n and r.chosen_update(e) is not None]   # (one begun, not trained: no policy)
    sampled = ((read_manifest(r.epoch_dir(n + 1) / "sample") or {}).get("inputs") or {}).get(POLICY)
    remade = r.former_parent(n + 1) if sampled is not None and sampled == r.policy(n)[0] else None
    if not later or (sampled is not None and sampled == r.policy(n)[0] and not remade):   # came from this very policy
        return None
    span = f"epoch {later[0]}" if len(later) == 1 else f"epochs {later[0]}-{later[-1]}"
    whose = f"epoch {n}'s {remade}" if remade else "the policy chosen before"
    return (f"{span} {'was' if len(later) == 1 else 'were'} trained from {whose}: `rlaif epoch "
            f"{later[-1] + 1}` keeps {'it' if len(later) == 1 else 'them'} as {'it' if len(later) == 1 else 'they'} "
            f"finished (past epochs are frozen) and trains on from epoch {later[-1]}'s policy; `rlaif epoch "
            f"{n + 1}` remakes epoch {n + 1} from this one (new answers, judged anew: `--dry-run` prices it), "
            f"and a new run.name keeps both lineages")


def cmd_status(cfg: Config, a) -> int:
    from pipeline.report.status import status_lines
    print("\n".join(status_lines(existing_run(cfg, a))))
    return 0


def cmd_report(cfg: Config, a) -> int:
    from pipeline.report.report import write_report
    summary: list[str] = []
    path = write_report(existing_run(cfg, a), summary)
    print("\n".join(summary + [f"wrote {path}"]))
    return 0


def cmd_samples(cfg: Config, a) -> int:
    from pipeline.config.errors import RunError
    from pipeline.report.report import eval_samples, samples
    try:
        print((eval_samples if a.eval else samples)(existing_run(cfg, a), a.n, worst=a.worst, best=a.best, prompt=a.prompt))
    except ValueError as e:   # (an eval table that cannot be read: load_eval says which and what to do)
        raise RunError(str(e)) from None
    return 0


def cmd_metrics(cfg: Config, a) -> int:
    from pipeline.metrics.doc import metrics_markdown
    print(metrics_markdown())
    return 0
