"""The stage runner: wires stages, skips what is up to date, records lineage.

Each stage declares the config fields it reads and its inputs. Its fingerprint hashes the
stage name, its VERSION, those fields and its inputs' fingerprints, so changing
`update.lr` re-runs the update (into a side-by-side `update-<fp8>/` variant) and never
sample or judge. Past epochs are frozen: epoch N starts from epoch N-1's chosen policy.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pipeline import dist
from pipeline.artifacts import (atomic_dir, clean_stale, fingerprint, load_complete, read_manifest,
                                write_json, write_manifest)
from pipeline.config import Config

log = logging.getLogger("rlaif")

POLICY = "policy"  # the input name for the previous epoch's chosen policy
REFERENCE = "reference"  # the input name for the KL reference policy (update.kl_reference)


class RunError(RuntimeError):
    """Something the user must do before the run can go on; the message says what."""


@dataclass
class Ctx:
    """What a stage function gets: config, epoch, its temp output dir and its inputs' dirs."""
    cfg: Config
    epoch: int
    out: Path
    inputs: dict[str, Path | None]
    run_dir: Path
    figures: dict[str, Any] = field(default_factory=dict)
    rows: int = 0
    fingerprint: str = ""
    on_success: list[Callable[[], None]] = field(default_factory=list)
    """Run after the output is in place (e.g. drop the update's resume checkpoint)."""


@dataclass(frozen=True)
class Stage:
    name: str
    version: str
    """Bump when the code changes behaviour in a way the config hash cannot see."""
    fields: tuple[str, ...]
    """Config paths the stage reads (only these invalidate it)."""
    inputs: tuple[str, ...]
    """Stages of the same epoch it reads, and/or POLICY (epoch N-1's chosen policy)."""
    fn: Callable[[Ctx], None] | str
    """The stage code, or "module:function" imported when the stage runs."""
    variant: bool = False
    """Outputs sit side by side as `<name>-<fp8>/` (update reruns) instead of replacing each other."""
    derived: bool = False
    """Computed from earlier artifacts alone (no sampling, no judging), so `rlaif update` may run it."""
    every_rank: bool = False
    """With several processes, every rank runs it (its share of the work; rank 0 gathers and writes):
    sample, logprobs, update, eval. Otherwise rank 0 alone runs it and the others read its output."""


def _resolve(ref: str) -> Callable[[Ctx], None]:
    import importlib
    module, name = ref.split(":")
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


def kill_point(where: str) -> None:
    """Fault injection for the multi-process crash tests: with RLAIF_KILL_AT=<where> (e.g. "sample",
    "update-step-3"), the rank named by RLAIF_KILL_RANK (default 1) kills itself with SIGKILL there."""
    if os.environ.get("RLAIF_KILL_AT") == where and dist.rank() == int(os.environ.get("RLAIF_KILL_RANK", "1")):
        import signal
        print(f"rank {dist.rank()} killing itself at {where}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


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


def epoch_name(n: int) -> str:
    return f"epoch-{n:03d}"


class Runner:
    def __init__(self, cfg: Config, stages: list[Stage] | None = None):
        from pipeline.stages import STAGES, WARM_START
        self.cfg = cfg
        self.stages = stages if stages is not None else STAGES
        self.warm_start = WARM_START
        self.run_dir = Path(cfg.run.dir) / cfg.run.name
        self._lock_fd: int | None = None

    # -- lineage --------------------------------------------------------------------------
    def epoch_dir(self, n: int) -> Path:
        return self.run_dir / epoch_name(n)

    def base_policy_fp(self) -> str:
        return fingerprint("base", "1", {"student.model": self.cfg.student.model}, {})

    def variants(self, n: int, stage: str = "update") -> list[tuple[Path, dict]]:
        """Finished `<stage>-<fp8>/` variants of epoch n (update or eval), oldest first."""
        d = self.epoch_dir(n)
        out = []
        for p in sorted(d.glob(f"{stage}-*")) if d.exists() else []:
            m = read_manifest(p)
            if m is not None and m.get("stage") == stage:
                out.append((p, m))
        return sorted(out, key=lambda pm: pm[1].get("finished_at", 0))

    def update_variants(self, n: int) -> list[tuple[Path, dict]]:
        """Finished update variants of epoch n, oldest first."""
        return self.variants(n, "update")

    def chosen_update(self, n: int) -> tuple[Path, dict] | None:
        """The promoted variant of epoch n, else the last completed one."""
        variants = self.update_variants(n)
        chosen_file = self.epoch_dir(n) / "chosen.json"
        if chosen_file.exists():
            name = json.loads(chosen_file.read_text()).get("update")
            for p, m in variants:
                if p.name == name:
                    return p, m
            log.warning("%s names %s, which is not a finished update; using the last completed one", chosen_file, name)
        return variants[-1] if variants else None

    def policy(self, n: int) -> tuple[str, Path | None]:
        """(fingerprint, adapter dir) of the policy epoch n+1 samples from: epoch 0 is the
        supervised warm-start when one was run (`rlaif epoch 0`), else the base model."""
        if n < 0 or (n == 0 and self.chosen_update(0) is None):
            return self.base_policy_fp(), None
        chosen = self.chosen_update(n)
        if chosen is None:
            raise RunError(f"epoch {n} has no finished update in {self.epoch_dir(n)}; "
                           f"run `rlaif epoch {n}` (make epoch N={n}) first")
        p, m = chosen
        return m["fingerprint"], p / "adapter"

    def reference(self) -> tuple[str, Path | None]:
        """(fingerprint, adapter dir) of the KL reference (update.kl_reference): the policy epoch 1
        started from (the warm-start when one was run), or the base model (adapter None)."""
        if self.cfg.update.kl_reference == "base":
            return self.base_policy_fp(), None
        return self.policy(0)

    def outside_inputs(self, n: int) -> tuple[dict[str, str], dict[str, Path | None]]:
        """(fingerprints, dirs) of the inputs epoch n's stages take from outside the epoch:
        POLICY (epoch n-1's chosen policy) and, from epoch 1 on, REFERENCE (the KL reference)."""
        fps: dict[str, str] = {}
        dirs: dict[str, Path | None] = {}
        fps[POLICY], dirs[POLICY] = self.policy(n - 1)
        if n >= 1:
            fps[REFERENCE], dirs[REFERENCE] = self.reference()
        return fps, dirs

    def promote(self, n: int, variant: str) -> Path:
        names = [p.name for p, _ in self.update_variants(n)]
        if variant not in names:
            match = [x for x in names if x.startswith(variant) or x == f"update-{variant}"]
            if len(match) != 1:
                raise RunError(f"epoch {n} has no update variant {variant!r}; variants: {', '.join(names) or 'none'}")
            variant = match[0]
        write_json(self.epoch_dir(n) / "chosen.json", {"update": variant, "promoted_at": time.time()})
        self.write_metrics(n)
        return self.epoch_dir(n) / variant

    # -- locking --------------------------------------------------------------------------
    def lock(self) -> None:
        """Take the run's lock (rank 0 takes it for every rank of a multi-process run, and holds it
        until they are all done); a second rlaif process on the same run fails here."""
        dist.on_main(self._lock)

    def _lock(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.run_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise RunError(f"another rlaif process (pid {other}) is working on run {self.run_dir}; "
                           "wait for it to finish, or use another run.name") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- the epoch ------------------------------------------------------------------------
    def stages_for(self, n: int) -> list[Stage]:
        return self.warm_start if n == 0 else self.stages

    def plan(self, n: int, outside: tuple[dict, dict] | None = None) -> list[tuple[Stage, str, Path, dict | None]]:
        """For each stage: (stage, fingerprint, output dir, finished manifest or None).
        outside: `outside_inputs(n)` when the caller already has it (left unchanged)."""
        fps, dirs = (dict(outside[0]), dict(outside[1])) if outside else self.outside_inputs(n)
        out = []
        for st in self.stages_for(n):
            conf = self.cfg.stage_config(st.fields)
            fp = fingerprint(st.name, st.version, conf, {i: fps[i] for i in st.inputs})
            d = self.epoch_dir(n) / (f"{st.name}-{fp[:8]}" if st.variant else st.name)
            fps[st.name], dirs[st.name] = fp, d
            out.append((st, fp, d, None))
        return out

    def early_stop_reason(self, n: int) -> str | None:
        """Why epoch n should not run (eval.patience epochs without improvement), or None."""
        ec = self.cfg.eval
        if ec.patience == 0:
            return None
        hist = []
        for e in range(0, n):
            p = self.epoch_dir(e) / "metrics.json"
            if p.exists():
                v = json.loads(p.read_text()).get(ec.early_stop_metric)
                if isinstance(v, (int, float)):
                    hist.append((e, float(v)))
        if len(hist) <= ec.patience:
            return None
        best_e, best = max(hist[: -ec.patience], key=lambda ev: ev[1])
        recent = hist[-ec.patience:]
        if all(v < best + ec.min_delta for _, v in recent):
            return (f"early stop: {ec.early_stop_metric} has not improved by eval.min_delta={ec.min_delta} for "
                    f"eval.patience={ec.patience} epoch(s) (best {best:.4g} at epoch {best_e}; since then "
                    + ", ".join(f"{v:.4g}" for _, v in recent) + "). Pass --ignore-early-stop to run anyway, "
                    "or change eval.patience / eval.min_delta")
        return None

    def check_device(self) -> None:
        """run.device=cuda[:N] where torch sees no such GPU fails here, before any work. (auto and
        cpu always resolve; checking them would import torch for a rerun that reuses everything.)"""
        if self.cfg.run.device.startswith("cuda"):
            from pipeline.model import resolve_device
            resolve_device(self.cfg.run.device)

    def eval_fp(self, update_fp: str) -> str:
        """The fingerprint this config's eval of a policy (its update's fingerprint) has."""
        st = next(s for s in self.stages if s.name == "eval")
        return fingerprint(st.name, st.version, self.cfg.stage_config(st.fields), {"update": update_fp})

    def eval_of(self, n: int, update_fp: str) -> tuple[Path, dict] | None:
        """Epoch n's eval of a policy: the one this config asks for where it exists, else the oldest
        (the epoch loop's own), never whichever a directory listing gives last: `rlaif eval N` with
        other settings (a sampled eval, another source) sits beside it."""
        found = [(p, m) for p in sorted(self.epoch_dir(n).glob("eval-*"))
                 if (m := read_manifest(p)) and m.get("inputs", {}).get("update") == update_fp]
        if not found:
            return None
        if any(s.name == "eval" for s in self.stages):
            want = self.eval_fp(update_fp)
            for p, m in found:
                if m.get("fingerprint") == want:
                    return p, m
        return min(found, key=lambda pm: pm[1].get("started_at", ""))

    def run_eval(self, n: int, echo: Callable[[str], None] = print, warm_start: bool = False) -> dict:
        """The eval stage on epoch n's chosen policy (n = 0: the base model; with warm_start, the
        supervised warm-start's adapter)."""
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
        fp = self.eval_fp(fp_in)
        d = self.epoch_dir(n) / f"eval-{fp[:8]}"
        echo = echo if dist.is_main() else _silent
        self.lock()
        try:
            m = dist.on_main(lambda: load_complete(d, fp))
            if m is None:
                echo(f"  eval     running  {d.relative_to(self.run_dir)}")
                m = self._run_stage(st, n, fp, d, {"update": d_in}, {"update": fp_in})
            else:
                echo(f"  eval     reused   {d.relative_to(self.run_dir)}")
            dist.on_main(lambda: self.write_metrics(n))
            dist.barrier()
        finally:
            self.unlock()
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
        if not dry_run:
            self.check_device()
            self.lock()
        try:
            if n == 1 and self.cfg.update.warm_start and not update_only and only is None:
                echo("epoch 0 (supervised warm-start, update.warm_start=true)")
                self._run_epoch(0, None, False, False, dry_run, echo)
                echo("epoch 1")
            results = self._run_epoch(n, only, force, update_only, dry_run, echo)
            # rank 0 keeps the lock until every rank is done; not after a failure, where the launcher
            # stops every rank and a barrier could wait for one that is gone
            dist.barrier()
            return results
        finally:
            self.unlock()

    def _run_epoch(self, n, only, force, update_only, dry_run, echo) -> dict[str, dict]:
        t0 = time.time()
        edir = self.epoch_dir(n)
        if not dry_run:
            dist.on_main(lambda: clean_stale(edir))
        fps, dirs = self.outside_inputs(n)
        plan = self.plan(n, (fps, dirs))
        results: dict[str, dict] = {}
        first_variant = next((i for i, (st, *_) in enumerate(plan) if st.variant), len(plan))
        for i, (st, fp, d, _) in enumerate(plan):
            fps[st.name], dirs[st.name] = fp, d
            m = None if (force and (only in (None, st.name))) else dist.on_main(lambda: load_complete(d, fp))
            if m is not None:
                echo(f"  {st.name:<8} reused   {d.relative_to(self.run_dir)} ({m.get('rows', 0)} rows)")
                results[st.name] = m
                continue
            if dry_run:
                echo(f"  {st.name:<8} to run   {d.relative_to(self.run_dir)}")
                continue
            if update_only and i < first_variant and not st.derived:
                raise RunError(f"`rlaif update` reruns only the update, but stage {st.name} of epoch {n} is not "
                               f"up to date for this config (changed keys among: {', '.join(st.fields) or 'inputs'}); "
                               f"run `rlaif epoch {n}` with these settings instead")
            if only is not None and st.name != only:
                raise RunError(f"--only {only}: its input stage {st.name} of epoch {n} is not done; "
                               f"run `rlaif epoch {n}` without --only")
            echo(f"  {st.name:<8} running  {d.relative_to(self.run_dir)}")
            results[st.name] = self._run_stage(st, n, fp, d, {k: dirs[k] for k in st.inputs},
                                               {k: fps[k] for k in st.inputs})
            echo(f"  {st.name:<8} done     {results[st.name]['wall_s']:.1f}s ({results[st.name]['rows']} rows)")
            if only is not None:
                break
        if not dry_run and all(st.name in results for st, *_ in plan):
            def finish():
                from pipeline.trackers import log_epoch
                log_epoch(self.cfg, self.run_dir, n, self.write_metrics(n, wall_s=time.time() - t0))
            dist.on_main(finish)
        return results

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
        t = time.time()
        started = time.time()
        fn = st.fn if callable(st.fn) else _resolve(st.fn)
        with atomic_dir(d) as tmp:
            ctx = Ctx(cfg=self.cfg, epoch=n, out=tmp, inputs=inputs, run_dir=self.run_dir, fingerprint=fp)
            fn(ctx)
            ctx.figures.update(_gpu_peak(st.name))
            _fault_point(st.name)
            manifest = write_manifest(tmp, {
                "stage": st.name, "epoch": n, "fingerprint": fp, "inputs": input_fps,
                "config": {f: self.cfg.get(f) for f in st.fields}, "version": st.version,
                "started_at": started, "wall_s": time.time() - t, "rows": ctx.rows,
                "figures": ctx.figures,
            })
        for fn in ctx.on_success:
            fn()
        return manifest

    # -- metrics --------------------------------------------------------------------------
    def epoch_manifests(self, n: int) -> dict[str, dict]:
        """Manifests of epoch n's chosen chain (pre-update stages + chosen update and what follows)."""
        edir = self.epoch_dir(n)
        out: dict[str, dict] = {}
        chosen = self.chosen_update(n)
        if n == 0:  # the warm-start's stages, and the base model's eval (`rlaif eval 0`)
            for st in self.warm_start:
                m = chosen[1] if st.variant and chosen else read_manifest(edir / st.name)
                if m is not None:
                    out[st.name] = m
            found = self.eval_of(0, self.base_policy_fp())
            if found:
                out["eval"] = found[1]
            return out
        for st in self.stages:
            if st.variant:
                if st.name == "update":
                    if chosen:
                        out["update"] = chosen[1]
                    continue
                if "update" in out and st.name == "eval":
                    found = self.eval_of(n, out["update"]["fingerprint"])
                    if found:
                        out["eval"] = found[1]
                elif "update" in out:  # stages after update: the one fed by the chosen update
                    for p in edir.glob(f"{st.name}-*"):
                        m = read_manifest(p)
                        if m and m.get("inputs", {}).get("update") == out["update"]["fingerprint"]:
                            out[st.name] = m
            else:
                m = read_manifest(edir / st.name)
                if m is not None:
                    out[st.name] = m
        return out

    def write_metrics(self, n: int, wall_s: float | None = None) -> dict:
        ms = self.epoch_manifests(n)
        metrics: dict[str, Any] = {"epoch": n}
        for name, m in ms.items():
            metrics.update(m.get("figures", {}))
            metrics[f"time/{name}_s"] = round(m.get("wall_s", 0.0), 3)
        metrics["time/epoch_s"] = round(sum(m.get("wall_s", 0.0) for m in ms.values()), 3)
        if "update" in ms:
            metrics["update/variant"] = f"update-{ms['update']['fingerprint'][:8]}"
        write_json(self.epoch_dir(n) / "metrics.json", metrics)
        return metrics

    def epochs(self) -> list[int]:
        if not self.run_dir.exists():
            return []
        return sorted(int(p.name.split("-")[1]) for p in self.run_dir.glob("epoch-[0-9][0-9][0-9]"))
