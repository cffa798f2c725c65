"""`make run` plays the demo's games: finished events with results, and a live round with sheets waiting."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from scoring.simulation.demo import load_demo_results


class Command(BaseCommand):
    help = (
        "Play the demo's games through the services (idempotent): a festival of two finished events, the Busan "
        "children's event once it is over, and the Hong Kong final stopped in the middle of a round."
    )

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="Run even when DEBUG is off.")

    def handle(self, *args, force=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError("Demo data is for development; use --force to load it anyway.")
        for line in load_demo_results():
            self.stdout.write(line)
