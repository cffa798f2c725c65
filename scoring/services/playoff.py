"""One-game playoffs for players sharing a prize place (R7, R8.2).

From the results page the organiser (or chief referee) creates a playoff table for the players tied on a
prize place: a new stage (advance = playoff, one game, "Playoff") with those players entered and a released
one-table draw whose seat order is drawn from a stored seed (R8.2: the first player is drawn). Its sheet is
entered and confirmed like any other (`seating.game_draw(stage, 1)` finds the draw in both formats); once
confirmed, its result orders those players only (`scoring.results`). Its game counts in nobody's wins or
points.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.formats.draw import ALGORITHM_VERSION, draw_seat_orders, new_seed
from tournament.formats.tables import MAX_TABLE
from tournament.models import Draw, Event, Stage, StageEntry
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event
from tournament.services.seating import write_seating

from ..results.event import event_results, find_prize_tie

PLAYOFF_NAME = "Playoff"


def create_playoff(*, event: Event, place: int, actor: Actor, seed: int | None = None, now=None) -> Stage:
    """A playoff table for the players sharing prize place `place`; returns the new stage."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        results = event_results(event)
        tie = find_prize_tie(results, place)
        if tie.pending_playoff is not None:
            raise ServiceError(_("A playoff for these players is already waiting for its result."),
                               code="playoff_pending")
        players = sorted(r.id for r in tie.registrations)
        if len(players) > MAX_TABLE:
            raise ServiceError(
                _("%(n)s players share this place; a playoff table seats at most %(max)s. Draw lots instead.")
                % {"n": len(players), "max": MAX_TABLE}, code="too_many")
        number = max((s.number for s in results.stages), default=0) + 1
        stage = Stage.objects.create(event=event, number=number, name=PLAYOFF_NAME, games=1,
                                     advance=Stage.Advance.PLAYOFF, advance_count=0)
        StageEntry.objects.bulk_create([StageEntry(stage=stage, registration_id=p) for p in players])
        seed = new_seed() if seed is None else seed
        (order,) = draw_seat_orders([players], seed)
        draw = write_seating(Draw(stage=stage, game=1, status=Draw.Status.RELEASED, method=Draw.Method.PLAYOFF,
                                  seed=seed, algorithm_version=ALGORITHM_VERSION, released_at=now,
                                  created_by=actor.user), [order])
        record(actor=actor, action="playoff.created", target=stage, event=event,
               after={"place": place, "players": players, "seats": list(order), "seed": seed,
                      "stage": stage.number, "draw": draw.pk})
    return stage
