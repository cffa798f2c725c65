"""Backups of the database in use and restoring them (`make backup`, `make restore`, docs/backup.md).

SQLite: SQLite's online backup API (`sqlite3.Connection.backup`) copies the file page by page inside one read
transaction — a consistent snapshot while the app keeps writing (WAL mode, see settings). PostgreSQL:
`pg_dump --format=custom`, itself one consistent snapshot, restored with `pg_restore`.

A restore goes only into an EMPTY database (no row outside Django's own bookkeeping tables) unless forced:
nothing is overwritten by accident. Backups hold personal data (names, contacts): files are created 0600.

Management commands rather than a shell script: they read the database exactly as the app does (DATABASE_URL
through the same settings), SQLite's online backup API is at hand in Python, and "is it empty?" is a question
for Django's introspection.
"""

import datetime as dt
import os
import re
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

from django.db import connection

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_CUSTOM_MAGIC = b"PGDMP"
# Filled by `migrate` itself (content types, permissions, the role groups of tournament/migrations/0002):
# a freshly migrated database is still empty.
BOOKKEEPING = {"django_migrations", "django_content_type", "auth_permission", "auth_group",
               "auth_group_permissions", "sqlite_sequence"}
PG_TIMEOUT = 3600


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why and what to do."""


def engine() -> str:
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise BackupError(f"Backups support SQLite and PostgreSQL, not {vendor}.")
    return vendor


def describe() -> str:
    name = connection.settings_dict["NAME"]
    return f"SQLite file {name}" if engine() == "sqlite" else f"PostgreSQL database {name!r}"


def _private_file(path: Path) -> None:
    """An empty file only the owner can read: the backup is written into it."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))


def backup_path(directory: Path, now: dt.datetime | None = None) -> Path:
    """`<database>-<UTC time>.sqlite3|.dump` in `directory`, never an existing file's name."""
    now = now or dt.datetime.now(dt.UTC)
    name = str(connection.settings_dict["NAME"])
    name = "memory" if "mode=memory" in name or name == ":memory:" else Path(name).stem
    name = re.sub(r"[^\w-]+", "-", name).strip("-") or "database"
    suffix = ".sqlite3" if engine() == "sqlite" else ".dump"
    stem = f"{name}-{now:%Y%m%d-%H%M%S}"
    path, n = directory / f"{stem}{suffix}", 1
    while path.exists():
        n += 1
        path = directory / f"{stem}-{n}{suffix}"
    return path


def backup(directory: Path) -> Path:
    """A consistent copy of the database in use, written to a new file in `directory`; returns its path."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = backup_path(directory)
    partial = target.with_name(target.name + ".partial")  # a failed run never leaves a file that looks whole
    _private_file(partial)
    try:
        if engine() == "sqlite":
            _backup_sqlite(partial)
        else:
            _backup_postgres(partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _backup_sqlite(target: Path) -> None:
    connection.ensure_connection()
    with closing(sqlite3.connect(target)) as copy:
        # pages=-1: the whole database in one step, i.e. one read transaction: a single point in time.
        connection.connection.backup(copy, pages=-1)
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        _check_sqlite(copy, target)


def _check_sqlite(db: sqlite3.Connection, path: Path) -> None:
    result = db.execute("PRAGMA integrity_check").fetchone()[0]
    if result != "ok":
        raise BackupError(f"{path} fails SQLite's integrity check: {result}")
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'django_migrations'").fetchone():
        raise BackupError(f"{path} is a SQLite database but not one of this app (no django_migrations table).")


def _pg_environment() -> dict[str, str]:
    """libpq's variables: the password never appears on a command line (visible to every user in `ps`)."""
    db = connection.settings_dict
    env = dict(os.environ)
    for variable, value in (("PGHOST", db.get("HOST")), ("PGPORT", db.get("PORT")), ("PGUSER", db.get("USER")),
                            ("PGPASSWORD", db.get("PASSWORD")), ("PGDATABASE", db.get("NAME")),
                            ("PGSSLMODE", (db.get("OPTIONS") or {}).get("sslmode"))):
        if value:
            env[variable] = str(value)
    return env


def _run(tool: str, *args: str) -> str:
    if shutil.which(tool) is None:
        raise BackupError(f"{tool} is not installed (Debian: apt-get install postgresql-client; it must be at "
                          f"least the server's version). In docker compose, run it in the db container: "
                          f"see docs/backup.md.")
    done = subprocess.run([tool, *args], env=_pg_environment(), capture_output=True, text=True,
                          timeout=PG_TIMEOUT, check=False)
    if done.returncode != 0:
        raise BackupError(f"{tool} failed (exit code {done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


def _backup_postgres(target: Path) -> None:
    _run("pg_dump", "--format=custom", f"--file={target}")
    _run("pg_restore", "--list", str(target))  # the archive reads back: its table of contents is whole


# --- restoring ------------------------------------------------------------------------------------------------


def kind_of(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(len(SQLITE_MAGIC))
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_CUSTOM_MAGIC):
        return "postgresql"
    raise BackupError(f"{path} is not a backup made by `manage.py backup` (neither a SQLite database nor a "
                      f"pg_dump custom-format archive). A plain SQL dump is restored with psql.")


def rows_in_use() -> dict[str, int]:
    """Tables of the database in use that hold rows (Django's bookkeeping aside): what a restore would lose."""
    counts = {}
    with connection.cursor() as cursor:
        for table in sorted(set(connection.introspection.table_names(cursor)) - BOOKKEEPING):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608 (introspected)
            count = cursor.fetchone()[0]
            if count:
                counts[table] = count
    return counts


def restore(path: Path, *, force: bool = False) -> None:
    """Put a backup in place of the database in use — only an empty one unless `force`."""
    if not path.is_file():
        raise BackupError(f"No such file: {path}")
    kind, vendor = kind_of(path), engine()
    if kind != vendor:
        raise BackupError(f"{path} is a {kind} backup, but the database in use is {vendor}. To move an event "
                          f"between them, use export_event and import_event (docs/backup.md).")
    if kind == "sqlite":
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as source:
            _check_sqlite(source, path)
    used = rows_in_use()
    if used and not force:
        listed = ", ".join(f"{table} ({count} rows)" for table, count in list(used.items())[:6])
        more = f" and {len(used) - 6} more tables" if len(used) > 6 else ""
        raise BackupError(f"The {describe()} is not empty: {listed}{more}. A restore "
                          f"replaces everything in it; refusing. Restore into an empty database, or repeat with "
                          f"--force (make restore FORCE=1) once you have a backup of it.")
    connection.close()  # nothing of ours holds the database while it is replaced
    if vendor == "sqlite":
        _restore_sqlite(path)
    else:
        _run("pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
             "--exit-on-error", f"--dbname={connection.settings_dict['NAME']}", str(path))


def _restore_sqlite(path: Path) -> None:
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or "mode=memory" in name:
        raise BackupError("The database in use is in memory; set DATABASE_URL to the SQLite file to restore into.")
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as source, \
            closing(sqlite3.connect(name, timeout=20)) as target:
        source.backup(target, pages=-1)  # the target's pages are replaced in one write transaction
