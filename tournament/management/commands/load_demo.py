"""`manage.py load_demo`: the demo festivals and accounts for `make run` (development only)."""

import datetime as dt

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournament.demo import load_demo, summary_lines


class Command(BaseCommand):
    help = (
        "Create the 2014 Busan and 2016 Hong Kong demo festivals (laid out around now: an event open for "
        "registration, one in check-in, one being played) and the demo accounts. Running it again within the "
        "quarter hour changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="Load even with DEBUG off (the demo password is public)."
        )
        parser.add_argument(
            "--date", type=dt.date.fromisoformat, default=None,
            help="Hold the festivals on this day (YYYY-MM-DD), at this time of day, instead of today, e.g. 2014-11-01.",
        )

    def handle(self, *args, force: bool, date: dt.date | None, **options):
        if not settings.DEBUG:
            self.stderr.write(self.style.WARNING(
                "DEBUG is off: this looks like a real installation, and the demo accounts share a published password."
            ))
            if not force:
                raise CommandError("Refusing to load demo data; add --force if this database is a throwaway.")
        festivals = load_demo(day=date)
        for line in summary_lines(festivals):
            self.stdout.write(line)
