"""Run ids and store paths cannot reach outside the data home; deletes never follow symlinks."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from flows.cli.app import EXIT_USAGE, main
from tasks.engine.context import RunConfig, new_run_id
from warehouse.store import ArtifactStore, UnsafePathError, check_run_id

SCHEMA = pa.schema([pa.field("run_id", pa.string(), nullable=False)])
BAD_IDS = ["x/../../../../../victim", "..", ".", "", "/abs", "a b", "x\x00y", "-rf", "run\\x", "a" * 129, "é"]


@pytest.mark.parametrize("run_id", BAD_IDS)
def test_unsafe_run_ids_are_refused(tmp_path: Path, run_id: str) -> None:
    with pytest.raises(UnsafePathError, match="invalid run id"):
        check_run_id(run_id)
    store = ArtifactStore(tmp_path / "home")
    with pytest.raises(UnsafePathError):
        store.write_table("aggregate", run_id, "doc_labels", [{"run_id": "x"}], SCHEMA)
    with pytest.raises(UnsafePathError):
        RunConfig(home=tmp_path / "home", run_id=run_id or "/")  # a deployment parameter goes through this


def test_generated_and_ordinary_ids_are_accepted() -> None:
    for run_id in (new_run_id(), "demo", "2025-weekly.1", "A_b-c.d"):
        assert check_run_id(run_id) == run_id


def test_cli_refuses_a_traversing_run_id_and_touches_nothing(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    home = tmp_path / "a" / "b" / "home"
    for argv in (["run", "--run-id", "x/../../../../../victim"], ["rerun", "--run", "../../victim", "--stage", "judge"],
                 ["report", "--run", "../victim"], ["review", "list", "--run", "../../victim"]):
        assert main(["--home", str(home), *argv]) == EXIT_USAGE
        assert "invalid run id" in capsys.readouterr().err
    assert (victim / "keep.txt").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim"]  # not even the home was created


def test_writes_through_a_symlinked_folder_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    home = tmp_path / "home"
    (home / "artifacts").mkdir(parents=True)
    (home / "artifacts" / "aggregate").symlink_to(outside, target_is_directory=True)
    store = ArtifactStore(home)
    with pytest.raises(UnsafePathError, match="outside the data home"):
        store.write_table("aggregate", "r1", "doc_labels", [{"run_id": "r1"}], SCHEMA)
    assert list(outside.iterdir()) == []


def test_clearing_staging_unlinks_a_symlink_and_never_deletes_its_target(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("precious")
    home = tmp_path / "home"
    store = ArtifactStore(home)
    staging = store.staging("render", "r1", "hash-a")
    staging.put("doc", {"pages": pa.table({"run_id": ["r1"]})})
    # A symlink planted inside the staging tree is unlinked, not followed.
    (staging.root / "link").symlink_to(outside, target_is_directory=True)
    staging.clear()
    assert (outside / "keep.txt").read_text() == "precious"
    assert not staging.root.exists()
    # A staging root that is itself a symlink to outside the home is refused outright.
    root = home / "artifacts" / "render" / "_staging" / "run=r2"
    root.parent.mkdir(parents=True, exist_ok=True)
    root.symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePathError):
        store.staging("render", "r2", "hash-b").clear()
    assert (outside / "keep.txt").read_text() == "precious"


def test_the_home_itself_is_never_deleted(tmp_path: Path) -> None:
    from warehouse.store import remove_tree

    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(UnsafePathError, match="data home itself"):
        remove_tree(tmp_path, tmp_path / "a" / "..")
    assert (tmp_path / "keep.txt").exists()
