"""Small pieces every view area uses: fetching a festival or event by slug, activating its time zone."""

from django.shortcuts import get_object_or_404
from django.utils import timezone

from ..models import Event, Festival


def get_festival(slug: str) -> Festival:
    festival = get_object_or_404(Festival, slug=slug)
    timezone.activate(festival.tzinfo)
    return festival


def get_event(festival_slug: str, event_slug: str) -> Event:
    event = get_object_or_404(Event.objects.select_related("festival"), festival__slug=festival_slug, slug=event_slug)
    timezone.activate(event.festival.tzinfo)
    return event
