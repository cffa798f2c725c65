"""What the players of a table do with its sheet when they keep it themselves (`Event.sheets_by` = players):
one of them enters it (the one life cycle of scoring/services/sheets.py, with its idempotency key), the others
agree or dispute on their own phones, and anyone may correct it into a new version everyone answers anew.

Who acts is a seated player, named in the audit log by number and seat: at their own table, for the game
being played, while still in the event (not withdrawn, not out by a conduct decision; a player eliminated in an
earlier round has no seat in this one). They are found by their personal page (the registration) or by the
table card with a seat's 4-digit code (a phone handed round the table).

Locking: like a referee's submission, the event's lock is taken shared (a hall of tables answers at once) and
the sheet's own row exclusively, so two answers to one sheet, or an answer and a correction, follow each other;
the chief referee's confirmation takes the event's lock exclusively and waits for them.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import ConductRecord, Registration, Stage
from tournament.services import seating
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event, lock_rows

from ..games import game_of
from ..models import ScoreSheet, SheetAnswer, TableLink
from . import sheets as life_cycle
from .agreement import players_keep_sheets

PERSONAL_PAGE, TABLE_CARD = "personal page", "table card"
REASON_LENGTH = SheetAnswer._meta.get_field("reason").max_length


@dataclass(frozen=True)
class AtTable:
    """A player seated at a table for a game, and how they reached it."""

    registration: Registration
    position: int
    via: str  # PERSONAL_PAGE or TABLE_CARD

    @property
    def label(self) -> str:
        # Stored in English as data, like a table link's label (the pages translate it: sheet_text.sender).
        return f"player {self.registration.number or self.registration.pk}, seat {self.position}"

    @property
    def actor(self) -> Actor:
        return Actor(label=self.label)


def game_being_played(stage: Stage, table_number: int) -> int | None:
    """The table's first released game without a submitted or confirmed sheet: the one its players enter."""
    kept = set(ScoreSheet.objects.filter(stage=stage, table_number=table_number, status__in=ScoreSheet.LIVE)
               .values_list("game", flat=True))
    for game in range(1, stage.games + 1):
        if game in kept:
            continue
        draw = seating.game_draw(stage, game)
        return game if draw is not None and seating.seats(draw, table=table_number) else None
    return None


def seated_player(*, stage: Stage, game: int, table_number: int, via: str, registration: Registration | None = None,
                  link: TableLink | None = None, code: str = "") -> AtTable:
    """The player who acts: the registration's seat (their personal page) or the seat whose code was typed (the
    table card), at this table in this game's seating; refused with the reason otherwise."""
    event = stage.event
    if not players_keep_sheets(event):
        raise ServiceError(_("In this event the referees enter the sheets."), code="referees")
    if stage.closed_at:
        raise ServiceError(_("This stage is closed; its sheets can no longer be entered here."), code="closed")
    draw = seating.game_draw(stage, game)
    seated = seating.seats(draw, table=table_number) if draw is not None else []
    if registration is not None:
        seat = next((s for s in seated if s.registration_id == registration.pk), None)
    else:
        code = (code or "").strip()
        codes = link.seat_codes if link is not None else []
        if code not in codes:
            raise ServiceError(_("That is not a seat code of this table: type the code of your seat from the "
                                 "table card."), code="seat_code")
        position = codes.index(code) + 1
        seat = next((s for s in seated if s.position == position), None)
    if seat is None:
        raise ServiceError(_("You are not seated at this table in this game."), code="not_seated")
    player = seat.registration  # read with the seating
    if player.status != Registration.Status.REGISTERED:
        raise ServiceError(_("You have withdrawn from this event."), code="withdrawn")
    if ConductRecord.objects.filter(event=event, registration=player, kind__in=ConductRecord.LEAVES_EVENT).exists():
        raise ServiceError(_("You are out of this event by the chief referee's decision."), code="departed")
    return AtTable(registration=player, position=seat.position, via=via)


def sheet_changed() -> ServiceError:
    """The refusal of an answer or a correction to a version that is no longer the table's submitted sheet."""
    return ServiceError(_("The sheet changed since you opened it: look at it again."), code="changed")


def _answer_key(key: str) -> str:
    """The one-time key of the entering player's own answer, made from the sheet's: the ":" is no character of
    an answer form's key (forms/table_players.KEY), so no answer sent earlier can hold it."""
    return f"{key[:56]}:entered"


def enter_sheet(*, stage: Stage, game: int, table_number: int, entry, accept_warnings: bool, idempotency_key: str,
                player: AtTable, now=None) -> ScoreSheet:
    """A seated player enters the game's sheet: submitted like a referee's, and agreed by them as they send it.
    Two players entering at once record one sheet; the other is told it exists (SheetExists)."""
    now = now or timezone.now()
    sent = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
    if sent is not None:
        return sent
    with transaction.atomic():
        lock_event(stage.event_id, shared=True)
        playing = game_being_played(stage, table_number)
        if playing is not None and game > playing:
            raise ServiceError(_("Game %(game)s is being played at your table; enter that one first.")
                               % {"game": playing}, code="not_current")
        sheet = life_cycle.submit_sheet(stage=stage, game=game, table_number=table_number, entry=entry,
                                        accept_warnings=accept_warnings, idempotency_key=idempotency_key,
                                        actor=player.actor, via=player.label, now=now)
        if sheet.idempotency_key == idempotency_key and sheet.entered_by_seat is None:
            sheet.entered_by_seat = player.position
            sheet.save(update_fields=["entered_by_seat"])
            _answer(sheet, player, SheetAnswer.Answer.AGREED, "", _answer_key(idempotency_key), now)
    return sheet


def _answer(sheet: ScoreSheet, player: AtTable, answer: str, reason: str, key: str, now) -> SheetAnswer:
    return SheetAnswer.objects.create(sheet=sheet, position=player.position, registration=player.registration,
                                      answer=answer, reason=reason, answered_at=now, via=player.via,
                                      idempotency_key=key)


def _sheet_for(player_sheet: ScoreSheet, player: AtTable, version: int) -> ScoreSheet:
    """The sheet read again under its lock, refused unless it is still the version the player saw, submitted,
    for the game's current seating, with the player on it."""
    lock_event(player_sheet.stage.event_id, shared=True)
    sheet = lock_rows(ScoreSheet.objects.filter(pk=player_sheet.pk)).select_related("stage__event").get()
    if sheet.status != ScoreSheet.Status.SUBMITTED or sheet.version != version:
        raise sheet_changed()
    if life_cycle.entered_for_another_seating(sheet):
        raise ServiceError(_("This sheet was entered for an earlier seating; the chief referee settles it."),
                           code="stale_draw")
    if not sheet.seats.filter(position=player.position, registration=player.registration).exists():
        raise ServiceError(_("You are not seated at this table in this game."), code="not_seated")
    return sheet


def answer_sheet(*, sheet: ScoreSheet, version: int, player: AtTable, agree: bool, reason: str = "",
                 idempotency_key: str, now=None) -> SheetAnswer:
    """A seated player agrees to the sheet as entered, or disputes it with a short reason. The answer is to the
    version they saw: a sheet corrected meanwhile is refused ("look at it again"). A dispute stands until the
    sheet is corrected; agreeing, then disputing, is allowed until the chief referee confirms."""
    now = now or timezone.now()
    reason = " ".join((reason or "").split())
    if not agree and not reason:
        raise ServiceError(_("Say briefly what is wrong with the sheet."), code="reason")
    if len(reason) > REASON_LENGTH:
        raise ServiceError(_("Say it in at most %(count)s characters.") % {"count": REASON_LENGTH}, code="reason")
    with transaction.atomic():
        sent = SheetAnswer.objects.filter(idempotency_key=idempotency_key).first()
        if sent is not None:
            return sent
        sheet = _sheet_for(sheet, player, version)
        mine = sheet.answers.filter(position=player.position).order_by("-answered_at", "-id").first()
        wanted = SheetAnswer.Answer.AGREED if agree else SheetAnswer.Answer.DISPUTED
        if mine is not None and mine.answer == SheetAnswer.Answer.DISPUTED and agree:
            raise ServiceError(_("Your dispute stands: the chief referee settles it, or the table corrects the "
                                 "sheet and answers again."), code="disputed")
        if mine is not None and mine.answer == wanted and mine.reason == reason:
            return mine
        answer = _answer(sheet, player, wanted, "" if agree else reason, idempotency_key, now)
        record(actor=player.actor, action="sheet.agreed" if agree else "sheet.disputed", target=sheet,
               event=sheet.stage.event, after={"seat": player.position, "version": sheet.version, "via": player.via},
               reason="" if agree else reason)
    return answer


def correct_entered_sheet(*, sheet: ScoreSheet, version: int, entry, accept_warnings: bool, idempotency_key: str,
                          player: AtTable, now=None) -> ScoreSheet:
    """A seated player corrects the table's submitted sheet: a new submitted version (the old one kept,
    superseded) that the correcting player agrees to and the others answer anew."""
    now = now or timezone.now()
    with transaction.atomic():
        sent = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
        if sent is not None:
            return sent
        old = _sheet_for(sheet, player, version)
        event = old.stage.event
        rules = game_of(event)
        rules.check_kind(entry)
        seated = seating.seats(old.draw, table=old.table_number)
        judgement = life_cycle.judge_or_refuse(rules, event, seated, entry, accept_warnings)
        old.status = ScoreSheet.Status.SUPERSEDED
        old.save(update_fields=["status"])
        new = life_cycle.create_version(
            rules=rules, stage=old.stage, game=old.game, table_number=old.table_number, draw=old.draw, seated=seated,
            entry=entry, judgement=judgement, key=idempotency_key, actor=player.actor, via=player.label,
            status=ScoreSheet.Status.SUBMITTED, corrects=old, now=now)
        new.entered_by_seat = player.position
        new.save(update_fields=["entered_by_seat"])
        _answer(new, player, SheetAnswer.Answer.AGREED, "", _answer_key(idempotency_key), now)
        record(actor=player.actor, action="sheet.corrected_by_table", target=new, event=event,
               before={"sheet": old.pk, "version": old.version}, after=rules.audit(seated, entry, judgement))
    return new
