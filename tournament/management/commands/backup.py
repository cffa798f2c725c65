"""`manage.py backup [--output-dir DIR]` (`make backup`): a consistent, timestamped copy of the database in use.

SQLite through the online backup API, PostgreSQL through `pg_dump --format=custom`; safe while the app runs.
See tournament/backups.py and docs/backup.md.
"""

import sqlite3
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournament.backups import BackupError, backup, describe


class Command(BaseCommand):
    help = ("Write a consistent, timestamped backup of the database in use (DATABASE_URL or the SQLite file) "
            "while the app runs: SQLite's online backup, or pg_dump's custom format for PostgreSQL.")

    def add_arguments(self, parser):
        parser.add_argument("--output-dir", default=str(Path(settings.BASE_DIR) / "backups"),
                            help="Where the backup goes (default: backups/ in the project, created 0700).")

    def handle(self, *args, output_dir: str, **options):
        try:
            source = describe()
            path = backup(Path(output_dir))
        except (BackupError, OSError, sqlite3.Error) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"Backed up the {source} to {path} ({path.stat().st_size:,} bytes).")
        self.stdout.write(f"Restore it into an empty database with: make restore FILE={path}")
