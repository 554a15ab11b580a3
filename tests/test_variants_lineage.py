"""Update variants and the policy lineage as a user iterates: an epoch made anew from another policy drops
the promotion its old rows carried; `rlaif update` says its own variant's figures where the epoch's policy
is another; warm-start keys make no RL variant; a sweep refuses a point given twice in other words."""
from __future__ import annotations

import json
import re

import pytest

from pipeline.config.base import ConfigError
from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from pipeline.store.artifacts import read_manifest


def test_an_epoch_made_anew_from_another_policy_drops_its_stale_promotion(epoch1_config, caplog, capsys, monkeypatch,
                                                                          tmp_path):
    """Epoch 2 with a promoted variant; then epoch 1's policy changes (another variant promoted) and epoch 2 is
    made again from it: the promoted variant of epoch 2 was trained on samples that are gone, so the
    promotion goes, said, and epoch 2's policy is the update made from the new samples. `rlaif promote` of
    that stale variant is refused, naming the way back to its line, and the way works."""
    from pipeline.cli.main import main
    monkeypatch.chdir(tmp_path)
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    old1 = r.chosen_update(1)[0]
    r.run_epoch(2)
    old2 = r.chosen_update(2)[0]
    r.promote(2, old2.name)
    Runner(load_config(None, [*epoch1_config, "update.lr=1e-3"])).run_epoch(1, update_only=True)
    new1 = r.chosen_update(1)[0]
    r.promote(1, new1.name)
    Runner(load_config(None, epoch1_config)).run_epoch(2)
    assert "its promoted update" in caplog.text and "the promotion is dropped" in caplog.text
    assert not (r.epoch_dir(2) / "chosen.json").exists()
    chosen = r.chosen_update(2)
    assert chosen[0] != old2 and chosen[1]["inputs"]["policy"] == read_manifest(new1)["fingerprint"]
    capsys.readouterr()
    assert main(["promote", "2", old2.name, *epoch1_config]) == 2
    err = capsys.readouterr().err
    assert f"epoch 2: {old2.name} was trained from another policy of epoch 1 ({old1.name})" in err, err
    assert f"`rlaif promote 1 {old1.name}` then `rlaif epoch 2`" in err and r.chosen_update(2)[0] == chosen[0]
    assert main(["promote", "1", old1.name, *epoch1_config]) == 0 and main(["epoch", "2", *epoch1_config]) == 0
    assert r.chosen_update(2)[0] == old2   # the update of these rows, made before and reused: the policy, not the newest
    r.promote(2, chosen[0].name)   # a promotion of the other line's update, then epoch 1's choice moves under it
    assert main(["promote", "1", new1.name, *epoch1_config]) == 0 and main(["epoch", "2", *epoch1_config]) == 0
    caplog.clear()
    assert main(["promote", "1", old1.name, *epoch1_config]) == 0 and main(["epoch", "2", *epoch1_config]) == 0
    assert r.chosen_update(2)[0] == old2 and f"its promoted update ({chosen[0].name}) was trained on the" in caplog.text
    assert main(["promote", "2", old2.name, *epoch1_config]) == 0 and r.chosen_update(2)[0] == old2


def test_update_says_its_own_variants_figures_beside_a_promoted_policy(epoch1_config, capsys):
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    r.promote(1, r.chosen_update(1)[0].name)
    assert _update(epoch1_config, "update.lr=1e-2", "update.epochs=2") == 0
    out = capsys.readouterr().out
    made = next(m for p, m in r.update_variants(1) if m["config"]["update"]["lr"] == 1e-2)
    own = f"loss/total={made['figures']['loss/total']:.4g}"
    assert own in out, out
    assert f"loss/total={r.read_metrics(1)['loss/total']:.4g}" != own   # not the promoted policy's


@pytest.mark.parametrize(("key", "grid"), [("update.sft_lr=1e-3", "1e-3,2e-3"), ("update.warm_start=true", "true,false"),
                                         ("update.sft_epochs=3", "3,4")])
def test_warm_start_keys_make_no_rl_update_variant(epoch1_config, key, grid):
    """The RL update's fingerprint holds the whole update section: a variant of a warm-start key would be a
    copy of the epoch's update under another name (and become its policy). Said, not trained; beside an RL
    key too (it ran, recording a warm-start that did not make its start policy)."""
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    was = json.dumps(r.chosen_update(1)[1]["config"]["update"][key[7:].partition("=")[0]])
    for keys in ([key], [key, "update.lr=1e-3"]):
        with pytest.raises(RunError, match=r"the warm-start's \(epoch 0\), not epoch 1's RL update.*(rlaif epoch 0|run.name=)"
                           ) as e:
            _update(epoch1_config, *keys)
        assert f"Type {key.partition('=')[0]}={was} as epoch 1's update was made" in str(e.value)
        typed = json.dumps(load_config(None, [key]).get(key.partition("=")[0]))   # the value typed leads, then the run's
        assert str(e.value).startswith(f"{key.partition('=')[0]}={typed} (epoch 1's update was made with {was})")
    with pytest.raises(ConfigError, match=r"the warm-start's \(epoch 0\)"):
        _sweep(epoch1_config, f"{key.partition('=')[0]}={grid}")
    if key.startswith("update.sft_epochs") and was == "2":   # the grid holds the epoch's own value: the other offered
        with pytest.raises(ConfigError, match=r"`rlaif epoch 0 update.sft_epochs=1` makes another warm-start"):
            _sweep(epoch1_config, "update.sft_epochs=1,2")
    assert len(r.update_variants(1)) == 1
    assert _update(epoch1_config, "update.lr=1e-3") == 0   # an RL key makes its variant (warm_start=false as it was)


def test_an_update_on_an_epoch_made_otherwise_names_every_setting_at_once(epoch1_config):
    """Each setting the epoch's stages were made with otherwise, in one error (it named one a try)."""
    cfg = load_config(None, epoch1_config)
    with pytest.raises(RunError, match=re.escape(
            f"epoch 1 was made with other settings than these (made with -> now): data.prompts_per_epoch "
            f"{cfg.data.prompts_per_epoch} -> 1, sample.temperature {cfg.sample.temperature} -> 0.5")):
        _update(epoch1_config, "sample.temperature=0.5", "data.prompts_per_epoch=1", "update.lr=1e-3")


def test_a_sweep_refuses_one_value_written_two_ways(epoch1_config):
    Runner(load_config(None, epoch1_config)).run_epoch(1)
    with pytest.raises(ConfigError, match=r"update.lr=1e-4 and update.lr=0.0001|update.lr=0.0001 and update.lr=1e-4"):
        _sweep(epoch1_config, "update.lr=1e-4,0.0001")
    with pytest.raises(ConfigError, match=r"update.lr=3e-4: update.lr is a --grid axis too"):   # (it was dropped, unsaid)
        _sweep([*epoch1_config, "update.lr=3e-4"], "update.lr=1e-4,2e-4")


def test_promoting_a_variant_made_without_an_eval_says_so(epoch1_config, capsys):
    from pipeline.cli.commands_read import cmd_promote
    assert _update(epoch1_config, "update.lr=3e-5", "eval.sources=[]") == 0   # an eval of no problem
    made = next(p for p, m in Runner(load_config(None, epoch1_config)).update_variants(1)
                if m["config"]["update"]["lr"] == 3e-5)
    capsys.readouterr()
    cmd_promote(load_config(None, epoch1_config), _Args(n=1, variant=made.name))
    assert "it has no eval (killed, or made without one): `rlaif eval 1` scores it" in capsys.readouterr().out


def _update(over, *keys):
    from pipeline.cli.commands_train import cmd_epoch
    cfg = load_config(None, [*over, *keys])
    return cmd_epoch(cfg, _Args(cmd="update", n=1, overrides=[*over, *keys]))


def _sweep(over, grid):
    from pipeline.cli.commands_train import cmd_sweep
    return cmd_sweep(load_config(None, over), _Args(cmd="sweep", n=1, overrides=over, grid=[grid], config=None))


class _Args:
    def __init__(self, **kw):
        self.config, self.dry_run = None, False
        self.__dict__.update(kw)


def test_promoting_back_the_policy_later_epochs_came_from_says_nothing_of_them(epoch1_config, capsys):
    from pipeline.cli.commands_read import later_epochs_note
    r = Runner(load_config(None, epoch1_config))
    r.run_epoch(1)
    r.run_epoch(2)
    r.run_epoch(3, only="prompts")   # begun, never trained: no epoch trained from epoch 1's policy ("epochs 2-3" was)
    first = r.chosen_update(1)[0]
    Runner(load_config(None, [*epoch1_config, "update.lr=1e-3"])).run_epoch(1, update_only=True)
    assert r.chosen_update(1)[0] != first
    assert "epoch 2 was trained from the policy chosen before: `rlaif epoch 3` keeps it" in later_epochs_note(r, 1)
    capsys.readouterr()
    from pipeline.cli.commands_read import cmd_promote
    cmd_promote(load_config(None, epoch1_config), _Args(n=1, variant=first.name))   # back to the one epoch 2 came from
    assert later_epochs_note(r, 1) is None
    assert f"chosen policy is now {first.name}; epoch 2 was sampled from it" in capsys.readouterr().out


def test_a_sweep_that_changes_the_chosen_policy_says_so_of_the_epochs_after(epoch1_config, capsys, tmp_path,
                                                                            monkeypatch):
    """As `rlaif update 1` does: epoch 2 was trained from the policy epoch 1 chose before the sweep."""
    from pipeline.cli.main import main
    monkeypatch.chdir(tmp_path)   # the built-in defaults, as epoch1_config's run was made with (no ./config.yaml)
    Runner(load_config(None, epoch1_config)).run_epoch(2)
    capsys.readouterr()
    assert main(["sweep", "1", "--grid", "update.lr=1e-3", *epoch1_config]) == 0
    out = capsys.readouterr().out
    assert "chosen policy is now update-" in out and "epoch 2 was trained from the policy chosen before" in out, out


def test_compare_marks_variants_trained_on_another_selection(epoch1_config, capsys):
    """`rlaif update 1 update.teacher_sft_coef=0` makes the selection again (other rows): the variants trained on
    the first one are marked in `rlaif compare`, not paired silently with the rest."""
    from pipeline.cli.commands_read import cmd_compare
    first = Runner(load_config(None, epoch1_config)).chosen_update(1)[0]
    assert _update(epoch1_config, "update.teacher_sft_coef=0") == 0
    capsys.readouterr()
    cmd_compare(load_config(None, epoch1_config), _Args(n=1))
    out = capsys.readouterr().out
    assert f"~ {first.name}" in out and f"made again since): {first.name}" in out, out


def test_a_sweep_holds_the_run_lock_from_its_first_point_to_its_last(epoch1_config, capsys, monkeypatch, tmp_path):
    """Each point took and let go of the run's lock: another command (`rlaif epoch 2`, a promote) could slip in
    between two points and train from a choice the sweep was changing. The sweep holds it throughout, each
    point's own epoch inside it."""
    from pipeline.cli.main import main
    from pipeline.config.errors import RunError
    monkeypatch.chdir(tmp_path)   # the built-in defaults, as epoch1_config's run was made with (no ./config.yaml)
    seen, real = [], Runner.run_epoch

    def point(self, n, **kw):   # where each point starts: is the run taken for another process?
        other = Runner(load_config(None, epoch1_config))
        try:
            other.lock()
            other.unlock()
            seen.append("free")
        except RunError:
            seen.append("held")
        return real(self, n, **kw)
    monkeypatch.setattr(Runner, "run_epoch", point)
    assert main(["sweep", "1", "--grid", "update.lr=1e-3,2e-3", *epoch1_config]) == 0, capsys.readouterr().err
    assert seen == ["held", "held"]
    other = Runner(load_config(None, epoch1_config))
    other.lock()   # and the sweep let it go
    other.unlock()


def test_an_update_variant_of_a_select_key_as_typed_selects_again_and_trains_on_it(epoch1_config, capsys, tmp_path,
                                                                                  monkeypatch):
    """docs/guides/update-variants-and-sweeps.md: `rlaif update N select.KEY=...` (as typed, through the CLI):
    `rlaif update 1 select.drop_zero_std=false` keeps the zero-spread groups the epoch's selection dropped
    (the tiny model's samples all score alike) in a selection made again in place, and its variant trains on
    those rows; `rlaif compare 1` tells the two variants apart by the selection setting each trained on."""
    from pipeline.cli.main import main
    from pipeline.store.tables import load_table
    monkeypatch.chdir(tmp_path)   # no config.yaml here: the built-in defaults, as the fixture's run was made
    r = Runner(load_config(None, epoch1_config))
    first, e1 = r.chosen_update(1)[0], r.epoch_dir(1)
    students = lambda: sum(row["sample_idx"] >= 0 for row in load_table(e1 / "select"))   # noqa: E731
    assert students() == 0   # every group dropped: the first variant trained on the teacher's rows alone
    assert main(["update", "1", "select.drop_zero_std=false", *epoch1_config]) == 0
    made = next(p for p in e1.glob("update-*") if p.is_dir() and p != first)
    assert read_manifest(made)["inputs"]["select"] == read_manifest(e1 / "select")["fingerprint"]
    assert students() == 9 and read_manifest(made)["rows"] > read_manifest(first)["rows"]
    capsys.readouterr()
    assert main(["compare", "1", *epoch1_config]) == 0
    out = capsys.readouterr().out.split("* = chosen")[0].splitlines()
    table = {line.split()[1]: line.split()[2] for line in out[1:]}
    assert "select.drop_zero_std" in out[0] and table == {first.name: "True", made.name: "False"}, out
    # variants made before the selection's settings were recorded beside them: known while their selection is
    # the current one, else unknown, and a setting one of them cannot tell is no column (the ~ says the rest)
    for variant in (made, first):
        manifest = json.loads((variant / "manifest.json").read_text())
        del manifest["select_config"]
        (variant / "manifest.json").write_text(json.dumps(manifest))
    assert main(["compare", "1", *epoch1_config]) == 0
    out = capsys.readouterr().out.split("* = chosen")[0].splitlines()
    assert out[0].split()[1:4] == ["update.lr", "update.kl_coef", "loss/total"] and "select." not in "".join(out), out
    assert out[1].startswith(f"~ {first.name}") or out[2].startswith(f"~ {first.name}"), out


def test_an_update_remade_at_its_fingerprint_is_said_of_the_epochs_sampled_from_it(tiny_config, tmp_path, monkeypatch,
                                                                                   capsys):
    """`rlaif epoch 1 --force` after an edit of the reward function remakes epoch 1's update at the same fingerprint
    (code is not in it) with other weights: epoch 2, sampled from the former ones, is said to continue the former
    line (by `rlaif epoch 1` as it ends and by `rlaif status`), the epoch loop keeps it as it finished and says why,
    and `rlaif epoch 2` remakes its answers from the policy there now (it reused them, unsaid)."""
    from pipeline.cli.main import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text("def rw(completions, **kw):\n    return [len(c) % 7 / 7 for c in completions]\n")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"p{i}", "prompt": f"Say a word about {w}."}) + "\n"
                            for i, w in enumerate(["cats", "rain", "tea", "maps", "salt", "wind"])))
    over = [*tiny_config, f"data.source={rows}", "judge.kind=python", "judge.python.function=rw.py:rw",
            "eval.sources=[]"]
    assert main(["epoch", "2", *over]) == 0
    r = Runner(load_config(None, over))
    before = r.chosen_update(1)
    assert main(["update", "1", *over, "update.lr=1e-3"]) == 0   # a variant promoted: trained on the rows remade below
    r.promote(1, r.chosen_update(1)[0].name)
    (tmp_path / "rw.py").write_text("def rw(completions, **kw):\n    return [1 - len(c) % 5 / 5 for c in completions]\n")
    capsys.readouterr()
    assert main(["epoch", "1", "--force", *over]) == 0
    out = capsys.readouterr().out
    after = r.chosen_update(1)   # (the promotion dropped: its rewards are gone)
    assert after[0] == before[0] and after[1]["files"] != before[1]["files"]   # one fingerprint, other weights
    gone = f"{after[0].name} as it was before it was remade"
    assert f"epoch 2 was trained from epoch 1's {gone}: `rlaif epoch 3` keeps it" in out, out
    assert main(["status", *over]) == 0
    out = capsys.readouterr().out
    assert f"epoch 2 was sampled from epoch 1's {gone}: epoch 2 and the epochs after it" in out, out
    assert re.search(r"epoch   2  prompts:stale  sample:stale  teacher:done  judge:stale .* update:stale  eval:stale", out), out
    assert main(["epoch", "3", "--dry-run", *over]) == 0
    assert ("epoch 2 kept as it finished (past epochs are frozen; these settings differ: the policy it starts from "
            "(epoch 1's chosen update, remade since this epoch sampled from it))") in capsys.readouterr().out
    assert main(["replay", "2", *over]) == 2   # (it would draw new answers, which the cache cannot judge)
    assert "`rlaif replay 2` would remake its finished stage(s) prompts" in capsys.readouterr().err
    assert main(["epoch", "2", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert ("sample   to run   epoch-002/sample (remakes the finished one: epoch 1's chosen update was remade since it "
            "sampled from it)") in out
    # what reads the answers made again is priced as made again (it said judge reused, $0, and then ran)
    assert "judge    to run   epoch-002/judge (remakes the finished one: if its input prompts, made first, comes out " \
           "otherwise)" in out and "judge (python rw.py:rw): 12 of 12 judgements missing at most" in out, out
    assert main(["epoch", "2", *over]) == 0
    assert "epoch 2 done in" in (out := capsys.readouterr().out) and "(9 stages ran, 0 reused)" in out, out
    assert r.former_parent(2) is None and main(["status", *over]) == 0
    assert "before it was remade" not in capsys.readouterr().out
