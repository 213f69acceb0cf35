"""`accessbench sql` is a sandbox: every bypass from issue 12 is refused, nothing is read or written.

The attacks run twice: through `catalog.query` (the friendly keyword check, then DuckDB), and on a
bare `catalog.connect` connection without the keyword check, to show DuckDB itself refuses them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from flows.cli.app import EXIT_USAGE, main
from warehouse import catalog
from warehouse.catalog import ReadOnlyError, TableSpec
from warehouse.store import ArtifactStore

LABELS = pa.schema([pa.field("run_id", pa.string(), nullable=False), pa.field("label", pa.string())])
TABLES = [TableSpec("doc_labels", "aggregate", LABELS)]
SECRET = "sk-test-SECRET-9f2c"


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    ArtifactStore(home).write_table("aggregate", "R", "doc_labels", [{"run_id": "R", "label": "failed"}], LABELS)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.csv").write_text(f"key\n{SECRET}\n")
    ArtifactStore(tmp_path / "outside").write_table("aggregate", "X", "doc_labels", [{"run_id": "X", "label": SECRET}],
                                                    LABELS)
    return home


def _attacks(home: Path) -> list[str]:
    outside = home.parent / "outside"
    labels = home / "artifacts" / "aggregate" / "run=R" / "doc_labels.parquet"
    other = outside / "artifacts" / "aggregate" / "run=X" / "doc_labels.parquet"
    copy = f"COPY (SELECT 'R' AS run_id, 'passed' AS label) TO '{labels}' (FORMAT parquet)"
    return [
        "select * from read_text('/proc/self/environ')",
        f"select * from read_text('{outside}/secret.csv')",
        f"select * from read_csv('{outside}/secret.csv')",
        "select * from read_csv('/etc/passwd', sep=':')",
        f"select * from read_blob('{outside}/secret.csv')",
        "select * from glob('/etc/*')",
        f"select * from read_parquet('{other}')",
        f"select * from read_parquet('{labels}')",  # inside the home too: DuckDB reads no file at all
        f"select * from '{other}'",  # replacement scan of a path
        f"select * from sniff_csv('{outside}/secret.csv')",
        f"select * from parquet_metadata('{other}')",
        f"with t as (select * from read_text('{outside}/secret.csv')) select * from t",
        f"SeLeCt /* hi */ * FrOm ReAd_TeXt('{outside}/secret.csv')",
        f"select * from doc_labels union all select 'x', content from read_text('{outside}/secret.csv')",
        copy,
        f"EXPLAIN ANALYZE {copy}",
        f"explain /* c */ analyze -- c\n {copy}",
        f"/* lead */ EXPLAIN {copy}",
        f"with t as (select 1) {copy}",
        "EXPLAIN ANALYZE INSTALL httpfs",
        "INSTALL httpfs",
        "LOAD httpfs",
        "EXPLAIN ANALYZE SET enable_external_access = true",
        "SET enable_external_access = true",
        "set lock_configuration = false",
        "RESET enable_external_access",
        f"ATTACH '{outside}/evil.db' AS evil",
        f"EXPLAIN ANALYZE ATTACH '{outside}/evil.db'",
        "select 1; select * from read_text('/etc/passwd')",
        "select 1; COPY (select 1) TO '/tmp/x.csv'",
        "CREATE TABLE t AS SELECT 1",
        "PRAGMA enable_external_access",
        "CALL pragma_version()",
    ]


def _fingerprint(home: Path) -> dict[str, str]:
    root = home.parent
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_every_bypass_is_refused_and_nothing_changes(home: Path) -> None:
    before = _fingerprint(home)
    for sql in _attacks(home):
        with pytest.raises(ReadOnlyError, match="refused|parse") as caught:
            catalog.query(home, TABLES, sql)
        assert SECRET not in str(caught.value), sql
    assert _fingerprint(home) == before  # no file written, replaced or added
    assert catalog.query(home, TABLES, "select label from doc_labels") == (["label"], [("failed",)])


@pytest.mark.parametrize("sql", [
    "select * from read_text('/proc/self/environ')",
    "select * from glob('/etc/*')",
    "COPY (select 1) TO '{home}/artifacts/aggregate/run=R/doc_labels.parquet' (FORMAT parquet)",
    "EXPLAIN ANALYZE COPY (select 1) TO '{home}/x.csv'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "ATTACH '{home}/evil.db'",
])
def test_duckdb_itself_refuses_without_the_keyword_check(home: Path, sql: str) -> None:
    con = catalog.connect(home, TABLES)
    try:
        with pytest.raises((duckdb.PermissionException, duckdb.InvalidInputException)):
            con.execute(sql.format(home=home))
        assert con.execute("select current_setting('enable_external_access')").fetchone() == (False,)
        assert con.execute("select current_setting('autoinstall_known_extensions')").fetchone() == (False,)
    finally:
        con.close()
    assert not (home / "evil.db").exists() and not (home / "x.csv").exists()


def test_duckdbs_own_temp_directory_is_not_readable_either(home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # DuckDB allows its spill folder (<cwd>/.tmp/) even with external access off, unless it has none.
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "s.txt").write_text(SECRET)
    monkeypatch.chdir(tmp_path)
    for sql in ("select * from read_text('.tmp/s.txt')", f"select * from read_text('{tmp_path}/.tmp/s.txt')",
                "select * from glob('.tmp/*')"):
        with pytest.raises(ReadOnlyError, match="refused") as caught:
            catalog.query(home, TABLES, sql)
        assert SECRET not in str(caught.value)
    assert catalog.query(home, TABLES, "select current_setting('allowed_directories')")[1] == [([],)]


def test_explain_of_a_select_still_works(home: Path) -> None:
    for sql in ("explain select * from doc_labels", "EXPLAIN ANALYZE select count(*) from doc_labels",
                "/* c */ explain with t as (select 1) select * from t", "summarize doc_labels"):
        columns, rows = catalog.query(home, TABLES, sql)
        if sql.startswith("summarize"):  # one row per column of the table, with its statistics
            assert columns[0] == "column_name" and {r[0] for r in rows} >= {"run_id", "label"}, rows
        else:  # a plan, never the rows themselves
            assert columns == ["explain_key", "explain_value"] and rows[0][0] in ("physical_plan", "analyzed_plan")
            assert "╭─" in rows[0][1], sql


def test_cli_refuses_with_exit_2_and_a_clear_message(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = home.parent / "outside"
    for sql in (f"select * from read_text('{outside}/secret.csv')", "EXPLAIN ANALYZE INSTALL httpfs",
                "select 1; select 2"):
        assert main(["--home", str(home), "sql", sql]) == EXIT_USAGE
        captured = capsys.readouterr()
        assert "refused" in captured.err and SECRET not in captured.err + captured.out
