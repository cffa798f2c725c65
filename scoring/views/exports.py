"""Downloads for the organiser and the read-only public JSON API (docs/export.md).

- `manage/<festival>/<event>/export.json` — the whole event ("rummikub-event/1"), the same text as
  `manage.py export_event`; `export/standings.csv|xlsx` and `export/results.csv|xlsx`. Organisers only.
- `api/events/<festival>/<event>/` (+ `standings/`, `draw/`, `players/<number>/`) — no login, only what the
  event's public switches show (tournament/visibility.py, the rule of every public page), `Access-Control-Allow-Origin: *` (a streamer overlay may poll it), an ETag
  (an unchanged answer is a bodyless 304) and a constant number of queries per answer.
"""

import hashlib
import json

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.http import content_disposition_header, parse_etags
from django.views.decorators.http import require_safe

from tournament.models import Event, Registration, Stage
from tournament.permissions import ORGANISER
from tournament.public_names import public_affiliation, public_name
from tournament.services import seating
from tournament.services.errors import ServiceError
from tournament.views.helpers import get_event, staff_view
from tournament.visibility import visibility

from .. import exports
from ..models import ScoreSheet, SheetSeat
from ..ranking_file import ranking_file
from ..services.conduct import departures
from ..standings import criteria_for, event_standings, running_ranks

MAX_PLAYER_NUMBER = 99_999


# --- organiser downloads --------------------------------------------------------------------------------

organiser_view = staff_view(ORGANISER, home="manage-event")


def _download(content, content_type: str, file_name: str) -> HttpResponse:
    return HttpResponse(content, headers={
        "Content-Type": content_type, "Content-Disposition": content_disposition_header(True, file_name),
    })


@require_safe
@organiser_view
def export_json(request, event):
    return _download(exports.event_json(event).encode("utf-8"), "application/json; charset=utf-8",
                     exports.export_file_name(event, "event", "json"))


def _table_download(event, fmt, what):
    if fmt not in exports.FORMATS:
        raise Http404
    return _download(exports.table_file(event, what, fmt), exports.CONTENT_TYPES[fmt],
                     exports.export_file_name(event, what, fmt))


@require_safe
@organiser_view
def export_standings(request, event, fmt):
    return _table_download(event, fmt, "standings")


@require_safe
@organiser_view
def export_results(request, event, fmt):
    return _table_download(event, fmt, "results")


@require_safe
@organiser_view
def export_ranking(request, event, fmt):
    """The file for the festival's ranking body: only the players who agreed (scoring/ranking_file.py)."""
    if fmt not in exports.FORMATS:
        raise Http404
    try:
        content = ranking_file(event, fmt)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("manage-event", festival=event.festival.slug, event=event.slug)
    return _download(content, exports.CONTENT_TYPES[fmt], exports.export_file_name(event, "ranking", fmt))


# --- the public API ---------------------------------------------------------------------------------------

def _json(request, data, status: int = 200) -> HttpResponse:
    body = json.dumps(data, cls=exports.ExportEncoder, ensure_ascii=False).encode("utf-8")
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    if status == 200 and etag in parse_etags(request.headers.get("If-None-Match", "")):
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(body, status=status, content_type="application/json; charset=utf-8")
    if status == 200:
        response["ETag"] = etag
    response["Cache-Control"] = "no-cache"  # always revalidate: the ETag makes that cheap
    response["Access-Control-Allow-Origin"] = "*"
    return response


def _error(request, status: int, code: str, message: str) -> HttpResponse:
    return _json(request, {"error": code, "message": message}, status=status)


def _public_event(festival: str, event: str) -> Event | None:
    try:
        return get_event(festival, event)
    except Http404:
        return None


def _hidden(request, what: str) -> HttpResponse:
    return _error(request, 403, "not_public", f"The organiser does not show the {what} of this event to the public.")


def api(view):
    """GET/HEAD only; resolve the event; unknown ones answer a JSON 404 (with the CORS header too)."""

    @require_safe
    def wrapper(request, festival, event, **kwargs):
        found = _public_event(festival, event)
        if found is None:
            return _error(request, 404, "not_found", "No such event.")
        return view(request, found, **kwargs)

    wrapper.__name__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


def _api_url(request, name: str, event: Event, **kwargs) -> str:
    return request.build_absolute_uri(reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug,
                                                            **kwargs}))


def _current(event: Event) -> dict | None:
    stage = Stage.objects.filter(event=event).order_by("-number").first()
    if stage is None:
        return None
    draw = seating.public_draw(event)
    tables = draw.tables.count() if draw is not None and draw.stage_id == stage.pk else 0
    done = {row["game"]: row["n"] for row in ScoreSheet.objects.filter(
        stage=stage, status=ScoreSheet.Status.CONFIRMED).values("game").annotate(n=Count("id"))}
    playing = next((g for g in range(1, stage.games + 1) if not tables or done.get(g, 0) < tables), None)
    return {"stage": stage.number, "stage_name": stage.display_name, "games": stage.games,
            "game": playing, "closed": stage.closed_at is not None, "draw_released": tables > 0}


@api
def api_event(request, event):
    """The event, what the public sees, and links to the other answers."""
    shown = visibility(event)
    data = {
        "event": {
            "festival": {"slug": event.festival.slug, "name": event.festival.name},
            "slug": event.slug, "name": event.name, "format": event.format, "game": event.game,
            "ruleset": event.ruleset, "starts_at": event.starts_at, "ends_at": event.ends_at,
            "public": {"draw": shown.draw, "standings": shown.standings, "scores": shown.scores},
            "current": _current(event),
        },
        "links": {
            "self": _api_url(request, "api-event", event),
            "standings": _api_url(request, "api-standings", event) if shown.standings else None,
            "draw": _api_url(request, "api-draw", event) if shown.draw else None,
            "player": _api_url(request, "api-player", event, number=1).removesuffix("1/") + "{number}/",
            "page": request.build_absolute_uri(event.get_absolute_url()),
        },
    }
    return _json(request, data)


def _player(registration: Registration, left, event: Event) -> dict:
    """A player as the public sees them: the public name and school or club (tournament/public_names.py)."""
    return {"number": registration.number, "name": public_name(registration.player, event),
            "affiliation": public_affiliation(registration.player, event),
            "status": exports.player_status(registration, left)}


@api
def api_standings(request, event):
    """Rank, wins and points of everyone who played; each game's score only where scores are public."""
    shown = visibility(event)
    if not shown.standings:
        return _hidden(request, "standings")
    standings = event_standings(event)
    left = departures(event)
    rows = []
    for line in standings.lines:
        row = {"rank": line.rank, "tied": line.tied, "player": _player(standings.registrations[line.player], left, event),
               "games": line.games, "wins": line.wins, "points": exports.number(line.points),
               "total": exports.number(line.total)}
        if shown.scores:
            row["scores"] = [
                {"score": exports.number(line.cells[c].score), "win": line.cells[c].win, "table": line.cells[c].table}
                if c in line.cells else None
                for c in standings.columns
            ]
        rows.append(row)
    return _json(request, {
        "event": event.slug, "points": standings.points,
        "columns": [{"stage": stage, "game": game} for stage, game in standings.columns],
        "standings": rows,
    })


@api
def api_draw(request, event):
    """The current released seating (tables in order, seat 1 plays first), or null before the first release."""
    if not visibility(event).draw:
        return _hidden(request, "draw")
    draw = seating.public_draw(event)
    if draw is None:
        return _json(request, {"event": event.slug, "draw": None})
    left = departures(event)
    tables: dict[int, list] = {}
    for seat in seating.seats(draw):
        tables.setdefault(seat.table.number, []).append({"seat": seat.position, **_player(seat.registration, left, event)})
    return _json(request, {"event": event.slug, "draw": {
        "stage": draw.stage.number, "stage_name": draw.stage.display_name, "game": draw.game,
        "released_at": draw.released_at,
        "tables": [{"number": number, "seats": seats} for number, seats in sorted(tables.items())],
    }})


def _running_ranks(event: Event, standings, player: int) -> dict[tuple[int, int], int]:
    """The player's rank after each game (no lots applied: a tie shares its rank)."""
    criteria, points = criteria_for(event)
    results = [r for line in standings.lines for r in line.cells.values()]
    lines = running_ranks(standings.registrations, results, standings.columns, criteria, points)
    return {column: line.rank for column, line in lines.get(player, {}).items()}


def _next_seat(event: Event, registration: Registration, played: set) -> dict | None:
    found = seating.next_table(event, registration, played)
    if found is None:
        return None
    return {"stage": found.stage.number, "stage_name": found.stage.display_name, "game": found.game,
            "table": found.table, "seat": found.seat,
            "tablemates": [{"seat": s.position, "number": s.registration.number, "name": public_name(s.registration.player, event)}
                           for s in found.seats if s.registration_id != registration.pk]}


@api
def api_player(request, event, number):
    """A player's page as data: every game (table, tablemates, score, win, running rank) and the next table."""
    shown = visibility(event)
    if not shown.games:
        return _hidden(request, "results")
    registration = None
    if 1 <= number <= MAX_PLAYER_NUMBER:
        registration = Registration.objects.select_related("player").filter(event=event, number=number).first()
    if registration is None:
        return _error(request, 404, "not_found", "No player has this number in this event.")
    left = departures(event)
    lines = list(SheetSeat.objects.filter(
        sheet__status=ScoreSheet.Status.CONFIRMED, sheet__stage__event=event,
        sheet__seats__registration=registration,
    ).select_related("sheet__stage", "registration__player").order_by(
        "sheet__stage__number", "sheet__game", "position"))
    by_game: dict[tuple[int, int], list[SheetSeat]] = {}
    for line in lines:
        by_game.setdefault((line.sheet.stage.number, line.sheet.game), []).append(line)
    data = {"event": event.slug, "player": _player(registration, left, event)}
    ranks = {}
    if shown.standings:
        standings = event_standings(event)
        mine = next((line for line in standings.lines if line.player == registration.pk), None)
        if mine is not None:
            data.update(rank=mine.rank, tied=mine.tied, games_played=mine.games, wins=mine.wins,
                        points=exports.number(mine.points), total=exports.number(mine.total))
            ranks = _running_ranks(event, standings, registration.pk)
    games = []
    for (stage_number, game), table in sorted(by_game.items()):
        own = next(line for line in table if line.registration_id == registration.pk)
        entry = {"stage": stage_number, "stage_name": own.sheet.stage.display_name, "game": game}
        if shown.draw:  # who sat where, also in games played
            entry["table"] = own.sheet.table_number
            entry["tablemates"] = [
                {"seat": line.position, "number": line.registration.number, "name": public_name(line.registration.player, event)}
                for line in table if line.registration_id != registration.pk]
        if shown.scores:
            entry.update(score=exports.number(own.score), win=own.win)
        if shown.standings:
            entry["rank_after"] = ranks.get((stage_number, game))
        games.append(entry)
    data["games"] = games
    if shown.draw:
        data["next"] = _next_seat(event, registration, set(by_game))
    return _json(request, data)


EVENT = "<slug:festival>/<slug:event>/"

urlpatterns = [
    path("manage/" + EVENT + "export.json", export_json, name="event-export-json"),
    path("manage/" + EVENT + "export/standings.<str:fmt>", export_standings, name="event-export-standings"),
    path("manage/" + EVENT + "export/results.<str:fmt>", export_results, name="event-export-results"),
    path("manage/" + EVENT + "export/ranking.<str:fmt>", export_ranking, name="event-export-ranking"),
    path("api/events/" + EVENT, api_event, name="api-event"),
    path("api/events/" + EVENT + "standings/", api_standings, name="api-standings"),
    path("api/events/" + EVENT + "draw/", api_draw, name="api-draw"),
    path("api/events/" + EVENT + "players/<int:number>/", api_player, name="api-player"),
]
