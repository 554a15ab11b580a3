"""docs/guides/ocaml.md's `make epoch N=1 CONFIG=configs/ocaml.yaml`: the rlaif line the make target runs, on
the tiny model (the shipped config's every other setting kept, its warm-start included): every stage runs,
the OCaml judge grades the answers (compiling the teacher's references with ocamlc) and the eval scores the
held-out OCaml problems."""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli.main import main
from pipeline.store.tables import load_table
from tests.conftest import tiny_overrides

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not shutil.which("make"), reason="no make")
def test_the_ocaml_guides_epoch_as_the_make_target_runs_it(tmp_path, tiny_model, ocaml_compiler, monkeypatch):
    typed = "make epoch N=1 CONFIG=configs/ocaml.yaml"
    assert typed in (ROOT / "docs/guides/ocaml.md").read_text()
    made = subprocess.run(["make", "-s", "-n", "-o", ".venv/.installed", *shlex.split(typed)[1:]], cwd=ROOT,
                          capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[-1]
    argv = shlex.split(made)
    assert argv[0] == ".venv/bin/rlaif" and argv[1:] == ["--config", "configs/ocaml.yaml", "epoch", "1"], made
    monkeypatch.chdir(ROOT)   # the config path as the target gives it, from the checkout
    over = [*tiny_overrides(tmp_path / "runs", tiny_model), "update.warm_start=true", "update.sft_epochs=1",
            "data.difficulties=[easy]"]
    assert main([*argv[1:], *over]) == 0
    run = tmp_path / "runs" / "ocaml"
    assert (run / "epoch-000").is_dir()   # the config's warm-start ran first
    m = json.loads((run / "epoch-001" / "metrics.json").read_text())
    assert m["score/teacher_mean"] == 1.0, m   # every reference compiled, type-checked and passed its tests
    judged = load_table(run / "epoch-001" / "judge")
    assert judged and all({"typecheck", "compile", "tests", "compiler_error"} <= set(json.loads(r["breakdown"]))
                          for r in judged), judged[0]
    assert "eval/pass@1" in m and all(r["problem_id"].startswith("ml-")
                                      for r in load_table(next((run / "epoch-001").glob("eval-*"))))


def test_the_ocaml_guides_hub_line_with_a_file_of_that_shape_in_its_place(tmp_path, monkeypatch, capsys):
    """docs/guides/ocaml.md's `rlaif --config configs/ocaml.yaml epoch 1 data.source=hf:<name>:train ...` line, a
    local file of the Hub's usual shape (name, problem, tests, solution) in the place of `hf:<name>`, as a dry run:
    every row loads through the line's mapping (12 problems, 2 of them the validation split); nothing is called."""
    page = (ROOT / "docs/guides/ocaml.md").read_text()
    first, second = re.search(r"\n *(rlaif --config configs/ocaml.yaml epoch 1 data.source=hf:<name>:train [^\n]*)\\\n"
                              r" *('data.mapping=[^\n]*')\n", page).groups()
    rows = [{"name": f"double{i}", "problem": f"Write `double{i} : int -> int`.",
             "tests": f"let () =\n  assert (double{i} 2 = 4)\n", "solution": f"let double{i} x =\n  x * 2\n"}
            for i in range(12)]
    (tmp_path / "hub.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = f"{first} {second}".replace("hf:<name>:train", str(tmp_path / "hub.jsonl") + ":train")
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    assert main([*shlex.split(line)[1:], "--dry-run", f"run.dir={tmp_path / 'runs'}"]) == 0
    out = capsys.readouterr().out
    assert f"data: 12 problems in {tmp_path / 'hub.jsonl'}:train" in out, out
    assert "RL: 4 prompts an epoch from 4 problems" in out and "warm-start: 10 problems" in out, out
