"""Give the places held for a child's guardian, once the hold is over, to the waiting list (run every few
minutes: cron, or the `guardian-holds` service of docker-compose.yml).

Safe to run any number of times and at any moment: a hold is released once, under the event's lock, and only
when someone waits for the place (services.guardian_release, docs/consent.md).
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from tournament.services.guardian_release import release_expired_holds


class Command(BaseCommand):
    help = "Move children whose guardian has not agreed within the festival's hold to the waiting list."

    def handle(self, *args, **options):
        released = release_expired_holds(now=timezone.now())
        for registration in released:
            # No names or contacts in a log: the registration's id says enough to the organiser's pages.
            self.stdout.write(f"Released the place of registration {registration.pk} in {registration.event.slug}.")
        if not released:
            self.stdout.write("No place to release.")
