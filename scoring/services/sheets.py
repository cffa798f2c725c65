"""Submitting, confirming, returning and correcting score sheets (issue 5, R4–R7, R9).

Nothing is overwritten: a returned sheet stays returned and the referee submits a new version; a
correction of a confirmed sheet is a new confirmed version and the old one becomes superseded.
"""

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import Draw, Event, Seat, Stage
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError

from ..models import ScoreSheet, SheetSeat
from .records import Entry, Judgement, judge, ruleset_of


class SheetRefused(ServiceError):
    """The sheet has errors, or warnings the referee has not accepted; `judgement` says which."""

    def __init__(self, message, *, judgement: Judgement, code: str):
        super().__init__(message, code=code)
        self.judgement = judgement


class SheetExists(ServiceError):
    def __init__(self, sheet: ScoreSheet):
        super().__init__(_("A sheet for this table and game has already been submitted."), code="exists")
        self.sheet = sheet


def seating_draw(stage: Stage, game: int) -> Draw | None:
    """The released seating a game is played in: Busan keeps the stage's tables for all its games (R8.1);
    Hong Kong seats every game anew (R8.2)."""
    if not 1 <= game <= stage.games:
        return None
    released = stage.draws.filter(status=Draw.Status.RELEASED)
    if stage.event.format == Event.Format.HONG_KONG:
        return released.filter(game=game).first()
    return released.filter(game=1).first()


def table_seats(draw: Draw, table_number: int) -> list[Seat]:
    return list(
        Seat.objects.filter(draw=draw, table__number=table_number)
        .select_related("registration__player")
        .order_by("position")
    )


def live_sheet(stage: Stage, game: int, table_number: int) -> ScoreSheet | None:
    return ScoreSheet.objects.filter(
        stage=stage, game=game, table_number=table_number, status__in=ScoreSheet.LIVE
    ).first()


def _check_playable(stage: Stage, game: int, table_number: int) -> tuple[Draw, list[Seat]]:
    if stage.closed_at:
        raise ServiceError(_("This stage is closed; its sheets can no longer be entered here."), code="closed")
    draw = seating_draw(stage, game)
    if draw is None:
        raise ServiceError(_("This game has not been released yet."), code="not_released")
    seats = table_seats(draw, table_number)
    if not seats:
        raise ServiceError(_("There is no such table in this game."), code="no_table")
    return draw, seats


def _check_classic(event: Event) -> None:
    """A Rummikub Word event's sheets are turn by turn (scoring.services.word_sheets), never a classic entry."""
    if event.game == Event.Game.WORD:
        raise ServiceError(_("This is a Rummikub Word event; its sheets are entered turn by turn."), code="word_event")


def _check_players(entry: Entry, seats: list[Seat]) -> None:
    expected = {(seat.position, seat.registration_id) for seat in seats}
    entered = {(seat.position, seat.registration_id) for seat in entry.seats}
    if expected != entered or len(entry.seats) != len(seats):
        raise ServiceError(_("The sheet must name exactly the players seated at this table."), code="wrong_players")


def _judge_or_refuse(stage: Stage, entry: Entry, accept_warnings: bool) -> Judgement:
    judgement = judge(ruleset_of(stage.event), entry)
    if judgement.errors:
        raise SheetRefused(_("The sheet has mistakes; correct them first."), judgement=judgement, code="errors")
    if judgement.warnings and not accept_warnings:
        raise SheetRefused(_("Please check the warnings and confirm that the sheet is right."),
                           judgement=judgement, code="warnings")
    return judgement


def _snapshot(judgement: Judgement, entry: Entry) -> dict:
    return {
        "end": entry.end,
        "seats": [
            {"seat": seat.position, "registration": seat.registration_id,
             "score": str(judgement.result(seat.position).score), "win": judgement.result(seat.position).win}
            for seat in entry.seats
        ],
    }


def _create(*, stage, game, table_number, draw, entry: Entry, judgement: Judgement, key: str, actor: Actor,
            via: str, status: str, corrects=None, reason: str = "", now=None) -> ScoreSheet:
    version = (ScoreSheet.objects.filter(stage=stage, game=game, table_number=table_number)
               .aggregate(v=Max("version"))["v"] or 0) + 1
    decided = status == ScoreSheet.Status.CONFIRMED
    sheet = ScoreSheet.objects.create(
        stage=stage, game=game, table_number=table_number, draw=draw, version=version, status=status,
        end=entry.end, warnings=judgement.warnings, idempotency_key=key, submitted_by=actor.user,
        submitted_via=via, corrects=corrects, reason=reason,
        decided_by=actor.user if decided else None, decided_at=now if decided else None,
    )
    SheetSeat.objects.bulk_create([
        SheetSeat(
            sheet=sheet, position=seat.position, registration_id=seat.registration_id, went_out=seat.went_out,
            tiles=seat.tiles.strip().upper(), rack_value=seat.rack_value, jokers=seat.jokers or 0,
            opened=seat.opened, could_open=judgement.result(seat.position).could_open
            if judgement.result(seat.position).could_open is not None else seat.could_open,
            conduct_penalty=seat.conduct_penalty, penalty=judgement.result(seat.position).penalty,
            score=judgement.result(seat.position).score, win=judgement.result(seat.position).win,
        )
        for seat in entry.seats
    ])
    return sheet


def submit_sheet(*, stage: Stage, game: int, table_number: int, entry: Entry, accept_warnings: bool,
                 idempotency_key: str, actor: Actor, via: str, now=None) -> ScoreSheet:
    """A referee submits a game's sheet. The same idempotency key returns the sheet already recorded."""
    now = now or timezone.now()
    existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            # No stage lock: 128 tables submit at once. Two sheets for one table (or one draft sent twice)
            # are stopped by the unique constraints, and the IntegrityError below sorts out which is which.
            stage = Stage.objects.select_related("event").get(pk=stage.pk)
            _check_classic(stage.event)
            draw, seats = _check_playable(stage, game, table_number)
            _check_players(entry, seats)
            judgement = _judge_or_refuse(stage, entry, accept_warnings)
            current = live_sheet(stage, game, table_number)
            if current is not None:
                if current.idempotency_key == idempotency_key:
                    return current  # the same draft, sent twice: its twin got there first
                raise SheetExists(current)
            sheet = _create(stage=stage, game=game, table_number=table_number, draw=draw, entry=entry,
                            judgement=judgement, key=idempotency_key, actor=actor, via=via,
                            status=ScoreSheet.Status.SUBMITTED, now=now)
            record(actor=actor, action="sheet.submitted", target=sheet, event=stage.event,
                   after=_snapshot(judgement, entry))
            return sheet
    except IntegrityError:
        # A double tap or a second referee raced us past the checks; the database kept one sheet.
        existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
        if existing is not None:
            return existing
        raise SheetExists(live_sheet(stage, game, table_number)) from None


def _locked(sheet: ScoreSheet) -> ScoreSheet:
    return ScoreSheet.objects.select_for_update().select_related("stage__event").get(pk=sheet.pk)


def confirm_sheet(*, sheet: ScoreSheet, actor: Actor, now=None,
                  movement_seed: int | None = None) -> ScoreSheet:
    """The chief referee countersigns (R9); nobody confirms a sheet they submitted themselves.

    `movement_seed`: the seed of the Hong Kong movement this confirmation may trigger (default: a fresh
    random one); the simulation passes its own so that the same seed plays the same event."""
    from .progress import after_confirmation

    now = now or timezone.now()
    with transaction.atomic():
        sheet = _locked(sheet)
        if sheet.status != ScoreSheet.Status.SUBMITTED:
            raise ServiceError(_("This sheet is %(status)s; only a submitted sheet can be confirmed.")
                               % {"status": sheet.get_status_display().lower()}, code="not_submitted")
        if actor.user is not None and sheet.submitted_by_id == actor.user.pk:
            raise ServiceError(_("You submitted this sheet; someone else must confirm it."), code="own_sheet")
        sheet.status = ScoreSheet.Status.CONFIRMED
        sheet.decided_by = actor.user
        sheet.decided_at = now
        sheet.save(update_fields=["status", "decided_by", "decided_at"])
        record(actor=actor, action="sheet.confirmed", target=sheet, event=sheet.stage.event,
               before={"status": "submitted"}, after={"status": "confirmed"})
        after_confirmation(sheet=sheet, actor=actor, movement_seed=movement_seed)
    return sheet


def return_sheet(*, sheet: ScoreSheet, actor: Actor, reason: str, now=None) -> ScoreSheet:
    now = now or timezone.now()
    if not reason.strip():
        raise ServiceError(_("Say why the sheet goes back to the referee."), code="reason")
    with transaction.atomic():
        sheet = _locked(sheet)
        if sheet.status != ScoreSheet.Status.SUBMITTED:
            raise ServiceError(_("This sheet is %(status)s; only a submitted sheet can be returned.")
                               % {"status": sheet.get_status_display().lower()}, code="not_submitted")
        sheet.status = ScoreSheet.Status.RETURNED
        sheet.decided_by = actor.user
        sheet.decided_at = now
        sheet.reason = reason.strip()
        sheet.save(update_fields=["status", "decided_by", "decided_at", "reason"])
        record(actor=actor, action="sheet.returned", target=sheet, event=sheet.stage.event,
               before={"status": "submitted"}, after={"status": "returned"}, reason=sheet.reason)
    return sheet


def correct_sheet(*, sheet: ScoreSheet, entry: Entry, reason: str, accept_warnings: bool, idempotency_key: str,
                  actor: Actor, now=None) -> ScoreSheet:
    """The chief referee or organiser corrects a confirmed sheet: a new confirmed version, the old one kept."""
    from .progress import after_confirmation, correction_effects

    now = now or timezone.now()
    if not reason.strip():
        raise ServiceError(_("A correction needs a reason."), code="reason")
    existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        old = _locked(sheet)
        if old.status != ScoreSheet.Status.CONFIRMED:
            raise ServiceError(_("Only a confirmed sheet can be corrected."), code="not_confirmed")
        _check_classic(old.stage.event)
        seats = table_seats(old.draw, old.table_number)
        _check_players(entry, seats)
        judgement = _judge_or_refuse(old.stage, entry, accept_warnings)
        old.status = ScoreSheet.Status.SUPERSEDED
        old.save(update_fields=["status"])
        new = _create(stage=old.stage, game=old.game, table_number=old.table_number, draw=old.draw, entry=entry,
                      judgement=judgement, key=idempotency_key, actor=actor, via=str(actor),
                      status=ScoreSheet.Status.CONFIRMED, corrects=old, reason=reason.strip(), now=now)
        before = {"sheet": old.pk, "seats": list(old.seats.values("position", "score", "win"))}
        record(actor=actor, action="sheet.corrected", target=new, event=old.stage.event,
               before={**before, "seats": [{**s, "score": str(s["score"])} for s in before["seats"]]},
               after=_snapshot(judgement, entry), reason=reason.strip())
        correction_effects(sheet=new, actor=actor)
        after_confirmation(sheet=new, actor=actor)
    return new
