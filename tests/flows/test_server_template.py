"""A new data home's Prefect database is a copy of a migrated one from the user's cache (flows/server.py),
never one that holds another home's runs. Fast: plain SQLite files stand in for Prefect's database."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from flows import server


def _database(path: Path, **rows: int) -> Path:
    """A database with Prefect's user tables and event tables, `rows[table]` rows in each named one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as db:
        db.execute("pragma journal_mode=wal")
        for table in (*server.USER_TABLES, "events", "event_resources", "block_type", "alembic_version"):
            db.execute(f"create table {table} (id integer)")
            db.executemany(f"insert into {table} values (?)", [(i,) for i in range(rows.get(table, 0))])
        db.commit()
    (path.parent / server.MEMO).write_text('block_auto_registration = "abc"\n')
    return path


def _count(path: Path, table: str) -> int:
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute(f"select count(*) from {table}").fetchone()[0])


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACCESSBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_migrated_database_is_kept_without_its_start_events_and_seeds_new_homes(tmp_path: Path, cache: Path) -> None:
    first = tmp_path / "first #1?"  # a name a file: URI would misread
    _database(server.prefect_home(first) / server.DATABASE, block_type=54, alembic_version=1, events=3,
              event_resources=5)
    assert server.save_template(first)
    template = server.template_dir() / server.DATABASE
    assert template.is_relative_to(cache) and "prefect-" in template.parent.name  # one per Prefect version
    counts = [_count(template, table) for table in ("block_type", "events", "event_resources")]
    assert counts == [54, 0, 0]
    assert not server.save_template(first)  # kept once: the first copy stays

    second = tmp_path / "second"
    stale = server.prefect_home(second) / f"{server.DATABASE}-wal"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"a journal of some other database")
    assert server.seed_database(second)
    copied = server.prefect_home(second) / server.DATABASE
    assert _count(copied, "block_type") == 54 and _count(copied, "alembic_version") == 1
    assert not stale.exists()  # never replayed into the copy
    assert (server.prefect_home(second) / server.MEMO).read_text() == 'block_auto_registration = "abc"\n'
    assert not list(server.prefect_home(second).glob("*.partial"))

    with closing(sqlite3.connect(copied)) as db:
        db.execute("insert into flow_run values (1)")
        db.commit()
    assert not server.seed_database(second)  # a home's own database is never replaced
    assert _count(copied, "flow_run") == 1


@pytest.mark.parametrize("table", ["flow_run", "deployment", "log"])
def test_a_database_that_holds_anything_of_a_user_is_never_kept(tmp_path: Path, cache: Path, table: str) -> None:
    home = tmp_path / "home"
    _database(server.prefect_home(home) / server.DATABASE, **{table: 1})
    assert not server.save_template(home)
    assert not (server.template_dir() / server.DATABASE).exists()
    assert not list(server.template_dir().glob("*.partial"))
    assert not server.seed_database(tmp_path / "other")  # nothing to copy: the next home migrates its own


def test_the_cache_is_the_users_unless_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACCESSBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert server.cache_dir() == tmp_path / "xdg" / "accessbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert server.cache_dir() == tmp_path / "user" / ".cache" / "accessbench"
