"""One score sheet, for the chief referee and the organiser: what was entered, its accepted warnings, its
versions and audit trail; confirm it, return it to the referee with a reason, or correct it (R7–R9).

A correction is the referee's own entry (`scoring.games.game_of(event).correction_form`: the same fields, tile pad
and live check) plus a reason; it becomes a new confirmed version and the old one is kept."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.models import AuditEntry, Event
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.errors import ServiceError
from tournament.views.helpers import run_service

from ..forms.board import ReturnForm
from ..games import game_of
from ..games.problems import message as problem_message
from ..models import ScoreSheet
from ..services.agreement import agreements, players_keep_sheets
from ..services.sheets import SheetRefused, confirm_sheet, correct_sheet, return_sheet
from .staff import PREFIX, SHOWN, STATE_LABELS, S, board_url, chief_view, get_sheet, sheet_url


def _problems(warnings) -> list[dict]:
    """Accepted warnings in the reader's language (they were stored in the referee's)."""
    out = []
    for problem in warnings or []:
        if isinstance(problem, dict):
            out.append({"seat": problem.get("seat"),
                        "message": problem_message(str(problem.get("code", "")), str(problem.get("message", "")))})
    return out


def sheet_context(request, event: Event, sheet: ScoreSheet, **extra) -> dict:
    versions = list(ScoreSheet.objects.filter(stage=sheet.stage, game=sheet.game, table_number=sheet.table_number)
                    .select_related("submitted_by", "decided_by").order_by("-version"))
    audit = list(AuditEntry.objects.filter(target_type="scoresheet", target_id__in=[v.pk for v in versions])
                 .select_related("actor").order_by("-at", "-id"))
    for entry in audit:
        entry.detail = entry.reason
    for version in versions:
        version.label = STATE_LABELS.get(version.status, version.status)
    lines = list(sheet.seats.select_related("registration__player").order_by("position"))
    rules = game_of(event)
    context = {
        "festival": event.festival, "event": event, "sheet": sheet, "stage": sheet.stage, "rules": rules,
        "state_label": STATE_LABELS.get(sheet.status, sheet.status),
        "lines": lines, **rules.review_context(sheet, lines),
        "problems": _problems(sheet.warnings), "versions": versions, "audit_entries": audit,
        "correction_warnings": [e for e in audit if e.action == "sheet.correction_warning"],
        "own_sheet": sheet.submitted_by_id is not None and sheet.submitted_by_id == request.user.pk,
        "return_form": ReturnForm(),
        "agreement": agreements([sheet], event).get(sheet.pk), "correctable": _correctable(event, sheet),
        "board_url": board_url(event, stage=sheet.stage.number, game=sheet.game),
    }
    context.update(extra)
    return context


@require_safe
@never_cache
@chief_view
def sheet_page(request, event, sheet_id):
    sheet = get_sheet(event, sheet_id, *SHOWN)
    return render(request, "scoring/board/sheet.html", sheet_context(request, event, sheet))


@require_POST
@chief_view
def confirm(request, event, sheet_id):
    sheet = get_sheet(event, sheet_id)
    return run_service(
        request, lambda: confirm_sheet(sheet=sheet, actor=Actor.of(request)),
        done=_("Table %(table)s, game %(game)s is confirmed.") % {"table": sheet.table_number, "game": sheet.game},
        then=lambda confirmed: (board_url(event, stage=sheet.stage.number, game=sheet.game) if confirmed
                                else sheet_url(event, sheet)),
    )


@require_POST
@chief_view
def return_to_referee(request, event, sheet_id):
    sheet = get_sheet(event, sheet_id)
    form = ReturnForm(request.POST)
    if not form.is_valid():
        return render(request, "scoring/board/sheet.html",
                      sheet_context(request, event, get_sheet(event, sheet_id, *SHOWN), return_form=form), status=400)
    return run_service(
        request, lambda: return_sheet(sheet=sheet, actor=Actor.of(request), reason=form.cleaned_data["reason"]),
        done=_("The sheet of table %(table)s went back to the referee.") % {"table": sheet.table_number},
        then=sheet_url(event, sheet),
    )


def _correction_page(request, event, sheet, form, *, judgement=None, refusal=None, status=200):
    """The referee's entry (the game's own fields, tile pad, live check) with a reason, for a confirmed sheet."""
    rules = game_of(event)
    return render(request, "scoring/board/correct.html", {
        "festival": event.festival, "event": event, "sheet": sheet, "form": form, "rules": rules,
        "judgement": judgement, "refusal": refusal, "needs_acceptance": bool(refusal and refusal.code == "warnings"),
        "check_url": reverse("board-correct-check", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                           "sheet_id": sheet.pk}),
        **rules.entry_context(), **rules.check_context(form, judgement),
    }, status=status)


def _correctable(event: Event, sheet: ScoreSheet) -> bool:
    """A referee's submitted sheet is confirmed or returned; one a table keeps itself may be corrected too."""
    return sheet.status == S.CONFIRMED or (sheet.status == S.SUBMITTED and players_keep_sheets(event))


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@chief_view
def correct(request, event, sheet_id):
    """Correct a sheet (chief referee or organiser): a new confirmed version with a reason. A confirmed one after
    the fact; a submitted one where its table keeps its own sheet (settling a dispute)."""
    sheet = get_sheet(event, sheet_id)
    action = request.POST.get("action") if request.method == "POST" else None
    saving = request.method == "POST" and action not in ("more", "check")
    # A save goes on to the service even when the sheet is no longer confirmed: the same form sent twice (a
    # double tap) is answered there with the correction the first one recorded.
    if not _correctable(event, sheet) and not saving:
        messages.error(request, _("Only a confirmed sheet can be corrected."))
        return redirect(sheet_url(event, sheet))
    rules = game_of(event)
    seats = seating.places(sheet.draw_id, table=sheet.table_number, named=True)
    if request.method != "POST":
        form = rules.correction_form(event=event, seats=seats, initial=rules.correction_initial(sheet))
        return _correction_page(request, event, sheet, form)
    longer = rules.more_rows(request.POST, seats) if action == "more" else None
    if longer is not None:  # more rows without JavaScript: nothing is checked or saved
        form = rules.correction_form(longer, event=event, seats=seats)
        form.is_valid()
        return _correction_page(request, event, sheet, form)
    form = rules.correction_form(request.POST, event=event, seats=seats)
    if not form.is_valid():
        return _correction_page(request, event, sheet, form, status=400)
    if action == "check":
        return _correction_page(request, event, sheet, form, judgement=rules.judge(event, seats, form.entry()))
    try:
        new = correct_sheet(sheet=sheet, entry=form.entry(), reason=form.cleaned_data["reason"],
                            accept_warnings=form.cleaned_data["accept_warnings"],
                            idempotency_key=form.cleaned_data["idempotency_key"], actor=Actor.of(request))
    except SheetRefused as refusal:
        return _correction_page(request, event, sheet, form, judgement=refusal.judgement, refusal=refusal,
                                status=400)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(sheet_url(event, sheet))
    if new.stage.event_id != event.pk:  # a replayed key of another sheet: show nothing of it
        return redirect(sheet_url(event, sheet))
    messages.success(request, _("The sheet is corrected; the earlier version is kept."))
    for note in new.correction_warnings:
        messages.warning(request, note)
    return redirect(sheet_url(event, new))


@require_POST
@never_cache
@chief_view
def correction_check(request, event, sheet_id):
    """The correction page's live check: the referee's entry judged exactly as the save will judge it (the
    reason is not part of the check); nothing is saved."""
    sheet = get_sheet(event, sheet_id)
    rules = game_of(event)
    seats = seating.places(sheet.draw_id, table=sheet.table_number, named=True)
    form = rules.entry_form(request.POST, event=event, seats=seats, require_key=False)
    judgement = rules.judge(event, seats, form.entry()) if form.is_valid() else None
    return render(request, "scoring/referee/_check.html", {
        "form": form, "judgement": judgement, "rules": rules, "oob": True, **rules.check_context(form, judgement),
    })


urlpatterns = [
    path(PREFIX + "sheet/<int:sheet_id>/", sheet_page, name="board-sheet"),
    path(PREFIX + "sheet/<int:sheet_id>/confirm/", confirm, name="board-confirm"),
    path(PREFIX + "sheet/<int:sheet_id>/return/", return_to_referee, name="board-return"),
    path(PREFIX + "sheet/<int:sheet_id>/correct/", correct, name="board-correct"),
    path(PREFIX + "sheet/<int:sheet_id>/correct/check/", correction_check, name="board-correct-check"),
]
