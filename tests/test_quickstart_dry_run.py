"""docs/quickstart.md as a new user types it: its my.yaml (a Hub student, Claude as teacher and judge), its
one-row my_problems.jsonl and `rlaif epoch 1 --config my.yaml --dry-run`, whose printed calls and costs the
page shows. The Hub student comes from a Hub cache holding its config and a tokenizer (the dry run reads
those, never the weights), offline, as on a machine that has downloaded it."""
from __future__ import annotations

import json
import re
from pathlib import Path

from pipeline.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "quickstart.md").read_text()

# Qwen2.5-Coder-1.5B-Instruct's config.json (its shapes; the dry run reads the context length from it)
QWEN = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 1536, "intermediate_size": 8960,
        "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2, "vocab_size": 151936,
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "bos_token_id": 151643, "eos_token_id": 151645}


def _hub_cache(root: Path, repo: str) -> None:
    """A Hub cache (huggingface_hub's layout) holding repo's config and a tokenizer, no weights."""
    from pipeline.engines.model import embedded_tokenizer_dir
    d = root / f"models--{repo.replace('/', '--')}"
    commit = "0" * 40
    snap = d / "snapshots" / commit
    snap.mkdir(parents=True)
    (d / "refs").mkdir()
    (d / "refs" / "main").write_text(commit)
    (snap / "config.json").write_text(json.dumps(QWEN))
    for f in Path(embedded_tokenizer_dir()).iterdir():
        (snap / f.name).write_bytes(f.read_bytes())


def test_the_quickstarts_dry_run_as_typed(tmp_path, monkeypatch, capsys, caplog):
    yaml_text = re.search(r"Save as `my.yaml`.*?```yaml\n(.*?)```", PAGE, re.S).group(1)
    row = re.search(r"```json\n(\{\"id\": \"fizz-001\".*?)\n```", PAGE, re.S).group(1)
    assert re.search(r"\nrlaif epoch 1 --config my.yaml --dry-run +#", PAGE)
    shown = re.search(r"\n(calls it would make .*?)\n```", PAGE, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.yaml").write_text(yaml_text)
    (tmp_path / "my_problems.jsonl").write_text(row + "\n")
    student = re.search(r"model: (\S+/\S+)", yaml_text).group(1)
    _hub_cache(tmp_path / "hub", student)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))   # (read when huggingface_hub is imported: and now)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("RLAIF_CACHE", str(tmp_path / "cache"))   # no judge cache but this test's
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")           # export ANTHROPIC_API_KEY=...
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--config", "my.yaml", "--dry-run"]) == 0
    out = capsys.readouterr().out
    said = caplog.text   # as the page says: no problem left for the eval, prompts_per_epoch above the one there is
    assert "the eval has no problems to score" in said and "data.prompts_per_epoch=32 but only 1 problem" in said, said
    got = out[out.index("calls it would make"):].rstrip("\n").splitlines()
    assert got[: len(shown.splitlines())] == shown.splitlines(), "\n".join(got)
