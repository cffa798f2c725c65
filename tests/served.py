"""The app as deployed, for tests that need a real server process: gunicorn serving the production settings
(tests/production_settings.py) on a free loopback port, against the test's own database.

`served_database_url(tmp_path)` is the database the server uses: on PostgreSQL the test database itself (the
test runs with `transactional_db`, so both sides see what the other committed); on SQLite the test database
is in this process's memory, so it is copied into a file the server opens (what the server writes there,
the test sees through the server's pages only).
"""

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from loadtest.two_servers import Server, start_server, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent
SECRET_KEY = "served-by-a-test-" + "s" * 50


def served_database_url(tmp_path: Path) -> str:
    connection.ensure_connection()
    if connection.vendor == "sqlite":
        path = tmp_path / "served.sqlite3"
        target = sqlite3.connect(path)
        try:
            connection.connection.backup(target)
        finally:
            target.close()
        return f"sqlite:///{path}"
    s = connection.settings_dict
    credentials = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else "")
    return f"postgres://{credentials}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def usable_password(user, password: str) -> None:
    """The test settings hash with MD5, which production does not accept: a cheap PBKDF2 hash instead."""
    user.password = PBKDF2PasswordHasher().encode(password, salt="servedbytest", iterations=1000)
    user.save(update_fields=["password"])


def server_environment(database_url: str, host: str, extra: dict[str, str]) -> dict[str, str]:
    # None of this machine's DJANGO_* settings, database or cache: only what the test gives.
    inherited = {name: value for name, value in os.environ.items()
                 if not name.startswith("DJANGO_") and name not in {"DATABASE_URL", "REDIS_URL", "PYTHONPATH"}}
    return inherited | {
        "DJANGO_SETTINGS_MODULE": "tests.production_settings", "DJANGO_SECRET_KEY": SECRET_KEY,
        "DJANGO_ALLOWED_HOSTS": host, "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1", **extra,
    }


@contextmanager
def production_server(*, database_url: str, out: Path, host: str = "localhost", env: dict[str, str] | None = None,
                      workers: int = 1) -> Iterator[Server]:
    """gunicorn with the production settings for `host` (and `env`) until the block ends; its output is in
    `out`/server-prod.log."""
    server = start_server("prod", server_environment(database_url, host, env or {}), out, workers)
    try:
        wait_until_up(server, "/accounts/login/", host=host)
        yield server
    finally:
        stop(server)
