"""`rlaif epoch N --dry-run` as a new user budgets a run with it: every epoch the command runs is
counted and labelled (the warm-start's teacher answers included), the sum over them is given, a
missing `--only` input fails as the run does, and the data the run reads is summarised."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config

CLAUDE = ["teacher.kind=anthropic", "teacher.model=claude-haiku-4-5", "judge.kind=anthropic",
          "judge.model=claude-haiku-4-5"]


def _blocks(out: str) -> dict[int, list[str]]:
    """The dry run's lines of each epoch, by epoch, from its '  epoch K...' headers."""
    blocks: dict[int, list[str]] = {}
    for line in out.splitlines():
        if m := re.match(r"  epoch (\d+)[:,]", line):
            blocks[int(m.group(1))] = [line]
        elif line.startswith("    ") and blocks:
            blocks[max(blocks)].append(line)
    return blocks


def _figures(line: str) -> tuple[int, int, float, float]:
    """(missing, of, ~$live, ~$batch) of a teacher or judge line."""
    m = re.search(r": (\d+) of (\d+) (?:answers|judgements) missing.*?~\$([\d.]+) live, ~\$([\d.]+) batch", line)
    assert m, line
    return int(m[1]), int(m[2]), float(m[3]), float(m[4])


def test_a_four_epoch_dry_run_counts_and_prices_every_epoch_and_sums_them(tmp_path, capsys, monkeypatch):
    """`rlaif epoch 4 --dry-run` with Claude as teacher and judge: the warm-start's teacher answers, then
    each of epochs 1 to 4 under its own header (the later ones' prompts are the seeded walk's, known before
    epoch 1 runs), and the total the user budgets with. The teacher answers each problem once."""
    from pipeline.stages.problems import choose_prompts, warm_start_problems
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    over = [f"run.dir={tmp_path / 'runs'}", *CLAUDE]
    assert main(["epoch", "4", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    blocks = _blocks(out)
    assert sorted(blocks) == [0, 1, 2, 3, 4], out
    cfg = load_config("config.yaml", over)
    warm = len(warm_start_problems(cfg))
    teacher = {n: _figures(next(x for x in b if "teacher (anthropic" in x)) for n, b in blocks.items()}
    assert teacher[0][:2] == (warm, warm) and teacher[0][2] > 0
    assert all(teacher[n][:2] == (0, cfg.data.prompts_per_epoch) for n in (1, 2, 3, 4))  # epoch 0 asked for them
    assert "asked for first by epoch 0" in blocks[3][1]
    assert not [x for x in blocks[0] if "judge" in x]                  # the warm-start judges nothing
    judged, seen = {}, set()
    for n in (1, 2, 3, 4):
        ids = choose_prompts(cfg, tmp_path / "runs" / "default", n)[0]
        # every sampled answer, and the teacher's answers no earlier epoch judged
        judged[n] = len(ids) * cfg.sample.num_samples + len(set(ids) - seen)
        seen |= set(ids)
        line = next(x for x in blocks[n] if "judge (anthropic" in x)
        assert _figures(line)[0] == judged[n] and "at most (samples not drawn yet)" in line, line
    assert "known now: curriculum.strategy=none" in blocks[2][0]
    (total,) = [x for x in out.splitlines() if x.startswith("  epochs 0 to 4 in all:")]
    assert (f"teacher (anthropic claude-haiku-4-5) {warm} answers, judge (anthropic claude-haiku-4-5) "
            f"{sum(judged.values())} judgements (upper bounds)") in total
    live, batch = (float(x) for x in re.findall(r"~\$([\d.]+)", total))
    each = [_figures(x) for b in blocks.values() for x in b if "anthropic claude" in x]
    assert live == pytest.approx(sum(f[2] for f in each), abs=1e-3)
    assert batch == pytest.approx(sum(f[3] for f in each), abs=1e-3) and batch == pytest.approx(live / 2, abs=1e-3)
    assert not (tmp_path / "runs").exists()


def test_a_curriculum_that_reads_scores_gives_an_upper_bound(tmp_path, capsys, monkeypatch):
    """curriculum.strategy=adaptive picks a later epoch's prompts from scores not known yet: counted as
    problems not asked for yet, said to be an upper bound; the teacher still answers each problem once."""
    from pipeline.stages.problems import rl_problems
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    over = [f"run.dir={tmp_path / 'runs'}", "teacher.kind=openai", "teacher.model=gpt-5-mini",
            "update.warm_start=false", "curriculum.strategy=adaptive"]
    assert main(["epoch", "5", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    blocks = _blocks(out)
    assert sorted(blocks) == [1, 2, 3, 4, 5]
    assert all("upper bound" in blocks[n][0] for n in (2, 3, 4, 5)) and "upper bound" not in blocks[1][0]
    asked = [_figures(blocks[n][1])[0] for n in (1, 2, 3, 4, 5)]
    k, pool = load_config("config.yaml", over).data.prompts_per_epoch, len(rl_problems(load_config("config.yaml", over)))
    assert sum(asked) == min(5 * k, pool) and asked[0] == k, asked
    assert f"teacher (openai gpt-5-mini) {min(5 * k, pool)} answers" in out


def test_the_warm_start_asks_the_teacher_for_every_training_problem(tmp_path, capsys, monkeypatch, caplog):
    """Epoch 0 needs a teacher answer to each training problem of data.difficulties, not epoch 1's
    prompts; `rlaif epoch 0 --dry-run` says so without warning about data.prompts_per_epoch, which it
    does not use; the reference teacher's counts are said too (no call, no cost)."""
    from pipeline.stages.problems import warm_start_problems
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    over = [f"run.dir={tmp_path / 'runs'}", "teacher.kind=openai", "teacher.model=gpt-5-mini"]
    warm = len(warm_start_problems(load_config("config.yaml", over)))
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    blocks = _blocks(capsys.readouterr().out)
    assert sorted(blocks) == [0, 1]
    assert f"epoch 0, the supervised warm-start: {warm} problems" in blocks[0][0]
    assert f"teacher (openai gpt-5-mini): {warm} of {warm} answers missing from the cache" in blocks[0][1]
    assert "0 of 24 answers missing from the cache by then (24 of them asked for first by epoch 0)" in blocks[1][1]
    with caplog.at_level("WARNING", logger="rlaif"):   # more prompts an epoch than problems: epoch 0 takes them all
        assert main(["epoch", "0", "--dry-run", *over, "data.prompts_per_epoch=500"]) == 0
    blocks = _blocks(capsys.readouterr().out)
    assert sorted(blocks) == [0] and f"{warm} of {warm} answers missing" in blocks[0][1]
    assert "data.prompts_per_epoch" not in caplog.text
    assert main(["epoch", "0", "--dry-run", f"run.dir={tmp_path / 'runs'}"]) == 0
    assert f"teacher (reference): {warm} answers, the dataset's solutions, nothing called" in capsys.readouterr().out


def test_only_a_stage_whose_input_is_not_done_fails_in_the_dry_run_as_in_the_run(tmp_path, capsys):
    """`rlaif epoch 1 --only judge` on a run with nothing on disk stops on its missing input; its dry
    run says the same, with the same exit code, instead of listing stages 'to run'."""
    over = [f"run.dir={tmp_path / 'runs'}", "update.warm_start=false"]
    said = []
    for dry in (["--dry-run"], []):
        assert main(["epoch", "1", "--only", "judge", *dry, *over]) == 2
        captured = capsys.readouterr()
        said.append(captured.err)
        assert "to run" not in captured.out
    assert said[0] == said[1] and "--only judge: its input stage prompts of epoch 1 is not done" in said[0], said
    assert main(["epoch", "1", "--only", "prompts", "--dry-run", *over]) == 0   # it needs nothing
    out = capsys.readouterr().out
    assert "prompts  to run" in out
    # --only prompts calls no teacher and no judge: none is priced
    assert main(["epoch", "1", "--only", "prompts", "--dry-run", *over, *CLAUDE[:2]]) == 0
    out = capsys.readouterr().out
    assert "teacher (anthropic" not in out and "judge (" not in out and "$" not in out, out


def test_a_teacher_answer_not_written_yet_is_priced_at_its_full_length(tmp_path, capsys, monkeypatch):
    """With an API teacher whose answers are not in the cache, the judge's lines price each teacher
    answer (judged, and shown to the judge as the reference) at teacher.max_tokens: the estimate grows
    with it, as the real judgements would."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    costs = []
    for tokens in (64, 1024):
        over = [f"run.dir={tmp_path / 'runs'}", "update.warm_start=false", *CLAUDE, f"teacher.max_tokens={tokens}"]
        assert main(["epoch", "1", "--dry-run", *over]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if "judge (anthropic" in x)
        costs.append(_figures(line)[2])
    assert costs[1] > costs[0] * 1.2, costs


def _mine(path, per_tier: int):
    """A file of the user's: per_tier shipped problems of each difficulty, under ids of its own."""
    from data.loaders import load_builtin
    rows = [dataclasses.asdict(p) for d in ("easy", "medium", "hard")
            for p in [q for q in load_builtin("train") if q.difficulty == d][:per_tier]]
    path.write_text("".join(json.dumps({**r, "id": f"mine-{i:03d}"}) + "\n" for i, r in enumerate(rows)))
    return path


@pytest.mark.parametrize("held", ["0", "auto"])
def test_the_dry_run_says_what_data_the_run_reads(tmp_path, capsys, held):
    """One line on data.source (its rows, the validation split, what data.difficulties leaves out) and
    one on what RL, the warm-start and the eval use, counted by the loaders the stages use."""
    from data.loaders import split_validation
    from pipeline.stages.problems import eval_problems, source_problems, training_problems
    src = _mine(tmp_path / "mine.jsonl", 4)
    over = [f"run.dir={tmp_path / 'runs'}", f"data.source={src}", f"data.validation_size={held}",
            "eval.sources=[builtin:heldout]", "data.prompts_per_epoch=5"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    cfg = load_config("config.yaml", over)
    rows = source_problems(cfg, str(src))
    train, val = split_validation(rows, cfg.data.validation_size)
    kept = training_problems(cfg)
    hard = sum(p.difficulty == "hard" for p in train)
    (data,) = [x for x in out.splitlines() if x.startswith("data: ")]
    assert data.startswith(f"data: 12 problems in {src}; ") and len(kept) == len(train) - hard
    unscored = " and scored by no eval (eval.sources names no validation; data.validation_size=0 trains on them)"
    assert (f"{len(val) or 'none'} held out for validation (data.validation_size={held}){unscored if val else ''}; "
            f"{len(kept)} of "
            f"{'the other ' if val else ''}{len(train)} kept by data.difficulties=[easy, medium] ({hard} hard left out)"
            ) in data, data
    assert bool(val) == (held == "auto")
    used = out.splitlines()[out.splitlines().index(data) + 1]
    heldout = len(eval_problems(cfg))
    assert used == (f"  RL: 5 prompts an epoch from {len(kept)} problems; warm-start: {len(kept)} problems "
                    f"(training references: all {len(kept)} pass their own tests); "
                    f"eval: {heldout} problems (builtin:heldout)"), used
    if held == "0":   # the eval's default source, the validation carve, holds nothing: said so, not eval.sources=[]
        assert main(["epoch", "1", "--dry-run", *[o for o in over if not o.startswith("eval.sources")]]) == 0
        assert "eval: none: data.validation_size=0 holds none of data.source's problems out, the ones it scores by " \
            "default (data.validation_size=N, or eval.sources=[a held-out file], gives it problems)" in capsys.readouterr().out


@pytest.mark.slow
def test_after_a_finished_epoch_the_dry_run_counts_the_epochs_still_to_run(tiny_config, capsys):
    """Epoch 1 finished (the tiny model, 3 prompts x 3 answers): `rlaif epoch 3 --dry-run` counts
    epochs 2 and 3 only, the teacher answers epoch 1 judged coming from the cache."""
    assert main(["epoch", "1", *tiny_config]) == 0
    capsys.readouterr()
    assert main(["epoch", "3", "--dry-run", *tiny_config]) == 0
    out = capsys.readouterr().out
    blocks = _blocks(out)
    assert sorted(blocks) == [2, 3], out
    judge = [next(x for x in blocks[n] if "judge (execution)" in x) for n in (2, 3)]
    assert all(re.search(r": \d+ of 12 judgements missing at most", x) for x in judge), judge
    assert "  epochs 2 to 3 in all: judge (execution)" in out and "eval.patience" not in out
    assert main(["epoch", "3", "--dry-run", *tiny_config, "eval.patience=1"]) == 0
    assert "  (counting every epoch: eval.patience=1 stops the run earlier if eval/score stops improving" \
        in capsys.readouterr().out
    # an update-only rerun whose samples this config would remake: its dry run refuses as the run does
    said = []
    for dry in (["--dry-run"], []):
        assert main(["update", "1", *dry, *tiny_config, "sample.temperature=0.9"]) == 2
        said.append(capsys.readouterr().err)
    assert said[0] == said[1] and "epoch 1 was made with other settings than these (made with -> now): sample.temperature" in said[0], said


def test_a_dry_run_without_the_api_key_says_so_and_prices_the_run_the_real_run_refuses(tmp_path, capsys, monkeypatch):
    """A cost known before the key is: the dry run says the real run would stop on the missing key, then
    prices it; the real run still refuses before any work."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    over = [f"run.dir={tmp_path / 'runs'}", *CLAUDE]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert "would stop here, before any work: teacher.kind=anthropic calls the API, and ANTHROPIC_API_KEY is not set" in out
    assert re.search(r"judge \(anthropic claude-haiku-4-5\): \d+ of \d+ judgements missing .*~\$[\d.]+ live", out), out
    assert main(["epoch", "1", *over]) == 2
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err and not (tmp_path / "runs").exists()
    # a judge.mix's API component is named as the mix's, not as a judge.kind the config never set
    mix = [f"run.dir={tmp_path / 'mix'}", "judge.kind=mix", "judge.mix={execution: 0.65, anthropic: 0.35}",
           "judge.model=claude-haiku-4-5", "update.warm_start=false"]
    assert main(["epoch", "1", "--dry-run", *mix]) == 0
    assert "judge.mix's anthropic component calls the API, and ANTHROPIC_API_KEY is not set" in capsys.readouterr().out


def test_only_a_stage_whose_input_was_made_otherwise_says_which_setting(epoch1_config, tmp_path, monkeypatch, capsys):
    """--only logprobs under another sampling temperature: its input sample is done, but with other settings;
    the error names the setting (made with -> now) instead of calling the stage not done."""
    monkeypatch.chdir(tmp_path)   # the built-in defaults the run was made with, not the checkout's config.yaml
    assert main(["epoch", "1", "--only", "logprobs", *epoch1_config, "sample.temperature=0.5"]) == 2
    err = capsys.readouterr().err
    assert "--only logprobs: its input stage sample of epoch 1 was made with other settings" in err, err
    assert "sample.temperature 0.7 -> 0.5" in err and "not done" not in err, err
