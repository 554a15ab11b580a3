"""data.warm_start_sources: the warm-start learns more problem sets' teacher answers; RL never draws
from them; a problem the eval scores or the validation split holds is refused before any work; an
unset key changes no fingerprint."""
from __future__ import annotations

import pytest

from pipeline.config.file import load_config
from pipeline.config.errors import RunError
from pipeline.stages.problems import training_problems, warm_start_problems


def test_the_warm_start_learns_the_extra_sets_too():
    base = load_config(None, ["data.difficulties=[easy,medium]"])
    cfg = load_config(None, ["data.difficulties=[easy,medium]", "data.warm_start_sources=[bank:train]"])
    train, warm = training_problems(cfg), warm_start_problems(cfg)
    from data.loaders import load_source
    bank = [p for p in load_source("bank:train") if p.difficulty in ("easy", "medium")]
    assert [p.id for p in training_problems(base)] == [p.id for p in train]   # RL's problems stay data.source's
    assert [p.id for p in warm] == [p.id for p in train] + [p.id for p in bank]
    assert len(bank) > 500 and len({p.id for p in warm}) == len(warm)
    # a set named twice, or data.source itself, adds nothing twice
    again = load_config(None, ["data.difficulties=[easy,medium]",
                               "data.warm_start_sources=[bank:train,bank:train,builtin:train]"])
    assert [p.id for p in warm_start_problems(again)] == [p.id for p in warm]


def test_a_problem_the_eval_scores_is_refused():
    cfg = load_config(None, ["data.warm_start_sources=[bank]", "eval.sources=[bank:heldout]"])
    with pytest.raises(RunError, match=r"bank holds problem '.+', which the eval scores \(eval.sources: bank:heldout\)"):
        warm_start_problems(cfg)


def test_a_validation_problem_is_refused():
    cfg = load_config(None, ["data.validation_size=20", "eval.sources=[builtin:heldout]",
                             "data.warm_start_sources=[builtin:train]"])
    with pytest.raises(RunError, match=r"validation \(data.validation_size\)"):
        warm_start_problems(cfg)


def test_unset_it_changes_no_fingerprint():
    from pipeline.stages import WARM_START
    stage = WARM_START[0]
    assert "data.warm_start_sources" in stage.fields
    plain, empty = load_config(None, []), load_config(None, ["data.warm_start_sources=[]"])
    assert plain.stage_config(stage.fields) == empty.stage_config(stage.fields)
    assert "data.warm_start_sources" not in plain.stage_config(stage.fields)
    other = load_config(None, ["data.warm_start_sources=[bank:train]"])
    assert other.stage_config(stage.fields) != plain.stage_config(stage.fields)


def test_a_missing_file_fails_before_any_work(tmp_path, capsys):
    from pipeline.cli.main import main
    rc = main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"data.warm_start_sources=[{tmp_path / 'nope.jsonl'}]"])
    assert rc != 0 and "data.warm_start_sources" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_the_warm_start_prompts_stage_writes_them(tmp_path, tiny_model):
    from pipeline.run.runner import Runner
    from pipeline.store.tables import load_table
    over = [f"run.dir={tmp_path / 'runs'}", f"student.model={tiny_model}", "data.difficulties=[easy]",
            "data.warm_start_sources=[bank:train]", "update.warm_start=true"]
    r = Runner(load_config(None, over))
    r.run_epoch(0, only="prompts", echo=lambda _: None)
    rows = load_table(r.epoch_dir(0) / "prompts")
    ids = {row["problem_id"] for row in rows}
    assert any(i.startswith("py-easy") for i in ids) and len(ids) == len(rows) > 300
