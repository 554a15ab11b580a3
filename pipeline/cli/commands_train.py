"""The commands that run stages: `rlaif epoch` (and `update`, `replay`: the same loop over fewer
stages), `sweep`, `eval`."""

import json
import logging
import time

from pipeline.store import dist
from pipeline.config.schema import Config
from pipeline.config.base import ConfigError
from pipeline.config.file import load_config
from pipeline.config.errors import RunError
from pipeline.run.preflight import check_data, check_data_files, check_engines, check_prompt_lengths, check_trackers

from pipeline.cli import common
from pipeline.cli.commands_read import cmd_compare, later_epochs_note
from pipeline.cli.common import config_file_line, duration, say, status, transient_bars

log = logging.getLogger("rlaif")


def cmd_epoch(cfg: Config, a) -> int:
    """`rlaif epoch N`: epochs 1..N, each one's finished stages reused (an epoch done earlier costs a
    line); `rlaif update N`, `rlaif replay N`, `--only`, `--force`: epoch N alone."""
    dry_run = getattr(a, "dry_run", False)
    check_engines(cfg, sampling=a.cmd != "update",   # (a dry run or a stage alone other than the update trains nothing)
                  updating=not dry_run and getattr(a, "only", None) in (None, "update"))
    check_data(cfg)
    check_trackers(cfg)
    warm_start_next = (a.cmd == "epoch" and a.n >= 1 and cfg.update.warm_start and getattr(a, "only", None) is None
                       and not getattr(a, "force", False))
    r = common.open_runner(cfg)
    if dry_run or (warm_start_next and r.chosen_update(0) is None):
        # a prompt the sample or eval stage would refuse fails now, not after the warm-start has trained
        # (and paid an API teacher); a rerun that reuses everything loads no tokenizer
        check_prompt_lengths(cfg, sampling=a.cmd != "update")
    _, record_data_files = check_data_files(cfg, r.run_dir)
    if a.cmd in ("update", "replay") and a.n == 0:
        raise RunError(no_rl_update("rerun") if a.cmd == "update" else "epoch 0 is the supervised warm-start, which "
                       "calls no judge: there is nothing to replay (`rlaif epoch 0` runs it; `rlaif replay 1` replays epoch 1)")
    if a.cmd == "epoch" and a.n == 0 and r.chosen_update(0) is None and not getattr(a, "force", False):
        if later := [n for n in r.epochs() if n > 0 and r.chosen_update(n) is not None]:
            were, them = ("those epochs are", "them") if len(later) > 1 else ("that epoch is", "it")
            warn = (f"epoch{f's {later[0]} to' if len(later) > 1 else ''} {later[-1]} of this run sampled from the base "
                    f"model (no warm-start); once epoch 0 is made, epoch 1 samples from it instead: {were} no longer the "
                    f"run's line, and `rlaif epoch {later[-1]}` would remake {them}")
            if not dry_run:
                raise RunError(f"{warn}. `rlaif epoch 0 --force` makes it anyway; a warm-started run of its own "
                               "keeps this one as it is: run.name=<another name> update.warm_start=true")
            say(f"warning: {warn} (the real run refuses without --force)")
    if a.cmd == "update" and r.chosen_update(a.n) is not None and (moved := r.update_only_moved(a.n)):
        raise RunError(f"`rlaif update {a.n}` varies only the update, but epoch {a.n} was made with other settings "
                       f"than these (made with -> now): {', '.join(moved)[:600]}; give those as epoch {a.n} was made "
                       f"(`rlaif status` prints the run's), or run `rlaif epoch {a.n}` with these settings")
    if a.cmd == "update" and (ws := warm_start_change(r, cfg, a.n)):
        raise RunError(_ws_error(ws, a.n, [cfg], f"epoch {a.n}'s RL update"))
    if a.cmd == "update" and not any(r.epoch_dir(a.n).glob("*/manifest.json")):
        raise RunError(f"epoch {a.n} of run {r.run_dir} has not run: `rlaif update {a.n}` reruns the update of an "
                       f"epoch whose samples, judgements and logprobs are on disk; run `rlaif epoch {a.n}` first "
                       "(with these settings), then `rlaif update` for other update settings")
    if a.cmd == "replay" and a.n > 1 and r.chosen_update(a.n - 1) is None:
        done = [n for n in r.epochs() if n > 0 and r.chosen_update(n) is not None]
        raise RunError(f"epoch {a.n} of run {r.run_dir} cannot be replayed: it samples from epoch {a.n - 1}'s policy, "
                       f"which {'is not there' if a.n - 1 not in r.epochs() else 'has no finished update'} "
                       f"({'epochs with an update: ' + ', '.join(map(str, done)) if done else 'no epoch has an update yet'}); "
                       "a replay remakes an epoch that ran live, its judgements from the cache: `rlaif replay "
                       f"{max(done) if done else 1}`, or `rlaif epoch {a.n}` to run it live")
    ranks = f" on {dist.world_size()} processes" if dist.world_size() > 1 else ""
    single = a.cmd != "epoch" or a.n <= 1 or getattr(a, "only", None) is not None or getattr(a, "force", False)
    first = a.n   # ... and starts from an adapter of another base model: said now (dry run too), not mid-epoch if single else next((m for m in range(1, a.n + 1) if r.chosen_update(m) is None), None)
    if first and (parent := r.chosen_update(first - 1)) is not None and (parent[0] / "adapter").is_dir():
        from pipeline.engines.model import check_adapter_base, resolve
        check_adapter_base(parent[0] / "adapter", resolve(cfg.student.model))
    say(config_file_line(a.config))
    if cfg.update.optimizer_state == "carry" and a.n > cfg.update.planned_epochs and cfg.update.scheduler != "constant":
        say(f"warning: epoch {a.n} is past update.planned_epochs={cfg.update.planned_epochs}, where the LR schedule "
            f"ends ({cfg.update.scheduler}: lr 0, nothing more is learned); set update.planned_epochs={a.n}")
    if a.cmd == "update" and (note := schedule_tail(r, cfg, a.n)):
        say(note)
    t = time.time()
    chosen_before = r.chosen_update(a.n)   # a note on later epochs only where this command changed the choice
    said: list[int] = []   # epochs whose flags were printed as they ended
    if single:
        what = {"update": "update-only rerun of epoch", "replay": "replay of epoch"}.get(a.cmd, "epoch")
        say(f"{what} {a.n} of run {r.run_dir}{ranks}")
        res = r.run_epoch(a.n, only=getattr(a, "only", None), force=getattr(a, "force", False),
                          update_only=a.cmd == "update", dry_run=dry_run,
                          ignore_early_stop=getattr(a, "ignore_early_stop", False))
        done = [a.n]
    else:
        say(f"epochs 1 to {a.n} of run {r.run_dir}{ranks} (finished stages are reused)")
        verbose = dry_run or getattr(a, "verbose", False) or cfg.run.log_level.upper() == "DEBUG"
        done = []
        # the run's lock held from the first epoch to the last: another command cannot slip in between
        with transient_bars(not verbose), r.held(not dry_run):
            for n in range(1, a.n + 1):
                if dry_run and n > 1 and r.chosen_update(n - 1) is None:
                    say(f"epochs {n} to {a.n}: to run after epoch {n - 1} (their stages depend on its policy)")
                    break
                changes = r.frozen_changes(n) if n < a.n else None
                if changes:   # past epochs are frozen: epoch n+1 starts from the policy epoch n recorded
                    say(f"epoch {n} kept as it finished (past epochs are frozen; these settings differ: "
                        f"{'; '.join(changes)[:400]}); `rlaif epoch {n}` remakes it with them")
                    done.append(n)
                    said.append(n)   # its flags were printed when it ran (`rlaif report` shows them all)
                    continue
                progress = EpochProgress(r, n, verbose, dry_run)
                t_epoch = time.time()
                try:
                    res = r.run_epoch(n, dry_run=dry_run, echo=progress,
                                      ignore_early_stop=getattr(a, "ignore_early_stop", False))
                finally:
                    status("")  # an error's message starts on a clean line
                progress.finish()
                done.append(n)
                if not dry_run and dist.is_main() and n < a.n:   # each epoch's flags as it ends, not after epoch N
                    # (an epoch all of whose stages were reused said its flags when it ran: not again)
                    if any((m or {}).get("finished_at", 0) >= t_epoch for m in (res or {}).values()):
                        for line in health_lines(r, cfg, [n]):
                            print(line)
                    said.append(n)
    if not dist.is_main():
        return 0
    if dry_run:
        from pipeline.run.dryrun import data_lines, estimate
        # every epoch this command runs: from the first without a policy to N (one: --only, --force, update,
        # replay), the warm-start first where epoch 1's run brings it in
        first = done[0] if single else next((n for n in done if r.chosen_update(n) is None), done[-1])
        epochs = list(range(first, (first if single else a.n) + 1))
        if first == 1 and cfg.update.warm_start and a.cmd != "update" and getattr(a, "only", None) is None:
            epochs.insert(0, 0)
        for line in data_lines(cfg) + estimate(r, epochs, force=getattr(a, "force", False),
                                               only=getattr(a, "only", None)):
            print(line)
        return 0
    record_data_files()   # the run read these files as they are now: their next change is said once
    if "update" in res:
        from pipeline.cli.commands_read import later_epochs_note
        made = res["update"].get("fingerprint", "")
        chosen = r.chosen_update(a.n)
        if chosen is None or chosen[1].get("fingerprint") == made:
            print(f"policy: {made[:8]} -> {r.epoch_dir(a.n)}/update-{made[:8]}/adapter")
            changed = chosen_before is None or chosen_before[1].get("fingerprint") != made
            note = later_epochs_note(r, a.n) if changed or res["update"].get("finished_at", 0) >= t else None   # (remade)
            if note:
                print(f"epoch {a.n}'s chosen policy is this variant; {note}")
        else:   # a variant made earlier and reused, or one made beside a promoted choice: not the policy
            promoted = (r.epoch_dir(a.n) / "chosen.json").exists()
            print(f"update variant {made[:8]} -> {r.epoch_dir(a.n)}/update-{made[:8]}/adapter; epoch {a.n}'s chosen "
                  f"policy {'stays' if promoted else 'is'} {chosen[0].name} ({'promoted' if promoted else 'the last made'}), "
                  f"the one later epochs start from; `rlaif promote {a.n} update-{made[:8]}` chooses this one")
    if single:   # a judge stage reused (always, for `rlaif update`) called nothing now: its figures are its own run's
        judge = res.get("judge") if isinstance(res, dict) else None
        made = (res.get("update") or {}).get("fingerprint") if isinstance(res, dict) else None
        own = None   # a variant beside the chosen policy: its own update's and eval's figures, not the epoch's
        if made and (chosen := r.chosen_update(a.n)) is not None and chosen[1].get("fingerprint") != made:
            ev = r.eval_of(a.n, made)
            own = {**{k: v for k, v in (r.read_metrics(a.n) or {}).items() if not k.startswith(("eval/", "loss/", "kl/"))},
                   **res["update"].get("figures", {}), **((ev[1].get("figures") or {}) if ev else {})}
        print(epoch_line(r, a.n, judge_reused=bool(judge) and judge.get("finished_at", t) < t, figures=own))
        if a.cmd == "replay" and res and all((m or {}).get("finished_at", t) < t for m in res.values()):
            print(f"epoch {a.n} was finished: every stage reused, nothing replayed; `rlaif replay {a.n} --force` "
                  "remakes its stages from the cache (and says which judgements it does not hold)")
    for line in health_lines(r, cfg, [n for n in done if n not in said]):
        print(line)
    print(f"done in {duration(time.time() - t)}")
    return 0


def schedule_tail(r, cfg: Config, n: int) -> str | None:
    """A warning for an update-only rerun of epoch n whose carried LR schedule starts low (optimizer_state carry: where
    epoch n-1's left it, its optim/lr_next), so that at the schedule's tail another update.lr changes little."""
    uc = cfg.update
    if n < 2 or uc.optimizer_state != "carry" or uc.scheduler == "constant":
        return None
    try:
        m = json.loads((r.epoch_dir(n - 1) / "metrics.json").read_text())
        key = "optim/lr_next" if "optim/lr_next" in m else "optim/lr_last"   # (an older record: the same figure)
        start, peak = float(m[key]), float(m["optim/lr"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not peak or start / peak >= 0.5:
        return None
    return (f"warning: epoch {n}'s update starts at {start / peak:.0%} of the peak learning rate (the carried "
            f"{uc.scheduler} schedule's position after epoch {n - 1}: {key} {start:.3g} of {peak:.3g}), so "
            f"update.lr and the other update settings move epoch {n} little; compare variants on an earlier epoch, "
            "or with update.scheduler=constant")


def health_lines(r, cfg: Config, epochs: list[int]) -> list[str]:
    """The report's flags of these epochs, one line each, judged as `rlaif report` and `rlaif status`
    judge them (a reward or eval fall inside its interval, paired by prompt or problem, is noise, not a
    regression)."""
    from pipeline.metrics.flags import analyse
    from pipeline.report.noise import change_intervals
    from pipeline.report.report import load_metrics, run_settings
    ms = load_metrics(r)
    change_intervals(r, ms)
    return [f"  [{f.severity}] epoch {f.epoch} {f.name}: {f.evidence} -> {f.advice}"
            for f in analyse(ms, cfg.report, run_settings(r)) if f.epoch in epochs]


def epoch_line(r, n: int, reused: int | None = None, ran: int = 0, secs: float | None = None,
               name: str | None = None, judge_reused: bool = False, figures: dict | None = None) -> str:
    """One epoch's line: its headline metrics (and, looping over epochs, what ran, in how long); judge_reused: this
    command reused the judge stage, so its calls are said as that stage's; figures: these, not metrics.json's."""
    m = figures if figures is not None else (r.read_metrics(n) or {})
    keys = ["reward/mean", "reward/best_of_n", "reward/frac_zero_std", "score/student_mean", "score/teacher_mean",
            "loss/total", "kl/k3", "eval/pass@1" if "eval/pass@1" in m else "eval/score"] + (   # (untested: a score)
        [] if judge_reused else ["judge/api_calls", "judge/cache_hits"]) + ["eval/judge_api_calls", "eval/judge_cache_hits"]
    figures = "  ".join(f"{k}={m[k]:.4g}" for k in keys if isinstance(m.get(k), (int, float)))
    if judge_reused and isinstance(m.get("judge/api_calls"), (int, float)):
        figures += f"  (judge stage: no call now; {m['judge/api_calls']:.0f} calls when it ran)"
    if reused is None:
        return figures
    how = "(every stage reused)" if not ran else f"in {duration(secs or 0)} ({ran} stage{'s' if ran > 1 else ''} ran, {reused} reused)"
    return f"{name or f'epoch {n}'} done {how}: {figures}"


class EpochProgress:
    """The runner's stage lines of one epoch of `rlaif epoch N` (N > 1), told as one line per epoch:

        epoch 2 done in 1m52s (9 stages ran, 0 reused): reward/mean=0.55  ...

    and, while a stage runs, one line on the terminal that the next stage (or its progress bar)
    overwrites. verbose (--verbose, run.log_level=DEBUG, --dry-run): every stage's lines too."""

    def __init__(self, runner, n: int, verbose: bool, dry_run: bool):
        self.r, self.verbose, self.dry_run = runner, verbose, dry_run
        self._start(n)

    def _start(self, n: int, header: str | None = None) -> None:
        self.n, self.ran, self.reused, self.t = n, 0, 0, time.time()
        self.header = header  # the runner's own, for the warm-start's epoch 0 and the epoch 1 after it
        self.said_header = False

    def __call__(self, line: str) -> None:
        words = line.split()
        if words[0] == "epoch":  # the runner brings in the warm-start (epoch 0) before epoch 1
            if self.ran or self.reused:
                self.finish()
            self._start(int(words[1]), line)
            return
        stage, what = words[0], words[1]
        self.ran += what == "done"
        self.reused += what == "reused"
        if self.verbose:
            if not self.said_header:
                say(self.header or f"epoch {self.n}")
                self.said_header = True
            if what != "reused" or not self.dry_run:
                say(line)
        elif what == "running":
            status(f"epoch {self.n}: {stage} ...")

    def finish(self) -> None:
        """The epoch's line (not in a dry run: nothing ran)."""
        status("")
        if self.dry_run or not dist.is_main():
            return
        name = "epoch 0 (the supervised warm-start)" if self.n == 0 else None
        say(epoch_line(self.r, self.n, self.reused, self.ran, time.time() - self.t, name))


def sweep_grid(grid: list[str]) -> list[list[str]]:
    """`--grid update.lr=5e-5,2e-4 --grid update.kl_coef=0.01,0.1` -> the 4 override lists."""
    import itertools
    axes, keys = [], set()
    for g in grid:
        key, sep, values = g.partition("=")
        if not sep or not key.startswith("update.") or not values:
            raise ConfigError(f"--grid {g}: expected update.KEY=V1,V2,... (a sweep varies only update settings: "
                              "anything else would change the samples or judgements, run `rlaif epoch` for that; "
                              "a select.* setting is one `rlaif update N select.KEY=...` at a time)")
        vals = values.split(",")
        if key in keys:
            raise ConfigError(f"--grid {g}: {key} is already an axis of the grid; give all its values in one --grid")
        if len(set(vals)) < len(vals) or "" in vals:
            raise ConfigError(f"--grid {g}: a value repeated or empty; each value once")
        keys.add(key)
        axes.append([f"{key}={v}" for v in vals])
    return [list(c) for c in itertools.product(*axes)]


WARM_START_KEYS = ("warm_start", "sft_lr", "sft_epochs")
"""update.* keys the RL update does not read (its fingerprint holds the whole section): a variant of them is a copy."""


def warm_start_change(r, cfg: Config, n: int) -> list[str]:
    """The warm-start keys in which this config differs from epoch n's chosen update, as `update.key=value`
    with the value that update was made with. The RL update does not read them: alone, a variant of them would
    be a copy; beside an RL key, it would record a warm-start that did not make the policy it starts from."""
    chosen = r.chosen_update(n)
    then = ((chosen[1].get("config") or {}).get("update") or {}) if chosen else {}
    now = cfg.get("update")
    return [f"update.{k}={json.dumps(then.get(k))}" for k in WARM_START_KEYS if k in then and then[k] != now.get(k)]


def no_rl_update(verb: str) -> str:
    return (f"epoch 0 is the supervised warm-start, which has no RL update to {verb}; its settings are update.sft_*: "
            "`rlaif epoch 0 update.sft_lr=...` makes another warm-start")


def _ws_error(ws: list[str], n: int, typed: list[Config], rl: str) -> str:
    """The message for warm-start keys given to an RL update (ws: as warm_start_change gives them, with the
    values epoch n's update was made with; typed: the configs of the command, whose values are said)."""
    keys = [w.partition("=")[0] for w in ws]
    given = {k: sorted({json.dumps(c.get(k)) for c in typed}) for k in keys}
    said = ", ".join(f"{k}={'/'.join(given[k])} (epoch {n}'s update was made with {w.partition('=')[2]})"
                     for k, w in zip(keys, ws))
    other = ("a warm-started run is one of its own: run.name=<another name> update.warm_start=true"
             if keys[0] == "update.warm_start" else
             f"`rlaif epoch 0 {keys[0]}={next(v for v in given[keys[0]] if v != ws[0].partition('=')[2])}` makes another warm-start")
    return (f"{said}: the warm-start's (epoch 0), not {rl}: the update does not read it, and a variant would record a "
            f"warm-start that did not make the policy it starts from (alone: the same adapter under another name). "
            f"Type {' '.join(ws)} as epoch {n}'s update was made; {other}")


def cmd_sweep(cfg: Config, a) -> int:
    """Update-only variants of epoch N over a grid, in one process: the samples, judgements and
    logprobs are read from disk, torch and the libraries are imported once."""
    if not a.grid:
        raise ConfigError("rlaif sweep needs at least one --grid update.KEY=V1,V2,...")
    if a.n == 0:
        raise RunError(no_rl_update("sweep"))
    combos = sweep_grid(a.grid)
    configs, points = [], {}
    keys = [g.partition("=")[0] for g in a.grid]
    if clash := [o for o in a.overrides if o.partition("=")[0] in keys and not any(o in c for c in combos)]:   # (dropped)
        raise ConfigError(f"{clash[0]}: {clash[0].partition('=')[0]} is a --grid axis too; give its values in --grid alone")
    for combo in combos:   # every combination's config checked before anything trains
        try:
            configs.append(load_config(a.config, a.overrides + combo))
        except ConfigError as e:
            raise ConfigError(f"--grid {' '.join(combo)}: {e}") from None
        point = tuple(repr(configs[-1].get(k)) for k in keys)   # 1e-4 and 0.0001 are one value
        if point in points:
            raise ConfigError(f"--grid: {' '.join(combo)} and {' '.join(points[point])} are the same point; "
                              "give each value once")
        points[point] = combo
    check_engines(cfg, sampling=False)
    check_data(cfg)
    check_trackers(cfg)
    from pipeline.run.runner import Runner
    r0 = Runner(cfg)
    if not any(r0.epoch_dir(a.n).glob("*/manifest.json")):
        raise RunError(f"epoch {a.n} of run {r0.run_dir} has not run: a sweep reruns the update of an "
                       f"epoch whose samples, judgements and logprobs are on disk; run `rlaif epoch {a.n}` first")
    if ws := sorted({k for c in configs for k in warm_start_change(r0, c, a.n)}):
        raise ConfigError(_ws_error(ws, a.n, configs, "the RL update's"))
    if note := schedule_tail(r0, cfg, a.n):
        say(note)
    t = time.time()
    with r0.held():   # from the first point to the last: no other command on the run in between
        before = r0.chosen_update(a.n)   # the later epochs' note only where the sweep changed the choice
        for i, (combo, c) in enumerate(zip(combos, configs), 1):
            r = Runner(c).under(r0)
            say(f"[{i}/{len(combos)}] {' '.join(combo)}")
            t1 = time.time()
            res = r.run_epoch(a.n, update_only=True)
            fp = res["update"]["fingerprint"][:8]
            say(f"  -> update-{fp} ({time.time() - t1:.1f}s)")
    if not dist.is_main():
        return 0
    print(f"sweep of {len(combos)} variants done in {time.time() - t:.1f}s; side by side:")
    cmd_compare(cfg, a)
    chosen = r0.chosen_update(a.n)
    promoted = (r0.epoch_dir(a.n) / "chosen.json").exists()
    print(f"epoch {a.n}'s chosen policy: {chosen[0].name if chosen else '-'} (" + (
        "promoted earlier: it stays chosen" if promoted else "the last one made") +
        f"); choose another with `rlaif promote {a.n} update-<fp8>`")
    if chosen and (before is None or before[0] != chosen[0]) and (note := later_epochs_note(r0, a.n)):
        print(f"epoch {a.n}'s chosen policy is now {chosen[0].name}; {note}")
    return 0


def cmd_eval(cfg: Config, a) -> int:
    if not cfg.eval.sources:
        raise ConfigError("eval.sources is empty: the eval is off, nothing to score; give it the problems to score, "
                          "e.g. eval.sources=[builtin:heldout] or eval.sources=[my.jsonl:heldout]")
    check_engines(cfg, sampling=False, updating=False)
    check_data(cfg)
    r = common.open_runner(cfg)
    _, record_data_files = check_data_files(cfg, r.run_dir)   # an edited eval file under a finished eval: said
    m = r.run_eval(a.n, warm_start=a.warm_start, force=a.force)
    record_data_files()
    fig, lead = m.get("figures", {}), ["eval/pass@1", "eval/score", "eval/ref_nll"]   # one order, made or reused
    say("  ".join(f"{k}={fig[k]:.4g}" for k in lead + sorted(set(fig) - set(lead)) if isinstance(fig.get(k), (int, float))))
    return 0
