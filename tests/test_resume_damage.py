"""A run damaged on disk or killed mid-stage resumes without a traceback and without reading what it
should not: a stage whose input was remade since it read it is remade too; `rlaif eval` refuses a
corrupted chosen policy; an unreadable update checkpoint starts the update over; a killed warm-start
resumes from its checkpoint; a metrics.json cut short is made again from the manifests."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.engines.model import load_student, load_tokenizer
from pipeline.run.runner import Runner
from pipeline.stages import update_loop
from pipeline.store.artifacts import read_manifest, write_json

ROOT = Path(__file__).resolve().parents[1]


def test_a_stage_whose_input_was_remade_since_it_read_it_is_remade(epoch1_config, capsys):
    """judge read epoch 1's sample table; that table made again (here: the digest judge recorded of it
    differs from the one on disk now, as when a runtime-only setting or another machine remade it): the
    rerun remakes judge, saying why (its judgements from the cache), and reuses what reads only judge's
    unchanged rows."""
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    jd = r.epoch_dir(1) / "judge"
    m = read_manifest(jd)
    assert set(m["input_digests"]) == {"prompts", "sample", "teacher"}
    from pipeline.run.dryrun import _up_to_date
    assert "judge" in _up_to_date(r, 1)
    m["input_digests"]["sample"] = "0" * 16
    write_json(jd / "manifest.json", m)
    # the dry run prices judge as made again, and what reads it too (its rows may come out otherwise; here they do not)
    assert "judge" not in _up_to_date(r, 1) and "reward" not in _up_to_date(r, 1) and "teacher" in _up_to_date(r, 1)
    capsys.readouterr()
    Runner(load_config(None, epoch1_config)).run_epoch(1)
    out = capsys.readouterr().out
    assert "judge    running" in out and "(remade: its input sample was remade since it read it)" in out, out
    assert "reward   reused" in out, out      # judge's rows came out the same: what reads them stands
    assert read_manifest(jd)["input_digests"]["sample"] != "0" * 16


def test_rlaif_eval_refuses_a_corrupted_chosen_policy(epoch1_config):
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    for d in r.epoch_dir(1).glob("eval-*"):
        shutil.rmtree(d)
    adapter = r.chosen_update(1)[0] / "adapter" / "adapter_model.safetensors"
    adapter.write_bytes(b"garbage")
    with pytest.raises(RunError, match=r"eval: the policy it reads, .*adapter_model.safetensors was changed after it was written"):
        Runner(load_config(None, epoch1_config)).run_eval(1)


def test_an_unreadable_update_checkpoint_starts_the_update_over(tiny_model, tmp_path, caplog):
    cfg = load_config(None, [f"student.model={tiny_model}", "student.lora.r=4", "update.micro_batch_size=2",
                             "update.grad_accum=1"])
    tok = load_tokenizer(cfg.student)
    rows = [{"prompt_ids": [5, 6, 7 + g], "completion_ids": [9, 10 + i, 11], "advantage": 1.0 - 2 * i}
            for g in range(2) for i in range(2)]

    def trained(ckpt):
        torch.manual_seed(0)
        model = load_student(cfg.student, trainable=True)
        update_loop.train(model, rows, cfg.update, 1.0, tok.pad_token_id, show_progress=False, fresh_adapter=True,
                          checkpoint=ckpt, checkpoint_every=1)
        return {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
    want = trained(None)
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "state.pt").write_bytes(b"PK\x03\x04 cut short")   # a zip's start, no directory
    got = trained(tmp_path / "ckpt")
    assert "is damaged" in caplog.text and "starts over" in caplog.text
    assert all(torch.equal(got[n], want[n]) for n in want)   # from the start, as a fresh update


@pytest.mark.slow
def test_a_killed_warm_start_resumes_from_its_checkpoint(tiny_config, tmp_path):
    """SIGKILL at the warm-start's second optimizer step (run.checkpoint_every=1): the rerun resumes from
    the checkpoint, not from step 0, and writes the adapter an uninterrupted warm-start writes, bit for bit."""
    over = [*tiny_config, "update.warm_start=true", "run.checkpoint_every=1", "update.sft_epochs=1"]

    def epoch0(run_dir: Path, **env) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pipeline.cli", "epoch", "0", *over, f"run.dir={run_dir}",
                               "data.difficulties=[easy]"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, **env})
    killed = epoch0(tmp_path / "a", RLAIF_KILL_AT="update-step-2", RLAIF_KILL_RANK="0")
    assert killed.returncode != 0 and "killing itself at update-step-2" in killed.stdout, killed.stdout[-2000:]
    edir = tmp_path / "a" / "default" / "epoch-000"
    (ckpt,) = [p.parent for p in edir.glob(".ckpt-update-*/state.pt")] or [sorted(p.name for p in edir.iterdir())]
    # beside it, one its fingerprint left over other teacher answers (another name: removed, never resumed)
    stale = shutil.copytree(ckpt, ckpt.with_name(ckpt.name[:-8] + "0badbeef"))
    again = epoch0(tmp_path / "a")
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert f"resuming from {ckpt}" in again.stderr, again.stderr[-2000:]
    assert f"{stale} was left by a killed update over other inputs" in again.stderr and not stale.exists()
    whole = epoch0(tmp_path / "b")
    assert whole.returncode == 0, whole.stderr[-2000:]

    def adapter(root: Path) -> dict:
        from safetensors.torch import load_file
        return load_file(next((root / "default" / "epoch-000").glob("update-*/adapter/adapter_model.safetensors")))
    a, b = adapter(tmp_path / "a"), adapter(tmp_path / "b")
    # the same kernels on one machine, the RNG, optimizer and schedule restored: the same bits (also with AVX2's)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert not list(edir.glob(".ckpt-update-*"))   # the finished warm-start leaves no checkpoint behind


def test_a_metrics_json_cut_short_is_made_again_from_the_manifests(epoch1_config, caplog):
    from pipeline.report.report import load_metrics
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    p = r.epoch_dir(1) / "metrics.json"
    whole = json.loads(p.read_text())
    p.write_text(p.read_text()[:100])
    (m,) = load_metrics(r)
    assert "does not parse" in caplog.text and m["reward/mean"] == whole["reward/mean"]
    assert json.loads(p.read_text())["reward/mean"] == whole["reward/mean"]


def test_an_unreadable_manifest_is_said_not_passed_over_in_silence(epoch1_config, caplog):
    """The chosen update's manifest cut short: it is no policy to choose (the run says so, once), and a
    stage's cut-short manifest is recomputed with a warning that says why."""
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    upd = r.chosen_update(1)[0]
    (upd / "manifest.json").write_text('{"stage": "upd')
    (r.epoch_dir(1) / "judge" / "manifest.json").write_text("{")
    r2 = Runner(load_config(None, epoch1_config))
    assert r2.chosen_update(1) is None and r2.chosen_update(1) is None
    assert caplog.text.count("its manifest.json does not parse, so it is not counted") == 1, caplog.text
    r2.run_epoch(1)
    assert f"{r.epoch_dir(1) / 'judge'}: its manifest.json does not parse; this stage is made again" in caplog.text


def test_a_damaged_variant_made_again_keeps_the_policy_choice(epoch1_config):
    """Variant B (`rlaif update 1 update.lr=...`) is the chosen policy, the newest; A, the config's own, is
    damaged and made again by `rlaif epoch 1`: B stays chosen (the newest would be A now)."""
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    a = r.chosen_update(1)[0]
    Runner(load_config(None, [*epoch1_config, "update.lr=1e-3"])).run_epoch(1, update_only=True)
    b = r.chosen_update(1)[0]
    assert b != a
    (a / "adapter" / "adapter_model.safetensors").write_bytes(b"garbage")
    Runner(load_config(None, epoch1_config)).run_epoch(1)
    assert read_manifest(a)["finished_at"] > read_manifest(b)["finished_at"]   # A remade, the newest
    assert r.chosen_update(1)[0] == b


def test_an_earlier_epochs_damaged_reward_table_is_named_not_read(epoch1_config):
    """The curriculum and the improvement bonus read earlier epochs' reward tables: one changed on disk
    stops the epoch that would read it, naming the command that remakes it."""
    from pipeline.store.artifacts import ArtifactError
    from pipeline.store.history import score_history
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    assert score_history(r.run_dir, 2)[0]
    table = next((r.epoch_dir(1) / "reward").rglob("*.arrow"))
    table.write_bytes(table.read_bytes()[: len(table.read_bytes()) // 2])
    with pytest.raises(ArtifactError, match=r"epoch 1's reward table.*`rlaif epoch 1 --only reward --force`"):
        score_history(r.run_dir, 2)


def test_a_stage_remade_with_other_rows_remakes_what_read_it_and_one_remade_alike_does_not(epoch1_config, monkeypatch,
                                                                                           capsys):
    """The judge table damaged and made again: with the same rows (the cache answers alike) every later stage
    is reused; with other rows (here one judgement's value moved, as another machine's sandbox or a changed
    harness could) the reward and what reads it are made again, each saying why."""
    import pipeline.stages.judge as judge_stage
    from pipeline.store.tables import load_table, save_table
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    jd = r.epoch_dir(1) / "judge"

    def damage():
        table = next(jd.rglob("*.arrow"))
        table.write_bytes(table.read_bytes()[:64])
    damage()
    capsys.readouterr()
    Runner(load_config(None, epoch1_config)).run_epoch(1)
    out = capsys.readouterr().out
    assert "judge    running" in out and "reward   reused" in out and "update   reused" in out, out
    real = judge_stage.run

    def other_rows(ctx):
        real(ctx)
        rows = load_table(ctx.out, json_cols=("breakdown",))
        rows[0]["value"] = 0.0 if rows[0]["value"] else 1.0
        save_table(rows, ctx.out, json_cols=("breakdown",))
    monkeypatch.setattr(judge_stage, "run", other_rows)
    damage()
    Runner(load_config(None, epoch1_config)).run_epoch(1)
    out = capsys.readouterr().out
    assert "reward   running" in out and "(remade: its input judge was remade since it read it)" in out, out
    update = next(line for line in out.splitlines() if "update   running" in line)   # a variant says why too
    assert "(remade: its input" in update and "was remade since it read it)" in update, out


def test_status_says_a_stage_whose_file_was_deleted_damaged(epoch1_config, capsys, tmp_path, monkeypatch):
    """`rlaif status` said done for a stage whose table or adapter was deleted (the run remade it when next run):
    damaged now, and done again once `rlaif epoch 1` has remade it from the judge cache."""
    import re
    from pipeline.cli.main import main
    monkeypatch.chdir(tmp_path)
    r = Runner(load_config(None, epoch1_config))
    next((r.epoch_dir(1) / "judge" / "table").glob("*.arrow")).unlink()
    shutil.rmtree(r.chosen_update(1)[0] / "adapter")
    assert main(["status", *epoch1_config]) == 0
    out = capsys.readouterr().out
    assert re.search(r"epoch   1  .*judge:damaged .*update:damaged", out) and "damaged = a file of it is missing" in out, out
    assert main(["epoch", "1", *epoch1_config]) == 0 and main(["status", *epoch1_config]) == 0
    assert "damaged" not in capsys.readouterr().out.split("stage states:")[0]
