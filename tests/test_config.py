"""The typed config: unknown keys and bad values fail before any work, naming the key."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config import ConfigError
from pipeline.config_file import describe, load_config

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_config_is_valid_and_overrides_apply():
    cfg = load_config(ROOT / "config.yaml", ["update.lr=5e-6", 'sample.stop=["```\\n"]', "student.lora.r=4"])
    assert cfg.update.lr == 5e-6 and cfg.sample.stop == ["```\n"] and cfg.student.lora.r == 4
    assert cfg.student.model == "smollm2-135m-instruct" and cfg.judge.kind == "execution"


@pytest.mark.parametrize("override, words", [
    ("update.lrr=1", ["update.lrr", "unknown key"]),
    ("nosuch.key=1", ["nosuch", "unknown key"]),
    ("update.lr=-1", ["update.lr", "greater than or equal to 0"]),
    ("sample.num_samples=zero", ["sample.num_samples", "integer"]),
    ("judge.mode=offline", ["judge.mode", "live", "replay"]),
    ("select.top_k=1", ["select.top_k", "select.advantage=raw"]),
    ("update.lr", ["key.sub=value"]),
])
def test_bad_values_name_the_key(override, words):
    with pytest.raises(ConfigError) as e:
        load_config(None, [override])
    for w in words:
        assert w in str(e.value)


def test_bad_yaml_file_names_the_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("update: [unclosed\n")
    with pytest.raises(ConfigError, match="c.yaml"):
        load_config(p)
    p.write_text("update:\n  lr: 1e-5\n  bogus: 3\n")
    with pytest.raises(ConfigError, match="update.bogus"):
        load_config(p)


def test_cli_rejects_bad_config_before_work(tmp_path, capsys):
    assert main(["epoch", "1", f"run.dir={tmp_path}", "update.kl_coef=-1"]) == 2
    assert "update.kl_coef" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was started


def test_readme_documents_every_key():
    readme = (ROOT / "README.md").read_text()
    missing = [k for k, _, _ in describe() if f"`{k}`" not in readme]
    assert not missing, f"README config reference lacks {missing}; regenerate it from describe()"


def test_config_show_prints_effective_config(capsys):
    assert main(["config", "show", "update.lr=3e-6"]) == 0
    assert "lr: 3.0e-06" in capsys.readouterr().out


def test_readme_config_reference_is_the_config_s_own():
    """Every key's row in the README's config reference is what `rlaif config show --doc` prints
    (`python -m pipeline.config_file` regenerates it), so a changed default or doc cannot drift."""
    from pipeline.config_file import markdown_table
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text().splitlines()
    stale = [row for row in markdown_table().splitlines() if row not in readme]
    assert not stale, "README.md's config reference is out of date; paste `python -m pipeline.config_file`:\n" + "\n".join(stale)
