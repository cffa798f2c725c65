"""`manage.py restore FILE [--force]` (`make restore FILE=…`): put a backup made by `manage.py backup` in place of
the database in use — only if that database is empty, unless --force. See docs/backup.md."""

import sqlite3
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from tournament.backups import BackupError, describe, restore


class Command(BaseCommand):
    help = ("Restore a backup made by `manage.py backup` into the database in use. Refuses a database that "
            "holds any data unless --force. Stop the app servers first.")

    def add_arguments(self, parser):
        parser.add_argument("file", help="The backup: a .sqlite3 file or a pg_dump custom-format .dump.")
        parser.add_argument("--force", action="store_true",
                            help="Replace a database that is not empty (everything in it is lost).")

    def handle(self, *args, file: str, force: bool, **options):
        try:
            target = describe()
            restore(Path(file), force=force)
        except (BackupError, OSError, sqlite3.Error) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Restored {file} into the {target}: {self._summary()}.")
        self.stdout.write("If the backup comes from an older version of the app, run `manage.py migrate` now.")

    @staticmethod
    def _summary() -> str:
        tables = {"festivals": "tournament_festival", "events": "tournament_event",
                  "registrations": "tournament_registration", "score sheets": "scoring_scoresheet"}
        with connection.cursor() as cursor:
            existing = set(connection.introspection.table_names(cursor))
            counts = []
            for label, table in tables.items():
                if table in existing:
                    cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
                    counts.append(f"{cursor.fetchone()[0]} {label}")
        return ", ".join(counts) or "no tables of this app"
