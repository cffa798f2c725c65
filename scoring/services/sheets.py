"""The one life cycle of a score sheet, whatever the game (R4–R7, R9, R10): submit, confirm, return, correct.

Nothing is overwritten: a returned sheet stays returned and the referee submits a new version; a correction
of a confirmed sheet is a new confirmed version and the old one becomes superseded. What differs between the
games (how an entry is judged, which rows it stores) is the event's `scoring.games.game_of(event)`.

Locking (tournament.services.locking): a submission takes its event's lock shared, so a hall of referees
submits at once while a take-back of the draw waits for them (and they for it); confirming, returning and
correcting take it exclusively.
"""

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.models import AuditEntry, Draw, Event, Seat, Stage
from tournament.services import seating
from tournament.services.audit import Actor, record
from tournament.services.confirmation import Blocker, Preview
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event

from ..games import Judgement, SheetGame, game_of
from ..models import ScoreSheet
from . import progress
from .agreement import agreements, players_keep_sheets


class SheetRefused(ServiceError):
    """The sheet has errors, or warnings the referee has not accepted; `judgement` says which."""

    def __init__(self, message, *, judgement: Judgement, code: str):
        super().__init__(message, code=code)
        self.judgement = judgement


class SheetExists(ServiceError):
    def __init__(self, sheet: ScoreSheet | None):
        super().__init__(_("A sheet for this table and game has already been submitted."), code="exists")
        self.sheet = sheet


def _by_key(idempotency_key: str) -> ScoreSheet | None:
    """The sheet recorded with this key (unique), or None; not in ScoreSheet's order, which joins two tables."""
    return ScoreSheet.objects.filter(idempotency_key=idempotency_key).order_by("pk").first()


def live_sheet(stage: Stage, game: int, table_number: int) -> ScoreSheet | None:
    return ScoreSheet.objects.filter(  # one at most (one_live_sheet_per_table_game): no ordering joins
        stage=stage, game=game, table_number=table_number, status__in=ScoreSheet.LIVE
    ).order_by("pk").first()


def _check_playable(stage: Stage, game: int, table_number: int) -> tuple[Draw, list[Seat]]:
    if stage.closed_at:
        raise ServiceError(_("This stage is closed; its sheets can no longer be entered here."), code="closed")
    draw = seating.game_draw(stage, game)
    if draw is None:
        raise ServiceError(_("This game has not been released yet."), code="not_released")
    seated = seating.seats(draw, table=table_number)
    if not seated:
        raise ServiceError(_("There is no such table in this game."), code="no_table")
    return draw, seated


def judge_or_refuse(rules: SheetGame, event, seated: list[Seat], entry, accept_warnings: bool) -> Judgement:
    rules.check_seats(entry, seated)
    judgement = rules.judge(event, seated, entry)
    if judgement.errors:
        raise SheetRefused(_("The sheet has mistakes; correct them first."), judgement=judgement, code="errors")
    if judgement.warnings and not accept_warnings:
        raise SheetRefused(_("Please check the warnings and confirm that the sheet is right."),
                           judgement=judgement, code="warnings")
    return judgement


def create_version(*, rules: SheetGame, stage, game, table_number, draw, seated, entry, judgement: Judgement,
                   key: str, actor: Actor, via: str, status: str, corrects=None, reason: str = "",
                   now=None) -> ScoreSheet:
    """The table's next version of the game's sheet, with its rows (the caller holds the locks)."""
    version = (ScoreSheet.objects.filter(stage=stage, game=game, table_number=table_number)
               .aggregate(v=Max("version"))["v"] or 0) + 1
    decided = status == ScoreSheet.Status.CONFIRMED
    sheet = ScoreSheet.objects.create(
        stage=stage, game=game, table_number=table_number, draw=draw, version=version, status=status,
        end=entry.end, warnings=judgement.warnings, idempotency_key=key, submitted_by=actor.user,
        submitted_via=via, corrects=corrects, reason=reason,
        decided_by=actor.user if decided else None, decided_at=now if decided else None,
    )
    rules.store(sheet, seated, entry, judgement)
    return sheet


def submit_sheet(*, stage: Stage, game: int, table_number: int, entry, accept_warnings: bool,
                 idempotency_key: str, actor: Actor, via: str, now=None) -> ScoreSheet:
    """A referee submits a game's sheet (the event's game says what `entry` is). The same idempotency key
    returns the sheet already recorded."""
    now = now or timezone.now()
    existing = _by_key(idempotency_key)
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            event = lock_event(stage.event_id, shared=True)
            rules = game_of(event)
            rules.check_kind(entry)
            stage = Stage.objects.select_related("event").get(pk=stage.pk)
            draw, seated = _check_playable(stage, game, table_number)
            judgement = judge_or_refuse(rules, event, seated, entry, accept_warnings)
            current = live_sheet(stage, game, table_number)
            if current is not None:
                if current.idempotency_key == idempotency_key:
                    return current
                raise SheetExists(current)
            # Two sheets for one table (or one draft sent twice) racing past these checks are stopped by the
            # unique constraints, and the IntegrityError below sorts out which is which.
            sheet = create_version(rules=rules, stage=stage, game=game, table_number=table_number, draw=draw,
                                   seated=seated, entry=entry, judgement=judgement, key=idempotency_key,
                                   actor=actor, via=via, status=ScoreSheet.Status.SUBMITTED, now=now)
            record(actor=actor, action="sheet.submitted", target=sheet, event=event,
                   after=rules.audit(seated, entry, judgement))
            return sheet
    except IntegrityError:
        existing = _by_key(idempotency_key)
        if existing is not None:
            return existing
        raise SheetExists(live_sheet(stage, game, table_number)) from None


def entered_for_another_seating(sheet: ScoreSheet) -> bool:
    """Whether the sheet was entered for a seating that is no longer its game's (the draw was taken back and
    drawn again): confirming it would credit players who did not play there. From the sheet's own draw (read
    with it, or by its id), its stage and the stage's event: no search for the game's seating."""
    return not seating.is_game_draw(sheet.draw, sheet.stage, sheet.game)


def _event_of(sheet: ScoreSheet) -> Event | int:
    """The sheet's event as the caller read it (a view's, with its festival), else its id: what `_locked`
    locks, reading no more than it must."""
    return sheet.stage.event if Stage.event.is_cached(sheet.stage) else sheet.stage.event_id


def _locked(sheet: ScoreSheet | int, event: Event | int, *related: str) -> ScoreSheet:
    """The sheet of `event`, read again once that event is locked, with its stage (whose event is the one the
    lock read) and `related` (names for select_related). A sheet of another event: ScoreSheet.DoesNotExist."""
    event = lock_event(event)
    locked = ScoreSheet.objects.select_related("stage", *related).get(pk=getattr(sheet, "pk", sheet),
                                                                      stage__event=event)
    locked.stage.event = event
    return locked


def _refusal(sheet: ScoreSheet, actor: Actor) -> ServiceError | None:
    """Why `sheet` (read under the lock) cannot be confirmed by `actor`, or None."""
    if sheet.status != ScoreSheet.Status.SUBMITTED:
        return ServiceError(_("This sheet is %(status)s; only a submitted sheet can be confirmed.")
                            % {"status": sheet.get_status_display().lower()}, code="not_submitted")
    if actor.user is not None and sheet.submitted_by_id == actor.user.pk:
        return ServiceError(_("You submitted this sheet; someone else must confirm it."), code="own_sheet")
    if entered_for_another_seating(sheet):
        return _stale()
    return None


def _stale() -> ServiceError:
    return ServiceError(_("This sheet was entered for a seating that is no longer this game's; it cannot "
                          "be confirmed. Return it to the referee."), code="stale_draw")


def _confirm(sheet: ScoreSheet, actor: Actor, now, movement_seed: int | None) -> ScoreSheet:
    """Confirm a sheet `_refusal` lets through; the caller holds the event lock."""
    sheet.status = ScoreSheet.Status.CONFIRMED
    sheet.decided_by = actor.user
    sheet.decided_at = now
    sheet.save(update_fields=["status", "decided_by", "decided_at"])
    record(actor=actor, action="sheet.confirmed", target=sheet, event=sheet.stage.event,
           before={"status": "submitted"}, after={"status": "confirmed"})
    progress.after_confirmation(sheet=sheet, actor=actor, movement_seed=movement_seed)
    return sheet


def confirm_sheet(*, sheet: ScoreSheet, actor: Actor, now=None,
                  movement_seed: int | None = None) -> ScoreSheet:
    """The chief referee countersigns (R9); nobody confirms a sheet they submitted themselves.

    `movement_seed`: the seed of the Hong Kong movement this confirmation may trigger (default: a fresh
    random one); the simulation passes its own so that the same seed plays the same event."""
    now = now or timezone.now()
    with transaction.atomic():
        sheet = _locked(sheet, _event_of(sheet), "draw")
        refusal = _refusal(sheet, actor)
        if refusal is not None:
            raise refusal
        return _confirm(sheet, actor, now, movement_seed)


def quick_confirm_sheet(*, event: Event, sheet_id: int, actor: Actor, now=None) -> ScoreSheet:
    """One tap on the live board confirms a sheet of `event` that needs no opening (R9): as `confirm_sheet`
    does, and only if it has no warnings and, where the players keep their own sheets, its table agreed to it.
    Everything is read under the event's lock. Returns the confirmed sheet with its stage and draw; a sheet of
    another event raises ScoreSheet.DoesNotExist."""
    now = now or timezone.now()
    with transaction.atomic():
        sheet = _locked(sheet_id, event, "draw")
        if sheet.warnings and sheet.status == ScoreSheet.Status.SUBMITTED:
            raise ServiceError(_("Table %(table)s has warnings: open the sheet and check them before confirming.")
                               % {"table": sheet.table_number}, code="warnings")
        agreement = agreements([sheet], sheet.stage.event).get(sheet.pk)
        if agreement is not None and not agreement.clean:
            raise ServiceError(_("Table %(table)s has not agreed to its sheet (%(state)s): open it and settle it "
                                 "before confirming.") % {"table": sheet.table_number, "state": agreement.label},
                               code="not_agreed")
        refusal = _refusal(sheet, actor)
        if refusal is not None:
            raise refusal
        return _confirm(sheet, actor, now, None)


def _submitted_sheets(stage: Stage, game: int, actor: Actor) -> dict[str, list[ScoreSheet]]:
    """The game's submitted sheets sorted out: "clean" (submitted with no problems: one action confirms them),
    and those skipped: "stale" (entered for an earlier seating), "disputed" and "unagreed" (a table keeping its
    own sheet that disputes it, or has not agreed to it yet), "warnings" (opened and checked one by one) and
    "own" (the actor submitted them; someone else confirms)."""
    current = seating.game_draw(stage, game)
    out: dict[str, list[ScoreSheet]] = {"clean": [], "stale": [], "disputed": [], "unagreed": [], "warnings": [],
                                        "own": []}
    submitted = list(ScoreSheet.objects.filter(stage=stage, game=game, status=ScoreSheet.Status.SUBMITTED)
                     .select_related("stage__event__festival", "draw").order_by("table_number"))
    agreed = agreements(submitted, stage.event)
    for sheet in submitted:
        agreement = agreed.get(sheet.pk)
        if current is None or sheet.draw_id != current.pk:
            out["stale"].append(sheet)
        elif agreement is not None and not agreement.clean:
            out["disputed" if agreement.disputes else "unagreed"].append(sheet)
        elif sheet.warnings:
            out["warnings"].append(sheet)
        elif actor.user is not None and sheet.submitted_by_id == actor.user.pk:
            out["own"].append(sheet)
        else:
            out["clean"].append(sheet)
    return out


def _tables(sheets) -> str:
    return ", ".join(str(sheet.table_number) for sheet in sheets)


def clean_sheets_preview(*, stage: Stage, game: int, actor: Actor) -> Preview:
    """What "confirm every clean sheet of this game" does now: how many, which tables, which are left."""
    return _clean_preview(stage, game, _submitted_sheets(stage, game, actor))


def _clean_preview(stage: Stage, game: int, sorted_out: dict[str, list[ScoreSheet]]) -> Preview:
    clean = sorted_out["clean"]
    title = _("Confirm every clean sheet of game %(game)s") % {"game": game}
    lines = []
    if clean:
        lines.append(ngettext("%(count)s sheet submitted with no problems is confirmed (table %(tables)s).",
                              "%(count)s sheets submitted with no problems are confirmed (tables %(tables)s).",
                              len(clean)) % {"count": len(clean), "tables": _tables(clean)})
        lines.append(_("The standings count them at once."))
    skipped = {
        "warnings": lambda n: ngettext(
            "%(count)s sheet with warnings stays submitted: open it and check it (table %(tables)s).",
            "%(count)s sheets with warnings stay submitted: open each and check it (tables %(tables)s).", n),
        "stale": lambda n: ngettext(
            "%(count)s sheet entered for an earlier seating stays submitted: return it to the referee "
            "(table %(tables)s).",
            "%(count)s sheets entered for an earlier seating stay submitted: return them to the referees "
            "(tables %(tables)s).", n),
        "disputed": lambda n: ngettext(
            "%(count)s sheet its table disputes stays submitted: a referee settles it (table %(tables)s).",
            "%(count)s sheets their tables dispute stay submitted: a referee settles each (tables %(tables)s).", n),
        "unagreed": lambda n: ngettext(
            "%(count)s sheet its table has not agreed to yet stays submitted (table %(tables)s).",
            "%(count)s sheets their tables have not agreed to yet stay submitted (tables %(tables)s).", n),
        "own": lambda n: ngettext(
            "%(count)s sheet you submitted yourself stays submitted: someone else confirms it (table %(tables)s).",
            "%(count)s sheets you submitted yourself stay submitted: someone else confirms them "
            "(tables %(tables)s).", n),
    }
    for kind, sentence in skipped.items():
        if sorted_out[kind]:
            lines.append(sentence(len(sorted_out[kind])) % {"count": len(sorted_out[kind]),
                                                            "tables": _tables(sorted_out[kind])})
    blockers = [] if clean else [Blocker("none", _("No clean sheet of game %(game)s waits for confirmation.")
                                         % {"game": game})]
    return Preview(title=title, lines=lines, blockers=blockers,
                   facts=["clean", stage.pk, game, [sheet.pk for sheet in clean]])


def confirm_clean_sheets(*, stage: Stage, game: int, actor: Actor, expect: str | None = None, now=None,
                         movement_seed: int | None = None) -> dict[str, list[int]]:
    """The chief referee confirms every clean sheet of a game in one action (R9), each exactly as
    `confirm_sheet` would; sheets with warnings, stale seatings or the actor's own are skipped. Returns the
    table numbers confirmed and skipped. `expect`: the `clean_sheets_preview` state that was confirmed."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(stage.event_id)
        stage = Stage.objects.select_related("event__festival").get(pk=stage.pk)
        sorted_out = _submitted_sheets(stage, game, actor)
        _clean_preview(stage, game, sorted_out).require(expect)
        for sheet in sorted_out["clean"]:
            _confirm(sheet, actor, now, movement_seed)
        tables = {kind: [sheet.table_number for sheet in sheets] for kind, sheets in sorted_out.items()}
        record(actor=actor, action="sheet.confirmed_clean", target=stage, event=event,
               after={"game": game, "confirmed": tables["clean"],
                      "skipped": {kind: numbers for kind, numbers in tables.items() if kind != "clean" and numbers}})
    return tables


def return_sheet(*, sheet: ScoreSheet, actor: Actor, reason: str, now=None) -> ScoreSheet:
    now = now or timezone.now()
    if not reason.strip():
        raise ServiceError(_("Say why the sheet goes back to the referee."), code="reason")
    with transaction.atomic():
        sheet = _locked(sheet, _event_of(sheet))
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


def _recorded(idempotency_key: str) -> ScoreSheet | None:
    """The correction already recorded with this key, with the warnings recorded with it, or None."""
    existing = _by_key(idempotency_key)
    if existing is not None:
        existing.correction_warnings = list(AuditEntry.objects.filter(
            action="sheet.correction_warning", target_type="scoresheet", target_id=existing.pk,
        ).order_by("at", "id").values_list("reason", flat=True))
    return existing


def correct_sheet(*, sheet: ScoreSheet, entry, reason: str, accept_warnings: bool, idempotency_key: str,
                  actor: Actor, now=None) -> ScoreSheet:
    """The chief referee or organiser corrects a sheet: a new confirmed version, the old one kept (superseded).
    A confirmed sheet is corrected after the fact; a submitted one (a table's disputed sheet) is settled by
    the correction, which confirms it. The sheet returned carries `correction_warnings`, what the audit log
    recorded with it as changing a step already taken.

    The same form sent twice (a double tap) gets what the first one recorded: the second waits for the event's
    lock, then finds the version it corrects replaced, and looks its key up; a key already taken otherwise is
    stopped by its unique constraint, and answered the same way."""
    now = now or timezone.now()
    if not reason.strip():
        raise ServiceError(_("A correction needs a reason."), code="reason")
    try:
        with transaction.atomic():
            old = _locked(sheet, _event_of(sheet), "draw")
            was_confirmed = old.status == ScoreSheet.Status.CONFIRMED
            # A referee's submitted sheet is confirmed or returned to them; one a table keeps itself (a dispute)
            # the chief may settle by correcting it.
            if not was_confirmed and not (old.status == ScoreSheet.Status.SUBMITTED
                                          and players_keep_sheets(old.stage.event)):
                existing = _recorded(idempotency_key)
                if existing is not None:
                    return existing
                raise ServiceError(_("Only a confirmed sheet can be corrected."), code="not_confirmed")
            if not was_confirmed and entered_for_another_seating(old):
                raise _stale()
            event = old.stage.event
            rules = game_of(event)
            rules.check_kind(entry)
            seated = seating.places(old.draw_id, table=old.table_number)
            judgement = judge_or_refuse(rules, event, seated, entry, accept_warnings)
            old.status = ScoreSheet.Status.SUPERSEDED
            old.save(update_fields=["status"])
            new = create_version(rules=rules, stage=old.stage, game=old.game, table_number=old.table_number,
                                 draw=old.draw, seated=seated, entry=entry, judgement=judgement,
                                 key=idempotency_key, actor=actor, via=str(actor), status=ScoreSheet.Status.CONFIRMED,
                                 corrects=old, reason=reason.strip(), now=now)
            before = [{"position": p, "score": str(s), "win": w}
                      for p, s, w in old.seats.order_by("position").values_list("position", "score", "win")]
            record(actor=actor, action="sheet.corrected", target=new, event=event,
                   before={"sheet": old.pk, "status": "confirmed" if was_confirmed else "submitted",
                           "seats": before},
                   after=rules.audit(seated, entry, judgement), reason=reason.strip())
            # What the old result already moved on (the next game seated, a round closed) is said.
            new.correction_warnings = progress.correction_effects(sheet=new, actor=actor) if was_confirmed else []
            progress.after_confirmation(sheet=new, actor=actor)
    except IntegrityError:
        existing = _recorded(idempotency_key)
        if existing is None:
            raise
        return existing
    return new
