"""The commands the docs tell a user to type, run as the docs spell them (each test names its doc
lines), on a finished fake run (tests.test_report.build_fake_run: no model is trained), checking
what each prints that the docs promise: `rlaif metrics`, `rlaif samples`, `--config FILE` after the
command, `compare-evals --confidence`, `rlaif judge` on stdin and on an OCaml answer, and the make
targets of update variants and sweeps."""
from __future__ import annotations

import html
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pipeline.cli.main import main
from tests.test_report import _eval_dir, build_fake_run

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent / "rlaif"   # the console script `pip install -e .` puts beside python


def documented(page: str, text: str) -> str:
    """`text` as `page` spells it (the test fails if the docs change the spelling); returned as is."""
    assert text in (ROOT / page).read_text(), f"{page} no longer shows {text!r}"
    return text


def argv(line: str) -> list[str]:
    """A typed `rlaif ...` line as main() receives it."""
    words = shlex.split(line)
    assert words[0] == "rlaif", line
    return words[1:]


def typed(line: str, capsys) -> str:
    """Run a typed `rlaif ...` line in-process (as tests/test_cli_read.py does); its stdout, exit code 0."""
    capsys.readouterr()
    code = main(argv(line))
    out, err = capsys.readouterr()
    assert code == 0, f"{line}: exit {code}\n{err}"
    return out


def shell(line: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run a typed `rlaif ...` line through the installed console script."""
    assert BIN.exists(), f"{BIN} missing: `make setup` installs the rlaif command"
    return subprocess.run([str(BIN), *argv(line)], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture
def fake_run(tmp_path):
    """tests/test_report.py's run of four recorded epochs, in tmp_path/demo."""
    return build_fake_run(tmp_path)


# -- rlaif metrics -----------------------------------------------------------------------------
def test_metrics_prints_the_metric_table_of_the_reference_page(tmp_path):
    """docs/concepts.md `rlaif metrics  # every metric, what it means, which way is good`;
    docs/reading-the-report.md (`rlaif metrics` prints the same as the metrics reference)."""
    from pipeline.metrics.doc import METRICS
    line = documented("docs/concepts.md", "rlaif metrics ").strip()
    documented("docs/reading-the-report.md", "(`rlaif metrics` prints the same)")
    r = shell(line, tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert "| metric | good | stage | meaning |" in out, r.stdout[:500]
    missing = [k for k in METRICS if not any(x.startswith(f"| `{k}` |") for x in out)]
    assert not missing, missing
    row = next(x for x in out if x.startswith("| `reward/mean` |"))
    assert row.split(" | ")[1:3] == ["higher", "reward"], row   # which way is good, the stage that records it
    page = [html.unescape(x) for x in (ROOT / "docs/reference/metrics.md").read_text().splitlines()
            if x.startswith("| `")]
    assert page and [x for x in out if x.startswith("| `")] == page


# -- rlaif samples -----------------------------------------------------------------------------
@pytest.fixture
def in_run(fake_run, monkeypatch):
    """The fake run's folder as the working directory, its ./config.yaml naming the run: the commands
    are typed with nothing added."""
    root = fake_run.run_dir.parent
    (root / "config.yaml").write_text(yaml.safe_dump({"run": {"dir": str(root), "name": "demo"},
                                                      "report": {"samples_shown": 2}}))
    monkeypatch.chdir(root)
    return fake_run


def test_samples_worst_best_and_prompt_print_completions_with_breakdown_and_reward(in_run, capsys):
    """docs/concepts.md `rlaif samples N [--worst K|--best K|--prompt ID]`; docs/reading-the-report.md
    `rlaif samples N --worst 5` (completions with their score breakdown and reward) and
    `rlaif samples 4 --worst K | --best K | --prompt ID`."""
    documented("docs/concepts.md", "rlaif samples N [--worst K|--best K|--prompt ID]")
    documented("docs/reading-the-report.md", "`rlaif samples N --worst 5` prints completions")
    documented("docs/reading-the-report.md", "`rlaif samples 4 --worst K | --best K | --prompt ID`")
    head = "epoch 4: 4 completions of 2 prompts; reward mean 0.5000"

    worst = typed("rlaif samples 4 --worst 5", capsys)   # 5 asked, the epoch has 4: all of them, worst first
    assert worst.startswith(head) and "### worst 4" in worst and "### best" not in worst, worst
    assert worst.index("WORST ANSWER") < worst.index("BEST ANSWER")
    assert worst.count("#### ") == 4 and worst.count("judge: tests=") == 4
    assert "#### p1 #1: reward 0.000 (student 0.000 / teacher 0.500)" in worst
    assert "judge: tests=0 passed=0 total=4" in worst

    best = typed("rlaif samples 4 --best 1", capsys)
    assert best.startswith(head) and "### best 1" in best and best.count("#### ") == 1, best
    assert "#### p2 #0: reward 1.200 (student 0.600 / teacher 0.500)" in best
    assert "judge: tests=0.6 passed=2 total=4" in best and "BEST ANSWER" in best and "WORST ANSWER" not in best

    one = typed("rlaif samples 4 --prompt p1", capsys)
    assert "### teacher answer (reference): score 0.500 tests=0.5" in one and "### 2 completions" in one, one
    assert "#### p1 #0: reward 0.500" in one and "#### p1 #1: reward 0.000" in one and "WORST ANSWER" in one
    assert "p2" not in one and "BEST ANSWER" not in one


# -- --config FILE after the command -----------------------------------------------------------
def test_config_after_the_command_reads_that_file_as_before_it(fake_run, tmp_path, monkeypatch, capsys):
    """README.md and docs/quickstart.md `rlaif report --config my.yaml`; docs/quickstart.md
    `rlaif compare 4 --config my.yaml` and `rlaif cache export judgements.jsonl --config my.yaml`;
    docs/quickstart.md `rlaif config show --config my.yaml`; docs/concepts.md (every command takes
    `--config FILE`): `rlaif status --config my.yaml`. Each prints what `rlaif --config my.yaml CMD` does;
    ./config.yaml names another run, so a --config left unread would show."""
    from judges.cache import JudgeCache
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.yaml").write_text(yaml.safe_dump({"run": {"dir": str(tmp_path), "name": "demo"},
                                                      "report": {"samples_shown": 2}}))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({"run": {"dir": str(tmp_path), "name": "elsewhere"}}))
    cache = JudgeCache(tmp_path / ".judge-cache")
    cache.set("k0", {"value": 0.5})
    cache.set("k1", {"value": 1.0})
    cache.close()
    documented("README.md", "rlaif report --config my.yaml")
    lines = [documented("docs/quickstart.md", "rlaif report --config my.yaml"),
             documented("docs/quickstart.md", "rlaif compare 4 --config my.yaml"),
             documented("docs/quickstart.md", "rlaif config show --config my.yaml"),
             "rlaif status --config my.yaml"]
    for line in lines:
        after = typed(line, capsys)
        before = typed(line.replace("rlaif ", "rlaif --config my.yaml ", 1).removesuffix(" --config my.yaml"), capsys)
        assert after == before, f"{line}:\n{after}\n---- before the command:\n{before}"
    assert "wrote " + str(tmp_path / "demo" / "report.md") in typed(lines[0], capsys)
    assert (tmp_path / "demo" / "report.md").read_text().startswith("# Training report: demo")
    status = typed("rlaif status --config my.yaml", capsys)
    assert status.startswith(f"run {tmp_path / 'demo'}: 4 epoch(s)"), status
    assert f"chosen={fake_run.chosen_update(4)[0].name} (1 variant(s))" in status and "money spent so far: $3.0000" in status
    compare = typed("rlaif compare 4 --config my.yaml", capsys)
    assert compare.startswith("  variant") and f"* {fake_run.chosen_update(4)[0].name}" in compare, compare
    shown = typed("rlaif config show --config my.yaml", capsys)
    assert "my.yaml" in shown.splitlines()[0] and yaml.safe_load(shown)["run"]["name"] == "demo", shown[:300]

    export = documented("docs/quickstart.md", "rlaif cache export judgements.jsonl --config my.yaml")
    out = typed(export, capsys)
    assert out.startswith(f"exported 2 judgements from {tmp_path / '.judge-cache'} to ") and "judgements.jsonl" in out, out
    assert typed("rlaif --config my.yaml cache export before.jsonl", capsys).startswith("exported 2 judgements")
    assert (tmp_path / "judgements.jsonl").read_text() == (tmp_path / "before.jsonl").read_text()
    assert [json.loads(x).get("key") for x in (tmp_path / "judgements.jsonl").read_text().splitlines()] == ["k0", "k1", None]


def test_the_training_lines_with_config_after_the_command_parse_to_that_file():
    """README.md's and docs/quickstart.md's `rlaif epoch|update|replay|export ... --config my.yaml` lines (their
    my.yaml names a Hub student and an API judge, so they run on a user's machine, not here; the test above runs
    the others): each parses to its command with my.yaml as the config, its epoch, output and overrides kept."""
    from pipeline.cli.main import parse_args
    text = (ROOT / "README.md").read_text() + (ROOT / "docs/quickstart.md").read_text()
    lines = set(re.findall(r"^(rlaif (?:epoch|update|replay|export) [^#\n]*?--config my\.yaml[^#\n]*?) *(?:#|$)", text, re.M))
    assert len(lines) == 6, lines   # epoch 1 (and its dry run), export 1, epoch 4, update 4, replay 4
    for line in lines:
        words = argv(line)
        a = parse_args(words)
        assert (a.config, a.cmd, a.n) == ("my.yaml", words[0], int(words[1])), line
        assert a.overrides == [w for w in words if "=" in w], line
        assert getattr(a, "dry_run", False) == ("--dry-run" in words), line
        if a.cmd == "export":
            assert a.out == "my-model", line


# -- rlaif compare-evals --confidence ----------------------------------------------------------
def test_compare_evals_prints_the_confidence_level_it_is_given(tmp_path, monkeypatch, capsys):
    """docs/measuring-learning.md `rlaif compare-evals 0 4` (this config's run: runs/default) with
    docs/reference/commands.md `[--confidence CONFIDENCE]` (the interval's confidence
    level, default 0.95): `--confidence 0.9` prints 90% intervals, narrower than the default's 95%."""
    documented("docs/measuring-learning.md", "rlaif compare-evals 0 4  ")
    documented("docs/reference/commands.md", "usage: rlaif compare-evals [-h] [--confidence CONFIDENCE]")
    documented("docs/reference/commands.md", "interval's confidence level (default 0.95)")
    run = build_fake_run(tmp_path / "runs")
    _eval_dir(run, 0, run.base_policy_fp(), [0.25, 0.5, 0.75, 0.0, 1.0, 0.5, 0.25, 0.5])
    _eval_dir(run, 4, run.chosen_update(4)[1]["fingerprint"], [0.5, 0.75, 1.0, 0.25, 1.0, 0.5, 0.75, 0.5])
    run.run_dir.rename(tmp_path / "runs" / "default")
    monkeypatch.chdir(tmp_path)

    def pass1(out: str) -> tuple[float, float]:
        row = next(x for x in out.splitlines() if x.startswith("pass@1 "))
        lo, hi = re.search(r"\[([-+.\d]+), ([-+.\d]+)\]", row).groups()
        return float(lo), float(hi)

    ninety = typed("rlaif compare-evals 0 4 --confidence 0.9", capsys)
    assert "90% t interval over problems" in ninety and "95%" not in ninety, ninety
    assert re.search(r"^pass@1 .* \(90%\) ", ninety, re.M), ninety
    default = typed("rlaif compare-evals runs/default@0 runs/default@4", capsys)   # RUN_DIR@N, the same evals
    assert "95% t interval over problems" in default and "(95%)" in default, default
    (lo9, hi9), (lo5, hi5) = pass1(ninety), pass1(default)
    assert lo5 < lo9 < hi9 < hi5, (ninety, default)


# -- rlaif judge ---------------------------------------------------------------------------------
def _judged(r: subprocess.CompletedProcess) -> dict:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_judge_reads_the_answer_from_stdin(tmp_path):
    """docs/reference/commands.md `rlaif judge ... --problem PROBLEM --completion COMPLETION` with
    `'-' = stdin`; docs/concepts.md (score one answer, print JSON). A shipped problem's right answer
    scores 1.0, a wrong one less, both read from a pipe."""
    documented("docs/reference/commands.md", "file holding the answer ('-' = stdin)")
    documented("docs/concepts.md", "rlaif judge --problem ID --completion FILE")
    line = "rlaif judge --problem py-easy-001 --completion -"
    right = _judged(shell(line, tmp_path, "```python\ndef sum_list(nums: list[int]) -> int:\n    return sum(nums)\n```\n"))
    assert right["problem"] == "py-easy-001" and right["judge"] == "execution" and right["value"] == 1.0, right
    assert right["breakdown"]["passed"] == right["breakdown"]["total"] > 0 and right["cache_hit"] is False
    wrong = _judged(shell(line, tmp_path, "```python\ndef sum_list(nums: list[int]) -> int:\n    return sum(nums) + 1\n```\n"))
    assert wrong["value"] < 1.0 and wrong["breakdown"]["passed"] < wrong["breakdown"]["total"], wrong


def test_judge_scores_an_ocaml_answer_as_the_ocaml_guide_types_it(tmp_path, ocaml_compiler):
    """docs/guides/ocaml.md `rlaif judge --problem ml-easy-001 --completion answer.md`: the reference
    answer scores 1.0 with the breakdown the guide lists, a wrong edit of it less. No ocamlc:
    fails with how to install it (tests/conftest.py's ocaml_compiler, as tests/test_ocaml_judge.py)."""
    from data.loaders import load_source
    line = documented("docs/guides/ocaml.md", "rlaif judge --problem ml-easy-001 --completion answer.md")
    ref = next(p for p in load_source("ocaml") if p.id == "ml-easy-001").reference
    assert "go 0 xs" in ref, ref
    (tmp_path / "answer.md").write_text(f"```ocaml\n{ref.rstrip()}\n```\n")
    right = _judged(shell(line, tmp_path))
    assert right["problem"] == "ml-easy-001" and right["value"] == 1.0, right
    assert {"structure", "typecheck", "compile", "tests", "passed", "total", "compiler_error"} <= set(right["breakdown"])
    assert right["breakdown"]["passed"] == right["breakdown"]["total"] > 0
    (tmp_path / "answer.md").write_text(f"```ocaml\n{ref.rstrip().replace('go 0 xs', 'go 1 xs')}\n```\n")
    wrong = _judged(shell(line, tmp_path))
    assert wrong["value"] < 1.0 and wrong["breakdown"]["compile"] == 1.0, wrong
    assert wrong["breakdown"]["passed"] < wrong["breakdown"]["total"], wrong


# -- make update / make sweep -------------------------------------------------------------------
@pytest.mark.skipif(not shutil.which("make"), reason="no make")
@pytest.mark.parametrize("typed_line, expands_to", [
    ("make update N=1 LR=5e-6 KL=0.1", "rlaif update 1 update.lr=5e-6 update.kl_coef=0.1"),
    ("make sweep N=1 LRS=5e-5,2e-4 KLS=0.01,0.1", "rlaif sweep 1 --grid update.lr=5e-5,2e-4 --grid update.kl_coef=0.01,0.1"),
])
def test_make_update_and_sweep_run_the_rlaif_command_the_guide_says(typed_line, expands_to):
    """docs/guides/update-variants-and-sweeps.md `make update N=1 LR=5e-6 KL=0.1  # = rlaif update 1
    update.lr=5e-6 update.kl_coef=0.1` and `make sweep N=1 LRS=5e-5,2e-4 KLS=0.01,0.1  # = rlaif
    sweep 1 --grid update.lr=5e-5,2e-4 --grid update.kl_coef=0.01,0.1`. `make -n` (-s, and -o: setup taken
    as done, as tests/test_docs.py runs the targets) prints the command; the CLI's parser reads it."""
    from pipeline.cli.commands_train import sweep_grid
    from pipeline.cli.main import build_parser
    page = (ROOT / "docs/guides/update-variants-and-sweeps.md").read_text()
    assert re.search(rf"^{re.escape(typed_line)}(\s|$)", page, re.M), f"the guide no longer shows {typed_line!r}"
    assert f"= {expands_to}" in page, expands_to
    make = shlex.split(typed_line)
    r = subprocess.run([make[0], "-s", "-n", "-o", ".venv/.installed", *make[1:]], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.split() == [".venv/bin/rlaif", "--config", "config.yaml", *expands_to.split()[1:]], r.stdout
    a, extra = build_parser().parse_known_args(last.split()[1:])
    if a.cmd == "update":
        assert a.n == 1 and [*a.overrides, *extra] == ["update.lr=5e-6", "update.kl_coef=0.1"], (a, extra)
    else:
        assert a.n == 1 and a.grid == ["update.lr=5e-5,2e-4", "update.kl_coef=0.01,0.1"], a
        grid = sweep_grid(a.grid)
        assert len(grid) == 4 and ["update.lr=5e-5", "update.kl_coef=0.1"] in grid, grid


def test_the_trl_equivalent_line_over_the_shipped_config_is_pure_grpo(capsys):
    """docs/guides/from-trl.md's "TRL-equivalent run", typed over the shipped config.yaml (the default --config):
    it left the shipped warm-start on, epoch 0 training on the teacher's answers before any GRPO."""
    from pipeline.config.file import load_config
    text = re.sub(r"\s+", " ", (ROOT / "docs/guides/from-trl.md").read_text())
    line = re.search(r"\*\*A TRL-equivalent run\*\* [^`]* override line: `([^`]+)`", text).group(1)
    cfg = load_config(ROOT / "config.yaml", shlex.split(line))
    assert load_config(ROOT / "config.yaml").update.warm_start   # (what the line must turn off)
    u = cfg.update
    assert (u.warm_start, cfg.reward.kind, u.teacher_sft_coef, u.kl_coef, u.loss_type) == (False, "direct", 0, 0, "dapo")
    assert (cfg.select.drop_zero_std, cfg.sample.temperature) == (False, 1.0)
    assert "warm_start: false" in typed(f"rlaif --config {ROOT / 'config.yaml'} config show {line}", capsys)


def test_cache_stats_as_typed_counts_the_runs_cache(tmp_path, monkeypatch, capsys):
    """judges-and-cost.md's `rlaif cache stats`, typed in a project folder whose runs have judged (the default
    cache, <run.dir>/.judge-cache): its entries and size (only its error exits had a test)."""
    from judges.cache import JudgeCache
    line = documented("docs/guides/judges-and-cost.md", "`rlaif cache stats` shows entries and size").split("`")[1]
    monkeypatch.chdir(tmp_path)   # (no ./config.yaml: the defaults, run.dir=runs)
    c = JudgeCache(tmp_path / "runs" / ".judge-cache")
    c.set("k0", {"value": 0.5})
    c.set("k1", {"value": 1.0})
    c.close()
    stats = json.loads(typed(line, capsys))
    assert stats["entries"] == 2 and stats["bytes"] > 0 and stats["directory"].endswith(".judge-cache"), stats


def test_the_reward_guides_function_scores_one_answer_as_typed_alone_and_in_the_mix(tmp_path, monkeypatch, capsys):
    """docs/guides/reward-functions.md: its my_rewards.py as the guide prints it, then `rlaif judge --problem ID
    --completion FILE judge.kind=python judge.python.function=...` as typed (through the installed command once):
    1.0 for an answer defining the entry point, 0.0 for one that does not, the same answer again from the
    cache; the guide's mix overrides weigh it 0.2 beside the execution judge's 0.8."""
    page = (ROOT / "docs/guides/reward-functions.md").read_text()
    (tmp_path / "my_rewards.py").write_text(re.search(r"```python\n(# my_rewards.py\n.*?)```", page, re.S)[1])
    line = documented("docs/guides/reward-functions.md", "rlaif judge --problem ID --completion FILE judge.kind=python "
                                                         "judge.python.function=...")
    line = line.replace("ID", "py-easy-001").replace("FILE", "answer.md").replace("...", "my_rewards.py:reward")
    mix = re.search(r"rlaif epoch 1 (judge.kind=mix .*)\n", page)[1]
    monkeypatch.chdir(tmp_path)
    for defined, score in (("sum_list", 1.0), ("total", 0.0)):
        (tmp_path / "answer.md").write_text(f"```python\ndef {defined}(nums: list[int]) -> int:\n    return sum(nums)\n```\n")
        first = _judged(shell(line, tmp_path)) if score else json.loads(typed(line, capsys))
        again = json.loads(typed(line, capsys))
        assert (first["judge"], first["value"], first["cache_hit"]) == ("python", score, False), first
        assert (again["value"], again["cache_hit"]) == (score, True), again
        mixed = json.loads(typed(f"rlaif judge --problem py-easy-001 --completion answer.md {mix}", capsys))
        parts = mixed["breakdown"]
        assert (parts["python"]["value"], parts["python"]["weight"], parts["execution"]["weight"]) == (score, 0.2, 0.8)
        assert mixed["value"] == pytest.approx(0.8 * parts["execution"]["value"] + 0.2 * score), mixed


def test_config_show_doc_and_on_the_bank_print_what_the_docs_say(capsys):
    """docs/quickstart.md `rlaif config show --doc`: every key (docs/reference/config.md's), its default and
    its description; docs/guides/datasets.md `rlaif config show data.source=bank:train`: `sources: null` under
    `eval:`, and a comment at the top saying that means the validation split."""
    from pipeline.config.file import describe
    out = typed(documented("docs/quickstart.md", "rlaif config show --doc"), capsys).splitlines()
    rows = {line.split()[0]: line for line in out if line.strip()}
    for key, default, doc in describe():
        row = rows.get(key, "")
        assert re.match(rf"{re.escape(key)} +{re.escape(default)}( +|$)", row) and doc.split(".")[0] in row, (key, row)
    line = documented("docs/guides/datasets.md", "rlaif config show data.source=bank:train")
    out = typed(line, capsys)
    head, _, body = out.partition("\nrun:\n")
    assert '# eval.sources: null means ["validation"] with data.source=bank:train' in head, head
    assert re.search(r"^eval:\n  sources: null$", body, re.M), body


def test_a_mapping_override_replaces_the_config_files_mapping_as_the_datasets_guide_types_it(tmp_path, monkeypatch, capsys):
    """docs/guides/datasets.md `rlaif epoch 1 data.source=my.jsonl 'data.mapping={prompt: question, entry_point: fn}'`
    (here --dry-run: every row loaded and checked, nothing run), beside a config.yaml whose own mapping names a
    column no row has: the override's {...} replaces that mapping whole, so the file's 12 problems load."""
    line = documented("docs/guides/datasets.md",
                      "rlaif epoch 1 data.source=my.jsonl 'data.mapping={prompt: question, entry_point: fn}'")
    rows = [json.loads(x) for x in (ROOT / "data/problems/problems.jsonl").read_text().splitlines()]
    mine = [{"question": r["prompt"], "fn": r["entry_point"], **{k: r[k] for k in ("id", "difficulty", "reference",
                                                                                  "tests", "signature")}}
            for r in rows if r["split"] == "train"][:12]
    (tmp_path / "my.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mine))
    (tmp_path / "config.yaml").write_text("data:\n  mapping: {prompt: text, id: task}\n")
    monkeypatch.chdir(tmp_path)
    out = typed(f"{line} --dry-run", capsys)
    assert f"config file: {tmp_path / 'config.yaml'}" in out and "data: 12 problems in my.jsonl" in out, out


def test_the_concepts_snippet_loads_the_embedded_student_with_a_runs_adapter(tmp_path, monkeypatch):
    """docs/concepts.md's Python lines, run as printed from a folder holding an epoch's adapter where the
    snippet says: the embedded student's safetensors copy is where it looks ($RLAIF_CACHE or
    ~/.cache/rlaif), and PEFT loads the adapter over it."""
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM

    from pipeline.engines.embedded import ensure_embedded
    code = re.search(r"```python\n(import os\nfrom peft import PeftModel\n.*?)```",
                     (ROOT / "docs/concepts.md").read_text(), re.S)[1]
    adapter = re.search(r'"(runs/default/epoch-001/update-[0-9a-f]{8}/adapter)"', code)[1]
    policy = get_peft_model(AutoModelForCausalLM.from_pretrained(ensure_embedded()), LoraConfig(r=2, target_modules=["q_proj"]))
    policy.save_pretrained(tmp_path / adapter)
    monkeypatch.chdir(tmp_path)
    space: dict = {}
    exec(code, space)
    assert isinstance(space["model"], PeftModel) and space["model"].config.hidden_size == 576
    assert space["model"].peft_config["default"].target_modules == {"q_proj"}
