"""Where a sheet a table entered itself stands with its players: agreed by all, by most once the time is up,
disputed, or still waiting (events whose players keep their own sheets: `Event.sheets_by`).

`agreement_of` is a pure function of the answers; `agreements` reads them for many sheets in two queries, for
the chief referee's board and for "confirm every clean sheet" (scoring/services/sheets.py).
"""

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import Event

from ..models import ScoreSheet, SheetAnswer, SheetSeat

AGREED, MAJORITY, DISPUTED, WAITING = "agreed", "majority", "disputed", "waiting"


def players_keep_sheets(event: Event) -> bool:
    return event.sheets_by == Event.SheetsBy.PLAYERS


@dataclass(frozen=True)
class Answer:
    position: int
    answer: str  # SheetAnswer.Answer
    reason: str = ""


@dataclass(frozen=True)
class Agreement:
    state: str  # AGREED, MAJORITY, DISPUTED or WAITING
    agreed: int
    seats: int
    answers: dict[int, Answer] = field(default_factory=dict)  # seat → that player's latest answer

    @property
    def clean(self) -> bool:
        """Whether the chief referee may confirm it with the other clean sheets, unopened."""
        return self.state in (AGREED, MAJORITY)

    @property
    def disputes(self) -> list[Answer]:
        return [a for a in self.answers.values() if a.answer == SheetAnswer.Answer.DISPUTED]

    @property
    def label(self) -> str:
        if self.state == AGREED:
            return _("agreed by the table")
        if self.state == DISPUTED:
            return _("disputed")
        if self.state == MAJORITY:
            return _("agreed by %(agreed)s of %(seats)s") % {"agreed": self.agreed, "seats": self.seats}
        return _("entered · %(agreed)s of %(seats)s agreed") % {"agreed": self.agreed, "seats": self.seats}


def agreement_of(*, seats: int, answers: Iterable[Answer], submitted_at: dt.datetime, minutes: int,
                 now: dt.datetime) -> Agreement:
    """`answers` in the order they were given (a player's later answer replaces their earlier one). Any dispute
    makes the sheet disputed; every seat agreeing makes it agreed by the table; once `minutes` have passed
    with no dispute, more than half of the table agreeing is enough (a player who never answers does not hold
    the table up)."""
    latest: dict[int, Answer] = {}
    for answer in answers:
        latest[answer.position] = answer
    agreed = sum(1 for a in latest.values() if a.answer == SheetAnswer.Answer.AGREED)
    if any(a.answer == SheetAnswer.Answer.DISPUTED for a in latest.values()):
        state = DISPUTED
    elif agreed >= seats:
        state = AGREED
    elif 2 * agreed > seats and now - submitted_at >= dt.timedelta(minutes=minutes):
        state = MAJORITY
    else:
        state = WAITING
    return Agreement(state=state, agreed=agreed, seats=seats, answers=dict(sorted(latest.items())))


def agreements(sheets: list[ScoreSheet], event: Event, now: dt.datetime | None = None) -> dict[int, Agreement]:
    """Sheet id → its agreement, for the submitted sheets a player of the table entered, in an event whose
    players keep their sheets (two queries, however many sheets); empty for a referees' event. A sheet the
    chief referee (or a referee) entered from their own pages has none: it goes to confirmation as ever."""
    pending = [sheet for sheet in sheets
               if sheet.status == ScoreSheet.Status.SUBMITTED and sheet.entered_by_seat is not None]
    if not players_keep_sheets(event) or not pending:
        return {}
    now = now or timezone.now()
    ids = [sheet.pk for sheet in pending]
    seats = dict(SheetSeat.objects.filter(sheet_id__in=ids).values("sheet_id").annotate(n=Count("id"))
                 .values_list("sheet_id", "n"))
    given: dict[int, list[Answer]] = {}
    for sheet_id, position, answer, reason in (SheetAnswer.objects.filter(sheet_id__in=ids)
                                               .order_by("answered_at", "id")
                                               .values_list("sheet_id", "position", "answer", "reason")):
        given.setdefault(sheet_id, []).append(Answer(position, answer, reason))
    return {sheet.pk: agreement_of(seats=seats.get(sheet.pk, 0), answers=given.get(sheet.pk, ()),
                                   submitted_at=sheet.submitted_at, minutes=event.agreement_minutes, now=now)
            for sheet in pending}
