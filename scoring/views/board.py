"""The chief referee's live board of a game: every table pending, submitted, confirmed or returned (and, where
the players keep their own sheets, agreed by the table, by most of it, disputed with the reason, or waiting),
one-tap confirmation of clean sheets, refreshed by htmx polling (and by a plain reload without JavaScript)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.models import AuditEntry, Draw, Event, Stage
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.views.confirm import Page, confirm_and_run
from tournament.views.helpers import run_service

from ..forms.board import BoardFilterForm
from ..models import ScoreSheet
from ..services.agreement import agreements, players_keep_sheets
from ..services.board_counts import game_counts
from ..services.links import current_referees, last_heard, live_links
from ..services.progress import NO_STAGE, current_stage, stage_progress
from ..services.sheets import clean_sheets_preview, confirm_clean_sheets, quick_confirm_sheet
from .staff import (
    PENDING,
    PREFIX,
    STATE_LABELS,
    STATES,
    S,
    board_url,
    chief_view,
    get_stage,
)

CORRECTION_WARNINGS_SHOWN = 5


def _table_rows(stage: Stage, game: int, draw: Draw | None, user_id: int | None, *,
                table: int | None = None, current_sheet: ScoreSheet | None = None) -> list[dict]:
    """Every table of the game (or `table` alone) with its current sheet: live (submitted/confirmed), else the
    last returned. Only sheets entered for this seating: a table of another draw is other players. `quick`:
    whether one tap confirms it (submitted, no warnings, agreed by its table where the table keeps it, not
    `user_id`'s own). A fixed number of queries, for one table as for all; `current_sheet`: the one table's
    sheet, when the caller has just confirmed it (no need to look it up)."""
    if draw is None:
        return []
    players = seating.names_by_table(draw, table=table)
    current: dict[int, ScoreSheet] = {}
    if current_sheet is not None:
        current[current_sheet.table_number] = current_sheet
    else:
        sheets = ScoreSheet.objects.filter(stage=stage, game=game, draw=draw).exclude(status=S.SUPERSEDED)
        if table is not None:
            sheets = sheets.filter(table_number=table)
        for sheet in sheets.order_by("table_number", "-version"):
            held = current.get(sheet.table_number)
            if held is None or (held.status == S.RETURNED and sheet.status in ScoreSheet.LIVE):
                current[sheet.table_number] = sheet
    links = live_links(stage.event, table=table)
    referees = current_referees(stage.event, table=table)
    agreed = agreements(list(current.values()), stage.event)  # tables keeping their own sheets
    rows = []
    for number, names in sorted(players.items()):
        sheet = current.get(number)
        state = sheet.status if sheet else PENDING
        link, held = links.get(number), referees.get(number)
        agreement = agreed.get(sheet.pk) if sheet else None
        warnings = bool(sheet and sheet.warnings)
        # Heard from: the table's card or its signed-in referee, whichever asked last.
        rows.append({"number": number, "names": names, "sheet": sheet, "state": state,
                     "label": STATE_LABELS[state], "warnings": warnings, "agreement": agreement,
                     "has_link": link is not None, "referee": held.referee if held else None,
                     "heard_at": last_heard(link, held),
                     "quick": (state == S.SUBMITTED and not warnings and (agreement is None or agreement.clean)
                               and sheet.submitted_by_id != user_id)})
    return rows


def _counts(stage: Stage, game: int, draw: Draw | None, user_id: int | None) -> dict:
    """What the board counts — tables per state, sheets with warnings, sheets one tap confirms: one statement
    (services/board_counts.py), the same for 16 tables or 512, for the whole board and for one tap's answer."""
    if draw is None:
        return {"counts": [(state, STATE_LABELS[state], 0) for state in STATES], "total": 0, "with_warnings": 0,
                "clean": 0}
    found = game_counts(stage_id=stage.pk, game=game, draw_id=draw.pk, user_id=user_id)
    clean = found.one_tap
    if players_keep_sheets(stage.event) and clean:  # only what its table agreed to goes with one tap
        candidates = list(ScoreSheet.objects.filter(stage=stage, game=game, draw=draw, status=S.SUBMITTED,
                                                    warnings=[]).exclude(submitted_by_id=user_id)
                          .only("id", "status", "submitted_at", "entered_by_seat"))
        agreed = agreements(candidates, stage.event)
        clean = sum(1 for sheet in candidates if sheet.pk not in agreed or agreed[sheet.pk].clean)
    total = found.tables
    per_state = {PENDING: total - found.touched, S.SUBMITTED: found.submitted,
                 S.RETURNED: found.touched - found.submitted - found.confirmed, S.CONFIRMED: found.confirmed}
    return {"counts": [(state, STATE_LABELS[state], per_state[state]) for state in STATES], "total": total,
            "with_warnings": found.with_warnings, "clean": clean, "complete": total > 0 and found.confirmed == total}


def _correction_warnings(event: Event):
    """The latest corrections that changed a step already taken (progress.correction_effects)."""
    entries = AuditEntry.objects.filter(event=event, action="sheet.correction_warning")
    return list(entries.order_by("-at", "-id")[:CORRECTION_WARNINGS_SHOWN])


def board_context(request, event: Event, form: BoardFilterForm, **extra) -> dict:
    form.is_valid()
    wanted = form.cleaned_data
    stages = list(event.stages.all())
    stage = next((s for s in stages if s.number == wanted.get("stage")), None) or (
        current_stage(event) if stages else None)
    progress = stage_progress(stage) if stage else NO_STAGE
    games = progress.per_game
    game = wanted.get("game")
    if not game or not stage or game > stage.games:
        game = progress.seated_game
    draw = games[game - 1].draw if games else None
    rows = _table_rows(stage, game, draw, request.user.pk) if stage else []
    counted = _counts(stage, game, draw, request.user.pk) if stage else _counts(None, 0, None, None)
    only_warnings = bool(wanted.get("warnings"))
    shown = [row for row in rows if row["warnings"]] if only_warnings else rows
    query = {"stage": stage.number if stage else None, "game": game, "warnings": "1" if only_warnings else None}
    # The chief referee stays on the game they were confirming; once it is complete and the next one is seated
    # (Hong Kong movement seats it by itself, R8.2), say so rather than leave them on a finished game.
    following = games[game] if games and game < len(games) else None
    next_game_url = (board_url(event, stage=stage.number, game=following.game)
                     if following and following.draw is not None and games[game - 1].complete else "")
    context = {
        **counted,
        "festival": event.festival, "event": event, "stages": stages, "stage": stage, "games": games,
        "game": game, "draw": draw, "rows": shown,
        "disputed": [row for row in rows if row["agreement"] is not None and row["agreement"].disputes],
        "only_warnings": only_warnings, "query": query, "poll_url": board_url(event, **query),
        "now": timezone.now(), "correction_warnings": _correction_warnings(event),
        "is_organiser": request.is_organiser, "next_game": following.game if next_game_url else None,
        "next_game_url": next_game_url,
    }
    context.update(extra)
    return context


# --- the live board -------------------------------------------------------------------------------------

@require_safe
@never_cache
@chief_view
def board(request, event):
    context = board_context(request, event, BoardFilterForm(request.GET))
    template = "scoring/board/_board.html" if request.htmx else "scoring/board/board.html"
    return render(request, template, context)


@require_POST
@chief_view
def quick_confirm(request, event, sheet_id):
    """One tap on the board confirms a clean sheet; a sheet with warnings must be opened and checked."""
    form = BoardFilterForm(request.POST)
    form.is_valid()
    wanted = form.cleaned_data

    confirmed = []

    def confirm():
        try:
            confirmed.append(quick_confirm_sheet(event=event, sheet_id=sheet_id, actor=Actor.of(request)))
        except ScoreSheet.DoesNotExist:  # not this event's
            raise Http404 from None
        return confirmed[0]

    return run_service(
        request, confirm,
        done=lambda sheet: _("Table %(table)s, game %(game)s is confirmed.") % {"table": sheet.table_number,
                                                                                "game": sheet.game},
        then=board_url(event, stage=wanted.get("stage"), game=wanted.get("game"),
                       warnings="1" if wanted.get("warnings") else None),
        htmx=lambda error, notice: _tap_answer(request, event, sheet_id, wanted, error=error, notice=notice,
                                               confirmed=confirmed[0] if confirmed else None),
    )


def _tap_answer(request, event: Event, sheet_id: int, wanted: dict, *, error: str, notice: str,
                confirmed: ScoreSheet | None):
    """What one tap on the board answers: the row it changed, with the counts, "confirm every clean sheet" and
    the message out of band — a fixed amount of work however many tables the game has. The tap that
    completes the game answers with the whole board, which says where the next game is. `confirmed`: the
    sheet as the tap confirmed it, with its stage and draw (its seating is the game's: the service checked);
    None when refused, and the sheet is read again."""
    if confirmed is not None:
        sheet, draw = confirmed, confirmed.draw
    else:
        sheet = get_object_or_404(ScoreSheet.objects.select_related("stage"), pk=sheet_id, stage__event=event)
        sheet.stage.event = event
        draw = seating.game_draw(sheet.stage, sheet.game)
    stage, game = sheet.stage, sheet.game
    counted = _counts(stage, game, draw, request.user.pk)
    if counted["complete"] and not error:
        response = render(request, "scoring/board/_board.html", board_context(
            request, event, BoardFilterForm(request.POST), error=error, notice=notice, acted_on=sheet.pk))
        response["HX-Retarget"], response["HX-Reswap"] = "#board", "outerHTML"  # the board, not the row
        return response
    rows = _table_rows(stage, game, draw, request.user.pk, table=sheet.table_number, current_sheet=confirmed)
    return render(request, "scoring/board/_tap.html", {
        **counted, "row": rows[0] if rows else None, "festival": event.festival, "event": event, "stage": stage,
        "game": game, "draw": draw, "now": timezone.now(), "only_warnings": bool(wanted.get("warnings")),
        "error": error, "notice": notice, "acted_on": sheet.pk, "oob": True,
    })


@require_http_methods(["GET", "POST"])
@chief_view
def confirm_clean(request, event):
    """Confirm every clean sheet of a game at once (R9): GET shows how many and which are left to open one by
    one; the POST confirms exactly that (the service refuses a count that changed meanwhile)."""
    form = BoardFilterForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid() or not form.cleaned_data.get("stage") or not form.cleaned_data.get("game"):
        messages.error(request, _("Choose a round and a game on the board."))
        return redirect(board_url(event))
    stage = get_stage(event, form.cleaned_data["stage"])
    game = form.cleaned_data["game"]
    if game > stage.games:
        messages.error(request, _("Choose a round and a game on the board."))
        return redirect(board_url(event, stage=stage.number))
    back = board_url(event, stage=stage.number, game=game)

    def done(tables):
        return ngettext("%(count)s sheet confirmed.", "%(count)s sheets confirmed.", len(tables["clean"])) % {
            "count": len(tables["clean"])}

    return confirm_and_run(
        request, preview=lambda: clean_sheets_preview(stage=stage, game=game, actor=Actor.of(request)),
        call=lambda expect: confirm_clean_sheets(stage=stage, game=game, actor=Actor.of(request), expect=expect),
        page=Page(action=reverse("board-confirm-clean", kwargs={"festival": event.festival.slug,
                                                                "event": event.slug}),
                  back=back, back_label=_("Live board"), button=_("Confirm these sheets"),
                  context={"festival": event.festival, "event": event},
                  hidden=[("stage", str(stage.number)), ("game", str(game))]),
        done=done, then=back)


urlpatterns = [
    path(PREFIX, board, name="board"),
    path(PREFIX + "confirm-clean/", confirm_clean, name="board-confirm-clean"),
    path(PREFIX + "sheet/<int:sheet_id>/quick-confirm/", quick_confirm, name="board-quick-confirm"),
]
