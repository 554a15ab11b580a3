"""A folder written by datasets' save_to_disk as a data source: a Dataset (its rows' split field selects,
as a file's does) or a DatasetDict (its split named after the colon); and a folder that is neither says
which files in it (or below it, as a Hub snapshot keeps them) could be the source."""
from __future__ import annotations

import datasets
import pytest

from data.loaders import check_source, load_source
from data.rows import DataError
from pipeline.cli.main import main

ROWS = [{"id": f"p{i}", "prompt": f"Write `def f{i}(x)` returning x + {i}.", "entry_point": f"f{i}",
         "tests": [{"input": [1], "output": 1 + i}], "reference": f"def f{i}(x):\n    return x + {i}\n",
         "split": "heldout" if i % 4 == 0 else "train"} for i in range(12)]


def test_a_saved_dataset_loads_and_its_split_field_selects(tmp_path):
    folder = tmp_path / "ds"
    datasets.Dataset.from_list(ROWS).save_to_disk(str(folder))
    check_source(str(folder))
    assert [p.id for p in load_source(str(folder))] == [r["id"] for r in ROWS]
    assert [p.id for p in load_source(f"{folder}:heldout")] == ["p0", "p4", "p8"]
    assert load_source(str(folder))[1].tests == [{"input": [1], "output": 2}]
    with pytest.raises(DataError, match=r"holds one Dataset .*, no named splits; .*ds:train"):
        load_source(f"{folder}:test")


def test_a_saved_dataset_dict_names_its_split(tmp_path):
    folder = tmp_path / "dd"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS[:8]),
                          "test": datasets.Dataset.from_list(ROWS[8:])}).save_to_disk(str(folder))
    check_source(f"{folder}:test")
    assert [p.id for p in load_source(f"{folder}:test")] == ["p8", "p9", "p10", "p11"]
    with pytest.raises(DataError, match=r"this DatasetDict .*its splits: train, test: name one after a colon, .*dd:train"):
        load_source(str(folder))
    with pytest.raises(DataError, match=r"dd:tset: no split 'tset' in this DatasetDict"):
        load_source(f"{folder}:tset")
    from pipeline.config.file import load_config
    from pipeline.run.preflight import check_data
    with pytest.raises(DataError, match=r"^eval.sources: \S+dd:tset: no split 'tset'"):   # the key it came from
        check_data(load_config(None, [f"run.dir={tmp_path}", f"eval.sources=[{folder}:tset]"]))
    one = tmp_path / "one"   # one split alone needs no name
    datasets.DatasetDict({"test": datasets.Dataset.from_list(ROWS[8:])}).save_to_disk(str(one))
    assert len(load_source(str(one))) == 4


def test_a_plain_folder_names_the_files_below_it(tmp_path):
    snap = tmp_path / "snapshot"          # a Hub snapshot: README.md at the top, the data in data/
    (snap / "data").mkdir(parents=True)
    (snap / "README.md").write_text("# a dataset\n")
    datasets.Dataset.from_list(ROWS).to_parquet(str(snap / "data" / "train-00000-of-00001.parquet"))
    with pytest.raises(DataError, match=r"is a directory; point data.source at one .* file in it "
                                        r"\(data/train-00000-of-00001.parquet\) \(a folder is read when datasets'"):
        check_source(str(snap))


def test_the_dry_run_and_the_data_files_record_read_a_saved_folder(tiny_config, tmp_path, capsys):
    from pipeline.config.file import load_config
    from pipeline.run.preflight import check_data_files
    folder = tmp_path / "dd"
    dd = datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS[:8]),
                               "test": datasets.Dataset.from_list(ROWS[8:])})
    dd.save_to_disk(str(folder))
    over = [*tiny_config, f"data.source={folder}:train", f"eval.sources=[{folder}:test]", "data.prompts_per_epoch=2"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert f"data: 8 problems in {folder}:train" in out and f"3 of 4 problems ({folder}:test, eval.max_problems=3)" in out
    assert "(all 3 references pass their own tests)" in out
    run = tmp_path / "run"
    run.mkdir()
    cfg = load_config(None, over)
    warned, record = check_data_files(cfg, run)
    assert warned == []
    record()
    datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS[:7]),
                          "test": datasets.Dataset.from_list(ROWS[8:])}).save_to_disk(str(folder))
    warned, _ = check_data_files(cfg, run)
    assert len(warned) == 1 and warned[0].startswith(f"data.source: {folder.resolve()} changed since this run last read it")


def test_a_saved_dataset_named_whole_with_marked_rows_is_warned(tmp_path, caplog):
    from pipeline.config.file import load_config
    from pipeline.run.preflight import check_data
    folder = tmp_path / "ds"
    datasets.Dataset.from_list(ROWS).save_to_disk(str(folder))
    with caplog.at_level("WARNING", logger="rlaif"):
        check_data(load_config(None, [f"run.dir={tmp_path}/runs", f"data.source={folder}"]))
    assert f"{folder}: 3 of its rows are marked split=heldout, but data.source names the file whole" in caplog.text
