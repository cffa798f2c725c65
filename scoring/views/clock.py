"""The round clock as JSON (R9): `f/<festival>/<event>/clock.json`, public, polled every ~30 s.

The hall display, the organiser's board and every referee page poll it (static/js/turn-timer.js) and count
down in the browser from the deadline it gives. The answer carries the server's time (`server_time_ms`, and
the `X-Server-Time` header on every answer, 304s included) so a phone whose clock is off still calls time
with the hall. A weak ETag covers everything but the moment of asking: an unchanged clock costs its few
queries and a 304 without a body. The rule for the start and the length is in scoring/clock.py.
"""

import hashlib

from django.http import Http404, JsonResponse
from django.urls import path
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.translation import get_language
from django.views.decorators.http import require_safe

from tournament.models import Draw, Event
from tournament.views.helpers import get_event

from ..clock import RoundClock, StageFacts, facts_for, round_clock
from ..services.progress import current_stage, stage_progress

POLL_SECONDS = 30  # the pages ask this often (the JavaScript reads it from the answer)


def stage_facts(event: Event) -> StageFacts | None:
    """The event's current (newest) stage as the round clock sees it: 4 queries whatever the event's size."""
    stage = current_stage(event)
    if stage is None:
        return None
    play = stage_progress(stage)
    released_at = (
        Draw.objects.filter(stage=stage, status=Draw.Status.RELEASED, released_at__isnull=False)
        .order_by("game").values_list("released_at", flat=True).first()
    )
    return facts_for(event, stage, released_at=released_at, finished=play.complete)


def _ms(moment) -> int | None:
    return int(moment.timestamp() * 1000) if moment is not None else None


def _local(moment) -> str:
    """Wall-clock time at the venue (get_event activated the festival's time zone)."""
    return timezone.localtime(moment).strftime("%H:%M") if moment is not None else ""


def clock_data(clock: RoundClock, now) -> dict:
    remaining = clock.remaining(now)
    return {
        "state": clock.state,
        "stage": clock.stage,
        "name": clock.name,
        "minutes": clock.minutes,
        "planned": clock.planned,
        "starts_at": clock.starts_at.isoformat() if clock.starts_at else None,
        "ends_at": clock.ends_at.isoformat() if clock.ends_at else None,
        "starts_at_ms": _ms(clock.starts_at),
        "ends_at_ms": _ms(clock.ends_at),
        "starts_local": _local(clock.starts_at),
        "ends_local": _local(clock.ends_at),
        "remaining_seconds": int(remaining.total_seconds()) if remaining is not None else None,
        "server_time_ms": _ms(now),
        "poll_seconds": POLL_SECONDS,
    }


def _etag(event: Event, clock: RoundClock) -> str:
    raw = repr((event.pk, clock.state, clock.stage, clock.name, clock.minutes, clock.planned,
                _ms(clock.starts_at), _ms(clock.ends_at), get_language()))
    return f'W/"{hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()}"'


@require_safe
def clock_json(request, festival, event):
    now = timezone.now()
    try:
        event = get_event(festival, event)
    except Http404:
        response = JsonResponse({"error": "not found"}, status=404)
    else:
        clock = round_clock(stage_facts(event), now)
        etag = _etag(event, clock)
        response = get_conditional_response(request, etag=etag) or JsonResponse(clock_data(clock, now))
        response["ETag"] = etag
    patch_cache_control(response, no_cache=True, private=True)
    response["X-Server-Time"] = str(_ms(now))
    return response


urlpatterns = [
    path("f/<slug:festival>/<slug:event>/clock.json", clock_json, name="round-clock"),
]
