"""`make run` adds finished events to the demo, so a newcomer sees standings, results and podiums at once."""

import datetime as dt

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from scoring.simulation import simulate
from tournament.models import Festival

SLUG = "demo-results"


class Command(BaseCommand):
    help = "Create a festival with a finished Busan and a finished Hong Kong event (simulated; idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Run even when DEBUG is off.")

    def handle(self, *args, force=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError("Demo data is for development; use --force to load it anyway.")
        if Festival.objects.filter(slug=SLUG).exists():
            self.stdout.write(f"Finished demo events already loaded: /f/{SLUG}/")
            return
        today = timezone.localdate()
        with transaction.atomic():
            festival = Festival.objects.create(
                slug=SLUG, name="Finished events (simulated demo)", venue="Demo hall",
                starts_on=today - dt.timedelta(days=7), ends_on=today - dt.timedelta(days=7),
            )
            simulate("busan", 48, 2014, festival=festival, name="Busan-style elimination, 48 players")
            simulate("hk", 32, 2016, festival=festival, name="Hong Kong-style rotation, 32 players")
        self.stdout.write(f"Finished demo events: /f/{SLUG}/ (standings, results, podium, exports)")
