"""What the judges score: under student.prompt_format=raw a completion continuing its prompt's own def (the
body a base model writes after a signature and docstring) is scored as the whole function, as HumanEval's
harness scores prompt + completion; bare code followed by a sentence of prose is cut where it compiles."""
from __future__ import annotations

import json

import pytest

from judges.pycode import continue_prompt, extract_code
from pipeline.cli.main import main

PROMPT = 'Some text first.\n\ndef add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n'


def test_a_body_is_scored_with_its_prompts_def_and_ends_where_the_body_does():
    body = "    return a + b\n\n\ndef unrelated():\n    pass\nprint(add(1, 2))\n"
    joined = continue_prompt(PROMPT, "add", body)
    function = 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n    return a + b\n'
    assert joined == function and extract_code(joined, "add") == (function, False)   # no structure credit unwritten
    for nothing in ("", "\n\n", "I'm sorry, I can't help with that.\n"):   # no body of its own: scored as it is
        assert continue_prompt(PROMPT, "add", nothing) == nothing
    for whole in ("```python\ndef add(a, b):\n    return a + b\n```\n", "def add(a, b):\n    return a + b\n",
                  "```python\n    return a + b\n```\n"):   # an answer writing its own code: as it is
        assert continue_prompt(PROMPT, "add", whole) == whole
    assert continue_prompt("Write add(a, b).", "add", body) == body   # a prompt without the def: as it is
    wrapped = "def add(a: int,\n        b: int) -> int:\n"   # a signature over two lines
    assert continue_prompt(wrapped, "add", "    return a + b\nx = 1\n") == f"{wrapped}    return a + b\n"


def test_bare_code_followed_by_prose_is_cut_where_it_compiles():
    code = "def add(a, b):\n    return a + b\n"
    assert extract_code(f"Here it is:\n\n{code}\nThis function returns the sum of a and b.\n") == (code, False)
    assert extract_code(f"{code}\nimport os\nThe end.\n") == (code + "\nimport os\n", False)
    broken = "def add(a, b):\n    return a +\n"
    assert extract_code(broken + "\nThe end.\n") == (broken + "\nThe end.\n", False)   # nothing compiles: as it is
    helper = "import math\n\ndef helper(x):\n    return x\n\n"   # a cut that drops the broken entry point: none
    assert extract_code(helper + broken, "add") == (helper + broken, False)
    deep = "def add(a, b):\n    return " + "-" * 200000 + "1\n"   # too deep to compile: fails, no judge error
    assert extract_code(deep + "Done.\n", "add")[0].startswith("def add")


def test_rlaif_judge_scores_a_raw_body_as_the_function(tmp_path, capsys, monkeypatch):
    """`rlaif judge` as typed over a raw-prompt row: the body passes every test under prompt_format=raw
    and finds no code under chat (whose prompts a chat model answers with the whole function)."""
    monkeypatch.chdir(tmp_path)
    row = {"id": "raw-add", "prompt": PROMPT, "entry_point": "add",
           "tests": [{"input": [1, 2], "output": 3}, {"input": [2, 2], "output": 4}]}
    (tmp_path / "raw.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "body.md").write_text("    return a + b\n")
    args = ["judge", "--problem", "raw-add", "--completion", "body.md", "data.source=raw.jsonl",
            f"run.dir={tmp_path / 'runs'}", f"judge.cache_dir={tmp_path / 'cache'}"]
    assert main([*args, "student.prompt_format=raw"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["value"] == pytest.approx(0.95) and raw["breakdown"]["passed"] == 2 and raw["breakdown"]["structure"] == 0, raw
    (tmp_path / "empty.md").write_text("I cannot help with that.\n")   # no body: nothing of the prompt's stub paid
    assert main([*args[:4], "empty.md", *args[5:], "student.prompt_format=raw"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 0.0
    assert main(args) == 0
    chat = json.loads(capsys.readouterr().out)
    assert chat["value"] == 0.0 and "no code found" in chat["breakdown"]["error"], chat


def test_the_guides_stop_sequences_end_a_body_where_the_judge_reads_it(tmp_path, tiny_model):
    """docs/guides/datasets.md's `sample.stop` for raw prompts, loaded as written: a body the model writes on
    past ends at the next def (finish_reason stop, no truncation penalty), and is judged as the function."""
    import re
    from pathlib import Path

    from transformers import AutoTokenizer

    from pipeline.config.file import load_config
    from pipeline.engines.ends import finish
    page = (Path(__file__).resolve().parents[1] / "docs" / "guides" / "datasets.md").read_text()
    (tmp_path / "raw.yaml").write_text(re.search(r"HumanEval's stop sequences.*?```yaml\n(.*?)```", page, re.S).group(1))
    stop = load_config(str(tmp_path / "raw.yaml"), []).sample.stop
    assert stop == ["\nclass", "\ndef", "\n#", "\nif", "\nprint"]
    tok = AutoTokenizer.from_pretrained(tiny_model)
    ids = tok.encode("    return a + b\n\ndef test():\n    assert add(1, 2) == 3\n", add_special_tokens=False)
    kept, text, reason = finish(tok, ids, stop, max_new=len(ids) + 5)
    assert reason == "stop" and text.startswith("    return a + b\n") and "assert" not in text
    assert extract_code(continue_prompt(PROMPT, "add", text), "add")[0].endswith("    return a + b\n")
