"""What the chief referee's and organiser's score-sheet pages share: who may open them and how they address
each other (the live board, a sheet, a stage, the table links). How far each game of a stage is:
`scoring.services.progress.stage_progress`."""

from urllib.parse import urlencode

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy

from tournament.models import Event, Stage
from tournament.permissions import CHIEF_REFEREE, ORGANISER
from tournament.views.helpers import staff_view

from ..models import ScoreSheet

S = ScoreSheet.Status
PENDING = "pending"
STATES = (PENDING, S.SUBMITTED, S.RETURNED, S.CONFIRMED)
STATE_LABELS = {
    PENDING: gettext_lazy("Pending"), S.SUBMITTED: gettext_lazy("Submitted"),
    S.RETURNED: gettext_lazy("Returned"), S.CONFIRMED: gettext_lazy("Confirmed"),
    S.SUPERSEDED: gettext_lazy("Replaced by a correction"),
}

chief_view = staff_view(CHIEF_REFEREE, home="board")
organiser_view = staff_view(ORGANISER, home="board")


def board_url(event: Event, **query) -> str:
    url = reverse("board", kwargs={"festival": event.festival.slug, "event": event.slug})
    query = {k: v for k, v in query.items() if v not in (None, "", False)}
    return f"{url}?{urlencode(query)}" if query else url


def sheet_url(event: Event, sheet: ScoreSheet) -> str:
    return reverse("board-sheet", kwargs={"festival": event.festival.slug, "event": event.slug, "sheet_id": sheet.pk})


def stage_url(event: Event, stage: Stage, name: str = "board-stage") -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, "stage": stage.number})


# What the sheet's page shows of it besides its own fields: its seating, who submitted it and who decided.
SHOWN = ("draw", "submitted_by", "decided_by")


def get_sheet(event: Event, sheet_id: int, *related: str) -> ScoreSheet:
    """The event's sheet `sheet_id` (else 404) with its stage, whose event is the one in hand, and `related`
    (names for select_related; SHOWN for the sheet's page). An action reads no more: its service reads the
    sheet again under the event's lock, with what it decides on."""
    sheet = get_object_or_404(ScoreSheet.objects.select_related("stage", *related), pk=sheet_id, stage__event=event)
    sheet.stage.event = event
    return sheet


def get_stage(event: Event, number: int) -> Stage:
    return get_object_or_404(Stage.objects.select_related("event__festival"), event=event, number=number)


PREFIX = "<slug:festival>/<slug:event>/board/"
