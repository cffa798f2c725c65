"""`manage.py backup` / `manage.py restore` (make backup / make restore): real round trips.

SQLite: the test database (committed: `transactional_db`) is backed up through the online backup API, then
restored by `manage.py restore` in a separate process into a new file; a backup taken while another connection
holds an uncommitted write shows the committed state and does not wait for it. PostgreSQL (its pass of the
suite): pg_dump of the test database, pg_restore into a second, empty database. Both compare every table's
row count and some rows, and check that a database with data is never overwritten without --force.
"""

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from scoring.simulation import simulate
from tournament.backups import BOOKKEEPING

pytestmark = pytest.mark.django_db(transaction=True)
# What tells two copies of a day apart: the people, their numbers, every score.
ROWS = {
    "festival": "SELECT slug, name FROM tournament_festival ORDER BY id",
    "registrations": "SELECT r.id, r.number, p.name, CASE WHEN r.checked_in_at IS NULL THEN 0 ELSE 1 END "
                     "FROM tournament_registration r JOIN tournament_player p ON p.id = r.player_id ORDER BY r.id",
    "scores": "SELECT sheet_id, position, registration_id, CAST(score AS TEXT) FROM scoring_sheetseat ORDER BY id",
}


def manage(*args: str, database_url: str) -> subprocess.CompletedProcess:
    """manage.py in its own process, as `make backup` / `make restore` run it, against another database."""
    env = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def django_tables() -> list[str]:
    with connection.cursor() as cursor:
        return sorted(connection.introspection.table_names(cursor))


def counts_here() -> dict[str, int]:
    with connection.cursor() as cursor:
        out = {}
        for table in django_tables():
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            out[table] = cursor.fetchone()[0]
    return out


def rows_here() -> dict[str, list[tuple]]:
    with connection.cursor() as cursor:
        out = {}
        for name, sql in ROWS.items():
            cursor.execute(sql)
            out[name] = [tuple(row) for row in cursor.fetchall()]
    return out


@contextmanager
def opened(path: Path):
    """A connection that is closed on leaving (sqlite3's own `with` only commits). Closed before the test reads
    the file's bytes: closing any descriptor of a file drops the process's POSIX locks that SQLite relies on."""
    with closing(sqlite3.connect(path)) as db, db:
        yield db


def sqlite_counts(path: Path) -> dict[str, int]:
    with opened(path) as db:
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {table: db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in sorted(tables)}


def sqlite_rows(path: Path) -> dict[str, list[tuple]]:
    with opened(path) as db:
        return {name: [tuple(row) for row in db.execute(sql)] for name, sql in ROWS.items()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def the_day() -> None:
    """A finished Busan event and a finished Hong Kong one: every table of the app has rows."""
    simulate("busan", 16, 2)
    simulate("hk", 8, 3)


def backup_here(directory: Path) -> Path:
    call_command("backup", "--output-dir", str(directory), stdout=open(os.devnull, "w"))  # noqa: SIM115
    (path,) = [p for p in directory.iterdir()]
    return path


# --- SQLite ---------------------------------------------------------------------------------------------------


@pytest.fixture
def on_sqlite():
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite backup; the PostgreSQL pass runs test_postgres_dump_and_restore")


@pytest.mark.slow
def test_sqlite_backup_restores_into_an_empty_file_and_never_over_data(on_sqlite, tmp_path):
    the_day()
    backup = backup_here(tmp_path / "backups")
    assert backup.suffix == ".sqlite3" and oct(backup.stat().st_mode & 0o777) == "0o600"  # personal data
    assert sqlite_counts(backup) == counts_here() and sqlite_rows(backup) == rows_here()

    restored = tmp_path / "new-machine.sqlite3"
    url = f"sqlite:///{restored}"
    done = manage("restore", str(backup), database_url=url)
    assert done.returncode == 0, done.stderr
    assert "2 events" in done.stdout
    assert sqlite_counts(restored) == counts_here() and sqlite_rows(restored) == rows_here()
    with opened(restored) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    before = digest(restored)
    refused = manage("restore", str(backup), database_url=url)
    assert refused.returncode == 1 and "is not empty" in refused.stderr and "--force" in refused.stderr
    assert digest(restored) == before  # not touched

    with opened(restored) as db:
        db.execute("UPDATE tournament_festival SET name = 'changed after the backup'")
    forced = manage("restore", "--force", str(backup), database_url=url)
    assert forced.returncode == 0, forced.stderr
    assert sqlite_rows(restored) == rows_here()


@pytest.mark.slow
def test_a_migrated_database_without_data_counts_as_empty(on_sqlite, tmp_path):
    """docker compose migrates before anything else: such a database takes a restore without --force."""
    the_day()
    backup = backup_here(tmp_path / "backups")
    migrated = tmp_path / "migrated.sqlite3"
    shutil.copy(backup, migrated)
    with opened(migrated) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        for table in sqlite_counts(migrated):
            if table not in BOOKKEEPING:
                db.execute(f'DELETE FROM "{table}"')
    done = manage("restore", str(backup), database_url=f"sqlite:///{migrated}")
    assert done.returncode == 0, done.stderr
    assert sqlite_rows(migrated) == rows_here()


@pytest.mark.slow
def test_a_backup_while_a_write_is_under_way_holds_the_committed_state(on_sqlite, tmp_path):
    """WAL mode: the backup reads one snapshot and neither waits for nor includes an open write."""
    the_day()
    live = tmp_path / "live.sqlite3"
    shutil.copy(backup_here(tmp_path / "first"), live)
    writer = sqlite3.connect(live, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE tournament_festival SET name = 'not committed yet'")
    try:
        done = manage("backup", "--output-dir", str(tmp_path / "second"), database_url=f"sqlite:///{live}")
        assert done.returncode == 0, done.stderr
    finally:
        writer.execute("COMMIT")
        writer.close()
    (copy,) = (tmp_path / "second").iterdir()
    assert "not committed yet" not in {name for _slug, name in sqlite_rows(copy)["festival"]}
    assert {name for _slug, name in sqlite_rows(live)["festival"]} == {"not committed yet"}


def test_restore_refuses_what_is_not_a_backup_of_this_kind(on_sqlite, tmp_path):
    """Checked before the database in use is even looked at."""
    junk = tmp_path / "notes.txt"
    junk.write_text("name,contact\n")
    dump = tmp_path / "other.dump"
    dump.write_bytes(b"PGDMP\x01\x0e\x00" + bytes(100))
    foreign = tmp_path / "foreign.sqlite3"
    with opened(foreign) as db:
        db.execute("CREATE TABLE notes (text)")
    for file, message in ((junk, "not a backup"), (dump, "postgresql backup, but the database in use is sqlite"),
                          (tmp_path / "nope.sqlite3", "No such file"), (foreign, "not one of this app")):
        with pytest.raises(CommandError, match=message):
            call_command("restore", str(file))
    with pytest.raises(CommandError, match="import_event"):
        call_command("restore", str(dump))


# --- PostgreSQL -----------------------------------------------------------------------------------------------


def pg_url(name: str) -> str:
    s = connection.settings_dict
    credentials = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else "")
    return f"postgres://{credentials}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"


def pg_admin(sql: str) -> None:
    with psycopg.connect(pg_url("postgres"), autocommit=True) as admin:
        admin.execute(sql)


def pg_counts_and_rows(name: str) -> tuple[dict, dict]:
    with psycopg.connect(pg_url(name)) as db:
        tables = [t for (t,) in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        counts = {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in sorted(tables)}
        rows = {key: [tuple(r) for r in db.execute(sql).fetchall()] for key, sql in ROWS.items()}
    return counts, rows


@pytest.mark.postgres
def test_postgres_dump_and_restore_into_an_empty_database(on_postgres, transactional_db, tmp_path):
    if shutil.which("pg_dump") is None:
        pytest.fail("pg_dump is not installed (Debian package postgresql-client)")
    the_day()
    backup = backup_here(tmp_path / "backups")
    assert backup.suffix == ".dump" and backup.read_bytes().startswith(b"PGDMP")
    assert oct(backup.stat().st_mode & 0o777) == "0o600"
    # The second database of this helper's test run: test_<name>_restored.
    restored = f"{connection.settings_dict['NAME']}_restored"
    pg_admin(f'DROP DATABASE IF EXISTS "{restored}"')
    pg_admin(f'CREATE DATABASE "{restored}"')
    try:
        done = manage("restore", str(backup), database_url=pg_url(restored))
        assert done.returncode == 0, done.stderr
        counts, rows = pg_counts_and_rows(restored)
        assert counts == counts_here() and rows == rows_here()
        assert counts["scoring_sheetseat"] > 0 and counts["tournament_lot"] + counts["tournament_draw"] > 0

        refused = manage("restore", str(backup), database_url=pg_url(restored))
        assert refused.returncode == 1 and "is not empty" in refused.stderr
        with psycopg.connect(pg_url(restored)) as db:
            db.execute("UPDATE tournament_festival SET name = 'changed after the backup'")
        forced = manage("restore", "--force", str(backup), database_url=pg_url(restored))
        assert forced.returncode == 0, forced.stderr
        assert pg_counts_and_rows(restored) == (counts_here(), rows_here())
    finally:
        pg_admin(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')


@pytest.mark.postgres
def test_postgres_refuses_a_sqlite_backup_before_touching_anything(on_postgres, tmp_path):
    other = tmp_path / "laptop.sqlite3"
    with opened(other) as db:
        db.execute("CREATE TABLE django_migrations (id integer)")
    with pytest.raises(CommandError, match="sqlite backup, but the database in use is postgresql"):
        call_command("restore", str(other))
