"""`rlaif status`: the epochs, the chosen variants, the state of each stage, the money spent, and the
settings that differ from what the stale and new stages recorded (typed back as overrides)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.store.artifacts import read_manifest
from pipeline.config.errors import RunError
from pipeline.metrics.flags import analyse
from pipeline.metrics.doc import as_number
from pipeline.report.report import load_metrics, run_settings
from pipeline.run.freshness import made_otherwise, older_code
from pipeline.stages import POLICY, checkpoint_dir

if TYPE_CHECKING:
    from pipeline.run.runner import Runner


# -- money and status ---------------------------------------------------------------------
def epoch_spend(runner: "Runner", n: int) -> dict[str, float]:
    """Dollars per figure ('judge/cost_usd', 'teacher/cost_usd', ...) over every finished output
    of epoch n (chosen or not: money spent is spent), plus 'saved' from the cache."""
    out: dict[str, float] = {}
    edir = runner.epoch_dir(n)
    for p in sorted(edir.iterdir()) if edir.exists() else []:
        m = read_manifest(p) if p.is_dir() and not p.name.startswith(".") else None
        for k, v in ((m or {}).get("figures") or {}).items():
            if (k.endswith("cost_usd") or k.endswith("saved_usd")) and as_number(v) is not None:
                out[k] = out.get(k, 0.0) + float(v)
    return out


def status_lines(runner: "Runner") -> list[str]:
    """`rlaif status`: epochs, chosen variants, the state of each stage, money spent."""
    epochs = runner.epochs()
    if not epochs:   # (`rlaif judge` may have paid already: the spend ledger says)
        from pipeline.stages.spend import run_spend
        paid = run_spend(runner.run_dir)
        return [f"run {runner.run_dir}: no epochs yet; start with `rlaif epoch 1`"] + (
            [f"money spent so far: ${sum(paid.values()):.4f} (" + ", ".join(f"{k} ${v:.4f}" for k, v in sorted(paid.items())
                                                                     if v) + "; `rlaif judge`'s calls)"] if any(paid.values()) else [])
    lines = [f"run {runner.run_dir}: {len(epochs)} epoch(s)"]
    total: dict[str, float] = {}
    codes: dict = {}   # this version's code of each stage, worked out once for all the epochs
    differ: list[str] = []   # what the stale and new stages were made with otherwise ('run.seed 1 -> 0')
    for n in epochs:
        ms = runner.epoch_manifests(n)
        try:
            planned = {st.name: fp for st, fp, _, _ in runner.plan(n)}
        except RunError:
            planned = {}
        states = []
        # sampled from epoch n-1's update as it was before it was remade at its fingerprint: `rlaif epoch n` remakes
        # the stages that read that policy, or a stage remade for it (their fingerprints stay)
        old_parent = {POLICY} if (runner.former_parent(n) or "").endswith("remade") else set()
        chosen = runner.chosen_update(n)
        for st in runner.stages_for(n):
            m = ms.get(st.name)
            want = planned.get(st.name, (m or {}).get("fingerprint"))
            if old_parent.intersection(st.inputs) and st.name != "prompts":   # (prompts read no adapter: the same)
                old_parent.add(st.name)
            d = chosen[0] if st.name == "update" and chosen else None if st.variant else runner.epoch_dir(n) / st.name
            if m is None:
                state = "-"
            elif d is not None and any(not (d / f).is_file() for f in m.get("files") or {}):   # (deleted; not checksummed)
                state = "damaged"
            elif st.name in old_parent or (st.name == "prompts" and POLICY in old_parent):
                state = "stale"
            elif want == m.get("fingerprint"):   # made by older code (a reward function edited since): said so
                state = "done(older code)" if older_code(runner.cfg, st, m, codes) else "done"
            elif st.variant:
                # variants sit side by side: the current config's may exist without being the chosen
                # one (after a sweep or a promote), or would be added beside the others; nothing is stale
                made = {m.get("fingerprint") for _, m in runner.variants(n, st.name)}
                state = "new" if want not in made else "done(older code)" if older_code(runner.cfg, st, m, codes) \
                    else "done"   # (the chosen one's code, as the epoch loop reads it)
            else:
                state = "stale"
            if state in ("stale", "new"):
                moved = made_otherwise(runner.cfg, st, m)
                differ += [x for x in moved if x not in differ]
            states.append(f"{st.name}:{state}")
        spend = epoch_spend(runner, n)
        for k, v in spend.items():
            total[k] = total.get(k, 0.0) + v
        cost = sum(v for k, v in spend.items() if k.endswith("cost_usd"))
        mpath = runner.epoch_dir(n) / "metrics.json"
        reward = as_number((runner.read_metrics(n) or {}).get("reward/mean"))
        if n == 0 and not any(ms.get(st.name) for st in runner.stages_for(0)):   # `rlaif eval 0` alone
            lines.append("  epoch   0  no warm-start; the base model's eval" + (
                "" if any(runner.epoch_dir(0).glob("eval-*/manifest.json")) else " (unfinished)"))
            continue
        lines.append(f"  epoch {n:>3}  {'  '.join(states)}  chosen={chosen[0].name if chosen else '-'} "
                     f"({len(runner.update_variants(n))} variant(s))  reward={'-' if reward is None else f'{reward:.4f}'}  spent=${cost:.4f}"
                     + ("" if mpath.exists() else "  (no metrics.json: unfinished)"))
    from pipeline.stages.spend import manifest_spend, run_spend
    paid = run_spend(runner.run_dir)   # the spend ledger: stages stopped or recomputed have paid too
    spent = sum(paid.values())
    by = ", ".join(f"{k} ${v:.4f}" for k, v in sorted(paid.items()) if v)
    unfinished = spent - sum(manifest_spend(runner.run_dir).values())
    lines.append(f"money spent so far: ${spent:.4f}" + (f" ({by})" if by else "")
                 + (f"; ${unfinished:.4f} of it outside the finished stages' figures (stages stopped or recomputed, "
                    "`rlaif judge`; their answers are in the cache)" if unfinished > 5e-5 else "")
                 + (f"; the cache saved ${saved:.4f}" if (saved := sum(v for k, v in total.items() if k.endswith("saved_usd"))) else ""))
    lines.append("stage states: done; stale = finished, but the current config would recompute it (`rlaif epoch N` "
                 "for that N; later epochs keep it as it finished); new = the current config's update/eval variant is "
                 "not run yet (it would go beside the chosen one); damaged = a file of it is missing (`rlaif epoch N` remakes it; a promoted variant of other settings: "
                 "`rlaif update N` with them, or promote another); "
                 "- = not run")
    lines += runner.other_parents()
    if (runner.epoch_dir(epochs[-1]) / "metrics.json").exists() and (why := runner.early_stop_reason(epochs[-1] + 1)):
        lines.append(f"epoch {epochs[-1] + 1} would not start: {why}")
    lines += _interrupted_updates(runner, epochs)
    code = [x for x in differ if "stage's code (version" in x]   # no override brings older code back
    if differ := [x for x in differ if x not in code]:
        text, typed = "; ".join(differ), _recorded_overrides(differ)
        given = {w.strip("'").split("=", 1)[0] for w in typed}
        by_hand = [x.partition(" ")[0] for x in differ if x.partition(" ")[0] not in given]
        # every one of them: a line cut short can leave out a key another one needs (judge.python.function)
        lines.append("these settings differ from what the stale and new stages were made with (recorded -> now): "
                     + (text if len(text) <= 400 else text[:400] + " ...") + "; give the recorded values as "
                     + (f"overrides (`{' '.join(typed)}`" + (f"; and by hand: {', '.join(by_hand)}" if by_hand else "")
                        + ")" if typed else "overrides (key=value)")
                     + " to read the run as it ran")
    if code:
        lines.append(f"made by other code than this version's: {'; '.join(code)}; `rlaif epoch N` remakes them")
    ms_all = load_metrics(runner)
    if ms_all:
        last = ms_all[-1]["epoch"]
        from pipeline.report.noise import change_intervals
        change_intervals(runner, ms_all)
        fl = [f for f in analyse(ms_all, runner.cfg.report, run_settings(runner)) if f.epoch == last]
        lines.append(f"health at epoch {last}: " + (", ".join(f.name for f in fl) + " (see `rlaif report`)" if fl else "no flags"))
    return lines


def resumable_checkpoint(runner: "Runner", n: int) -> str:
    """The name of the resume checkpoint this config's next update of epoch n would resume (its fingerprint
    and its inputs' contents as they are on disk now); "" where epoch n cannot be planned."""
    try:
        outside = runner.outside_inputs(n)
        plan = runner.plan(n, outside)
    except RunError:
        return ""
    dirs = {**outside[1], **{st.name: d for st, _, d, _ in plan}}
    return next((checkpoint_dir(runner.epoch_dir(n), fp, {k: dirs.get(k) for k in st.inputs}).name
                 for st, fp, _, _ in plan if st.name == "update"), "")


def _interrupted_updates(runner: "Runner", epochs: list[int]) -> list[str]:
    """The resume checkpoints of updates stopped before their end (.ckpt-update-<fp8>-<in8>, removed when
    an update finishes): which one the current config resumes (its fingerprint and its inputs' contents
    as they are on disk now), and what the others hold on disk."""
    out = []
    for n in epochs:
        ckpts = sorted(runner.epoch_dir(n).glob(".ckpt-update-*"))
        if not ckpts:
            continue
        want = resumable_checkpoint(runner, n)
        mine = want[:len(".ckpt-update-") + 8]      # this config's update's fingerprint, over any inputs
        for c in ckpts:
            mb = sum(f.stat().st_size for f in c.rglob("*") if f.is_file()) / 2**20
            if c.name == want:
                out.append(f"epoch {n}: an update stopped before its end ({c.name}, {mb:.1f} MB): this config's next "
                           f"update of epoch {n} (`rlaif epoch {n}`, or `rlaif update {n}` once the epoch is done) "
                           "resumes it from its checkpoint")
            elif want and c.name.startswith(mine):
                out.append(f"epoch {n}: an update stopped before its end over other rows than epoch {n}'s now "
                           f"(its inputs were remade since; {c.name}, {mb:.1f} MB): nothing resumes it; the next "
                           f"update of epoch {n} removes it")
            else:
                out.append(f"epoch {n}: an update variant stopped before its end, made with other settings than the "
                           f"current config ({c.name}, {mb:.1f} MB): the command that started it, rerun as it was, "
                           f"resumes it; remove {c} if it is not wanted")
    return out


def _recorded_overrides(differ: list[str]) -> list[str]:
    """'run.seed 1 -> 0' -> 'run.seed=1', "data.rl_sources ['bank:train'] -> []" -> "'data.rl_sources=[bank:train]'":
    the recorded values that read back as themselves, typed as one shell word."""
    import ast
    import yaml
    from pipeline.config.file import describe
    known = {k for k, _, _ in describe()}   # (not a key inside a free-form mapping: judge.prices.gpt-4.1.input)
    out = []
    for x in differ:
        key, _, rest = x.partition(" ")
        try:
            old = ast.literal_eval(rest.split(" -> ")[0])
        except (ValueError, SyntaxError):
            continue
        if key not in known:
            continue
        if isinstance(old, list) and all(isinstance(v, (str, int, float)) for v in old):
            text = "[" + ",".join(map(str, old)) + "]"
        elif isinstance(old, (str, int, float)) or old is None:
            text = "null" if old is None else str(old)
        else:
            continue
        try:
            typed = yaml.safe_load(text)
        except yaml.YAMLError:   # ('@x', 'a]b': no plain YAML word)
            continue
        if text and not set(text) & set(" \t\"'$`\\;&|<>(){}*?#!~") and _reads_as(typed, old):
            out.append(f"'{key}={text}'" if isinstance(old, list) else f"{key}={text}")   # [..] quoted: a glob
    return out


def _reads_as(typed: object, old: object) -> bool:
    """Whether an override typed as text comes back as the recorded value (YAML reads 2e-05 as text, which
    the config's float field takes as the number)."""
    if isinstance(old, list):
        return isinstance(typed, list) and len(typed) == len(old) and all(map(_reads_as, typed, old))
    if isinstance(old, (int, float)) and not isinstance(old, bool) and isinstance(typed, str):
        try:
            return float(typed) == old
        except ValueError:
            return False
    return typed == old
