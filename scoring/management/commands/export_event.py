"""`manage.py export_event EVENT_SLUG [--festival FESTIVAL_SLUG]`: the whole event as JSON on standard output,
the same text as the organiser's download; the shape is documented in docs/export.md."""

from django.core.management.base import BaseCommand, CommandError

from scoring.exports import event_json
from tournament.models import Event


class Command(BaseCommand):
    help = (
        'Write an event as JSON ("rummikub-event/1": players, every confirmed score sheet, standings and lots) '
        "to standard output. Only confirmed score sheets are included."
    )

    def add_arguments(self, parser):
        parser.add_argument("event", help="The event's short name in links (slug).")
        parser.add_argument("--festival", default=None,
                            help="The festival's slug, when several festivals have an event with this slug.")

    def handle(self, *args, event: str, festival: str | None, **options):
        events = Event.objects.select_related("festival").filter(slug=event)
        if festival is not None:
            events = events.filter(festival__slug=festival)
        found = list(events.order_by("festival__slug")[:20])
        if not found:
            where = f" in the festival {festival!r}" if festival is not None else ""
            raise CommandError(f"No event with the slug {event!r}{where}.")
        if len(found) > 1:
            festivals = ", ".join(e.festival.slug for e in found)
            raise CommandError(f"Several festivals have an event {event!r} ({festivals}): choose one with --festival.")
        self.stdout.write(event_json(found[0]), ending="")
