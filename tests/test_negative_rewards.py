"""A reward below 0 (a TRL-style penalty, a score centred on 0) where the recipe would lose it without a
word: select.min_reward=0 dropping it under reward.kind=direct, the ratio clipping it to 0."""
from __future__ import annotations

from pipeline.cli.main import main


def test_a_dropped_or_clipped_negative_reward_is_said(tmp_path, tiny_config, caplog, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rw.py").write_text("def centred(completions, **kw):\n"
                                    "    return [(-1.0) ** i * 0.5 for i, _ in enumerate(completions)]\n")
    args = [*tiny_config, "judge.kind=python", f"judge.python.function={tmp_path / 'rw.py'}:centred",
            "teacher.kind=none", "update.teacher_sft_coef=0", "reward.kind=direct"]
    for stage in ("prompts", "sample", "teacher", "judge", "reward"):
        assert main(["epoch", "1", "--only", stage, *args]) == 0
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--only", "select", *args]) == 0
    assert "answers rewarded below select.min_reward=0 (down to -0.5) were dropped before the advantages" in caplog.text
    assert "select.min_reward=-1e9 keeps all" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):   # kept, as TRL does: nothing to say
        assert main(["epoch", "1", "--only", "select", *args, "select.min_reward=-1e9"]) == 0
    assert "were dropped" not in caplog.text


def test_the_ratio_clipping_a_negative_score_is_said(tmp_path, caplog):
    """The reward stage on a judge table whose student scores go below 0 (a reward function's penalty):
    the ratio clips them to 0, and says so."""
    from pipeline.config.file import load_config
    from pipeline.stages import Ctx
    from pipeline.stages.reward import run
    from pipeline.store.tables import load_table, save_table
    judged = [{"role": "student", "problem_id": "p", "sample_idx": i, "value": v, "breakdown": {}}
              for i, v in enumerate((-0.5, 0.25, 1.0))] + [{"role": "teacher", "problem_id": "p", "sample_idx": -1,
                                                            "value": 1.0, "breakdown": {}}]
    save_table(judged, tmp_path / "judge", json_cols=("breakdown",))
    save_table([{"problem_id": "p", "sample_idx": i, "length": 10} for i in range(3)], tmp_path / "sample")
    cfg = load_config(None, [f"run.dir={tmp_path}/runs"])
    ctx = Ctx(cfg=cfg, epoch=1, out=tmp_path / "out", inputs={"judge": tmp_path / "judge", "sample": tmp_path / "sample"},
              run_dir=tmp_path / "runs")
    with caplog.at_level("WARNING", logger="rlaif"):
        run(ctx)
    assert [r["reward"] for r in load_table(tmp_path / "out")][0] == 0.0
    assert "reward.kind=ratio: 1 of 3 answers scored below 0 (down to -0.5), and their reward is clipped" in caplog.text
