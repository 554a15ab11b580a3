"""data.rl_sources: RL draws its prompts from more problem sets while the warm-start stays as it was;
a problem the eval scores is refused before any work; an unset key changes no fingerprint."""
from __future__ import annotations

import pytest

from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.stages.problems import choose_prompts, rl_problems, training_problems, warm_start_problems


def test_rl_draws_from_the_extra_sets_and_the_warm_start_does_not():
    from data.loaders import load_source
    base = load_config(None, ["data.difficulties=[easy,medium]"])
    cfg = load_config(None, ["data.difficulties=[easy,medium]", "data.rl_sources=[bank:train,bank:train,builtin:train]"])
    bank = [p.id for p in load_source("bank:train") if p.difficulty in ("easy", "medium")]
    train = [p.id for p in training_problems(cfg)]
    assert [p.id for p in rl_problems(cfg)] == train + bank            # named twice or data.source: once
    assert [p.id for p in warm_start_problems(cfg)] == [p.id for p in warm_start_problems(base)] == train


def test_an_epochs_prompts_come_from_the_union(tmp_path):
    cfg = load_config(None, [f"run.dir={tmp_path}", "data.difficulties=[easy,medium]", "data.rl_sources=[bank:train]",
                             "data.prompts_per_epoch=64"])
    ids, by_id, _, _ = choose_prompts(cfg, tmp_path / "run", 1)
    train = {p.id for p in training_problems(cfg)}
    assert len(ids) == 64 == len(set(ids)) and set(ids) <= set(by_id)
    # about 90 of 640 problems are data.source's: a draw of 64 holds bank problems, and not only them
    assert any(i not in train for i in ids) and by_id.keys() > train


def test_a_problem_the_eval_scores_is_refused():
    cfg = load_config(None, ["data.rl_sources=[bank]", "eval.sources=[bank:heldout]"])
    with pytest.raises(RunError, match=r"data.rl_sources: bank holds problem '.+', which the eval scores"):
        rl_problems(cfg)


def test_unset_it_changes_no_fingerprint_and_the_warm_start_never():
    from pipeline.stages import STAGES, WARM_START
    prompts = next(s for s in STAGES if s.name == "prompts")
    plain, empty = load_config(None, []), load_config(None, ["data.rl_sources=[]"])
    other = load_config(None, ["data.rl_sources=[bank:train]"])
    assert plain.stage_config(prompts.fields) == empty.stage_config(prompts.fields)
    assert "data.rl_sources" not in plain.stage_config(prompts.fields)
    assert other.stage_config(prompts.fields) != plain.stage_config(prompts.fields)
    for stage in WARM_START:                                                 # a lever shares the warm-start
        assert other.stage_config(stage.fields) == plain.stage_config(stage.fields)


def test_a_missing_file_fails_before_any_work(tmp_path, capsys):
    from pipeline.cli.main import main
    rc = main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"data.rl_sources=[{tmp_path / 'nope.jsonl'}]"])
    assert rc != 0 and "data.rl_sources" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_an_eval_scored_problem_fails_before_the_warm_start(tmp_path, capsys):
    from pipeline.cli.main import main
    rc = main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", "update.warm_start=true", "data.rl_sources=[bank]",
               "eval.sources=[bank:heldout]"])
    err = capsys.readouterr().err
    assert rc != 0 and "data.rl_sources: bank holds problem" in err, err[-2000:]
    assert not (tmp_path / "runs").exists()                 # nothing written: no warm-start ran first


def test_a_malformed_row_is_named_once_before_any_work(tmp_path, capsys, monkeypatch):
    """A local rl_sources file with a bad row fails naming the key, the file and its line, read once."""
    import data.loaders as loaders
    from pipeline.cli.main import main
    bad = tmp_path / "mine.jsonl"
    bad.write_text('{"id": "a", "prompt": "p", "entry_point": "f", "tests": [{"input": [], "output": 1}], "difficulty": "easy"}\n{not json\n')
    reads, real = [], loaders.load_problems
    monkeypatch.setattr(loaders, "load_problems", lambda spec, *a, **k: reads.append(str(spec)) or real(spec, *a, **k))
    rc = main(["epoch", "1", f"run.dir={tmp_path / 'runs'}", f"data.rl_sources=[{bad}]"])
    err = capsys.readouterr().err
    assert rc != 0 and "data.rl_sources" in err and "mine.jsonl" in err and "line 2" in err, err[-2000:]
    assert reads.count(str(bad)) == 1, reads
    assert not (tmp_path / "runs").exists()
