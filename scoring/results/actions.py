"""What the organiser does on the results page: draw lots for a shared prize place, set the ranking-points
table. One service each, in one transaction under the event's lock."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from tournament.formats.draw import new_seed
from tournament.formats.ranking import draw_lot
from tournament.list_text import as_text
from tournament.models import (
    Event,
    Lot,
)
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event

from .event import event_results, find_prize_tie


def draw_place_lot(*, event: Event, place: int, actor: Actor, seed: int | str | None = None) -> Lot:
    """R7: the software draws numbered cards for the players sharing a prize place and records them."""
    with transaction.atomic():
        event = lock_event(event)
        results = event_results(event)
        tie = find_prize_tie(results, place)
        if tie.pending_playoff is not None:
            raise ServiceError(_("A playoff for these players is waiting for its result."), code="playoff_pending")
        seed = new_seed() if seed is None else seed
        lot = draw_lot([r.id for r in tie.registrations], seed)
        numbers = {str(p): n for p, n in lot.numbers.items()}
        row = Lot.objects.create(stage=tie.stage, purpose=Lot.Purpose.PLACE, players=list(lot.players),
                                 numbers=numbers, seed=str(seed), created_by=actor.user)
        record(actor=actor, action="lot.place", target=row, event=event,
               after={"place": place, "players": list(lot.players), "numbers": numbers, "seed": str(seed)})
    return row


def set_ranking_points(*, event: Event, points: list[int], actor: Actor) -> Event:
    """The organiser's ranking-points table: points of places 1, 2, 3 …, whole numbers 0..100000 (R9)."""
    try:
        Event._meta.get_field("ranking_points").clean(points, event)
    except ValidationError as error:
        raise ServiceError(" ".join(error.messages), code="bad_points") from None
    with transaction.atomic():
        event = lock_event(event)
        before = event.ranking_points
        if before == points:  # saved again unchanged (a phone sending twice): nothing to record
            return event
        event.ranking_points = points
        event.save(update_fields=["ranking_points"])
        # The audit log keeps the table as comma text, as its older entries have it.
        record(actor=actor, action="event.ranking_points", target=event, event=event,
               before={"ranking_points": as_text(before)}, after={"ranking_points": as_text(points)})
    return event
