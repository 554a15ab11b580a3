"""atomic_dir: a stage's output replaces what was there in one rename, directory or file, and
leaves nothing beside it; clean_stale sweeps what a killed process left."""
from __future__ import annotations

import pytest

from pipeline.store.artifacts import atomic_dir, clean_stale


def leftovers(parent):
    return sorted(p.name for p in parent.iterdir() if p.name.startswith((".tmp-", ".trash-")))


def test_replacing_a_directory_leaves_nothing_beside_it(tmp_path):
    final = tmp_path / "judge"
    for text in ("first", "second"):
        with atomic_dir(final) as d:
            (d / "x.txt").write_text(text)
    assert (final / "x.txt").read_text() == "second"
    assert leftovers(tmp_path) == []


def test_replacing_a_file_leaves_no_trash(tmp_path):
    final = tmp_path / "export"
    final.write_text("a file where the output directory goes")
    with atomic_dir(final) as d:
        (d / "model.safetensors").write_text("weights")
    assert final.is_dir() and (final / "model.safetensors").read_text() == "weights"
    assert leftovers(tmp_path) == []


def test_an_error_inside_keeps_the_old_output(tmp_path):
    final = tmp_path / "update"
    with atomic_dir(final) as d:
        (d / "adapter.bin").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_dir(final) as d:
            (d / "adapter.bin").write_text("half")
            raise KeyboardInterrupt
    assert (final / "adapter.bin").read_text() == "old"
    assert leftovers(tmp_path) == []


def test_clean_stale_removes_dead_leftovers_files_included(tmp_path):
    (tmp_path / ".trash-export-abc123").write_text("a replaced file")
    (tmp_path / ".trash-judge-def456").mkdir()
    (tmp_path / ".tmp-sample-999999999-aaaaaa").mkdir()  # no such pid
    (tmp_path / "sample").mkdir()
    clean_stale(tmp_path)
    assert leftovers(tmp_path) == [] and (tmp_path / "sample").is_dir()
