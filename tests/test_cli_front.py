"""The first commands a new user types, as they type them: every --help, --version, the mistakes
that must fail before any work (on stderr, exit code 2, saying what to do), one set of defaults,
and the eval on the user's own data."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli.main import build_parser, main
from pipeline.config.file import load_config

BIN = Path(sys.executable).parent / "rlaif"   # the console script `pip install -e .` puts beside python


def commands() -> list[list[str]]:
    """Every command and sub-command of the parser, as argv prefixes."""
    out = []

    def walk(parser, prefix):
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, sub in action.choices.items():
                    out.append(prefix + [name])
                    walk(sub, prefix + [name])
    walk(build_parser(), [])
    return out


def test_every_commands_help_works_as_typed():
    """`rlaif --help`, `rlaif -h` and `rlaif COMMAND --help` for every command, through the installed
    console script (a literal % in a help text once made argparse crash on all of them)."""
    assert BIN.exists(), f"{BIN} missing: `make setup` installs the rlaif command"
    top = subprocess.run([str(BIN), "--help"], capture_output=True, text=True, timeout=60)
    assert top.returncode == 0 and "epoch" in top.stdout and "compare-evals" in top.stdout, top.stderr
    assert subprocess.run([str(BIN), "-h"], capture_output=True, text=True, timeout=60).returncode == 0
    cmds = commands()
    assert {"epoch", "update", "sweep", "replay", "eval", "compare", "compare-evals", "promote", "judge", "status",
            "report", "samples", "metrics", "config", "cache"} <= {c[0] for c in cmds}
    for argv in cmds:   # in-process: 20 interpreter start-ups would cost the suite seconds for nothing more
        with pytest.raises(SystemExit) as e:
            main(argv + ["--help"])
        assert e.value.code == 0, argv
    v = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, timeout=60)
    assert v.returncode == 0 and v.stdout.startswith("rlaif 0.")


def test_every_command_says_what_it_does_and_what_it_needs(capsys):
    """Each command's --help has a description beside its usage line, every positional a help text; a
    command typed without its arguments names what is missing, not the optional overrides nor argparse's
    internal names."""
    for argv in commands():
        with pytest.raises(SystemExit):
            main(argv + ["--help"])
        out = capsys.readouterr().out
        body = out.split("\n\n")
        assert len(body) > 2 and not body[1].startswith(("positional", "options")), f"{argv}: no description\n{out}"
        pos = out.split("positional arguments:\n")[1].split("\n\n")[0] if "positional arguments:" in out else ""
        assert all(len(line.split(None, 1)) == 2 for line in pos.splitlines()   # ({show}: its sub-commands follow)
                   if not line.startswith("    ") and not line.lstrip().startswith("{")), \
            f"{argv}: a positional without help\n{pos}"
    for argv, missing in ((["epoch"], "n"), (["eval"], "n"), (["cache", "export"], "file"),
                          (["config"], "{show}"), (["cache"], "{stats,export,import}")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.rstrip().endswith(f"the following arguments are required: {missing}"), err


def test_a_reader_that_goes_away_gets_no_traceback():
    """`rlaif config show --doc | head -1`: the pipe closes under the writer; the command ends quietly."""
    for _ in range(3):
        p = subprocess.Popen([str(BIN), "config", "show", "--doc"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.readline()
        p.stdout.close()   # what `head -1` does once it has its line
        err = p.stderr.read().decode()
        p.wait(timeout=60)
        assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_only_lists_the_stages(capsys):
    with pytest.raises(SystemExit) as e:
        main(["epoch", "1", "--only", "smaple"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "sample" in err and "logprobs" in err and "update" in err
    with pytest.raises(SystemExit):
        main(["epoch", "--help"])
    assert "one of prompts, sample, teacher, judge, reward, select, logprobs, update, eval" in " ".join(capsys.readouterr().out.split())


def test_config_after_the_command(tmp_path, capsys):
    cfg = tmp_path / "my.yaml"
    cfg.write_text("run:\n  name: mine\n")
    assert main(["config", "show", "--config", str(cfg)]) == 0
    assert "name: mine" in capsys.readouterr().out
    assert main(["--config", str(cfg), "config", "show"]) == 0
    assert "name: mine" in capsys.readouterr().out
    assert main(["config", "--config", str(cfg), "show"]) == 0                  # between a group and its command
    assert "name: mine" in capsys.readouterr().out
    assert main(["cache", "--config", str(cfg), "stats", f"judge.cache_dir={tmp_path / 'none'}"]) == 2
    assert f"no judge cache at {tmp_path / 'none'}" in capsys.readouterr().err
    assert main(["config", "show", "--config", str(tmp_path / "none.yaml")]) == 2
    assert "none.yaml does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit):   # twice: refused with the command's usage (argparse kept the last one, silently)
        main(["--config", str(cfg), "epoch", "1", "--config=b.yaml"])
    assert re.search(r"usage: rlaif epoch .*--config given 2 times \(\S+my.yaml, b.yaml\)", capsys.readouterr().err, re.S)


def test_a_misspelled_key_gets_did_you_mean(capsys):
    assert main(["config", "show", "update.lrr=1e-4"]) == 2
    captured = capsys.readouterr()
    assert "update.lrr: unknown key (did you mean update.lr?)" in captured.err and not captured.out
    assert main(["config", "show", "sampl.temperature=0.5"]) == 2
    assert "did you mean sample?" in capsys.readouterr().err


@pytest.mark.parametrize("typed,want", [
    ("update.beta=0.1", "update.beta: unknown key (TRL's beta is update.kl_coef here)"),
    ("update.epsilon=0.3", "update.epsilon: unknown key (TRL's epsilon is update.clip_eps here)"),
    ("update.learning_rate=1e-5", "update.learning_rate: unknown key (TRL's learning_rate is update.lr here)"),
    ("sample.num_generations=4", "sample.num_generations: unknown key (TRL's num_generations is sample.num_samples here)"),
    ("update.num_iterations=2", "update.num_iterations: unknown key (TRL's num_iterations is update.epochs here)"),
    ("select.scale_rewards=none", "(got 'none'); write select.advantage=mean"),
    ("update.max_completion_length=64", "(TRL's max_completion_length is sample.max_new_tokens here)")])
def test_trls_names_typed_as_keys_get_the_key_to_use(typed, want):
    """As typed: one error on stderr naming the key to use, exit 2."""
    r = subprocess.run([str(BIN), "config", "show", typed], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and want in r.stderr and not r.stdout, r.stderr


def test_the_trl_table_names_real_keys_and_fills_the_docs():
    from pipeline.config import trl_names
    from pipeline.config.file import describe
    keys = {k for k, _, _ in describe()}
    assert set(trl_names.names().values()) <= keys
    assert {"beta", "epsilon", "learning_rate", "num_generations", "num_iterations"} <= set(trl_names.names())
    page = (Path(__file__).resolve().parents[1] / "docs/guides/from-trl.md").read_text()
    assert trl_names.table() in page


@pytest.mark.parametrize("argv", [["report"], ["status"], ["compare", "99"], ["samples", "1"]])
def test_reading_a_run_that_does_not_exist_fails_and_creates_nothing(tmp_path, capsys, argv, monkeypatch):
    assert main(argv + [f"run.dir={tmp_path}", "run.name=nope"]) == 2
    captured = capsys.readouterr()
    assert f"no run at {tmp_path / 'nope'}" in captured.err and f"`rlaif epoch 1 run.dir={tmp_path} run.name=nope`" in captured.err
    assert not (tmp_path / "nope").exists() and not captured.out
    monkeypatch.chdir(tmp_path)   # the command that starts it is given the same --config; a relative run.dir says from where
    (tmp_path / "my.yaml").write_text("run:\n  dir: rel\n")
    assert main(argv + ["--config", "my.yaml"]) == 2
    assert f"(run.dir=rel, read from the working directory {tmp_path}; run.name=default): start it with " \
        "`rlaif epoch 1 --config=my.yaml`" in capsys.readouterr().err


def test_compare_of_an_epoch_without_an_update_fails_on_stderr(tmp_path, capsys):
    (tmp_path / "r").mkdir()
    assert main(["compare", "99", f"run.dir={tmp_path}", "run.name=r"]) == 2
    captured = capsys.readouterr()
    assert "epoch 99" in captured.err and "rlaif epoch 99" in captured.err and not captured.out


def test_a_pool_smaller_than_an_epoch_is_refused(capsys):
    assert main(["config", "show", "data.pool_size=8", "data.prompts_per_epoch=32"]) == 2
    err = capsys.readouterr().err
    assert "data.pool_size=8 is smaller than data.prompts_per_epoch=32" in err and "data.pool_size=0" in err


def test_one_set_of_defaults():
    """Without a config file a user gets the recommended values: config.yaml sets only what the
    embedded default needs (24 prompts an epoch of the easy and medium problems, the warm-start)."""
    bare, shipped = load_config(None).model_dump(), load_config("config.yaml").model_dump()
    differ = {f"{s}.{k}" for s in bare for k in bare[s] if bare[s][k] != shipped[s][k]}
    assert differ == {"data.prompts_per_epoch", "data.difficulties", "update.warm_start"}


def test_the_eval_scores_a_held_out_part_of_the_users_data(tmp_path):
    from data.loaders import load_builtin
    import dataclasses
    rows = [{**dataclasses.asdict(p), "id": f"mine-{i:03d}"} for i, p in enumerate(load_builtin("train")[:40])]
    src = tmp_path / "mine.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from pipeline.stages.problems import training_problems, validation_problems
    from pipeline.stages.eval import eval_problems
    cfg = load_config(None, [f"data.source={src}"])
    assert cfg.eval.sources == ["validation"] and cfg.data.validation_size == "auto"
    held = {p.id for _, p in eval_problems(cfg)}
    assert len(held) == 8 and held == {p.id for p in validation_problems(cfg)}   # min(10, 40 // 5)
    assert not held & {p.id for p in training_problems(cfg)}
    assert load_config(None, [f"data.source={src}", "run.seed=3"]).data.validation_size == "auto"
    assert {p.id for _, p in eval_problems(load_config(None, [f"data.source={src}", "run.seed=3"]))} == held
    # the built-in sets: their own held-out problems, nothing carved out of training
    assert load_config(None).eval.sources == ["builtin:heldout"] and load_config(None).data.validation_size == 0
    assert load_config(None, ["data.source=ocaml:train"]).eval.sources == ["ocaml:heldout"]
    # opting in to the built-in held-out set on your own data, or out of any eval
    assert load_config(None, [f"data.source={src}", "eval.sources=[builtin:heldout]"]).eval.sources == ["builtin:heldout"]
    assert load_config(None, [f"data.source={src}", "data.validation_size=0"]).eval.sources == []


@pytest.mark.parametrize("kind,model,env", [("anthropic", "claude-haiku-4-5", "ANTHROPIC_API_KEY"),
                                             ("openai", "gpt-5-mini", "OPENAI_API_KEY")])
def test_an_api_judge_without_a_key_fails_before_any_work(tmp_path, capsys, monkeypatch, kind, model, env):
    """(The OpenAI SDK refuses to build a client without a key: that was a traceback, not this.) A dry run
    says so and goes on to the cost (a cost known before the key)."""
    monkeypatch.delenv(env, raising=False)
    over = [f"run.dir={tmp_path}", f"judge.kind={kind}", f"judge.model={model}", "update.warm_start=false"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out, err = capsys.readouterr()
    assert f"epoch 1 would stop here, before any work: judge.kind={kind} calls the API, and {env} is not set" in out
    assert f"judge ({kind} {model}):" in out and "Traceback" not in err
    assert main(["epoch", "1", *over]) == 2
    err = capsys.readouterr().err
    assert f"{env} is not set" in err and "judge.mode=replay" in err and "Traceback" not in err
    assert not list((tmp_path / "default").glob("epoch-*/sample"))  # nothing sampled


def test_an_api_judge_without_a_price_fails_before_any_work(tmp_path, capsys, monkeypatch):
    over = [f"run.dir={tmp_path}", "judge.kind=anthropic", "update.warm_start=false"]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert main(["epoch", "1", "--dry-run", *over, "judge.model=claude-unpriced-9"]) == 2
    err = capsys.readouterr().err
    assert "no price for model 'claude-unpriced-9'" in err and "judge.prices" in err
    assert not list((tmp_path / "default").glob("epoch-*/sample"))  # nothing sampled


def test_dry_run_checks_the_device(tmp_path, capsys):
    import torch
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: cuda:0 exists")
    assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path}", "run.device=cuda:0"]) == 2
    assert "cuda" in capsys.readouterr().err


def test_config_show_and_the_epoch_name_the_config_file_read(tmp_path, capsys, monkeypatch):
    import yaml
    cfg = tmp_path / "my.yaml"
    cfg.write_text("run:\n  name: mine\n")
    assert main(["config", "show", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"# config file: {cfg}"
    assert yaml.safe_load(out)["run"]["name"] == "mine"  # still a config file: the line is a YAML comment
    monkeypatch.chdir(tmp_path)  # no ./config.yaml here
    assert main(["config", "show"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "# no config file: built-in defaults"
    assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}"]) == 0
    assert "no config file: built-in defaults" in capsys.readouterr().out.splitlines()
    assert main(["--config", str(cfg), "epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}"]) == 0
    assert f"config file: {cfg}" in capsys.readouterr().out.splitlines()


def test_the_config_help_names_what_the_built_in_defaults_change():
    """--config's help says how the built-in defaults differ from the shipped config.yaml (the keys
    test_one_set_of_defaults finds), not that they are the same."""
    from pipeline.cli.main import CONFIG_HELP
    bare, shipped = load_config(None).model_dump(), load_config("config.yaml").model_dump()
    differ = {f"{s}.{k}" for s in bare for k in bare[s] if bare[s][k] != shipped[s][k]}
    assert differ and all(key in CONFIG_HELP for key in differ), CONFIG_HELP
    assert "the same" not in CONFIG_HELP


def _problems_file(path: Path, n: int) -> Path:
    from data.loaders import load_builtin
    import dataclasses
    rows = [{**dataclasses.asdict(p), "id": f"mine-{i:03d}"} for i, p in enumerate(load_builtin("train")[:n])]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_fewer_problems_than_prompts_per_epoch_is_said(tmp_path, caplog):
    """data.prompts_per_epoch above the problems left for training: the epoch trains on all of them,
    and a warning says so (once per epoch, dry runs included) instead of a silent cap."""
    from curriculum.config import CurriculumConfig
    from curriculum.schedule import schedule
    from data.loaders import load_builtin
    problems = load_builtin("train")[:3]
    with caplog.at_level("WARNING", logger="rlaif"):
        assert len(schedule(problems, {}, {}, 1, 5, CurriculumConfig(), seed=0)) == 3
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "data.prompts_per_epoch=5" in warning and "only 3 problems" in warning and "trains on all 3" in warning
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):
        schedule(problems, {}, {}, 1, 3, CurriculumConfig(), seed=0)
    assert not caplog.records  # enough problems: no warning
    src = _problems_file(tmp_path / "mine.jsonl", 10)  # 2 of them held out (data.validation_size=auto)
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'runs'}", f"data.source={src}",
                     "data.prompts_per_epoch=20", "data.pool_size=0", "data.difficulties=[easy,medium,hard]",
                     "update.warm_start=false"]) == 0
    warnings = [r.getMessage() for r in caplog.records if "data.prompts_per_epoch" in r.getMessage()]
    assert len(warnings) == 1 and "data.prompts_per_epoch=20 but only 8 problems" in warnings[0], warnings


def _noop(ctx):
    pass


def _fake_runner(cfg):
    """The real Runner over stages that do nothing: the epoch loop and its printing, in a second."""
    from pipeline.run.runner import Runner
    from pipeline.stages import POLICY, Stage
    stages = [Stage(n, "1", (), (), _noop) for n in ("prompts", "sample", "teacher", "judge", "reward", "select",
                                                       "logprobs")]
    stages += [Stage("update", "1", (), ("select", POLICY), _noop, variant=True),
               Stage("eval", "1", (), ("update",), _noop, variant=True)]
    r = Runner(cfg, stages=stages)
    r.warm_start = [Stage("prompts", "1", (), (), _noop), Stage("teacher", "1", (), ("prompts",), _noop),
                    Stage("update", "1", (), ("prompts", "teacher"), _noop, variant=True)]
    return r


def test_a_multi_epoch_run_prints_one_line_per_epoch(tmp_path, capsys, monkeypatch):
    """`rlaif epoch 3` on a fresh run with the warm-start: one line per epoch (the warm-start's
    included, epoch 1 named once), no stage's running/done lines; --verbose shows those too."""
    import re
    monkeypatch.setattr("pipeline.cli.common.open_runner", _fake_runner)
    over = [f"run.dir={tmp_path}", "update.warm_start=true"]
    assert main(["epoch", "3", *over]) == 0
    lines = capsys.readouterr().out.splitlines()
    epochs = [line for line in lines if line.startswith("epoch ")]
    assert [re.match(r"epoch (\d)", line).group(1) for line in epochs] == ["0", "1", "2", "3"], lines
    assert epochs[0].startswith("epoch 0 (the supervised warm-start) done in ") and "(3 stages ran, 0 reused)" in epochs[0]
    assert all(re.match(rf"epoch {n} done in \S+ \(9 stages ran, 0 reused\): ", epochs[n]) for n in (1, 2, 3)), epochs
    assert not [line for line in lines if " running " in line or re.search(r"\bdone +\d", line)], lines
    # a rerun: every stage reused, still one line each
    assert main(["epoch", "3", *over]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum("done (every stage reused)" in line for line in lines) == 4 and not [l for l in lines if "reused   " in l]
    # --verbose (or run.log_level=DEBUG): every stage's lines under a header per epoch, epoch 1's header once
    for flag in (["--verbose"], ["run.log_level=DEBUG", "run.name=fresh"]):
        assert main(["epoch", "4", *over, *flag]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines.count("epoch 1") == 1 and lines.count("epoch 4") == 1, lines
        assert "  prompts  running  epoch-004/prompts" in lines and any(re.match(r"epoch 4 done in ", l) for l in lines)
        assert any(l.startswith("  update   reused   epoch-001/update-") for l in lines) == (flag == ["--verbose"])


def test_progress_bars_clear_their_line_in_a_multi_epoch_run():
    from tqdm import tqdm
    import io
    from pipeline.cli.common import transient_bars
    with transient_bars():
        bar = tqdm(total=2, file=io.StringIO())
        assert bar.leave is False
        bar.close()
    bar = tqdm(total=2, file=io.StringIO())
    assert bar.leave is True  # only inside the epoch loop
    bar.close()


CODE = {"python harness": "exec-3"}


def _code(cfg):
    return dict(CODE)


def test_a_stage_reused_from_other_judge_code_is_said_not_remade(tmp_path, caplog, monkeypatch):
    """The judges' code versions (Stage.code: a harness, the rubric) go into each manifest, not into the
    fingerprint: a finished run with an older harness is reused as it stands (no retraining), and the
    reuse says which version moved and how to remake it."""
    from pipeline.run.runner import Runner
    from pipeline.stages import Stage
    cfg = load_config(None, [f"run.dir={tmp_path}"])
    stages = [Stage("prompts", "1", (), (), _noop),
              Stage("judge", "1", (), ("prompts",), _noop, code="tests.test_cli_front:_code"),
              Stage("reward", "1", (), ("judge",), _noop)]
    Runner(cfg, stages=stages).run_epoch(1)
    with caplog.at_level("WARNING", logger="rlaif"):
        Runner(cfg, stages=stages).run_epoch(1)
    assert "other code" not in caplog.text
    monkeypatch.setitem(CODE, "python harness", "exec-4")
    with caplog.at_level("WARNING", logger="rlaif"):
        res = Runner(cfg, stages=stages).run_epoch(1)
    assert res["judge"]["code"] == {"python harness": "exec-3"}       # reused, not remade
    assert "epoch 1 judge: reused, but made by other code than this version's (python harness exec-3 -> exec-4)" \
        in caplog.text and "`rlaif epoch 1 --force`" in caplog.text, caplog.text


def _skipping(ctx):
    ctx.figures = {"judge/skipped": 3}


def test_a_stage_with_holes_reused_by_a_live_run_is_said(tmp_path, caplog):
    """A judge stage an offline replay left with unscored answers (judge.skip_missing) has the live run's
    fingerprint: reusing it says how many it lacks and how to ask for them; a replay reusing it does not."""
    from pipeline.run.runner import Runner
    from pipeline.stages import Stage
    stages = [Stage("prompts", "1", (), (), _noop), Stage("judge", "1", (), ("prompts",), _skipping)]
    replay = load_config(None, [f"run.dir={tmp_path}", "judge.mode=replay", "judge.skip_missing=true"])
    Runner(replay, stages=stages).run_epoch(1)
    with caplog.at_level("WARNING", logger="rlaif"):
        Runner(replay, stages=stages).run_epoch(1)
    assert "left out" not in caplog.text
    with caplog.at_level("WARNING", logger="rlaif"):
        Runner(load_config(None, [f"run.dir={tmp_path}"]), stages=stages).run_epoch(1)
    assert "epoch 1 judge: reused with 3 answers an earlier run left out" in caplog.text
    assert "`rlaif epoch 1 --force` asks for them" in caplog.text
