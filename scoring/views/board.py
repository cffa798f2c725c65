"""The chief referee's and organiser's side of score sheets (issue 5, R7–R9).

- the live board of a game: every table pending / submitted / confirmed / returned, one-tap confirm for
  clean sheets, refreshed by htmx polling (and by a plain reload without JavaScript);
- a sheet's page: what was entered, its warnings, versions and audit trail; confirm, return, correct;
- a stage's page: completeness, who advances, lots at the cut, closing the stage;
- the organiser's table links, QR codes, referee assignments and printable paper score sheets.

Views only parse and call one service; every permission is checked here, on the server.
"""

from functools import lru_cache
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.models import AuditEntry, Draw, DrawTable, Event, Lot, Registration, Seat, Stage
from tournament.permissions import CHIEF_REFEREE, ORGANISER, REFEREE
from tournament.qr import qr_svg
from tournament.services.audit import Actor
from tournament.services.errors import ServiceError
from tournament.views.helpers import staff_view as tournament_staff_view

from ..forms.board import BoardFilterForm, CorrectionForm, LinkForm, RefereeForm, ReturnForm, TableForm
from ..forms.entry import new_key
from ..forms.word import WordCorrectionForm, initial_from_word_sheet, more_rows_data
from ..models import RefereeAssignment, ScoreSheet, TableLink
from ..services import links as link_services
from ..services import progress
from ..services.problems import message as problem_message
from ..services.sheets import SheetRefused, confirm_sheet, correct_sheet, return_sheet, table_seats
from ..services.word_sheets import correct_word_sheet, judge_word

S = ScoreSheet.Status
PENDING = "pending"
STATES = (PENDING, S.SUBMITTED, S.RETURNED, S.CONFIRMED)
STATE_LABELS = {
    PENDING: gettext_lazy("Pending"), S.SUBMITTED: gettext_lazy("Submitted"),
    S.RETURNED: gettext_lazy("Returned"), S.CONFIRMED: gettext_lazy("Confirmed"),
    S.SUPERSEDED: gettext_lazy("Replaced by a correction"),
}
ACTION_LABELS = {
    "sheet.submitted": gettext_lazy("Submitted"),
    "sheet.confirmed": gettext_lazy("Confirmed"),
    "sheet.returned": gettext_lazy("Returned to the referee"),
    "sheet.corrected": gettext_lazy("Corrected"),
    "sheet.correction_warning": gettext_lazy("Correction changes a later step"),
}
CORRECTION_WARNINGS_SHOWN = 5


# --- access -------------------------------------------------------------------------------------------

def _board_url(event: Event, **query) -> str:
    url = reverse("board", kwargs={"festival": event.festival.slug, "event": event.slug})
    query = {k: v for k, v in query.items() if v not in (None, "", False)}
    return f"{url}?{urlencode(query)}" if query else url


def staff_view(*roles):
    return tournament_staff_view(*roles, home="board")


chief_view = staff_view(CHIEF_REFEREE)
organiser_view = staff_view(ORGANISER)


def _sheet(event: Event, sheet_id: int) -> ScoreSheet:
    return get_object_or_404(
        ScoreSheet.objects.select_related("stage__event__festival", "draw", "submitted_by", "decided_by"),
        pk=sheet_id, stage__event=event,
    )


def _stage(event: Event, number: int) -> Stage:
    return get_object_or_404(Stage.objects.select_related("event__festival"), event=event, number=number)


def _sheet_url(event: Event, sheet: ScoreSheet) -> str:
    return reverse("board-sheet", kwargs={"festival": event.festival.slug, "event": event.slug, "sheet_id": sheet.pk})


def _stage_url(event: Event, stage: Stage, name: str = "board-stage") -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, "stage": stage.number})


@lru_cache(maxsize=2048)
def _qr(url: str, scale: int = 4) -> str:
    """A table's QR code; drawing one takes ~10 ms, so the links page of 128 tables reuses them."""
    return qr_svg(url, scale=scale)


def entry_url(request, token: str) -> str:
    """The referee's page of a table link (scoring/views/referee.py)."""
    try:
        url = reverse("referee-link-table", kwargs={"token": token})
    except NoReverseMatch:
        url = f"/t/{token}/"
    return request.build_absolute_uri(url)


# --- what the pages show --------------------------------------------------------------------------------

def _released_draws(stage: Stage) -> dict[int, Draw]:
    """The released seating of every game (Busan: game 1's draw holds for all games, R8.1)."""
    released = {draw.game: draw for draw in stage.draws.filter(status=Draw.Status.RELEASED)}
    if stage.event.format == Event.Format.HONG_KONG:
        return {game: released[game] for game in range(1, stage.games + 1) if game in released}
    return {game: released[1] for game in range(1, stage.games + 1)} if 1 in released else {}


def _progress(stage: Stage) -> list[dict]:
    """Per game: tables, confirmed tables, complete; three queries whatever the number of tables."""
    draws = _released_draws(stage)
    tables = dict(DrawTable.objects.filter(draw__in={d.pk for d in draws.values()})
                  .values("draw").annotate(n=Count("id")).values_list("draw", "n"))
    confirmed = dict(ScoreSheet.objects.filter(stage=stage, status=S.CONFIRMED)
                     .values("game").annotate(n=Count("id")).values_list("game", "n"))
    games = []
    for game in range(1, stage.games + 1):
        draw = draws.get(game)
        expected = tables.get(draw.pk, 0) if draw else 0
        done = confirmed.get(game, 0)
        games.append({"game": game, "draw": draw, "tables": expected, "confirmed": done,
                      "complete": expected > 0 and done == expected})
    return games


def _current_stage(stages: list[Stage]) -> Stage | None:
    """The first stage still open (there is normally one), else the last one."""
    open_stages = [stage for stage in stages if not stage.closed_at]
    if open_stages:
        return open_stages[0]
    return stages[-1] if stages else None


def _current_game(games: list[dict]) -> int:
    seated = [g for g in games if g["draw"] is not None]
    for g in seated:
        if not g["complete"]:
            return g["game"]
    return seated[-1]["game"] if seated else 1


def _table_rows(stage: Stage, game: int, draw: Draw | None) -> list[dict]:
    """Every table of the game with its current sheet: live (submitted/confirmed), else the last returned."""
    if draw is None:
        return []
    players: dict[int, list] = {}
    for seat in (Seat.objects.filter(draw=draw).select_related("table", "registration__player")
                 .order_by("table__number", "position")):
        players.setdefault(seat.table.number, []).append(seat)
    current: dict[int, ScoreSheet] = {}
    for sheet in (ScoreSheet.objects.filter(stage=stage, game=game).exclude(status=S.SUPERSEDED)
                  .select_related("submitted_by").order_by("table_number", "-version")):
        held = current.get(sheet.table_number)
        if held is None or (held.status == S.RETURNED and sheet.status in ScoreSheet.LIVE):
            current[sheet.table_number] = sheet
    rows = []
    for number, seats in sorted(players.items()):
        sheet = current.get(number)
        state = sheet.status if sheet else PENDING
        rows.append({"number": number, "seats": seats, "sheet": sheet, "state": state,
                     "label": STATE_LABELS[state], "warnings": bool(sheet and sheet.warnings)})
    return rows


def _correction_warnings(event: Event):
    """The latest corrections that changed a step already taken (progress.correction_effects)."""
    entries = AuditEntry.objects.filter(event=event, action="sheet.correction_warning")
    return list(entries.order_by("-at", "-id")[:CORRECTION_WARNINGS_SHOWN])


def board_context(request, event: Event, form: BoardFilterForm, **extra) -> dict:
    form.is_valid()
    wanted = form.cleaned_data
    stages = list(event.stages.all())
    stage = next((s for s in stages if s.number == wanted.get("stage")), None) or _current_stage(stages)
    games = _progress(stage) if stage else []
    game = wanted.get("game")
    if not game or not stage or game > stage.games:
        game = _current_game(games)
    draw = games[game - 1]["draw"] if games else None
    rows = _table_rows(stage, game, draw) if stage else []
    counts = {state: 0 for state in STATES}
    for row in rows:
        counts[row["state"]] += 1
    only_warnings = bool(wanted.get("warnings"))
    shown = [row for row in rows if row["warnings"]] if only_warnings else rows
    query = {"stage": stage.number if stage else None, "game": game, "warnings": "1" if only_warnings else None}
    # The chief referee stays on the game they were confirming; once it is complete and the next one is seated
    # (Hong Kong movement seats it by itself, R8.2), say so rather than leave them on a finished game.
    following = games[game] if games and game < len(games) else None
    next_game_url = (_board_url(event, stage=stage.number, game=following["game"])
                     if following and following["draw"] is not None and games[game - 1]["complete"] else "")
    context = {
        "festival": event.festival, "event": event, "stages": stages, "stage": stage, "games": games,
        "game": game, "draw": draw, "rows": shown, "total": len(rows),
        "counts": [(state, STATE_LABELS[state], counts[state]) for state in STATES],
        "with_warnings": sum(1 for row in rows if row["warnings"]),
        "only_warnings": only_warnings, "query": query, "poll_url": _board_url(event, **query),
        "now": timezone.now(), "correction_warnings": _correction_warnings(event),
        "is_organiser": request.is_organiser, "next_game": following["game"] if next_game_url else None,
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
    sheet = _sheet(event, sheet_id)
    form = BoardFilterForm(request.POST)
    error = notice = ""
    if sheet.warnings and sheet.status == S.SUBMITTED:
        error = _("Table %(table)s has warnings: open the sheet and check them before confirming.") % {
            "table": sheet.table_number}
    else:
        try:
            confirm_sheet(sheet=sheet, actor=Actor.of(request))
        except ServiceError as refusal:
            error = refusal.message
        else:
            notice = _("Table %(table)s, game %(game)s is confirmed.") % {
                "table": sheet.table_number, "game": sheet.game}
    if request.htmx:
        return render(request, "scoring/board/_board.html",
                      board_context(request, event, form, error=error, notice=notice, acted_on=sheet.pk))
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)
    form.is_valid()
    return redirect(_board_url(event, stage=form.cleaned_data.get("stage"), game=form.cleaned_data.get("game"),
                               warnings="1" if form.cleaned_data.get("warnings") else None))


# --- one sheet ------------------------------------------------------------------------------------------

def _who(user, label=""):
    return user.get_username() if user else label


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
        entry.action_label = ACTION_LABELS.get(entry.action, entry.action)
        entry.who = _who(entry.actor, entry.actor_label)
        entry.detail = entry.reason
    for version in versions:
        version.label = STATE_LABELS.get(version.status, version.status)
    user = request.user
    lines = list(sheet.seats.select_related("registration__player").order_by("position"))
    context = {
        "festival": event.festival, "event": event, "sheet": sheet, "stage": sheet.stage,
        "word": event.game == Event.Game.WORD, "word_turns": _word_turns(sheet, lines),
        "state_label": STATE_LABELS.get(sheet.status, sheet.status),
        "lines": lines,
        "problems": _problems(sheet.warnings), "versions": versions, "audit_entries": audit,
        "correction_warnings": [e for e in audit if e.action == "sheet.correction_warning"],
        "own_sheet": sheet.submitted_by_id is not None and sheet.submitted_by_id == user.pk,
        "return_form": ReturnForm(),
        "board_url": _board_url(event, stage=sheet.stage.number, game=sheet.game),
    }
    context.update(extra)
    return context


def _word_turns(sheet: ScoreSheet, lines: list) -> list:
    """A Word sheet's turns (R10) with each player's name; one query, none for a classic sheet."""
    if sheet.stage.event.game != Event.Game.WORD:
        return []
    names = {line.position: line.registration.player.name for line in lines}
    turns = list(sheet.word_turns.all())
    for turn in turns:
        turn.name = names.get(turn.position, "")
    return turns


@require_safe
@never_cache
@chief_view
def sheet_page(request, event, sheet_id):
    sheet = _sheet(event, sheet_id)
    return render(request, "scoring/board/sheet.html", sheet_context(request, event, sheet))


@require_POST
@chief_view
def confirm(request, event, sheet_id):
    sheet = _sheet(event, sheet_id)
    try:
        confirm_sheet(sheet=sheet, actor=Actor.of(request))
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_sheet_url(event, sheet))
    messages.success(request, _("Table %(table)s, game %(game)s is confirmed.") % {
        "table": sheet.table_number, "game": sheet.game})
    return redirect(_board_url(event, stage=sheet.stage.number, game=sheet.game))


@require_POST
@chief_view
def return_to_referee(request, event, sheet_id):
    sheet = _sheet(event, sheet_id)
    form = ReturnForm(request.POST)
    if not form.is_valid():
        return render(request, "scoring/board/sheet.html",
                      sheet_context(request, event, sheet, return_form=form), status=400)
    try:
        return_sheet(sheet=sheet, actor=Actor.of(request), reason=form.cleaned_data["reason"])
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("The sheet of table %(table)s went back to the referee.") % {
            "table": sheet.table_number})
    return redirect(_sheet_url(event, sheet))


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@chief_view
def correct(request, event, sheet_id):
    """Correct a confirmed sheet (chief referee or organiser): a new confirmed version with a reason."""
    sheet = _sheet(event, sheet_id)
    if sheet.status != S.CONFIRMED:
        messages.error(request, _("Only a confirmed sheet can be corrected."))
        return redirect(_sheet_url(event, sheet))
    seats = table_seats(sheet.draw, sheet.table_number)
    if event.game == Event.Game.WORD:
        return _correct_word(request, event, sheet, seats)
    if request.method != "POST":
        lines = sheet.seats.order_by("position")
        form = CorrectionForm(initial=CorrectionForm.initial_from(sheet, lines), seats=seats)
        return render(request, "scoring/board/correct.html", _correct_context(event, sheet, form))
    form = CorrectionForm(request.POST, seats=seats)
    if not form.is_valid():
        return render(request, "scoring/board/correct.html", _correct_context(event, sheet, form), status=400)
    try:
        new = correct_sheet(sheet=sheet, entry=form.entry(), reason=form.cleaned_data["reason"],
                            accept_warnings=form.cleaned_data["accept_warnings"],
                            idempotency_key=form.cleaned_data["key"], actor=Actor.of(request))
    except SheetRefused as refusal:
        return render(request, "scoring/board/correct.html",
                      _correct_context(event, sheet, form, judgement=refusal.judgement, refusal=refusal), status=400)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_sheet_url(event, sheet))
    return _corrected(request, event, sheet, new)


def _corrected(request, event, sheet, new):
    """After a classic or Word correction: the new version's page, with any "this changes who advanced" notes."""
    if new.stage.event_id != event.pk:  # a replayed key of another sheet: show nothing of it
        return redirect(_sheet_url(event, sheet))
    messages.success(request, _("The sheet is corrected; the earlier version is kept."))
    for note in AuditEntry.objects.filter(action="sheet.correction_warning", target_type="scoresheet",
                                          target_id=new.pk):
        messages.warning(request, note.reason)
    return redirect(_sheet_url(event, new))


def _correct_context(event, sheet, form, judgement=None, refusal=None) -> dict:
    rows = []
    for seat, fields in form.seat_rows():
        problems = judgement.seat_problems(seat.position) if judgement else []
        rows.append({"seat": seat, "fields": fields, "problems": problems})
    return {
        "festival": event.festival, "event": event, "sheet": sheet, "form": form, "rows": rows,
        "table_problems": judgement.table_problems if judgement else [],
        "refusal": refusal, "needs_acceptance": bool(refusal and refusal.code == "warnings"),
    }


def _correct_word(request, event, sheet, seats):
    """Correct a confirmed Rummikub Word sheet (R10): its turns and jokers left, through correct_word_sheet."""
    if request.method != "POST":
        initial = {**initial_from_word_sheet(sheet), "idempotency_key": new_key()}
        form = WordCorrectionForm(seats=seats, initial=initial)
        return render(request, "scoring/board/correct_word.html", _correct_word_context(event, sheet, form))
    if request.POST.get("action") == "more":  # more turn rows without JavaScript: nothing is checked or saved
        form = WordCorrectionForm(more_rows_data(request.POST, seats), seats=seats)
        form.is_valid()
        return render(request, "scoring/board/correct_word.html", _correct_word_context(event, sheet, form))
    form = WordCorrectionForm(request.POST, seats=seats)
    if not form.is_valid():
        return render(request, "scoring/board/correct_word.html", _correct_word_context(event, sheet, form),
                      status=400)
    turns, jokers = form.entry()
    if request.POST.get("action") == "check":
        return render(request, "scoring/board/correct_word.html",
                      _correct_word_context(event, sheet, form, judgement=judge_word(seats, turns, jokers)))
    try:
        new = correct_word_sheet(sheet=sheet, turns=turns, jokers_left=jokers, end=form.cleaned_data["end"],
                                 reason=form.cleaned_data["reason"],
                                 accept_warnings=form.cleaned_data["accept_warnings"],
                                 idempotency_key=form.cleaned_data["idempotency_key"], actor=Actor.of(request))
    except SheetRefused as refusal:
        return render(request, "scoring/board/correct_word.html",
                      _correct_word_context(event, sheet, form, judgement=refusal.judgement, refusal=refusal),
                      status=400)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_sheet_url(event, sheet))
    return _corrected(request, event, sheet, new)


def _correct_word_context(event, sheet, form, judgement=None, refusal=None) -> dict:
    from .referee_word import check_rows  # the referee's check panel: turns, running totals, problems

    return {
        "festival": event.festival, "event": event, "sheet": sheet, "form": form,
        "turn_rows": form.turn_rows(), "joker_rows": form.joker_rows(), "judgement": judgement,
        "refusal": refusal, "needs_acceptance": bool(refusal and refusal.code == "warnings"),
        **check_rows(form, judgement),
    }


# --- a stage: completeness, advancement, lots, closing ----------------------------------------------------

def _names(ids) -> dict[int, str]:
    return dict(Registration.objects.filter(pk__in=list(ids)).values_list("pk", "player__name"))


def _lots(stage: Stage) -> list[dict]:
    lots = list(Lot.objects.filter(stage=stage).select_related("created_by").order_by("created_at", "id"))
    names = _names({int(p) for lot in lots for p in lot.players})
    return [{
        "lot": lot, "who": _who(lot.created_by, _("the software")),
        "draws": sorted(((names.get(int(p), p), lot.tiebreak.get(int(p))) for p in lot.players),
                        key=lambda pair: -(pair[1] or 0)),
    } for lot in lots]


def _advancement(stage: Stage) -> dict | None:
    result = progress.advancement(stage)
    if result is None:
        return None
    advancing = set(result.advancing)
    tied = {p for tie in result.ties for p in tie.players}
    names = _names({r.player_id for ranking in result.rankings for r in ranking})
    per_table = stage.advance == Stage.Advance.PER_TABLE
    rankings = [{
        "table": index if per_table else None,
        "rows": [{"ranked": r, "name": names.get(r.player_id, r.player_id), "advances": r.player_id in advancing,
                  "tied": r.player_id in tied} for r in ranking],
    } for index, ranking in enumerate(result.rankings, start=1)]
    ties = [{"table": tie.table, "places": tie.places, "names": [names.get(p, p) for p in tie.players]}
            for tie in result.ties]
    return {"resolved": result.resolved, "advancing": len(result.advancing), "rankings": rankings, "ties": ties}


@require_safe
@never_cache
@chief_view
def stage_page(request, event, stage):
    stage = _stage(event, stage)
    games = _progress(stage)
    complete = bool(games) and all(g["complete"] for g in games)
    hong_kong = event.format == Event.Format.HONG_KONG
    movement = []
    if hong_kong:
        for g in games[:-1]:
            moved = games[g["game"]]["draw"]  # the next game's seating
            movement.append({"game": g["game"], "moved": moved is not None and moved.method == Draw.Method.MOVEMENT,
                             "seated": moved is not None, "complete": g["complete"]})
    return render(request, "scoring/board/stage.html", {
        "festival": event.festival, "event": event, "stage": stage, "games": games, "complete": complete,
        "hong_kong": hong_kong, "movement": movement,
        "advancement": _advancement(stage) if complete and not hong_kong else None,
        "lots": _lots(stage), "is_organiser": request.is_organiser,
        "next_stage": event.stages.filter(number=stage.number + 1).first(),
    })


@require_POST
@organiser_view
def draw_lots(request, event, stage):
    """R7: the organiser has the software draw numbered cards for the players tied at the cut."""
    stage = _stage(event, stage)
    try:
        lots = progress.draw_lots_at_cut(stage=stage, actor=Actor.of(request))
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, _("Lots drawn for %(count)s tie(s) at the cut; the numbers are recorded below.")
                         % {"count": len(lots)})
    return redirect(_stage_url(event, stage))


@require_POST
@organiser_view
def close(request, event, stage):
    stage = _stage(event, stage)
    try:
        following = progress.close_stage(stage=stage, actor=Actor.of(request))
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect(_stage_url(event, stage))
    if following is None:
        messages.success(request, _("%(stage)s is closed.") % {"stage": stage.display_name})
        return redirect(_stage_url(event, stage))
    messages.success(request, _("%(stage)s is closed; %(next)s is ready to be drawn.") % {
        "stage": stage.display_name, "next": following.display_name})
    return redirect("manage-draws", festival=event.festival.slug, event=event.slug)


# --- table links, referees, paper sheets (organiser) -------------------------------------------------------

def _referees(festival):
    return list(get_user_model().objects.filter(pk__in=festival.staff.values("pk"), groups__name=REFEREE,
                                                is_active=True).distinct().order_by("username"))


def _seating_by_table(draw: Draw | None) -> dict[int, list[Seat]]:
    tables: dict[int, list[Seat]] = {}
    if draw is not None:
        for seat in (Seat.objects.filter(draw=draw).select_related("table", "registration__player")
                     .order_by("table__number", "position")):
            tables.setdefault(seat.table.number, []).append(seat)
    return tables


def _assignments(stage: Stage) -> dict[int, list]:
    assigned: dict[int, list] = {}
    for assignment in (RefereeAssignment.objects.filter(stage=stage).select_related("referee")
                       .order_by("table_number", "referee__username")):
        assigned.setdefault(assignment.table_number, []).append(assignment.referee)
    return assigned


@require_safe
@never_cache
@organiser_view
def links_page(request, event, stage):
    stage = _stage(event, stage)
    draws = _released_draws(stage)
    # Hong Kong seats every game anew (R8.2): the referee at a table needs to see who sits there now.
    tables = _seating_by_table(draws[max(draws)] if draws else None)
    live = link_services.live_links(stage)
    assigned = _assignments(stage)
    rows = []
    for number, seats in sorted(tables.items()):
        link = live.get(number)
        url = entry_url(request, link.token) if link and not stage.closed_at else ""
        rows.append({"number": number, "seats": seats, "link": link, "url": url, "qr": _qr(url) if url else "",
                     "referees": assigned.get(number, [])})
    return render(request, "scoring/board/links.html", {
        "festival": event.festival, "event": event, "stage": stage, "rows": rows,
        "missing": sum(1 for row in rows if row["link"] is None), "referees": _referees(event.festival),
    })


def _link_action(request, event, stage, action, done):
    stage = _stage(event, stage)
    try:
        action(stage)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(request, done)
    return redirect(_stage_url(event, stage, "board-links"))


def _invalid(request, event, stage, form):
    messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors)
                   or _("Something in the form is missing."))
    return redirect(_stage_url(event, _stage(event, stage), "board-links"))


@require_POST
@organiser_view
def make_links(request, event, stage):
    return _link_action(request, event, stage,
                        lambda s: link_services.ensure_links(stage=s, actor=Actor.of(request)),
                        _("Every table has its private link. Print the score sheets or table cards."))


@require_POST
@organiser_view
def revoke(request, event, stage):
    form = LinkForm(request.POST)
    if not form.is_valid():
        return _invalid(request, event, stage, form)
    link = get_object_or_404(TableLink, pk=form.cleaned_data["link"], stage__event=event, stage__number=stage)
    return _link_action(request, event, stage,
                        lambda s: link_services.revoke_link(link=link, actor=Actor.of(request)),
                        _("The old link of table %(table)s no longer works; print the new one.")
                        % {"table": link.table_number})


def _referee_change(request, event, stage, service, done):
    form = RefereeForm(request.POST)
    if not form.is_valid():
        return _invalid(request, event, stage, form)
    user = get_user_model().objects.filter(pk=form.cleaned_data["referee"]).first()
    table = form.cleaned_data["table"]
    return _link_action(request, event, stage,
                        lambda s: service(stage=s, table_number=table, user=user, actor=Actor.of(request)),
                        done % {"table": table})


@require_POST
@organiser_view
def assign(request, event, stage):
    return _referee_change(request, event, stage, link_services.assign_referee,
                           _("The referee is assigned to table %(table)s."))


@require_POST
@organiser_view
def unassign(request, event, stage):
    return _referee_change(request, event, stage, link_services.unassign_referee,
                           _("The referee is no longer assigned to table %(table)s."))


@require_safe
@never_cache
@organiser_view
def print_sheets(request, event, stage):
    """A4 paper score sheets, one per table: the Hong Kong layout of seed 003 with the table's entry QR."""
    stage = _stage(event, stage)
    form = TableForm(request.GET)
    only = form.cleaned_data["table"] if form.is_valid() else None
    draws = _released_draws(stage)
    by_game = {game: _seating_by_table(draw) for game, draw in _unique(draws).items()}
    first = by_game.get(1, {})
    live = link_services.live_links(stage)
    assigned = _assignments(stage)
    hong_kong = event.format == Event.Format.HONG_KONG
    positions = range(1, 1 + max((len(seats) for seats in first.values()), default=4))
    sheets = []
    for number, seats in sorted(first.items()):
        if only and number != only:
            continue
        link = live.get(number)
        url = entry_url(request, link.token) if link and not stage.closed_at else ""
        rows = []
        for game in range(1, stage.games + 1):
            seated = by_game.get(game if hong_kong else 1, {}).get(number, []) if game in draws else []
            names = {seat.position: seat.registration.player.name for seat in seated}
            rows.append({"game": game, "names": [names.get(p, "") for p in positions] if hong_kong else None})
        sheets.append({"number": number, "seats": seats, "rows": rows, "qr": _qr(url, 3) if url else "",
                       "referees": assigned.get(number, [])})
    return render(request, "scoring/board/print.html", {
        "festival": event.festival, "event": event, "stage": stage, "sheets": sheets, "hong_kong": hong_kong,
        "positions": list(positions),
    })


def _unique(draws: dict[int, Draw]) -> dict[int, Draw]:
    """Busan repeats game 1's draw for every game: read each seating once."""
    seen, out = set(), {}
    for game, draw in sorted(draws.items()):
        if draw.pk not in seen:
            seen.add(draw.pk)
            out[game] = draw
    return out


PREFIX = "<slug:festival>/<slug:event>/board/"
urlpatterns = [
    path(PREFIX, board, name="board"),
    path(PREFIX + "sheet/<int:sheet_id>/", sheet_page, name="board-sheet"),
    path(PREFIX + "sheet/<int:sheet_id>/quick-confirm/", quick_confirm, name="board-quick-confirm"),
    path(PREFIX + "sheet/<int:sheet_id>/confirm/", confirm, name="board-confirm"),
    path(PREFIX + "sheet/<int:sheet_id>/return/", return_to_referee, name="board-return"),
    path(PREFIX + "sheet/<int:sheet_id>/correct/", correct, name="board-correct"),
    path(PREFIX + "stage/<int:stage>/", stage_page, name="board-stage"),
    path(PREFIX + "stage/<int:stage>/lots/", draw_lots, name="board-lots"),
    path(PREFIX + "stage/<int:stage>/close/", close, name="board-close"),
    path(PREFIX + "links/<int:stage>/", links_page, name="board-links"),
    path(PREFIX + "links/<int:stage>/make/", make_links, name="board-links-make"),
    path(PREFIX + "links/<int:stage>/revoke/", revoke, name="board-links-revoke"),
    path(PREFIX + "links/<int:stage>/assign/", assign, name="board-links-assign"),
    path(PREFIX + "links/<int:stage>/unassign/", unassign, name="board-links-unassign"),
    path(PREFIX + "links/<int:stage>/print/", print_sheets, name="board-print"),
]
