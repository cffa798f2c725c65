"""What a whole write looks like: after any accepted request, the database tells one consistent
story. Each check is a query for rows that break a rule; every one must come back empty."""

from django.db.models import Count, Exists, F, OuterRef, Q

from scoring.models import RefereeAssignment, ScoreSheet, SheetAnswer, SheetSeat
from tournament.models import AuditEntry, ConductRecord, Event, Registration, Seat
from tournament.permissions import REFEREE, has_role

S = Registration.Status


def broken_rules() -> dict[str, list]:
    """Rule → offending rows (ids). Empty when the database is consistent."""
    full = [e.pk for e in Event.objects.annotate(
        taken=Count("registrations", filter=Q(registrations__status=S.REGISTERED))).filter(taken__gt=F("capacity"))]
    sheet_seats = SheetSeat.objects.values("sheet").annotate(n=Count("id"))
    seated = {}
    for sheet in ScoreSheet.objects.select_related("draw"):
        seated[sheet.pk] = Seat.objects.filter(draw=sheet.draw, table__number=sheet.table_number).count()
    wrong_size = [row["sheet"] for row in sheet_seats if row["n"] != seated.get(row["sheet"])]
    empty = [pk for pk in seated if not SheetSeat.objects.filter(sheet_id=pk).exists()]
    return {
        "registration of a player from another festival": list(
            Registration.objects.exclude(player__festival=F("event__festival")).values_list("pk", flat=True)),
        "more registered than places": full,
        "withdrawn without a time, or a time without withdrawing": list(Registration.objects.filter(
            Q(status=S.WITHDRAWN, withdrawn_at__isnull=True) | (~Q(status=S.WITHDRAWN) & Q(withdrawn_at__isnull=False))
        ).values_list("pk", flat=True)),
        "waiting without a place in line": list(
            Registration.objects.filter(status=S.WAITLISTED, queued_at__isnull=True).values_list("pk", flat=True)),
        "seat at another draw's table": list(Seat.objects.exclude(table__draw=F("draw")).values_list("pk", flat=True)),
        "seat for another event's player": list(
            Seat.objects.exclude(registration__event=F("draw__stage__event")).values_list("pk", flat=True)),
        "sheet whose lines are not its table's seats": wrong_size + empty,
        "sheet line of a player not at the table": [
            line.pk for line in SheetSeat.objects.select_related("sheet")
            if not Seat.objects.filter(draw=line.sheet.draw, table__number=line.sheet.table_number,
                                       registration_id=line.registration_id, position=line.position).exists()],
        "sheet without its audit entry": [
            pk for pk in ScoreSheet.objects.values_list("pk", flat=True)
            if not AuditEntry.objects.filter(target_type="scoresheet", target_id=pk).exists()],
        "conduct record of another event's player": list(
            ConductRecord.objects.exclude(registration__event=F("event")).values_list("pk", flat=True)),
        "conduct record in another event's round": list(ConductRecord.objects.filter(stage__isnull=False)
                                                        .exclude(stage__event=F("event")).values_list("pk", flat=True)),
        **_answer_rules(),
        "referee assigned who may not referee at the festival": [  # organisers and superusers hold every role
            a.pk for a in RefereeAssignment.objects.filter(ended_at__isnull=True)
            .select_related("event__festival", "referee") if not has_role(a.referee, a.event.festival, REFEREE)],
    }


def _answer_rules() -> dict[str, list]:
    """A table's answers (docs/player-run-tables.md): only a player seated on the sheet answers, in an event
    whose players keep their sheets, while still in the event; a dispute says why; whoever entered a sheet
    agreed to it."""
    answers = SheetAnswer.objects.all()
    on_sheet = SheetSeat.objects.filter(sheet=OuterRef("sheet"), position=OuterRef("position"),
                                        registration=OuterRef("registration"))
    left = ConductRecord.objects.filter(registration=OuterRef("registration"), kind__in=ConductRecord.LEAVES_EVENT,
                                        created_at__lt=OuterRef("answered_at"))
    agreed = SheetAnswer.objects.filter(sheet=OuterRef("pk"), position=OuterRef("entered_by_seat"),
                                        answer=SheetAnswer.Answer.AGREED)
    return {
        "answer by someone not on the sheet at that seat": list(
            answers.filter(~Exists(on_sheet)).values_list("pk", flat=True)),
        "answer in an event whose referees enter the sheets": list(
            answers.exclude(sheet__stage__event__sheets_by=Event.SheetsBy.PLAYERS).values_list("pk", flat=True)),
        "answer given after the player left the event": list(answers.filter(
            Q(registration__withdrawn_at__lt=F("answered_at")) | Exists(left)).values_list("pk", flat=True)),
        "dispute without a reason": list(
            answers.filter(answer=SheetAnswer.Answer.DISPUTED, reason="").values_list("pk", flat=True)),
        "sheet entered by a seat that did not agree to it": list(ScoreSheet.objects.filter(
            entered_by_seat__isnull=False).filter(~Exists(agreed)).values_list("pk", flat=True)),
    }


# Nothing of these is ever deleted (DESIGN.md: sheets, draws, registrations, and their history).
KEPT = {"tournament.AuditEntry", "tournament.Registration", "tournament.Player", "tournament.Draw",
        "tournament.Seat", "tournament.DrawTable", "tournament.Stage", "tournament.Lot", "tournament.ConductRecord",
        "scoring.ScoreSheet", "scoring.SheetSeat", "scoring.WordTurn", "scoring.TableLink", "scoring.SheetAnswer"}


def assert_whole(changed: dict, deleted: dict, what: str) -> None:
    """An accepted change left an audit entry (one transaction, audit record), lost nothing that is kept,
    and broke no rule."""
    assert "tournament.AuditEntry" in changed, f"{what}: changed {sorted(changed)} without an audit entry"
    lost = {label: pks for label, pks in deleted.items() if label in KEPT}
    assert not lost, f"{what}: deleted {lost}"
    broken = {rule: rows for rule, rows in broken_rules().items() if rows}
    assert not broken, f"{what}: the change left {broken}"
