"""TRL's dataset rows as docs/guides/from-trl.md says they load: a conversational prompt (its user turn the
prompt, its system turn kept and compared with student.system_prompt), no id (one made from the prompt), no
entry_point; a multi-turn conversation, and a source where only some rows have an id, refused naming the row."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from data.loaders import load_source
from data.rows import DataError
from pipeline.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, rows: list) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _trl_rows(system: str | None = "Answer with the number.", n: int = 3) -> list[dict]:
    turn = [{"role": "system", "content": system}] if system else []
    return [{"prompt": [*turn, {"role": "user", "content": f"What is {i} + 1?"}], "solution": str(i + 1)} for i in range(n)]


def test_trl_rows_load_as_they_are(tmp_path):
    problems = load_source(_write(tmp_path / "trl.jsonl", _trl_rows()))
    assert [p.prompt for p in problems] == ["What is 0 + 1?", "What is 1 + 1?", "What is 2 + 1?"]
    assert all(re.fullmatch(r"p-[0-9a-f]{10}", p.id) for p in problems) and len({p.id for p in problems}) == 3
    assert problems[2].meta == {"solution": "3", "system_turn": "Answer with the number."} and problems[2].entry_point == ""
    moved = load_source(_write(tmp_path / "moved.jsonl", _trl_rows()[::-1]))   # ids follow the prompt, not the line
    assert {p.prompt: p.id for p in moved} == {p.prompt: p.id for p in problems}
    text = load_source(_write(tmp_path / "text.jsonl", [{"prompt": "What is 1 + 1?"}]))
    assert text[0].id == problems[1].id and "system_turn" not in text[0].meta


@pytest.mark.parametrize("prompt,said", [
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}],
     r"line 2: field 'prompt' is a conversation of turns \['user', 'assistant', 'user'\]"),
    ([{"role": "user", "content": [{"type": "text", "text": "a"}]}], r"line 2: field 'prompt' is a list, but not of"),
    ([], r"line 2: field 'prompt' is a list, but not of"),
])
def test_a_conversation_that_is_not_one_user_turn_is_refused(tmp_path, prompt, said):
    with pytest.raises(DataError, match=said + r".*one user turn, after an optional system turn"):
        load_source(_write(tmp_path / "t.jsonl", [_trl_rows()[0], {"prompt": prompt}]))


def test_a_source_where_only_some_rows_have_an_id_is_refused(tmp_path):
    rows = _trl_rows()
    rows[0]["id"] = "first"
    with pytest.raises(DataError, match=r"t.jsonl, line 2: field 'id' is missing, and other rows have one \(2 of 3"):
        load_source(_write(tmp_path / "t.jsonl", rows))
    named = [{"task_id": f"t{i}", "prompt": f"Say {i}."} for i in range(2)]   # an id under another name: map it
    with pytest.raises(DataError, match=r"line 1: field 'id' is missing .*e.g. data.mapping=\{id: task_id\}"):
        load_source(_write(tmp_path / "named.jsonl", named))
    assert [p.id for p in load_source(str(tmp_path / "named.jsonl"), {"id": "task_id"})] == ["t0", "t1"]
    words = [{"prompt": f"Say {i}.", "paid": True, "GRID": [i], "ANDROID": 1} for i in range(2)]   # words, no ids
    assert all(p.id.startswith("p-") for p in load_source(_write(tmp_path / "words.jsonl", words)))
    with pytest.raises(DataError, match=r"twice.jsonl: line 1 and line 3 have the same prompt .*drop one of them"):
        load_source(_write(tmp_path / "twice.jsonl", [{"prompt": "a"}, {"prompt": "b"}, {"prompt": "a"}]))
    odd = tmp_path / "odd.jsonl"   # a lone surrogate, valid JSON: an id all the same
    odd.write_text('{"prompt": "x\\ud800"}\n')
    assert load_source(str(odd))[0].id.startswith("p-")


def test_the_dry_run_says_when_their_system_turn_is_not_student_system_prompt(tmp_path, tiny_config, caplog,
                                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = _write(tmp_path / "trl.jsonl", _trl_rows())
    (tmp_path / "rw.py").write_text("def accuracy(completions, solution, **kw):\n"
                                    "    return [float(s in c) for c, s in zip(completions, solution)]\n")
    args = [*tiny_config, f"data.source={source}", "data.validation_size=0", "eval.sources=[]", "judge.kind=python",
            f"judge.python.function={tmp_path / 'rw.py'}:accuracy", "teacher.kind=none", "reward.kind=direct"]
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *args]) == 0
    assert "3 of 3 training problems came with a system turn of their own" in caplog.text
    assert "set 'student.system_prompt=Answer with the number.' to train on theirs" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):   # the setting it names, pasted: nothing to say
        assert main(["epoch", "1", "--dry-run", *args, "student.system_prompt=Answer with the number."]) == 0
    assert "system turn" not in caplog.text


def test_the_guides_command_over_a_trl_dataset_as_typed(tmp_path, monkeypatch, capsys, caplog):
    """from-trl.md's one command over a TRL dataset as it is (conversational prompts, no ids, a solution column),
    its dry run as typed from the page in a directory holding trl.jsonl and my_rewards.py."""
    import shlex
    page = (ROOT / "docs" / "guides" / "from-trl.md").read_text()
    cmd = re.search(r"\n(rlaif epoch 1 data.source=trl.jsonl [^\n]*)\n", page).group(1)
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "trl.jsonl", _trl_rows(n=40))
    (tmp_path / "my_rewards.py").write_text("def accuracy(completions, solution, **kw):\n"
                                            "    return [float(s in c) for c, s in zip(completions, solution)]\n")
    with caplog.at_level("INFO", logger="rlaif"):
        assert main([*shlex.split(cmd)[1:], "--dry-run", f"run.dir={tmp_path / 'runs'}"]) == 0
    out, err = capsys.readouterr()
    assert "judge (python my_rewards.py:accuracy)" in out and "40 problems in trl.jsonl" in out, out
    assert "eval: 8 problems (validation)" in out, out   # the page's 10%, at least min(10, a fifth)
    said = [r for r in caplog.records if "have no tests" in r.getMessage()]   # scored by the reward function
    assert [r.levelname for r in said] == ["INFO"] and "with judge.kind=python" in said[0].getMessage(), caplog.text
    assert "default system turn" not in caplog.text   # the page's student.system_prompt='': the prompts as they are
    caplog.clear()
    _write(tmp_path / "trl.jsonl", _trl_rows(system=None, n=40))   # rows without a system turn of their own
    with caplog.at_level("INFO", logger="rlaif"):   # the default's Python coder's turn is said where no row has tests
        assert main([*[w for w in shlex.split(cmd)[1:] if not w.startswith("student.")], "--dry-run",
                     f"run.dir={tmp_path / 'runs'}"]) == 0
    assert "every prompt opens with the default system turn, a Python programmer's" in caplog.text
