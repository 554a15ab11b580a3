"""The stage runner: wires stages, skips what is up to date, records what it ran.

Each stage declares the config fields it reads and its inputs. Its fingerprint hashes the
stage name, its VERSION, those fields and its inputs' fingerprints, so changing
`update.lr` re-runs the update (into a side-by-side `update-<fp8>/` variant) and never
sample or judge. Past epochs are frozen: epoch N starts from epoch N-1's chosen policy.
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Callable

from pipeline.store import dist
from pipeline.store.artifacts import (atomic_dir, clean_stale, disk_full, input_digests, load_complete, read_manifest,
                                      write_manifest)
from pipeline.config.schema import Config
from pipeline.config.errors import RunError
from pipeline.run.freshness import made_otherwise, older_code, reusable
from pipeline.run.lineage import Lineage
from pipeline.run.run_lock import RunLock
from pipeline.stages import POLICY, REFERENCE, Ctx, Stage

log = logging.getLogger("rlaif")


def _resolve(ref: str, quiet: bool = True) -> Callable[[Ctx], None]:
    """module:name -> the function; quiet: the libraries' own progress bars silenced first (a stage that
    runs loads them; a reading command that only asks a stage's code version need not)."""
    import importlib
    module, name = ref.split(":")
    if quiet:
        quiet_libraries()
    return getattr(importlib.import_module(module), name)


def quiet_libraries() -> None:
    """Our own progress bars say what is happening; silence the libraries' per-file ones."""
    import datasets
    import transformers
    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()


def _fault_point(stage: str) -> None:
    """Fault injection for the crash tests: with RLAIF_STALL_IN=<stage>, stall once the stage's
    outputs are written but before its manifest, the worst moment to be killed."""
    if os.environ.get("RLAIF_STALL_IN") == stage:
        print(f"stalled in {stage}", flush=True)
        time.sleep(600)


def _gpu_peak(stage: str) -> dict[str, float]:
    """The stage's peak GPU memory (GiB) when it used a GPU; the peak counter starts over for the
    next stage. Nothing (and no torch import) on the CPU."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return {}
    peak = torch.cuda.max_memory_allocated() / 2**30
    torch.cuda.reset_peak_memory_stats()
    return {f"memory/{stage}_peak_gib": round(peak, 3)}


def _silent(_: str) -> None:
    """The echo of ranks other than 0: one process speaks for the run."""


class Runner(Lineage, RunLock):
    """Runs an epoch's stages that are not up to date (its lineage: pipeline/run/lineage.py)."""

    def __init__(self, cfg: Config, stages: list[Stage] | None = None):
        super().__init__(cfg, stages)
        self._verified: set[Path] = set()   # policies whose files passed their checksums in this process

    # -- the epoch ------------------------------------------------------------------------

    def check_device(self) -> None:
        """run.device=cuda[:N] where torch sees no such GPU fails here, before any work. (auto and
        cpu always resolve; checking them would import torch for a rerun that reuses everything.)"""
        if self.cfg.run.device.startswith("cuda"):
            from pipeline.engines.model import resolve_device
            resolve_device(self.cfg.run.device)

    def check_api(self, n: int, update_only: bool = False, only: str | None = None,
                  missing: list[str] | None = None) -> None:
        """An API teacher or judge this epoch will call (its stage not done) without a price or a key
        fails here, before any work; a dry run's missing keys go to `missing` (judging.check_api)."""
        if update_only:
            return
        try:
            plan = self.plan(n)
        except RunError:
            return  # the epoch cannot run at all: run_epoch says why
        todo = {st.name for st, fp, d, _ in plan if load_complete(d, fp, verify=False) is None and only in (None, st.name)}
        if n == 1 and self.cfg.update.warm_start and only is None:
            todo |= {"teacher"}  # epoch 0 asks the teacher first
        judge = "judge" in todo or ("eval" in todo and self.cfg.eval_judge is not None)   # (its problems without tests)
        if "teacher" in todo or judge:
            from pipeline.stages.judging import check_api
            check_api(self.cfg, teacher="teacher" in todo, judge=judge, missing=missing)

    def run_eval(self, n: int, echo: Callable[[str], None] = print, warm_start: bool = False,
                 force: bool = False) -> dict:
        """The eval stage on epoch n's chosen policy (n = 0: the base model; with warm_start, the
        supervised warm-start's adapter); force: made again where finished (its judgements from the cache)."""
        self.check_device()
        st = next(s for s in self.stages if s.name == "eval")
        if warm_start and n != 0:
            raise RunError(f"--warm-start evaluates epoch 0's warm-start; drop it for epoch {n}")
        if n == 0 and not warm_start:
            fp_in, d_in = self.base_policy_fp(), None
        else:
            chosen = self.chosen_update(n)
            if chosen is None:
                raise RunError(f"epoch {n} has no finished update; run `rlaif epoch {n}` first"
                               + (" (the supervised warm-start)" if n == 0 else ""))
            d_in, fp_in = chosen[0], chosen[1]["fingerprint"]
            self._check_policies(n, st, {POLICY: d_in / "adapter"}, key=POLICY)
        fp = self.eval_fp(fp_in)
        d = self.epoch_dir(n) / f"eval-{fp[:8]}"
        echo = echo if dist.is_main() else _silent
        with self.held():
            # (not when the update was remade since this eval read it: rank 0 decides, for every rank)
            m = None if force else dist.on_main(lambda: reusable(d, fp, {"update": d_in})[0])
            if m is None:
                if self.cfg.eval_judge is not None:   # an API judge's price and key, before any answer is drawn
                    from pipeline.stages.judging import check_api
                    check_api(self.cfg, teacher=False, judge=True)
                echo(f"  eval     running  {d.relative_to(self.run_dir)}")
                m = self._run_stage(st, n, fp, d, {"update": d_in}, {"update": fp_in})
                echo(f"  eval     done     {m.get('wall_s', 0):.1f}s ({m.get('rows', 0)} rows)")
            else:
                echo(f"  eval     reused   {d.relative_to(self.run_dir)}")
                if changed := older_code(self.cfg, st, m):   # the harnesses, or the run's judge (eval_code)
                    log.warning("epoch %d eval: reused, but made by other code than this version's (%s); `rlaif eval "
                                "%d%s --force` remakes it", n, ", ".join(f"{k} {a} -> {b}" for k, (a, b) in changed.items()),
                                n, " --warm-start" if warm_start else "")
            if (side := self.side_eval(n, fp_in, d, m)) is None:
                dist.on_main(lambda: self.write_metrics(n))
            else:   # (a sampled eval beside the loop's greedy one: the epoch's figures stay the loop's)
                echo(f"  (epoch {n}'s metrics keep its first eval, {side.name}, made with other eval settings)")
            dist.barrier()
        return m

    def run_epoch(self, n: int, only: str | None = None, force: bool = False, update_only: bool = False,
                  dry_run: bool = False, echo: Callable[[str], None] = print,
                  ignore_early_stop: bool = False) -> dict[str, dict]:
        if n < 0:
            raise RunError(f"epochs count from 1 (got {n}); epoch 0 is the optional supervised warm-start")
        reason = None if (ignore_early_stop or update_only) else self.early_stop_reason(n)
        if reason and not load_complete(self.epoch_dir(n) / "prompts"):
            raise RunError(reason)
        names = [s.name for s in self.stages_for(n)]
        if only is not None and only not in names:
            raise RunError(f"--only {only}: no such stage; stages are {', '.join(names)}")
        echo = echo if dist.is_main() else _silent
        self.check_device()
        keys: list[str] | None = [] if dry_run else None
        self.check_api(n, update_only, only, keys)
        for why in dict.fromkeys(keys or []):
            echo(f"epoch {n} would stop here, before any work: {why}")
        with self.held(not dry_run):
            if n == 1 and self.cfg.update.warm_start and not update_only and only is None:
                if self.cfg.judge.mode == "replay" and not force and (why := self.warm_start_replay_refusal()):
                    raise RunError(why)   # (before the warm-start trains: it would change epoch 1's parent)
                echo("epoch 0 (supervised warm-start, update.warm_start=true)")
                self._run_epoch(0, None, False, False, dry_run, echo)
                echo("epoch 1")
            results = self._run_epoch(n, only, force, update_only, dry_run, echo)
            # rank 0 keeps the lock until every rank is done; not after a failure, where the launcher
            # stops every rank and a barrier could wait for one that is gone
            dist.barrier()
            return results

    def _remade_why(self, n: int, st, fp: str, old: dict | None, stale: list[str], force: bool,
                    fps: dict[str, str]) -> str:
        """Why stage st of epoch n is made again where it was made before (old: its manifest then, None for a
        variant; '' where it never was; fps: this plan's fingerprints of its inputs)."""
        if stale:   # (a variant too: the update and the eval of rows made again)
            return "; ".join(f"epoch {n - 1}'s chosen update was remade since it sampled from it" if k == POLICY else
                             f"its input {k} was remade since it read it" for k in stale)
        if old is None:
            return ""
        moved = made_otherwise(self.cfg, st, old)
        then = old.get("inputs") or {}
        other = [k for k in st.inputs if k not in (POLICY, REFERENCE) and k in then and fps.get(k) not in (None, then[k])]
        return ("--force" if force and old.get("fingerprint") == fp else
                "a file of it was missing or corrupted" if old.get("fingerprint") == fp else
                ", ".join(moved)[:300] if moved else
                f"its input {', '.join(other)} is made otherwise now" if other else
                f"epoch {n - 1}'s chosen policy is not the one it was made from"
                if POLICY in st.inputs and then.get(POLICY) != fps.get(POLICY) else "its inputs changed")

    def update_only_moved(self, n: int, plan=None) -> list[str]:
        """Each setting (`key old -> new`) in which this config differs from what epoch n's finished stages
        before the update were made with: what `rlaif update n` cannot take, all of them at once."""
        plan = plan if plan is not None else self.plan(n, self.outside_inputs(n))
        first_variant = next((i for i, (st, *_) in enumerate(plan) if st.variant), len(plan))
        return list(dict.fromkeys(x for st, _, d, _ in plan[:first_variant] if not st.derived
                                  for x in made_otherwise(self.cfg, st, read_manifest(d))))

    def _run_epoch(self, n, only, force, update_only, dry_run, echo) -> dict[str, dict]:
        t0 = time.time()
        edir = self.epoch_dir(n)
        if not dry_run:
            dist.on_main(lambda: clean_stale(edir))
        fps, dirs = self.outside_inputs(n)
        plan = self.plan(n, (fps, dirs))
        if self.cfg.judge.mode == "replay" and not force and only is None and (why := self.replay_refusal(n, plan)):
            raise RunError(why)
        results: dict[str, dict] = {}
        ran, remade_rows = [], None   # the stages this call made; the first made anew from other rows
        first_variant = next((i for i, (st, *_) in enumerate(plan) if st.variant), len(plan))
        needed = _inputs_of(only, [st for st, *_ in plan]) if only is not None else set()
        for i, (st, fp, d, _) in enumerate(plan):
            fps[st.name], dirs[st.name] = fp, d
            if only is not None and st.name != only and st.name not in needed:
                continue   # --only teacher needs prompts, not sample
            # an input remade since this stage read it (its rows may be others now; the policy it sampled from, an
            # update remade at its fingerprint): made again. The KL reference is not looked at; rank 0 decides
            m, stale = (None, []) if (force and (only in (None, st.name))) else dist.on_main(
                lambda: reusable(d, fp, {k: dirs.get(k) for k in st.inputs if k != REFERENCE}))
            maybe = next((k for k in st.inputs if k in ran), None) if dry_run and m is not None else None
            m = None if maybe else m   # (a dry run: a finished stage reading one to run is made again if that differs)
            if m is not None:
                echo(f"  {st.name:<8} reused   {d.relative_to(self.run_dir)} ({m.get('rows', 0)} rows)")
                if changed := older_code(self.cfg, st, m):
                    moved = ", ".join(f"{k} {a} -> {b}" for k, (a, b) in changed.items())
                    how = (f"`rlaif epoch {n} --only {st.name} --force`" if not any(
                        st.name in later.inputs for later in self.stages) else
                        f"`rlaif epoch {n} --force` (the stages after it read it; what did not change comes from "
                        f"the judge cache)")
                    log.warning("epoch %d %s: reused, but made by other code than this version's (%s); %s remakes it",
                                n, st.name, moved, how)
                jc = self.cfg.judge
                holes = (m.get("figures") or {}).get(f"{st.name}/skipped")
                if holes and jc.mode == "live" and not jc.skip_missing and jc.batch_failed != "missing":
                    log.warning("epoch %d %s: reused with %d answers an earlier run left out (judge.skip_missing, "
                                "judge.batch_failed=missing, or requests the API refused); `rlaif epoch %d --force` asks "
                                "for them (the rest come from the judge cache)", n, st.name, holes, n)
                results[st.name] = m
                continue
            if update_only and i < first_variant and not st.derived:   # (a dry run says it as the run does)
                done = read_manifest(d)
                # every setting the epoch's stages were made with otherwise, not this stage's alone (its
                # policy's student.model is the sample stage's key, not the prompts')
                moved = self.update_only_moved(n, plan) if done is not None else []
                why = ("it is not done: it failed or never ran" if done is None else
                       f"these differ (made with -> now): {', '.join(moved)}" if moved else
                       self._remade_why(n, st, fp, done, stale, False, fps) if stale else
                       f"it was sampled from another policy than epoch {n - 1}'s chosen one (after `rlaif update "
                       f"{n - 1}` or `rlaif promote {n - 1}`: promote the variant it came from back, or remake it "
                       f"with `rlaif epoch {n} --force`)" if POLICY in st.inputs else "its inputs changed")
                raise RunError(f"`rlaif update` reruns only the update, but stage {st.name} of epoch {n} is not "
                               f"up to date for this config ({why}); run `rlaif epoch {n}` with these settings instead")
            if dry_run and (only is None or st.name == only):   # --only's missing input: the error below, as run
                why = (f"if its input {maybe}, made first, comes out otherwise" if maybe else
                       self._remade_why(n, st, fp, read_manifest(d) if not st.variant else None, stale, force, fps))
                echo(f"  {st.name:<8} to run   {d.relative_to(self.run_dir)}"
                     + (f" (remakes the finished one: {why})" if why else ""))
                ran.append(st.name)
                continue
            self._check_policies(n, st, dirs)
            if only is not None and st.name != only:
                done = read_manifest(d)
                moved = made_otherwise(self.cfg, st, done) if done is not None else []
                state = ("is not done" if done is None else
                         f"was made with other settings (made with -> now: {', '.join(moved)[:300]})" if moved else
                         "is out of date (its own inputs changed)")
                raise RunError(f"--only {only}: its input stage {st.name} of epoch {n} {state}; "
                               f"run `rlaif epoch {n}` without --only")
            old = read_manifest(d) if not st.variant else None
            why = f" (remade: {why})" if (why := self._remade_why(n, st, fp, old, stale, force, fps)) else ""
            if old is not None and (old.get("fingerprint") != fp or stale) and not st.derived:
                remade_rows = remade_rows or st.name   # the rows a promoted update was trained on are made anew
            echo(f"  {st.name:<8} running  {d.relative_to(self.run_dir)}{why}")
            # a variant made again because it was damaged (nothing before it remade) keeps the epoch's choice of
            # policy: else, as the newest, it would become the chosen one
            keep = dist.on_main(lambda: self.chosen_update(n)) if (st.name == "update" and d.exists() and not
                                                                    update_only and not force and not ran) else None
            results[st.name] = self._run_stage(st, n, fp, d, {k: dirs[k] for k in st.inputs},
                                               {k: fps[k] for k in st.inputs})
            ran.append(st.name)
            if old is not None and not st.derived and old.get("files") != results[st.name].get("files"):
                remade_rows = remade_rows or st.name   # (--force after a reward function's edit: other rows, one name)
            if keep is not None and keep[0] != d:
                dist.on_main(lambda: (self.epoch_dir(n) / "chosen.json").exists() or self.promote(n, keep[0].name))
            if st.name == "update" and remade_rows:   # the update made from the new rows is the epoch's policy
                dist.on_main(lambda: self.drop_promotion(n, remade_rows))
            echo(f"  {st.name:<8} done     {results[st.name]['wall_s']:.1f}s ({results[st.name]['rows']} rows)")
            if only is not None:
                break
        if remade_rows and not dry_run and "update" in results and "update" not in ran:   # (made before, reused now)
            dist.on_main(lambda: self.drop_promotion(n, remade_rows, dirs["update"]))
        if not dry_run and all(st.name in results for st, *_ in plan):
            def finish():
                from pipeline.metrics.trackers import log_epoch
                log_epoch(self.cfg, self.run_dir, n, self.write_metrics(n, wall_s=time.time() - t0))
            dist.on_main(finish)
        return results

    def _check_policies(self, n: int, st: Stage, dirs: dict, key: str | None = None) -> None:
        """The policies a stage about to run reads (the one it samples from, the KL reference; key: this one
        whatever the stage's inputs are called, as the eval reads its update) are intact: a corrupted chosen
        policy is never used (it is not this epoch's to recompute)."""
        from pipeline.store.artifacts import corrupted_file, damage
        for k in (key,) if key else (POLICY, REFERENCE):
            adapter = dirs.get(k) if key or k in st.inputs else None
            if adapter is None or adapter.parent in self._verified:
                continue
            m = read_manifest(adapter.parent)
            bad = corrupted_file(adapter.parent, m) if m else "manifest.json"
            if bad is not None:
                raise RunError(f"epoch {n} {st.name}: the {k} it reads, {adapter.parent}: its {bad} "
                               f"{damage(adapter.parent, bad)}. Remake that "
                               f"epoch's update (`rlaif epoch {m.get('epoch', '?') if m else '?'} --force`), or promote "
                               f"another variant of it (`rlaif promote`)")
            self._verified.add(adapter.parent)

    def _run_stage(self, st: Stage, n: int, fp: str, d: Path, inputs: dict, input_fps: dict) -> dict:
        """Run one stage into d; its manifest. With several processes: rank 0 alone, or every rank
        (Stage.every_rank: the others work in a scratch directory that is thrown away; rank 0's
        output is the stage's), and every rank gets rank 0's manifest."""
        if not st.every_rank or dist.world_size() == 1:  # rank 0 alone; the others get its manifest or error
            return dist.on_main(lambda: self._run_stage_here(st, n, fp, d, inputs, input_fps))
        # every rank: the others may be inside one of the stage's collectives, so a failure here is not
        # broadcast; the failing process exits and the launcher stops every rank
        if dist.is_main():
            return dist.broadcast(self._run_stage_here(st, n, fp, d, inputs, input_fps))
        import tempfile
        fn = st.fn if callable(st.fn) else _resolve(st.fn)
        with tempfile.TemporaryDirectory(prefix=f"rlaif-{st.name}-rank{dist.rank()}-") as tmp:
            fn(Ctx(cfg=self.cfg, epoch=n, out=Path(tmp), inputs=inputs, run_dir=self.run_dir, fingerprint=fp))
        return dist.broadcast(None)  # rank 0's manifest

    def _run_stage_here(self, st: Stage, n: int, fp: str, d: Path, inputs: dict, input_fps: dict) -> dict:
        try:
            return self._write_stage(st, n, fp, d, inputs, input_fps)
        except Exception as e:
            if not disk_full(e):
                raise
            # the stage's temp directory is gone (atomic_dir), the stages before it are on disk as they were
            raise RunError(f"no space left on the device writing stage {st.name} of epoch {n} into {d}: free space "
                           f"there ({e}), then rerun the same command: the finished stages are kept and it resumes "
                           f"at {st.name}") from None

    def _write_stage(self, st: Stage, n: int, fp: str, d: Path, inputs: dict, input_fps: dict) -> dict:
        t = time.time()
        started = time.time()
        fn = st.fn if callable(st.fn) else _resolve(st.fn)
        with atomic_dir(d) as tmp:
            ctx = Ctx(cfg=self.cfg, epoch=n, out=tmp, inputs=inputs, run_dir=self.run_dir, fingerprint=fp)
            fn(ctx)
            ctx.figures.update(_gpu_peak(st.name))
            _fault_point(st.name)
            manifest = write_manifest(tmp, {
                "stage": st.name, "epoch": n, "fingerprint": fp, "inputs": input_fps, "input_digests": input_digests(inputs),
                "config": {f: self.cfg.get(f) for f in st.fields}, "version": st.version,
                "started_at": started, "wall_s": time.time() - t, "rows": ctx.rows,
                "figures": ctx.figures,
                **({"code": _resolve(st.code)(self.cfg)} if st.code else {}),
                # the selection's settings it trained on (a later `rlaif update N select.KEY=...` remakes the
                # selection in place): what `rlaif compare` tells the variants apart by (in no fingerprint)
                **({"select_config": (read_manifest(inputs["select"]) or {}).get("config", {})}
                   if st.variant and "select" in inputs else {}),
            })
        for fn in ctx.on_success:
            fn()
        return manifest


def _inputs_of(name: str, stages: list[Stage]) -> set[str]:
    """The stages `name` reads, directly or through the stages it reads."""
    by_name = {st.name: st for st in stages}
    todo, seen = list(by_name[name].inputs) if name in by_name else [], set()
    while todo:
        k = todo.pop()
        if k in by_name and k not in seen:
            seen.add(k)
            todo += by_name[k].inputs
    return seen
