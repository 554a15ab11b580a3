"""A run's lineage on disk: its epochs, their update variants, which one is chosen, the policy
each epoch starts from, the KL reference, and the manifests behind an epoch's metrics.json.

runs/<run.name>/epoch-NNN/<stage>/ (or <stage>-<fp8>/ for the variants: update and eval) each
hold a manifest.json naming the stage's fingerprint and its inputs' fingerprints; the chain of
chosen updates (chosen.json, else the last finished one) is the policy lineage.
"""
from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from pipeline.store.artifacts import epoch_name, fingerprint, read_manifest, write_json
from pipeline.config.schema import Config
from pipeline.config.errors import RunError
from pipeline.stages import POLICY, REFERENCE, STAGES, WARM_START, Stage
from pipeline.run.freshness import made_otherwise, stale_inputs

log = logging.getLogger("rlaif")
_WARNED: set[Path] = set()   # variant directories whose unreadable manifest was said once in this process


class Lineage:
    def __init__(self, cfg: Config, stages: list[Stage] | None = None):
        self.cfg = cfg
        self.stages = stages if stages is not None else STAGES
        self.warm_start = WARM_START
        self.run_dir = Path(cfg.run.dir) / cfg.run.name

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
            elif m is None and (p / "manifest.json").exists() and p not in _WARNED:   # its manifest damaged since
                _WARNED.add(p)
                log.warning("%s: its manifest.json does not parse, so it is not counted as finished (nor as a "
                            "policy to choose); the command that made it remakes it (`rlaif epoch %d` for the config's "
                            "own, `rlaif update %d KEY=...` for a variant, `rlaif eval %d` for a side eval)", p, n, n, n)
        return sorted(out, key=lambda pm: pm[1].get("finished_at", 0))

    def update_variants(self, n: int) -> list[tuple[Path, dict]]:
        """Finished update variants of epoch n, oldest first."""
        return self.variants(n, "update")

    def chosen_update(self, n: int) -> tuple[Path, dict] | None:
        """The promoted variant of epoch n, else the last completed one."""
        variants = self.update_variants(n)
        chosen_file = self.epoch_dir(n) / "chosen.json"
        if chosen_file.exists():
            try:
                name = json.loads(chosen_file.read_text()).get("update")
            except (ValueError, AttributeError):
                log.warning("%s is not the JSON `rlaif promote` writes; using the last completed update (promote "
                            "again to choose one)", chosen_file)
                name = None
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

    def reference(self, n: int = 1) -> tuple[str, Path | None]:
        """(fingerprint, adapter dir) of epoch n's KL reference (update.kl_reference): the policy epoch 1
        started from (the warm-start when one was run), the base model (adapter None), or the policy
        epoch n starts from (previous)."""
        if self.cfg.update.kl_reference == "base":
            return self.base_policy_fp(), None
        return self.policy(n - 1 if self.cfg.update.kl_reference == "previous" else 0)

    def outside_inputs(self, n: int) -> tuple[dict[str, str], dict[str, Path | None]]:
        """(fingerprints, dirs) of the inputs epoch n's stages take from outside the epoch:
        POLICY (epoch n-1's chosen policy) and, from epoch 1 on, REFERENCE (the KL reference)."""
        fps: dict[str, str] = {}
        dirs: dict[str, Path | None] = {}
        fps[POLICY], dirs[POLICY] = self.policy(n - 1)
        if n >= 1:
            fps[REFERENCE], dirs[REFERENCE] = self.reference(n)
        return fps, dirs

    def find_variant(self, n: int, variant: str) -> Path:
        """Epoch n's finished update variant named `variant`: its directory's name (update-1a2b3c4d) or
        a prefix of that name or of its fingerprint."""
        variants = self.update_variants(n)
        names = [p.name for p, _ in variants]
        if variant not in names:   # a prefix of the directory's name or of the fingerprint
            match = [p.name for p, m in variants if p.name.startswith(variant)
                     or str(m.get("fingerprint", "")).startswith(variant.removeprefix("update-"))]
            if len(match) > 1:
                raise RunError(f"epoch {n}: {variant!r} is ambiguous, it matches {', '.join(match)}; give more of it")
            if not match and not names:
                done = [e for e in self.epochs() if e > 0 and self.chosen_update(e) is not None]
                raise RunError(f"epoch {n} of run {self.run_dir} has no finished update (" + (
                    "the supervised warm-start has not run: update.warm_start=true runs it before epoch 1" if n == 0 else
                    f"epochs with one: {', '.join(map(str, done))}" if done else "no epoch has one yet") + ")")
            if not match:
                raise RunError(f"epoch {n} has no update variant {variant!r}; variants: {', '.join(names)}")
            variant = match[0]
        return self.epoch_dir(n) / variant

    def promote(self, n: int, variant: str) -> Path:
        d = self.find_variant(n, variant)
        write_json(self.epoch_dir(n) / "chosen.json", {"update": d.name, "promoted_at": time.time()})
        self.write_metrics(n)
        return d

    def drop_promotion(self, n: int, stage: str, reused: Path | None = None) -> None:
        """Epoch n's stage `stage` is made anew from other inputs: a promoted update trained on the old rows goes; the
        newest update (this run's) is the policy, or `reused`, the new rows' update made before (promoted instead)."""
        cj = self.epoch_dir(n) / "chosen.json"
        old = json.loads(cj.read_text()).get("update", "?") if cj.exists() else None
        if old and old != getattr(reused, "name", None):
            log.warning("epoch %d: its promoted update (%s) was trained on the %s this run makes anew: the promotion "
                        "is dropped, %s is the epoch's policy (`rlaif promote %d` to choose again)", n, old, stage,
                        f"{reused.name} (made earlier from these rows, reused)" if reused else "the update this run makes", n)
            cj.unlink()
        if reused is not None and (self.chosen_update(n) or (None,))[0] != reused:   # (not the newest: chosen by name)
            log.warning("epoch %d: its policy is %s, the update of these rows made earlier, reused (promoted: `rlaif promote %d` chooses another)", n, reused.name, n)
            self.promote(n, reused.name)

    def frozen_changes(self, n: int) -> list[str] | None:
        """Epoch n finished (its metrics.json and a chosen policy), and what this config would remake it
        for: the settings that differ ('sample.num_samples 8 -> 16'), the policy it starts from, a
        stage's code version. [] when it would reuse every stage. None when epoch n is not finished, or
        when what it lacks is no change (a stage never made, an eval killed): it then runs, as an
        unfinished epoch does. (DESIGN.md: past epochs are frozen.)"""
        if not (self.epoch_dir(n) / "metrics.json").exists() or self.chosen_update(n) is None:
            return None
        changes: list[str] = []
        first = True
        for e in ([0, n] if n == 1 and self.cfg.update.warm_start else [n]):
            outside = self.outside_inputs(e)
            for st, fp, d, _ in self.plan(e, outside):
                m = read_manifest(d)
                # (the policy it sampled from remade since at its fingerprint: `rlaif epoch e-1 --force`)
                remade = POLICY in st.inputs and m is not None and bool(stale_inputs(m, {POLICY: outside[1][POLICY]}))
                if m is not None and m.get("fingerprint") == fp and not remade:
                    continue
                if m is None and st.variant:   # this config's variant is not made: against the chosen one's
                    m = self._chosen_variant(e, st.name)
                if m is None:
                    if first:
                        return None
                    continue
                moved = made_otherwise(self.cfg, st, m)
                if not moved and POLICY in st.inputs and (remade or (m.get("inputs") or {}).get(POLICY) not in (
                        None, outside[0][POLICY])):
                    moved = ["the policy it starts from (" + ("update.warm_start, or epoch 0's chosen update"
                                                              if e == 1 else f"epoch {e - 1}'s chosen update")
                             + (", remade since this epoch sampled from it)" if remade else ")")]
                if first and not moved:
                    return None
                first = False
                changes += [x for x in moved if x not in changes]
        return changes

    def other_parents(self) -> list[str]:
        """A line for each epoch sampled from another policy than the epoch before's chosen one (chosen after: `rlaif
        update`, `rlaif promote`, or its update remade): later epochs continue the former line, not one chain."""
        return [f"epoch {n} was sampled from epoch {n - 1}'s {made}" + (
                "" if made.endswith("remade") else f", not its chosen {self.chosen_update(n - 1)[0].name} (chosen "
                f"after epoch {n} ran)") + f": epoch {n} and the epochs after it continue the former line (`rlaif "
                f"epoch {n}` remakes it from the chosen one)" for n in self.epochs()
                if (made := self.former_parent(n)) is not None]

    def former_parent(self, n: int) -> str | None:
        """The variant of epoch n-1 (update-<fp8>) epoch n was sampled from, where not its chosen one, or the chosen
        one as it was before it was remade at its fingerprint (`rlaif epoch n-1 --force`: its contents moved); else None."""
        m = read_manifest(self.epoch_dir(n) / "sample") if n > 0 else None
        had = ((m or {}).get("inputs") or {}).get(POLICY)
        try:
            now, adapter = self.policy(n - 1)
        except RunError:
            return None
        if had and had == now and adapter is not None and stale_inputs(m, {POLICY: adapter}):
            return f"{adapter.parent.name} as it was before it was remade"
        # only a finished variant other than the choice (another student.model moves the base's fingerprint: no new line)
        made = next((p.name for p, pm in self.update_variants(n - 1) if pm.get("fingerprint") == had), None)
        return made if had and had != now and made and self.chosen_update(n - 1) else None

    def replay_refusal(self, n: int, plan: list) -> str | None:
        """Why `rlaif replay n` must not run as asked (None if it may): it would replace finished stages that come
        before the judge stage (new prompts or answers, from another config, code or parent policy) of an epoch already
        judged; the replay reads judgements from the cache alone, so the judge stage would fail on answers that
        changed after those stages were overwritten, leaving the epoch's answers and its scores from different runs."""
        if read_manifest(self.epoch_dir(n) / "judge") is None:   # nothing judged yet: nothing to keep apart
            return None
        before, policy = [], self.outside_inputs(n)[1][POLICY]   # (remade at its fingerprint too: its digest moved)
        for st, fp, d, _ in plan:
            if st.name == "judge":
                break
            m = read_manifest(d)
            if m is not None and not st.variant and (m.get("fingerprint") != fp or (
                    POLICY in st.inputs and stale_inputs(m, {POLICY: policy}))):
                moved = made_otherwise(self.cfg, st, m)
                before.append(f"{st.name} ({', '.join(moved)[:200] if moved else 'its inputs changed: the policy it samples from, or a stage before it'})")
        return self._replay_refused(n, f"its finished stage(s) {'; '.join(before)}") if before else None

    def warm_start_replay_refusal(self) -> str | None:
        """`rlaif replay 1` with update.warm_start runs epoch 0 first: why it must not (None if it may), when that
        would make a new warm-start (settings no finished one was made with), which becomes the policy an epoch 1
        already judged samples from, or replace epoch 0's own finished stages."""
        if read_manifest(self.epoch_dir(1) / "judge") is None:
            return None
        update = next(((st, fp) for st, fp, _, _ in self.plan(0) if st.name == "update"), None)
        made = {m.get("fingerprint") for _, m in self.update_variants(0)}
        if update and update[1] not in made:
            moved = made_otherwise(self.cfg, update[0], (self.chosen_update(0) or (None, None))[1])
            return self._replay_refused(1, "a new warm-start first (" + (", ".join(moved)[:200] or "no warm-start was made "
                                        "with these settings") + "), the policy epoch 1 samples from, and then epoch 1's "
                                        "finished answers")
        return None   # (epoch 0 judges nothing: its prompts and teacher feed its update, checked above)

    def _replay_refused(self, n: int, what: str) -> str:
        return (f"`rlaif replay {n}` would remake {what}, replacing what epoch {n}'s judgements, rewards and update "
                f"were made from; a replay reads judgements from the cache alone, and answers that change are not "
                f"there. `rlaif epoch {n}` remakes it live (new answers judged, and paid for with an API judge); "
                f"`rlaif replay {n} --force` replaces them anyway (with judge.skip_missing=true it keeps the answers "
                f"the cache scores and leaves the rest out)")

    def _chosen_variant(self, n: int, stage: str) -> dict | None:
        """The manifest of epoch n's chosen update, or of that update's eval."""
        chosen = self.chosen_update(n)
        if chosen is None or stage == "update":
            return chosen[1] if chosen else None
        return next((m for _, m in self.variants(n, stage)
                     if (m.get("inputs") or {}).get("update") == chosen[1].get("fingerprint")), None)

    def stages_for(self, n: int) -> list[Stage]:
        return self.warm_start if n == 0 else self.stages

    def early_stop_reason(self, n: int) -> str | None:
        """Why epoch n should not run (eval.patience epochs without improvement), or None."""
        ec = self.cfg.eval
        if ec.patience == 0:
            return None
        hist = []
        for e in range(0, n):
            if (m := self.read_metrics(e)) is not None:
                v = m.get(ec.early_stop_metric)
                if isinstance(v, (int, float)):
                    hist.append((e, float(v)))
        # a score of problems without tests is on the scale of the judge settings and code that made it: only the
        # evals scored as the latest was are compared (pass@k is the tests' alone); their manifests read only then
        if hist and ec.early_stop_metric.startswith("eval/") and "pass@" not in ec.early_stop_metric:
            from pipeline.metrics.evals import judged_key
            judged = {e: judged_key(self.epoch_manifests(e).get("eval") or {}) for e, _ in hist}
            hist = [(e, v) for e, v in hist if judged[e] == judged[hist[-1][0]]]
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

    def plan(self, n: int, outside: tuple[dict, dict] | None = None) -> list[tuple[Stage, str, Path, dict | None]]:
        """For each of epoch n's stages: (stage, fingerprint, output dir, None), the fingerprints
        chained through the stages' inputs; nothing is read or run. outside: `outside_inputs(n)`
        when the caller already has it (left unchanged)."""
        fps, dirs = (dict(outside[0]), dict(outside[1])) if outside else self.outside_inputs(n)
        out = []
        for st in self.stages_for(n):
            conf = self.cfg.stage_config(st.fields)
            fp = fingerprint(st.name, st.version, conf, {i: fps[i] for i in st.inputs})
            d = self.epoch_dir(n) / (f"{st.name}-{fp[:8]}" if st.variant else st.name)
            fps[st.name], dirs[st.name] = fp, d
            out.append((st, fp, d, None))
        return out

    def eval_fp(self, update_fp: str) -> str:
        """The fingerprint this config's eval of a policy (its update's fingerprint) has."""
        st = next(s for s in self.stages if s.name == "eval")
        return fingerprint(st.name, st.version, self.cfg.stage_config(st.fields), {"update": update_fp})

    def eval_of(self, n: int, update_fp: str, oldest: bool = False) -> tuple[Path, dict] | None:
        """Epoch n's eval of a policy: the one this config asks for where it exists, else (or with `oldest`)
        the oldest (the epoch loop's own), never whichever a directory listing gives last: `rlaif eval N` with
        other settings (a sampled eval, another source) sits beside it."""
        found = [(p, m) for p in sorted(self.epoch_dir(n).glob("eval-*"))
                 if (m := read_manifest(p)) and m.get("inputs", {}).get("update") == update_fp]
        if not found:
            return None
        if not oldest and any(s.name == "eval" for s in self.stages):
            want = self.eval_fp(update_fp)
            for p, m in found:
                if m.get("fingerprint") == want:
                    return p, m
        return min(found, key=lambda pm: pm[1].get("started_at", ""))

    def side_eval(self, n: int, update_fp: str, d: Path, m: dict) -> Path | None:
        """The epoch's first eval of this policy where the eval `m` (in `d`) was made beside it with other
        eval.num_samples or eval.temperature (a sampled eval beside the loop's greedy one); else None."""
        from pipeline.metrics.evals import eval_mode
        first = self.eval_of(n, update_fp, oldest=True)
        if first is None or first[0] == d or eval_mode(first[1].get("config") or {}) == eval_mode(m.get("config") or {}):
            return None
        return first[0]

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

    def read_metrics(self, n: int) -> dict | None:
        """Epoch n's metrics.json, None without one. One that does not parse (cut short) is made again from
        the epoch's manifests, as a finished epoch writes it, with a warning; None where nothing finished."""
        p = self.epoch_dir(n) / "metrics.json"
        if not p.exists():
            return None
        try:
            return json.loads(p.read_text())
        except ValueError:
            if not self.epoch_manifests(n):
                return None
            log.warning("%s does not parse (cut short?); made again from the epoch's manifests", p)
            return self.write_metrics(n)

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
        return sorted(int(p.name.split("-")[1]) for p in self.run_dir.glob("epoch-[0-9][0-9][0-9]"))   # ([] for none)

