"""A user's data that loaded without a word and then failed late, silently or forever: a parquet column of
dates, assertion tests that define no `check`, an OCaml float result written as an integer, a split the set
does not have, a keyword entry point, an RL source numbering its ids from 0 as data.source does, a
difficulty filter that keeps nothing, an eval answer the judge could not score."""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from data.loaders import load_problems, load_source
from data.rows import DataError
from pipeline.config.errors import RunError
from pipeline.config.file import load_config
from pipeline.run.preflight import check_data
from pipeline.stages.problems import rl_problems

ROW = {"prompt": "Write a Python function `def f(x: int) -> int:` that returns x + 1.", "entry_point": "f",
       "reference": "def f(x):\n    return x + 1\n", "tests": [{"input": [1], "output": 2}], "difficulty": "easy"}


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_parquet_column_of_dates_is_kept_as_text_not_a_late_traceback(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    when = dt.datetime(2026, 11, 30, 12, 0)
    pq.write_table(pa.table({**{k: [v if isinstance(v, str) else json.dumps(v)] for k, v in ROW.items()},
                             "id": ["a"], "added": [when]}), tmp_path / "p.parquet")
    (p,) = load_problems(tmp_path / "p.parquet")
    assert p.meta["added"] == str(when)
    json.dumps(p.to_json())   # what the prompts stage stores: it raised TypeError on the datetime


def test_assertion_tests_must_define_check_and_compile(tmp_path):
    """MBPP's bare asserts loaded and then scored 0 on every answer (the judge calls check(<entry point>));
    a syntax error likewise. Both are refused at load, naming the row and what to write."""
    base = {k: v for k, v in ROW.items() if k != "tests"}
    with pytest.raises(DataError, match=r"line 1.*test_code.*defines no `check`.*def check\(candidate\)"):
        load_problems(jsonl(tmp_path / "a.jsonl", [{**base, "id": "a", "test_code": "assert f(1) == 2\n"}]))
    with pytest.raises(DataError, match="test_code.*does not compile"):
        load_problems(jsonl(tmp_path / "b.jsonl", [{**base, "id": "b", "test_code": "def check(c):\nassert c(1)\n"}]))
    with pytest.raises(DataError, match="test_code.*does not compile"):   # a compile-stage error, past the parser
        load_problems(jsonl(tmp_path / "r.jsonl", [{**base, "id": "r", "test_code": "def check(c):\n    pass\nreturn 1\n"}]))
    for ok in ("def check(candidate):\n    assert f(1) == 2\n", "from helpers import check\n", "check = print\n"):
        assert load_problems(jsonl(tmp_path / "c.jsonl", [{**base, "id": "c", "test_code": ok}]))[0].test_code == ok
    # beside `tests` the judge never runs it: left as it is
    assert load_problems(jsonl(tmp_path / "t.jsonl", [{**ROW, "id": "t", "test_code": "assert f(1) == 2\n"}]))


def test_an_ocaml_float_result_written_as_an_integer_is_a_float(tmp_path):
    """The judge compares by JSON type and a float result prints as 4.0: an expected 4 failed forever."""
    row = {"id": "o", "prompt": "area", "entry_point": "area", "language": "ocaml", "difficulty": "easy",
           "signature": "val area : float -> (float * int) list",
           "tests": [{"input": [2], "output": [[4, 1], [2.5, 3]]}]}
    (p,) = load_problems(jsonl(tmp_path / "o.jsonl", [row]))
    out = p.tests[0]["output"]
    assert out == [[4.0, 1], [2.5, 3]] and isinstance(out[0][0], float) and isinstance(out[0][1], int)


def test_a_split_the_set_does_not_have_is_refused_not_empty():
    with pytest.raises(DataError, match="no 'tune' problems.*its splits: heldout, train"):
        load_source("builtin:tune")
    assert load_source("bank:tune")


def test_a_keyword_is_no_entry_point(tmp_path):
    with pytest.raises(DataError, match="entry_point.*must be a Python function name, got 'class'"):
        load_problems(jsonl(tmp_path / "k.jsonl", [{**ROW, "id": "k", "entry_point": "class"}]))


def _cfg(tmp_path, *over):
    return load_config(None, [f"run.dir={tmp_path / 'runs'}", "eval.sources=[]", "data.validation_size=0",
                              "update.warm_start=false", *over])


def test_rl_sources_tell_problems_by_id_and_prompt(tmp_path):
    """Two files numbering their ids from 0: the RL source's problems were dropped as duplicates by id
    alone; the same problem in both is taken once; an id held by another problem of the run is refused
    (the tables key answers by id)."""
    a = jsonl(tmp_path / "a.jsonl", [{**ROW, "id": str(i), "prompt": f"A{i}: {ROW['prompt']}"} for i in range(3)])
    b = jsonl(tmp_path / "b.jsonl", [{**ROW, "id": f"b{i}", "prompt": f"B{i}: {ROW['prompt']}"} for i in range(3)]
              + [{**ROW, "id": "0", "prompt": f"A0: {ROW['prompt']}"}])
    probs = rl_problems(_cfg(tmp_path, f"data.source={a}", f"data.rl_sources=[{b}]"))
    assert sorted(p.id for p in probs) == ["0", "1", "2", "b0", "b1", "b2"]
    jsonl(b, [{**ROW, "id": "1", "prompt": "another problem"}])
    with pytest.raises(RunError, match="data.rl_sources: .*b.jsonl holds problem '1' with another prompt"):
        rl_problems(_cfg(tmp_path, f"data.source={a}", f"data.rl_sources=[{b}]"))


def test_a_difficulty_filter_that_keeps_nothing_is_refused_before_any_work(tmp_path):
    a = jsonl(tmp_path / "a.jsonl", [{**ROW, "id": str(i), "difficulty": "medium"} for i in range(4)])
    for warm in ("false", "true"):   # with the warm-start it blamed the references, which are there
        cfg = _cfg(tmp_path, f"data.source={a}", "data.difficulties=[hard]", f"update.warm_start={warm}")
        with pytest.raises(RunError, match=r"no training problem: .*a.jsonl has 4 \(medium 4\); "
                                           r"data.difficulties=\['hard'\]"):
            check_data(cfg)
    assert not (tmp_path / "runs").exists()


def test_an_eval_answer_the_judge_could_not_score_is_counted():
    from pipeline.stages.eval import figures
    rows = [{"source": "s", "n": 2, "correct": 1, "score": 0.5, "ref_nll": None, "values": [1.0, None]},
            {"source": "s", "n": 2, "correct": 0, "score": 0.0, "ref_nll": None, "values": [0.0, 0.0]}]
    assert figures(rows, ["s"])["eval/unscored"] == 1


def test_a_json_file_holding_one_object_says_so(tmp_path):
    """{"problems": [...]} pretty-printed was read as JSON Lines: 'invalid JSON (Expecting property name)'."""
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"problems": [{**ROW, "id": "a"}]}, indent=2))
    with pytest.raises(DataError, match="one JSON object over several lines, its problems perhaps under 'problems'"):
        load_problems(path)
    path.write_text(json.dumps({**ROW, "id": "a"}, indent=2))   # one problem pretty-printed: no wrapper named
    with pytest.raises(DataError, match=r"one JSON object over several lines; a \.json file"):
        load_problems(path)
    path.write_text(json.dumps({**ROW, "id": "a"}) + "\n")   # one row of JSON Lines is still one
    assert [p.id for p in load_problems(path)] == ["a"]
    path.write_text(json.dumps({"problems": [{**ROW, "id": "a"}]}))   # the wrapper on one line: said, not 'id missing'
    with pytest.raises(DataError, match=r"one JSON object, its problems perhaps under 'problems'; a \.json file"):
        load_problems(path)
    lines = tmp_path / "list.jsonl"   # a pretty-printed list named .jsonl: the name to give it
    lines.write_text(json.dumps([{**ROW, "id": "a"}], indent=2))
    with pytest.raises(DataError, match=r"line 1: invalid JSON .* The file opens a JSON list \('\['\): name it \.json"):
        load_problems(lines)


def test_a_later_unscored_teacher_answer_keeps_the_known_score(tmp_path):
    """The curriculum reads each prompt's latest teacher score: a later epoch whose teacher answer the judge
    could not score (None) replaced the known one."""
    from pipeline.store.artifacts import write_manifest
    from pipeline.store.history import score_history
    from pipeline.store.tables import save_table
    for e, ts in ((1, 0.8), (2, None)):
        d = tmp_path / f"epoch-{e:03d}" / "reward"
        d.mkdir(parents=True)
        save_table([{"problem_id": "p", "sample_idx": 0, "reward": 0.5, "student_score": 0.4, "teacher_score": ts},
                    {"problem_id": "q", "sample_idx": 0, "reward": 0.5, "student_score": 0.4, "teacher_score": None}], d)
        write_manifest(d, {"stage": "reward", "fingerprint": f"{e}" * 64, "figures": {}, "config": {}, "inputs": {}})
    students, teacher = score_history(tmp_path, 3)
    assert teacher == {"p": 0.8, "q": None} and students["p"] == [0.4, 0.4]


def test_an_eval_problem_with_its_prompt_worded_otherwise_is_still_refused_to_rl(tmp_path):
    """The same problem under the same id with another wording (a Hub copy of the eval's set) has the same
    tests: RL must not learn it."""
    a = jsonl(tmp_path / "a.jsonl", [{**ROW, "id": "t0", "prompt": "train " + ROW["prompt"]}])
    held = jsonl(tmp_path / "held.jsonl", [{**ROW, "id": "h0"}])
    copy = jsonl(tmp_path / "copy.jsonl", [{**ROW, "id": "h0", "prompt": "Reworded: " + ROW["prompt"]}])
    cfg = _cfg(tmp_path, f"data.source={a}", f"data.rl_sources=[{copy}]")
    cfg = cfg.model_copy(update={"eval": cfg.eval.model_copy(update={"sources": [str(held)]})})
    with pytest.raises(RunError, match="copy.jsonl holds problem 'h0', which the eval scores"):
        rl_problems(cfg)


def test_rows_marked_held_out_in_a_file_read_whole_are_said(tmp_path, caplog):
    """A file whose rows carry split=heldout, named without a split: every row trains (as documented), and the
    check before any work says so and what to write (it was silent)."""
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps({**ROW, "id": f"p{i}", **({"split": "heldout"} if i < 2 else {})}) + "\n"
                            for i in range(6)))
    with caplog.at_level("WARNING", logger="rlaif"):
        check_data(load_config(None, [f"data.source={path}", f"run.dir={tmp_path / 'runs'}"]))
    assert (f"{path}: 2 of its rows are marked split=heldout, but data.source names the file whole, so every row is "
            f"a training problem; data.source={path}:train trains on the train rows alone") in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="rlaif"):   # named with its split: nothing to say
        check_data(load_config(None, [f"data.source={path}:train", f"eval.sources=[{path}:heldout]",
                                      f"run.dir={tmp_path / 'runs'}"]))
    assert "marked split" not in caplog.text


def test_a_mapping_written_the_other_way_round_is_said(tmp_path):
    """data.mapping is our field -> your column; {question: prompt} (column first) said 'unknown field
    question' alone."""
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"question": ROW["prompt"], "task_id": "a", "fn": "f", "tests": ROW["tests"]}) + "\n")
    with pytest.raises(DataError, match=re.escape("(written the other way round? our field comes first: "
                                                  "{prompt: question, id: task_id, entry_point: fn})")):
        load_problems(path, {"question": "prompt", "task_id": "id", "fn": "entry_point"})
    assert [p.id for p in load_problems(path, {"prompt": "question", "id": "task_id", "entry_point": "fn"})] == ["a"]


def test_a_row_with_both_tests_and_test_code_is_said_once(tmp_path, caplog):
    check = "def check(candidate):\n    assert candidate(1) == 2\n"
    rows = [{**ROW, "id": f"r{i}", **({"test_code": check} if i < 2 else {})} for i in range(12)]
    src = jsonl(tmp_path / "both.jsonl", rows)
    with caplog.at_level("WARNING", logger="rlaif"):
        check_data(load_config(None, [f"run.dir={tmp_path}/runs", f"data.source={src}"]))
    said = [r.getMessage() for r in caplog.records if "both `tests` and `test_code`" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("2 problems have both `tests` and `test_code` (r0, r1)")
