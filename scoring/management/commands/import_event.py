"""`manage.py import_event FILE [--festival SLUG]`: recreate an exported event in this database.

FILE is what `export_event` wrote (or the organiser's "Whole event (JSON)" download); `-` reads standard
input, e.g. `docker compose exec -T web python manage.py import_event - < event.json`. All or nothing:
a refused file writes nothing. See docs/backup.md.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.services.event_file import MAX_FILE_BYTES
from scoring.services.import_event import IMPORT_LABEL, ImportRefused, import_event
from tournament.services.audit import Actor


class Command(BaseCommand):
    help = (
        'Import an event exported as JSON ("rummikub-event/1") into this database: festival (unless it exists), '
        "event, players, stages, released seatings, confirmed score sheets, conduct records and lots."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The export (JSON); - reads standard input.")
        parser.add_argument("--festival", default=None,
                            help="Import into this festival (created from the file's details if it does not "
                                 "exist) instead of the file's own.")

    def handle(self, *args, file: str, festival: str | None, **options):
        content = self._read(file)
        try:
            imported = import_event(document=content, festival_slug=festival,
                                    actor=Actor(label=f"{IMPORT_LABEL} ({Path(file).name})"[:100]))
        except ImportRefused as refused:
            raise CommandError(str(refused.message)) from None
        event, counts = imported.event, imported.counts
        where = "new festival" if imported.festival_created else "existing festival"
        self.stdout.write(
            f"Imported {event.slug!r} into the {where} {event.festival.slug!r}: {counts['players']} players "
            f"({counts['reused_players']} already known), {counts['stages']} stages, {counts['draws']} seatings, "
            f"{counts['sheets']} confirmed score sheets, {counts['lots']} lots, {counts['conduct']} conduct records."
        )

    @staticmethod
    def _read(file: str) -> bytes:
        if file == "-":
            content = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            path = Path(file)
            if not path.is_file():
                raise CommandError(f"No such file: {file}")
            with path.open("rb") as handle:
                content = handle.read(MAX_FILE_BYTES + 1)
        return content  # the service refuses a file over the limit with its own message
