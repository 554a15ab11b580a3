"""The README and the docs site: the generated reference pages are the code's own, the site builds
with `mkdocs build --strict` (no page left out of the nav, no broken link or anchor), and what the
README tells a user to type works: its config keys exist, its sample row loads."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from data.loaders import load_source
from pipeline.config.file import describe, load_config
from pipeline.cli.docs_gen import pages

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
KEYS = {k for k, _, _ in describe()}
SECTIONS = {k.split(".")[0] for k in KEYS}
KEY = re.compile(r"(?<![\w./-])([a-z_]+(?:\.[a-z_0-9]+)+)")  # update.lr, judge.execution.min_lines


def _fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, re.M | re.S)


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def _leaf_paths(d: dict, prefix: str = "") -> list[str]:
    """Dotted paths of a YAML config, down to the config's own keys (judge.mix is one, its value a dict)."""
    out = []
    for k, v in d.items():
        path = f"{prefix}{k}"
        out += _leaf_paths(v, path + ".") if isinstance(v, dict) and path not in KEYS else [path]
    return out


def test_generated_reference_pages_are_up_to_date():
    stale = [rel for rel, text in pages().items()
             if not (ROOT / rel).is_file() or (ROOT / rel).read_text() != text]
    assert not stale, f"{stale} differ from the code: run `make docs` or `python -m pipeline.cli.docs_gen`"


def test_reference_pages_hold_every_key_metric_and_command():
    from pipeline.cli.main import build_parser
    from pipeline.metrics.doc import METRICS
    text = pages()
    missing = [k for k in KEYS if f"| `{k}` |" not in text["docs/reference/config.md"]]
    missing += [k for k in METRICS if f"| `{k}` |" not in text["docs/reference/metrics.md"]]
    commands = build_parser()._subparsers._group_actions[0].choices  # argparse keeps them only here
    missing += [c for c in commands if f"## rlaif {c}\n" not in text["docs/reference/commands.md"]]
    assert not missing, missing


def _mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """mkdocs build --strict, warnings shown: with -q mkdocs logs no warning, so --strict had none to
    abort on."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_site_builds_strict(tmp_path):
    r = _mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert r.returncode == 0, f"mkdocs build --strict failed (pip install -e '.[test]' installs mkdocs):\n{r.stderr}"
    assert (tmp_path / "site" / "guides" / "from-trl" / "index.html").is_file()


def test_strict_build_fails_on_a_page_left_out_of_the_nav(tmp_path):
    """The check above can fail: a copy of the docs with one page more, in no nav, aborts the build."""
    import shutil
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs" / "orphan.md").write_text("# A page in no nav\n")
    r = _mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert r.returncode != 0 and "orphan.md" in r.stderr, r.stderr


def test_readme_is_a_front_page():
    text = README.read_text()
    assert len(text.splitlines()) <= 200, "README.md is the front page: move detail into docs/"
    assert "make epoch N=1" in text and "make test" in text
    # the two commands' lines (their times) are the README's wherever the docs repeat them
    for cmd in ("make epoch N=1 ", "make test "):
        line = next(x for x in text.splitlines() if x.startswith(cmd))
        assert line in (ROOT / "docs/quickstart.md").read_text().splitlines(), line
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links and not [l for l in links if "://" not in l and not (ROOT / l).is_file()], links


def test_readme_trl_table_names_real_keys():
    rows = [r for r in _section(README.read_text(), "Coming from TRL").splitlines() if r.startswith("| `")]
    ours = [k for r in rows for k in KEY.findall(r.split("|")[2])]
    assert len(rows) >= 16 and len(ours) >= len(rows), rows
    assert not [k for k in ours if k not in KEYS], [k for k in ours if k not in KEYS]


def test_readme_quickstart_config_loads(tmp_path):
    (config,) = _fenced(_section(README.read_text(), "Quickstart"), "yaml")
    paths = _leaf_paths(yaml.safe_load(config))
    assert not [p for p in paths if p not in KEYS], [p for p in paths if p not in KEYS]
    (tmp_path / "my.yaml").write_text(config)
    cfg = load_config(tmp_path / "my.yaml")  # the config's own checks too (a model judge needs its model, ...)
    assert cfg.student.model != "smollm2-135m-instruct" and cfg.run.device == "auto"


@pytest.mark.parametrize("page", ["README.md", "docs/quickstart.md", "docs/guides/datasets.md"])
def test_sample_row_loads_through_the_loader(page, tmp_path):
    rows = [b for b in _fenced((ROOT / page).read_text(), "json") if b.startswith('{"id"')]
    assert rows, f"{page} shows no sample row"
    path = tmp_path / "my_problems.jsonl"
    path.write_text(rows[0])
    (p,) = load_source(str(path))
    assert p.id == json.loads(rows[0])["id"] and p.tests and p.entry_point in p.reference


def test_config_keys_named_in_the_docs_exist():
    """Every `section.key` written in code spans of the README and the hand-written pages is a key."""
    bad = []
    for f in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        if "reference" in f.relative_to(ROOT).parts:
            continue
        for span in re.findall(r"`([^`\n]+)`", f.read_text()):
            bad += [f"{f.relative_to(ROOT)}: {k}" for k in KEY.findall(span)
                    if k.split(".")[0] in SECTIONS and k not in KEYS and not any(x.startswith(k + ".") for x in KEYS)]
    assert not bad, bad


def test_no_page_talks_about_how_it_was_built():
    words = re.compile(r"issue #|issue \d|\bsessions?\b|(earlier|previous|older) version|used to be|no longer|"
                       r"(we|was) changed|now used|other jobs|formerly", re.I)
    bad = [f"{f.relative_to(ROOT)}: {m.group()}" for f in [README, *sorted((ROOT / "docs").rglob("*.md"))]
           for m in words.finditer(f.read_text())]
    assert not bad, bad


def test_reading_the_report_names_every_flag():
    """docs/reading-the-report.md lists the health flags: every one the report can raise."""
    from pipeline.metrics.flags import FLAGS
    text = (ROOT / "docs" / "reading-the-report.md").read_text()
    missing = [name for name in FLAGS if f"`{name}`" not in text]
    assert not missing, f"docs/reading-the-report.md does not name the flags {missing}"


@pytest.mark.skipif(not __import__("shutil").which("make"), reason="no make")
def test_make_targets_that_run_rlaif_pass_args_as_overrides():
    """docs/concepts.md: the make targets that run rlaif pass ARGS="key=value ..." through (-o: setup is
    taken as done, nothing is installed; -n: the commands are printed, not run)."""
    for target, cmd in (("epoch", "epoch 3"), ("update", "update 3"), ("sweep", "sweep 3"), ("replay", "replay 3"),
                        ("status", "status"), ("compare", "compare 3"), ("report", "report")):
        out = subprocess.run(["make", "-s", "-n", "-o", ".venv/.installed", target, "N=3", "CONFIG=my.yaml",
                              "ARGS=run.name=x"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
        line = out.strip().splitlines()[-1]
        assert line.startswith(f".venv/bin/rlaif --config my.yaml {cmd}") and line.endswith("run.name=x"), (target, out)


def test_every_test_the_guarantees_name_exists():
    """docs/GUARANTEES.md backs each promise with `test_file.py::test_name`: each must be a test that
    exists (a renamed or deleted test would leave a promise with nothing behind it)."""
    page = (ROOT / "docs" / "GUARANTEES.md").read_text()
    named = set(re.findall(r"`((?:tests_\w+/)?test_\w+\.py)::(test_\w+)", page))
    assert len(named) > 20, named
    missing = []
    for file, name in sorted(named):
        path = ROOT / (file if "/" in file else f"tests/{file}")
        if not path.exists() or not re.search(rf"^\s*(?:async )?def {name}\(", path.read_text(), re.M):
            missing.append(f"{file}::{name}")
    files = set(re.findall(r"`((?:tests_\w+/)?test_\w+\.py)[`:]", page))
    missing += [f for f in sorted(files) if not (ROOT / (f if "/" in f else f"tests/{f}")).exists()]
    assert not missing, f"docs/GUARANTEES.md names tests that do not exist: {missing}"


def test_the_docs_generator_as_typed_writes_every_page_and_nothing_when_up_to_date(tmp_path):
    """`python -m pipeline.cli.docs_gen` (what `make docs` runs first): in this checkout, up to date, it writes
    nothing and says nothing; into an empty tree it writes every generated page, each as pages() has it."""
    from pipeline.cli.docs_gen import write
    # (stale pages would be written into this checkout: test_generated_reference_pages_are_up_to_date says so)
    assert all((ROOT / rel).is_file() and (ROOT / rel).read_text() == text for rel, text in pages().items())
    res = subprocess.run([sys.executable, "-m", "pipeline.cli.docs_gen"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", ""), res.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in write(tmp_path)) == sorted(pages())
    assert all((tmp_path / rel).read_text() == text for rel, text in pages().items())
    assert write(tmp_path) == []
