"""One epoch end to end on a tiny config, then epoch 2 from it; reruns reuse; update variants."""
from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judges.cache import JudgeCache
from pipeline.cli.main import main
from pipeline.metrics import doc
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from pipeline.config.errors import RunError


def rlaif(*args: str) -> int:
    return main(list(args))


def manifests(edir: Path) -> dict[str, dict]:
    return {p.name: json.loads((p / "manifest.json").read_text()) for p in edir.iterdir()
            if (p / "manifest.json").exists()}


@pytest.fixture
def tiny_run(tiny_config):
    # a learning signal on a random model is rare; keep every group so the update has rows
    over = tiny_config + ["select.drop_zero_std=false", "select.advantage=mean", "reward.none_as=0.0"]
    return over, load_config(None, over)


@pytest.mark.slow
def test_epoch_one_then_two_then_rerun_and_update_variant(tiny_run, capsys):
    over, cfg = tiny_run
    assert rlaif("--config", "none.yaml", "epoch", "1", *over) == 2  # missing config file: clear error
    assert "none.yaml does not exist" in capsys.readouterr().err

    assert rlaif("epoch", "1", *over) == 0
    r = Runner(cfg)
    e1 = r.epoch_dir(1)
    first = manifests(e1)
    assert {"prompts", "sample", "teacher", "judge", "reward", "select", "logprobs"} <= set(first)
    updates = [k for k in first if k.startswith("update-")]
    assert len(updates) == 1
    adapter = e1 / updates[0] / "adapter"
    from peft import PeftModel   # the policy is a standard PEFT adapter
    from transformers import AutoModelForCausalLM
    PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(cfg.student.model), str(adapter))
    m = json.loads((e1 / "metrics.json").read_text())
    for key in ("reward/mean", "reward/frac_zero_std", "score/teacher_mean", "loss/total", "kl/k3", "kl/k1",
                "judge/api_calls", "judge/cache_hits", "time/sample_s", "sample/generated_tokens"):
        assert key in m, key
    assert m["score/teacher_mean"] == 1.0  # every shipped reference passes its own tests
    assert [k for k in m if k != "epoch" and doc.metric_info(k) is None] == []   # every figure has its glossary entry
    sample_manifest = first["sample"]
    assert sample_manifest["rows"] == 3 * 3 and set(sample_manifest["config"]) >= {"sample.temperature"}
    assert all(len(v) == 64 for v in sample_manifest["files"].values())

    # unchanged rerun: every stage reused, nothing rewritten
    capsys.readouterr()
    assert rlaif("epoch", "1", *over) == 0
    out = capsys.readouterr().out
    assert out.count("reused") == 9 and "running" not in out and "(judge stage: no call now; " in out
    assert manifests(e1) == first
    assert rlaif("epoch", "1", "--only", "reward", "--force", *over) == 0
    assert "reward   running  epoch-001/reward (remade: --force)" in capsys.readouterr().out
    assert manifests(e1)["reward"]["fingerprint"] == first["reward"]["fingerprint"]
    first = manifests(e1)

    # update-only variant: new LR/KL, no sampling and no judge calls, side by side
    cache = JudgeCache(Path(cfg.run.dir) / ".judge-cache")
    entries = len(cache)
    cache.close()
    capsys.readouterr()
    assert rlaif("update", "1", *over, "update.lr=5e-6", "update.kl_coef=0.1") == 0
    out = capsys.readouterr().out
    for stage in ("prompts", "sample", "teacher", "judge", "reward", "select", "logprobs"):
        assert f"{stage:<8} reused" in out
    after = manifests(e1)
    variant = ("update-", "eval-")
    assert {k: v for k, v in after.items() if not k.startswith(variant)} == \
        {k: v for k, v in first.items() if not k.startswith(variant)}
    assert len([k for k in after if k.startswith("eval-")]) == 2  # each variant is evaluated
    new = [k for k in after if k.startswith("update-") and k not in first]
    assert len(new) == 1 and after[new[0]]["config"]["update"]["lr"] == 5e-6
    cache = JudgeCache(Path(cfg.run.dir) / ".judge-cache")
    assert len(cache) == entries
    cache.close()
    # the last completed variant is chosen; promote switches back
    assert r.chosen_update(1)[0].name == new[0]
    assert rlaif("compare", "1", *over) == 0
    out = capsys.readouterr().out
    assert new[0] in out and f"{updates[0]} vs chosen: `eval/pass@1`" in out  # with its paired interval
    assert rlaif("promote", "1", updates[0], *over) == 0
    assert r.chosen_update(1)[0].name == updates[0]

    # a sweep: every combination of a grid, one process, the same logprobs, no judge call
    assert rlaif("sweep", "1", *over, "--grid", "update.lr=1e-4,2e-4", "--grid", "update.kl_coef=0.0,0.2") == 0
    out = capsys.readouterr().out
    assert "[4/4] update.lr=2e-4 update.kl_coef=0.2" in out and "sweep of 4 variants done" in out
    swept = manifests(e1)
    grid = {(v["config"]["update"]["lr"], v["config"]["update"]["kl_coef"]) for k, v in swept.items()
            if k.startswith("update-") and k not in after}
    assert grid == {(1e-4, 0.0), (1e-4, 0.2), (2e-4, 0.0), (2e-4, 0.2)}
    assert swept["logprobs"] == first["logprobs"]
    assert all(v["inputs"]["logprobs"] == first["logprobs"]["fingerprint"] for k, v in swept.items()
               if k.startswith("update-"))
    cache = JudgeCache(Path(cfg.run.dir) / ".judge-cache")
    assert len(cache) == entries
    cache.close()
    assert rlaif("sweep", "1", *over, "--grid", "sample.temperature=0.5,1") == 2
    assert "varies only update settings" in capsys.readouterr().err
    # update.teacher_sft_coef is an update setting too: select (which teacher rows join the batch) is
    # recomputed from the artifacts on disk, the samples and judgements are reused
    assert rlaif("update", "1", *over, f"update.teacher_sft_coef={cfg.update.teacher_sft_coef + 1.5}") == 0
    out = capsys.readouterr().out
    assert "select   running" in out and all(f"{st:<8} reused" in out for st in ("sample", "judge", "reward")), out
    cache = JudgeCache(Path(cfg.run.dir) / ".judge-cache")
    assert len(cache) == entries
    cache.close()
    assert rlaif("promote", "1", updates[0], *over) == 0

    assert rlaif("update", "1", *over, "sample.temperature=0.5") == 2   # an update-only rerun refuses to resample
    assert "(made with -> now): sample.temperature" in (err := capsys.readouterr().err) and "-> 0.5" in err

    # epoch 2 samples from epoch 1's chosen policy
    assert rlaif("epoch", "2", *over) == 0
    s2 = manifests(r.epoch_dir(2))["sample"]
    assert s2["inputs"]["policy"] == first[updates[0]]["fingerprint"]
    # ... and its update continues that policy's AdamW (optimizer.pt beside each adapter) and schedule
    u2 = [k for k in manifests(r.epoch_dir(2)) if k.startswith("update-")]
    assert (e1 / updates[0] / "optimizer.pt").exists() and (r.epoch_dir(2) / u2[0] / "optimizer.pt").exists()
    lr_last = [json.loads((r.epoch_dir(n) / "metrics.json").read_text()).get("optim/lr_last") for n in (1, 2)]
    assert None in lr_last or lr_last[1] < lr_last[0]
    assert rlaif("status", *over) == 0
    assert "epoch   2" in capsys.readouterr().out

    # the base model's eval is epoch 0's metrics; early stopping refuses epoch 3 when eval stalls
    assert rlaif("eval", "0", *over) == 0
    assert "eval/score" in json.loads((r.epoch_dir(0) / "metrics.json").read_text())
    # the report reads each epoch's eval against the base model's, with its interval
    capsys.readouterr()
    assert rlaif("report", *over) == 0
    report = (r.run_dir / "report.md").read_text()
    assert "## Eval: signal or noise" in report and "epoch 2 vs the base model (epoch 0): `eval/pass@1`" in report
    assert rlaif("compare-evals", f"{r.run_dir}@0", f"{r.run_dir}@2", *over) == 0
    out = capsys.readouterr().out
    assert "pass@1" in out and "ref_nll" in out and "won/lost/tied" in out
    stall = over + ["eval.patience=1", "eval.min_delta=10"]
    assert rlaif("epoch", "3", *stall) == 2
    assert "early stop" in capsys.readouterr().err
    assert not r.epoch_dir(3).exists()


def test_corrupted_artifact_is_recomputed(tiny_run, caplog, capsys):
    over, cfg = tiny_run
    assert rlaif("epoch", "1", *over) == 0
    table = next((Runner(cfg).epoch_dir(1) / "reward" / "table").glob("*.arrow"))
    table.write_bytes(table.read_bytes()[:-10] + b"0123456789")
    assert rlaif("epoch", "1", *over) == 0
    assert "checksum mismatch" in caplog.text and not next(table.parent.glob("*.arrow")).read_bytes().endswith(b"0123456789")
    # a chosen policy that another epoch reads is never used corrupted (it is not that epoch's to remake)
    adapter = Runner(cfg).chosen_update(1)[0] / "adapter" / "adapter_model.safetensors"
    adapter.write_bytes(adapter.read_bytes()[:-10] + b"0123456789")
    capsys.readouterr()
    assert rlaif("epoch", "2", "--force", *over) == 2
    err = capsys.readouterr().err
    assert "adapter/adapter_model.safetensors was changed after it was written (checksum mismatch)" in err and "rlaif epoch 1 --force" in err
    assert not (Runner(cfg).epoch_dir(2) / "sample").exists()


def test_epoch_n_brings_a_fresh_run_up_to_epoch_n(tiny_run, capsys):
    """`rlaif epoch 3` on a fresh run runs epochs 1, 2 and 3, one line each, then the flags; run again,
    every epoch is reused. `rlaif update 3` and `--only` still need the epochs before."""
    over, cfg = tiny_run
    assert rlaif("update", "3", *over) == 2
    assert "epoch 3 of run" in (err := capsys.readouterr().err) and "run `rlaif epoch 3` first" in err
    assert rlaif("epoch", "3", *over, "report.min_entropy=100") == 0   # a flag at every epoch
    out = capsys.readouterr().out
    r = Runner(cfg)
    assert all(r.chosen_update(n) is not None for n in (1, 2, 3))
    lines = out.splitlines()
    assert [x.split(" done ")[0] for x in lines if re.match(r"epoch \d done ", x)] == ["epoch 1", "epoch 2", "epoch 3"]
    order = [next(i for i, x in enumerate(lines) if f"epoch {n} {w}" in x) for n in (1, 2, 3) for w in ("done", "entropy")]
    assert order == sorted(order) and out.count("entropy_collapse") == 3   # each epoch's flags as it ends, once
    s2, s3 = manifests(r.epoch_dir(2))["sample"], manifests(r.epoch_dir(3))["sample"]
    assert s3["inputs"]["policy"] == r.chosen_update(2)[1]["fingerprint"] != s2["inputs"]["policy"]
    assert rlaif("epoch", "3", *over) == 0
    out = capsys.readouterr().out
    assert out.count("every stage reused") == 3 and " running " not in out   # one line per epoch
    # an earlier epoch that lacks a stage under the same settings (an eval killed) is finished, not frozen
    import shutil
    shutil.rmtree(next(r.epoch_dir(2).glob("eval-*")))
    assert rlaif("epoch", "3", *over) == 0
    out = capsys.readouterr().out
    assert "epoch 2 done in" in out and "(1 stage ran" in out and "kept" not in out
    assert list(r.epoch_dir(2).glob("eval-*"))

    # past epochs are frozen: another setting remakes the epoch asked for, not the finished ones before it
    before = {n: manifests(r.epoch_dir(n)) for n in (1, 2)}
    s3_before = manifests(r.epoch_dir(3))["sample"]
    assert rlaif("epoch", "3", *over, "sample.num_samples=2") == 0
    out = capsys.readouterr().out
    for n in (1, 2):
        assert f"epoch {n} kept as it finished" in out and "sample.num_samples 3 -> 2" in out
        assert manifests(r.epoch_dir(n)) == before[n]
    s3 = manifests(r.epoch_dir(3))["sample"]
    assert s3["config"]["sample.num_samples"] == 2 and s3["fingerprint"] != s3_before["fingerprint"]
    assert s3["inputs"]["policy"] == r.chosen_update(2)[1]["fingerprint"]
    # an update variant of epoch 1 becomes its chosen policy; epochs 2 and 3, trained from the one before, stay
    assert rlaif("update", "1", *over, "update.lr=5e-6") == 0
    assert "epochs 2-3 were trained from the policy chosen before: `rlaif epoch 4` keeps them" in capsys.readouterr().out
    assert rlaif("epoch", "2", "--dry-run", *over) == 0   # epoch 2 asked for: it replaces the finished one, said
    assert "(remakes the finished one: epoch 1's chosen policy is not the one it was made from)" in capsys.readouterr().out
    kept2 = manifests(r.epoch_dir(2))
    assert rlaif("epoch", "3", *over, "sample.num_samples=2") == 0
    out = capsys.readouterr().out
    assert "epoch 2 kept as it finished" in out and "epoch 1's chosen update" in out
    assert manifests(r.epoch_dir(2)) == kept2
    # an update-only rerun of epoch 2 says why it cannot: epoch 2 was sampled from epoch 1's former choice
    assert rlaif("update", "2", *over, "update.lr=1e-5") == 2   # (its settings as it was made: the policy alone differs)
    assert "sampled from another policy than epoch 1's chosen one" in capsys.readouterr().err


def test_run_lock_refuses_second_process(tiny_run):
    _, cfg = tiny_run
    a, b = Runner(cfg), Runner(cfg)
    a.lock()
    try:
        with pytest.raises(RunError, match="another rlaif process"):
            b.lock()
    finally:
        a.unlock()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_kill_during_sample_keeps_earlier_stages_and_resumes(tiny_run, tmp_path, sig):
    over, cfg = tiny_run
    # pinned here, not read from config.yaml: one group per generate call and long completions,
    # so the sample stage is still generating (5 of 6 batches to go) when the signal lands
    over = over + ["sample.max_new_tokens=300", "data.prompts_per_epoch=6", "sample.num_samples=3",
                   "sample.batch_size=3", "sample.temperature=1.0"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # a shell's background job (`make test &`) starts with SIGINT ignored, and Python keeps that; the
    # child gets the default disposition back so Python installs its KeyboardInterrupt handler
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "epoch", "1", *over], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = ""
    deadline = time.time() + 120
    # the progress bar's first frame (tqdm writes "\r", no newline): generation has begun
    while not re.search(r"sample:\s+0%.*0/18", seen) and time.time() < deadline:
        ch = proc.stdout.read(1)
        if not ch:
            break
        seen += ch
    assert "sample   running" in seen and "0/18" in seen, seen
    proc.send_signal(sig)
    rest = proc.communicate()[0]
    if sig != signal.SIGKILL:   # Ctrl-C, or a scheduler's SIGTERM: said, with the shell's exit status for each
        assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig] and "rerun the same command" in rest
    e1 = Runner(cfg).epoch_dir(1)
    assert (e1 / "prompts" / "manifest.json").exists()
    assert not (e1 / "sample").exists()  # a killed stage never looks finished
    before = json.loads((e1 / "prompts" / "manifest.json").read_text())
    # the rerun with short answers (sample's key, not prompts'): what it must show is the kept stage
    # reused, and 18 answers of 300 tokens through the whole epoch cost the suite 40 s
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "epoch", "1", *over, "sample.max_new_tokens=24"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "prompts  reused" in res.stdout
    assert json.loads((e1 / "prompts" / "manifest.json").read_text()) == before
    assert not [p for p in e1.iterdir() if p.name.startswith(".tmp-")]


def test_warm_start_epoch_zero_and_teacher_sft_mixing(tiny_run, capsys):
    over, cfg = tiny_run
    over = over + ["data.difficulties=[easy]", "update.sft_epochs=1"]
    assert rlaif("epoch", "0", *over) == 0
    r = Runner(load_config(None, over))
    sft = r.chosen_update(0)
    assert sft is not None and sft[1]["rows"] > 10 and sft[1]["figures"]["loss/sft"] > 0
    # epoch 1 samples from the warm-started adapter, and mixes teacher answers into its update
    assert rlaif("epoch", "1", *over, "update.teacher_sft_coef=0.5") == 0
    e1 = manifests(r.epoch_dir(1))
    assert e1["sample"]["inputs"]["policy"] == sft[1]["fingerprint"]
    assert e1["select"]["figures"]["select/teacher_rows"] > 0  # the random student never beats the reference
    upd = next(v for k, v in e1.items() if k.startswith("update-"))
    assert upd["figures"]["loss/sft"] > 0


def test_tensorboard_tracker_logs_each_epoch(tiny_run):
    over, _ = tiny_run
    assert rlaif("epoch", "1", *over, "run.trackers=[tensorboard]") == 0
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    cfg = load_config(None, over)
    logdir = next((Path(cfg.run.dir) / cfg.run.name / "trackers").rglob("events.out.tfevents.*")).parent
    ev = EventAccumulator(str(logdir))
    ev.Reload()
    assert "reward/mean" in ev.Tags()["scalars"]
    assert ev.Scalars("reward/mean")[0].step == 1


def test_warm_start_runs_before_epoch_one_and_is_the_kl_reference(tiny_run, capsys):
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from pipeline.store.tables import load_table
    from pipeline.engines.forward import LOGPROBS_FILE, collate, token_logprobs
    over, _ = tiny_run
    over = over + ["data.difficulties=[easy]", "update.sft_epochs=1", "update.warm_start=true"]
    assert rlaif("epoch", "1", *over) == 0
    out = capsys.readouterr().out
    assert "epoch 0 (supervised warm-start" in out and "update   running  epoch-000/update-" in out
    r = Runner(load_config(None, over))
    sft_fp, sft_dir = r.policy(0)
    assert sft_dir is not None and sft_dir.parent.parent == r.epoch_dir(0)
    e1 = manifests(r.epoch_dir(1))
    assert e1["sample"]["inputs"]["policy"] == sft_fp  # RL starts from the warm-start
    assert e1["logprobs"]["inputs"]["reference"] == sft_fp  # and KL is measured against it
    lp1 = torch.load(r.epoch_dir(1) / "logprobs" / LOGPROBS_FILE)
    assert lp1["old"] and all(torch.equal(lp1["old"][i], lp1["ref"][i]) for i in lp1["old"])  # policy = reference
    # ... and both are the warm-start adapter's, computed independently, not the base model's (the
    # adapter disabled), which logprobs v4 took and so began epoch 1 off its policy
    cfg = r.cfg
    base = AutoModelForCausalLM.from_pretrained(cfg.student.model, dtype=torch.float32)
    warm = PeftModel.from_pretrained(base, str(sft_dir)).eval()
    from pipeline.engines.model import load_tokenizer
    pad = load_tokenizer(cfg.student).pad_token_id

    def warm_and_base(epoch_dir):
        rows = load_table(epoch_dir / "select")
        temp = manifests(epoch_dir)["logprobs"]["config"]["sample.temperature"]  # what the CLI ran with
        i = next(k for k, row in enumerate(rows) if not row.get("sft"))
        batch = collate([{**rows[i], "index": i}], pad)
        with torch.no_grad():
            want = token_logprobs(warm, batch, temp)[0][0]
            with warm.disable_adapter():
                base_lp = token_logprobs(warm, batch, temp)[0][0]
        return i, want, base_lp

    def bound(want):
        """Two float32 forwards of the same adapter (the stage's batch, this one row): the derived
        bound, the log-softmax's terms reaching |logp|."""
        from tests.tolerance import logits_tolerance
        return logits_tolerance(base.config, 128, float(want.abs().max()), len(want), logprobs=True)

    def differ(a, b) -> bool:
        """Further apart than two forwards of one adapter can be."""
        return float((a - b).abs().max()) > bound(b)

    i, want, base_lp = warm_and_base(r.epoch_dir(1))
    assert float((lp1["old"][i] - want).abs().max()) <= bound(want)
    assert differ(lp1["old"][i], base_lp)
    assert rlaif("status", *over) == 0
    assert re.search(r"epoch +0  prompts:done  teacher:done  update:done ", capsys.readouterr().out)

    # `rlaif eval 0 --warm-start`: the warm-start's adapter, beside the base model's eval; metrics.json
    # and RUN@0 keep meaning the base model
    from pipeline.metrics.evals import resolve_eval
    assert rlaif("eval", "0", *over) == 0 and rlaif("eval", "0", "--warm-start", *over) == 0
    evals = {m["inputs"]["update"]: p for p in r.epoch_dir(0).glob("eval-*") if (m := json.loads(
        (p / "manifest.json").read_text()))}
    assert set(evals) == {sft_fp, r.base_policy_fp()}
    assert resolve_eval(f"{r.run_dir}@0") == evals[r.base_policy_fp()]
    m0 = json.loads((r.epoch_dir(0) / "metrics.json").read_text())
    base_eval = json.loads((evals[r.base_policy_fp()] / "manifest.json").read_text())
    assert m0["eval/score"] == base_eval["figures"]["eval/score"]
    assert rlaif("eval", "1", "--warm-start", *over) == 2
    assert "--warm-start evaluates epoch 0" in capsys.readouterr().err

    assert rlaif("epoch", "2", *over) == 0
    assert "epoch-000" not in capsys.readouterr().out  # only epoch 1 looks at the warm-start
    e2 = r.epoch_dir(2)
    kl_start = [json.loads((r.epoch_dir(n) / "metrics.json").read_text())["kl/k3_start"] for n in (1, 2)]
    assert kl_start[0] == 0 and kl_start[1] > 0  # epoch 1 starts at the reference, epoch 2 away from it
    assert manifests(e2)["logprobs"]["inputs"]["reference"] == sft_fp
    lp2 = torch.load(e2 / "logprobs" / LOGPROBS_FILE)
    # the reference logprobs are the warm-start adapter's, computed independently here, and not the
    # epoch-1 policy's (old) nor the base model's
    i, want, base_lp = warm_and_base(e2)
    assert float((lp2["ref"][i] - want).abs().max()) <= bound(want)
    assert differ(lp2["ref"][i], base_lp)
    assert differ(lp2["ref"][i], lp2["old"][i])

    # update.kl_reference=base: the same epoch, the reference is the base model again (logprobs recomputed)
    assert rlaif("update", "2", *over, "update.kl_reference=base") == 0
    lps = [p for p in e2.iterdir() if p.name.startswith("logprobs")]
    base_ref = next(json.loads((p / "manifest.json").read_text()) for p in lps
                    if json.loads((p / "manifest.json").read_text())["inputs"]["reference"] != sft_fp)
    assert base_ref["inputs"]["reference"] == r.base_policy_fp()
