"""The read-only public JSON API (docs/export.md): `api/events/<festival>/<event>/` (+ `standings/`, `draw/`,
`players/<number>/`). No login, only what the event's public switches show (tournament/visibility.py, the rule
of every public page), the same read model as the pages (public/snapshot.py: the same ranks, lots applied),
the same version ETag (an unchanged answer is a bodyless 304), a constant number of queries per answer.
"""

import json

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.decorators.http import condition, require_safe

from scoring import exports
from scoring.models import ScoreSheet, SheetSeat
from scoring.services.conduct import departures
from scoring.services.progress import event_progress
from tournament.models import Event, Registration
from tournament.public_names import public_affiliation, public_name
from tournament.services import seating
from tournament.visibility import visibility

from ..live import event_of
from ..snapshot import event_snapshot
from ..version import data_etag

MAX_PLAYER_NUMBER = 99_999


def _json(request, data, status: int = 200) -> HttpResponse:
    body = json.dumps(data, cls=exports.ExportEncoder, ensure_ascii=False).encode("utf-8")
    return HttpResponse(body, status=status, content_type="application/json; charset=utf-8")


def _error(request, status: int, code: str, message: str) -> HttpResponse:
    return _json(request, {"error": code, "message": message}, status=status)


def _hidden(request, what: str) -> HttpResponse:
    return _error(request, 403, "not_public", f"The organiser does not show the {what} of this event to the public.")


def _etag(request, festival, event, **kwargs) -> str | None:
    """The event's version and public settings, as for every public page (public/version.py): an unchanged
    answer is a bodyless 304 before anything is read. None (no ETag) for an unknown event."""
    try:
        found = event_of(request, festival, event)
    except Http404:
        return None
    return data_etag(found, request.resolver_match.url_name, sorted(kwargs.items()))


def api(view):
    """GET/HEAD only; resolve the event; unknown ones answer a JSON 404. Every answer may be read from any
    origin (a streamer's overlay) and is revalidated each time (its ETag makes that cheap)."""

    @require_safe
    @condition(etag_func=_etag)
    def answer(request, festival, event, **kwargs):
        try:
            found = event_of(request, festival, event)
        except Http404:
            return _error(request, 404, "not_found", "No such event.")
        return view(request, found, **kwargs)

    def wrapper(request, *args, **kwargs):
        response = answer(request, *args, **kwargs)
        response["Cache-Control"] = "no-cache"
        response["Access-Control-Allow-Origin"] = "*"
        return response

    wrapper.__name__ = view.__name__
    wrapper.__doc__ = view.__doc__
    wrapper.public_lane = True  # anonymous requests skip most of the stack (public/lane.py)
    return wrapper


def _api_url(request, name: str, event: Event, **kwargs) -> str:
    return request.build_absolute_uri(reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug,
                                                            **kwargs}))


def _current(event: Event) -> dict | None:
    """Where play stands (scoring/services/progress.py, as every page reads it)."""
    progress = event_progress(event)
    if progress.stage is None:
        return None
    shown = progress.released and visibility(event).draw
    return {"stage": progress.stage.number, "stage_name": progress.stage.display_name, "games": progress.stage.games,
            "game": progress.game if shown else 1, "closed": progress.stage.closed_at is not None,
            "draw_released": shown}


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
    standings = event_snapshot(event).standings
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
    # A finished event answers "where did I finish" first, as its standings page does: the final places.
    places = event_snapshot(event).final_places() if shown.results else {}
    return _json(request, {
        "event": event.slug, "final": bool(places),
        "places": [{"place": row.place, "tied": row.tied, "player": _player(row.registration, left, event),
                    "stage": row.stage.number if row.stage else None, "wins": row.wins,
                    "points": exports.number(row.points)} for row in places.values()],
        "points": standings.points,
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
        snapshot = event_snapshot(event)
        mine = next((line for line in snapshot.standings.lines if line.player == registration.pk), None)
        if mine is not None:
            data.update(rank=mine.rank, tied=mine.tied, games_played=mine.games, wins=mine.wins,
                        points=exports.number(mine.points), total=exports.number(mine.total))
            # The same running ranks as the player's page: lots drawn so far break ties (R7).
            ranks = {column: rank for column, (rank, _tied) in snapshot.running_lines(registration.pk).items()}
    place = event_snapshot(event).final_places().get(registration.pk) if shown.results else None
    if place is not None:
        data.update(final_place=place.place, final_place_tied=place.tied)
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
