"""The eval judges each held-out problem's reference answer against its own tests: a wrong test (or
reference) caps pass@1 on that problem for every policy, and is said, counted and kept per row."""
from __future__ import annotations

import json

from pipeline.config.file import load_config
from pipeline.metrics.evals import load_eval
from pipeline.run.runner import Runner

ROWS = [{"id": "wrong-test", "prompt": "Write `def add(a, b)` returning a + b.", "entry_point": "add",
         "tests": [{"input": [1, 2], "output": 4}], "reference": "def add(a, b):\n    return a + b\n"},
        {"id": "fine", "prompt": "Write `def neg(a)` returning -a.", "entry_point": "neg",
         "tests": [{"input": [1], "output": -1}], "reference": "def neg(a):\n    return -a\n"},
        {"id": "no-ref", "prompt": "Write `def one()` returning 1.", "entry_point": "one",
         "tests": [{"input": [], "output": 1}]}]


def test_a_reference_failing_its_own_tests_is_said_counted_and_kept(tiny_config, tmp_path, caplog):
    src = tmp_path / "held.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    r = Runner(load_config(None, [*tiny_config, f"eval.sources=[{src}]"]))
    with caplog.at_level("WARNING", logger="rlaif"):
        m = r.run_eval(0)
    said = " ".join(x.getMessage() for x in caplog.records)
    assert "1 of the 2 reference answers of the eval's problems fail their own tests" in said
    assert f"{src}:wrong-test: wrong answer: add(1, 2) gave 3, expected 4" in said
    assert m["figures"]["eval/reference_failures"] == 1
    rows = load_eval(r.epoch_dir(0) / f"eval-{m['fingerprint'][:8]}")
    assert {x["problem_id"]: x["reference_passed"] for x in rows} == {"wrong-test": False, "fine": True, "no-ref": None}


def test_no_reference_no_figure(tiny_config, tmp_path):
    src = tmp_path / "held.jsonl"
    src.write_text(json.dumps(ROWS[2]) + "\n")
    m = Runner(load_config(None, [*tiny_config, f"eval.sources=[{src}]"])).run_eval(0)
    assert "eval/reference_failures" not in m["figures"] and m["figures"]["eval/problems"] == 1


def test_the_dry_run_checks_your_eval_references_and_writes_nothing(tiny_config, tmp_path, caplog, capsys):
    from pipeline.cli.main import main
    src = tmp_path / "held.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, f"eval.sources=[{src}]"]) == 0
    out = capsys.readouterr().out
    assert "3 problems (" in out and "(1 of 2 references fail their own tests: see the warning)" in out
    assert "wrong-test: wrong answer: add(1, 2) gave 3, expected 4" in caplog.text
    assert not (tmp_path / "runs").exists()                    # a dry run writes nothing, no judge cache either
    src.write_text(json.dumps(ROWS[1]) + "\n")
    assert main(["epoch", "1", "--dry-run", *tiny_config, f"eval.sources=[{src}]"]) == 0
    assert "1 problem (" in (out := capsys.readouterr().out) and "(its one reference passes its own tests)" in out
    # the shipped sets' references are proven by this package's tests: not run at every dry run
    assert main(["epoch", "1", "--dry-run", *tiny_config, "eval.sources=[builtin:heldout]"]) == 0
    assert "references" not in capsys.readouterr().out.split("eval:")[1].split("\n")[0]


def test_the_dry_run_checks_your_training_references(tiny_config, tmp_path, caplog, capsys):
    from pipeline.cli.main import main
    rows = [{"id": f"t{i}", "prompt": f"Write `def f{i}(x)` returning x + {i}.", "entry_point": f"f{i}",
             "tests": [{"input": [1], "output": 1 + i}], "reference": f"def f{i}(x):\n    return x + {i}\n"}
            for i in range(10)]
    rows[3]["reference"] = "def f3(x):\n    return x - 3\n"
    src = tmp_path / "train.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--dry-run", *tiny_config, f"data.source={src}", "data.validation_size=0",
                     "eval.sources=[]"]) == 0
    assert "(training references: 1 of 10 fail their own tests: see the warning)" in capsys.readouterr().out
    assert "1 of 10 training references fail their own tests (t3: wrong answer: f3(1) gave -2, expected 4)" in caplog.text
    rows[3]["reference"] = "def f3(x):\n    return x + 3\n"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["epoch", "1", "--dry-run", *tiny_config, f"data.source={src}", "data.validation_size=0",
                 "eval.sources=[]"]) == 0
    assert "(training references: all 10 pass their own tests)" in capsys.readouterr().out


def test_a_replayed_eval_leaves_a_reference_not_in_the_cache_unchecked(tiny_config, tmp_path):
    """A cache made before the eval judged references (or without them) replays: the answers' judgements are
    there, the references' are not, and the eval neither fails nor judges them live."""
    src = tmp_path / "held.jsonl"
    bare = [{k: v for k, v in r.items() if k != "reference"} for r in ROWS[:2]]
    src.write_text("".join(json.dumps(r) + "\n" for r in bare))
    over = [*tiny_config, f"eval.sources=[{src}]"]
    Runner(load_config(None, over)).run_eval(0)
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:2]))     # the same tests, references added
    r = Runner(load_config(None, [*over, "judge.mode=replay"]))
    m = r.run_eval(0, force=True)
    rows = load_eval(r.epoch_dir(0) / f"eval-{m['fingerprint'][:8]}")
    assert [x["reference_passed"] for x in rows] == [None, None] and "eval/reference_failures" not in m["figures"]
    m = Runner(load_config(None, over)).run_eval(0, force=True)          # live: judged, and the wrong test said
    assert m["figures"]["eval/reference_failures"] == 1
