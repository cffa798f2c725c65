"""Live public pages (issue 6): standings, a player's games, the hall display. No login, no JavaScript needed.

Each page has a full version and a "live" fragment that htmx polls (inside `data-poll`, so hidden tabs
skip it). Both answer with an ETag built from `scoring.live.event_version`; an unchanged page costs two
small queries and a 304. Query counts do not grow with the number of players.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from django.core.cache import cache
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.cache import patch_cache_control
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import condition

from tournament.models import ConductRecord, Event, Registration, Stage, StageEntry
from tournament.models.registration import name_key
from tournament.services import seating
from tournament.views.helpers import get_event

from ..live import Play, current_play, etag_for, stage_play
from ..services import progress
from ..snapshot import event_snapshot
from ..standings import Line, Result, Standings, event_standings

PRIZE_PLACES = 4  # Hong Kong: the four prize places (R8.2); a tie on them goes to a one-game playoff
MAX_NUMBER = 100_000  # player and stage numbers above this cannot exist; answer 404 before the database
MAX_SEARCH = 20
HALL_ROWS = 12  # standings rows per hall screen
HALL_TABLES = 8  # tables per hall screen
FRAGMENT_SECONDS = 300  # a rendered fragment is kept this long (its key changes with every change anyway)


# ---------------------------------------------------------------- helpers

def _event(request, festival: str, event: str) -> Event:
    """The event, fetched once per request (the ETag function and the view both need it)."""
    cached = getattr(request, "_public_event", None)
    if cached is None:
        cached = request._public_event = get_event(festival, event)
    return cached


def _etag(page: str):
    def etag(request, festival, event, **kwargs):
        request._public_etag = etag_for(_event(request, festival, event), request, page, sorted(kwargs.items()))
        return request._public_etag
    return etag


def _shared(view):
    """Polled fragments: render once per version (and language) per worker, not once per phone.

    The key is the ETag, which changes with everything the fragment shows; fragments carry no CSRF token
    or anything else personal, so one rendering serves every phone."""
    def cached(request, *args, **kwargs):
        key = f"public-fragment:{request._public_etag}"
        content = cache.get(key)
        if content is not None:
            return HttpResponse(content)
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            cache.set(key, response.content, FRAGMENT_SECONDS)
        return response
    return cached


def live(page: str, *, fragment: bool = False):
    """ETag / If-None-Match → 304, and tell browsers to revalidate every time (the data changes)."""
    def decorate(view):
        conditional = condition(etag_func=_etag(page))(_shared(view) if fragment else view)

        def wrapped(request, *args, **kwargs):
            response = conditional(request, *args, **kwargs)
            patch_cache_control(response, no_cache=True, private=True)
            return response
        wrapped.__name__ = view.__name__
        wrapped.__doc__ = view.__doc__
        return wrapped
    return decorate


def signed(value: Decimal | None) -> str:
    """+24, −5, +7.50: whole points without decimals, a true minus sign."""
    if value is None:
        return ""
    text = f"{value:+.0f}" if value == value.to_integral_value() else f"{value:+.2f}"
    return text.replace("-", "\u2212")


def _stage(event: Event, number: int) -> Stage:
    if not 1 <= number <= MAX_NUMBER:
        raise Http404
    stage = Stage.objects.filter(event=event, number=number).first()
    if stage is None:
        raise Http404
    return stage


def _leaving(event: Event) -> dict[int, ConductRecord]:
    """Players whose conduct record takes them out of the event (R9); their past results stay."""
    records = ConductRecord.objects.filter(event=event, kind__in=ConductRecord.LEAVES_EVENT).select_related("stage")
    return {record.registration_id: record for record in records}


# ---------------------------------------------------------------- standings

@dataclass
class Row:
    line: Line
    registration: Registration | None
    rank: str
    points: str
    cells: list | SafeString  # the per-game <td>s once built
    table: int | None = None
    mark: str = ""  # "advances", "advancing" (provisional), "tie" (tied at the cut)
    leaving: ConductRecord | None = None
    reached: str = ""  # whole Busan event: the furthest stage the player entered
    cut_after: bool = False


@dataclass
class Cut:
    kind: str  # "line" (a line after `places` rows) or "table" (top `places` of each table, marked per row)
    places: int
    tie: bool
    provisional: bool
    label: str
    prizes: bool = False  # a tie on prize places goes to a playoff game; a tie at a cut to a lot (R7)


@dataclass
class Board:
    standings: Standings
    rows: list[Row]
    columns: list[tuple[int, int, str, str]] = field(default_factory=list)  # stage, game, short, long label
    cut: Cut | None = None
    play: Play | None = None
    average: bool = False
    show_reached: bool = False
    scores: bool = True  # the event shows each game's score (Event.public_scores)

    @property
    def width(self) -> int:
        """Columns in the table, for the cut line's colspan."""
        table = 1 if self.cut and self.cut.kind == "table" else 0
        return 5 + table + (len(self.columns) if self.scores else 0) + (1 if self.show_reached else 0)


def _columns(standings: Standings, stages: dict[int, Stage], one_stage: bool) -> list[tuple[int, int, str, str]]:
    columns = []
    for stage_number, game in standings.columns:
        stage = stages.get(stage_number)
        name = stage.display_name if stage else str(stage_number)
        if one_stage:
            short = _("G%(game)s") % {"game": game}
        elif stage is not None and stage.is_final:
            short = _("F G%(game)s") % {"game": game}
        else:
            short = _("R%(stage)s G%(game)s") % {"stage": stage_number, "game": game}
        long = _("%(stage)s, game %(game)s") % {"stage": name, "game": game}
        columns.append((stage_number, game, short, long))
    return columns


def _cells_html(cells: list[Result | None], win: str) -> SafeString:
    """One <td> per game, built here rather than in the template: 128 players × 10 games is 1,280 cells on
    every poll. Only numbers and the escaped word "win" go in."""
    out = []
    for cell in cells:
        if cell is None:
            out.append('<td class="stat text-end"><span class="text-body-tertiary">·</span></td>')
        elif cell.win:
            out.append(f'<td class="stat text-end text-nowrap"><strong>{signed(cell.score)}</strong>'
                       f'<span aria-hidden="true">★</span><span class="visually-hidden"> {win}</span></td>')
        else:
            out.append(f'<td class="stat text-end text-nowrap">{signed(cell.score)}</td>')
    return mark_safe("".join(out))  # numbers and escaped text only


def _played(rows: list[Row]) -> bool:
    """Before the first confirmed result everyone is level: no cut to show, no tie to flag."""
    return any(row.line.games for row in rows)


def _line_cut(rows: list[Row], places: int, provisional: bool, label: str) -> Cut | None:
    if not _played(rows) or places < 1 or places >= len(rows):
        return None
    tie = rows[places - 1].line.rank == rows[places].line.rank
    rows[places - 1].cut_after = True
    return Cut("line", places, tie, provisional, label)


def _prize_cut(rows: list[Row], play: Play) -> Cut | None:
    """Hong Kong (R8.2): the prize places; a tie on them is decided by a one-game playoff (R7)."""
    cut = _line_cut(rows, PRIZE_PLACES, not play.complete,
                    _("The top %(places)s take the prize places.") % {"places": PRIZE_PLACES})
    if cut is not None:
        cut.prizes = True
    return cut


def _advancement_cut(stage: Stage, rows: list[Row], play: Play) -> Cut | None:
    """Busan rounds (R8.1): per-table marks or the top N of the stage, from the same code that closes it."""
    result = progress.advancement(stage) if _played(rows) else None
    if result is None:
        return None
    provisional = not (play.complete or stage.closed_at)
    advancing = set(result.advancing)
    tied = {player for tie in result.ties for player in tie.players}
    if stage.advance == Stage.Advance.PER_TABLE:
        table_of = {r.player_id: t for t, ranking in enumerate(result.rankings, start=1) for r in ranking}
        for row in rows:
            row.table = table_of.get(row.line.player)
            if row.line.player in tied:
                row.mark = "tie"
            elif row.line.player in advancing:
                row.mark = "advancing" if provisional else "advances"
        label = _("The top %(places)s of each table go on to the next round.") % {"places": stage.advance_count}
        return Cut("table", stage.advance_count, bool(tied), provisional, label)
    for row in rows:
        if row.line.player in tied:
            row.mark = "tie"
        elif row.line.player in advancing:
            row.mark = "advancing" if provisional else "advances"
    label = _("The top %(places)s of the round go to the final.") % {"places": stage.advance_count}
    cut = _line_cut(rows, stage.advance_count, provisional, label)
    if cut is not None:
        cut.tie = cut.tie or bool(tied)
    return cut


def build_board(event: Event, stage: Stage | None = None, play: Play | None = None) -> Board:
    """Everything a standings page shows, in a constant number of queries. `play`: where `stage` stands,
    if the caller already knows it."""
    standings = event_standings(event, stage=stage) if stage is not None else event_snapshot(event).standings
    stages = {s.number: s for s in event.stages.all()}
    leaving = _leaving(event)
    average = standings.points == "average"
    rows = []
    for line in standings.lines:
        registration = standings.registrations.get(line.player)
        if registration is None:  # a sheet for someone no longer entered: nothing to show
            continue
        rank = f"{line.rank}=" if line.tied else str(line.rank)
        shown = line.average if average else line.total
        rows.append(Row(line=line, registration=registration, rank=rank, points=signed(shown),
                        cells=[line.cells.get(column) for column in standings.columns],
                        leaving=leaving.get(line.player)))
    win = escape(_("win"))
    for row in rows:
        row.cells = _cells_html(row.cells, win) if event.public_scores else mark_safe("")
    one_stage = stage is not None or len(stages) <= 1
    board = Board(standings, rows, _columns(standings, stages, one_stage), average=average,
                  scores=event.public_scores)
    if stage is not None:
        board.play = play or stage_play(event, stage)
        if stage.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
            board.cut = _advancement_cut(stage, rows, board.play)
        elif stage.advance == Stage.Advance.NONE and event.format == Event.Format.HONG_KONG:
            board.cut = _prize_cut(rows, board.play)
    else:
        board.play = play or current_play(event)
        if event.format == Event.Format.HONG_KONG:
            board.cut = _prize_cut(rows, board.play)
        elif len(stages) > 1:
            furthest: dict[int, int] = {}
            for registration, number in StageEntry.objects.filter(stage__event=event).values_list(
                    "registration_id", "stage__number"):
                furthest[registration] = max(number, furthest.get(registration, 0))
            for row in rows:
                reached = stages.get(furthest.get(row.line.player))
                row.reached = reached.display_name if reached else ""
            board.show_reached = True
    return board


def _standings_context(request, festival, event, stage):
    event = _event(request, festival, event)
    stage_obj = _stage(event, stage) if stage is not None else None
    context = {"festival": event.festival, "event": event, "stage": stage_obj,
               "stages": list(event.stages.all()), "published": event.public_standings}
    if event.public_standings:
        context["board"] = build_board(event, stage_obj)
    return context


@live("standings")
def standings_page(request, festival, event, stage=None):
    """Standings of the whole event or of one stage; refreshes itself (htmx) and works without JS."""
    return render(request, "scoring/public/standings.html", _standings_context(request, festival, event, stage))


@live("standings-live", fragment=True)
def standings_live(request, festival, event, stage=None):
    return render(request, "scoring/public/_standings.html", _standings_context(request, festival, event, stage))


# ---------------------------------------------------------------- a player's page

@dataclass
class Game:
    stage: Stage | None
    game: int
    table: int
    score: str
    win: bool
    mates: list[Registration]
    rank: str = ""


def _registration(event: Event, number: int) -> Registration:
    if not 1 <= number <= MAX_NUMBER:
        raise Http404
    registration = (Registration.objects.filter(event=event, number=number).select_related("player").first())
    if registration is None:
        raise Http404
    return registration


def _player_context(request, festival, event, number):
    event = _event(request, festival, event)
    registration = _registration(event, number)
    snapshot = event_snapshot(event)
    standings = snapshot.standings
    stages = {s.number: s for s in event.stages.all()}
    mine = [r for r in snapshot.results if r.player == registration.id]
    ranks = snapshot.running_ranks(registration.id) if event.public_standings else {}
    games = []
    for result in mine:
        mates = [standings.registrations[p] for p in snapshot.at_table[(result.stage, result.game, result.table)]
                 if p != registration.id and p in standings.registrations]
        games.append(Game(stages.get(result.stage), result.game, result.table, signed(result.score), result.win,
                          sorted(mates, key=lambda r: r.number or 0), ranks.get((result.stage, result.game), "")))
    line = next((line for line in standings.lines if line.player == registration.id), None)
    played = {(r.stage, r.game) for r in mine}
    found = seating.next_table(event, registration, played) if event.public_draw else None
    next_table = dict(vars(found)) if found else None
    if next_table and mine and event.format == Event.Format.HONG_KONG and mine[-1].stage == next_table["stage"].number:
        # R8.2: after every game the top two of each table move up a table (k → k+1, the last → 1), the rest stay.
        next_table["came_from"] = mine[-1].table
        next_table["moved"] = "stays" if next_table["table"] == mine[-1].table else "up"
    return {
        "festival": event.festival, "event": event, "registration": registration, "games": games, "line": line,
        "rank": (f"{line.rank}=" if line.tied else str(line.rank)) if line and line.games else "",
        "total": signed(line.total) if line else "", "average": signed(line.average) if line else "",
        "points_average": standings.points == "average",
        "next": next_table,
        "leaving": _leaving(event).get(registration.id),
    }


@live("player")
def player_page(request, festival, event, number):
    """Every game of one player (by number), their running rank and their next table."""
    return render(request, "scoring/public/player.html", _player_context(request, festival, event, number))


@live("player-live", fragment=True)
def player_live(request, festival, event, number):
    return render(request, "scoring/public/_player.html", _player_context(request, festival, event, number))


def find_player(request, festival, event):
    """Find a player's page by name or number (GET, works without JS)."""
    event = get_event(festival, event)
    query = request.GET.get("q", "").replace("\x00", "").strip()[:100]
    found = []
    if query:
        condition_ = Q(player__name_key__contains=name_key(query))
        if query.isdigit() and len(query) <= 6:
            condition_ |= Q(number=int(query))
        found = list(Registration.objects.filter(condition_, event=event, number__isnull=False)
                     .select_related("player").order_by("number")[: MAX_SEARCH + 1])
    return render(request, "scoring/public/find_player.html", {
        "festival": event.festival, "event": event, "query": query, "found": found[:MAX_SEARCH],
        "more": len(found) > MAX_SEARCH,
    })


# ---------------------------------------------------------------- hall display

def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _hall_context(request, festival, event):
    event = _event(request, festival, event)
    play = current_play(event)
    board = None
    if event.public_standings and play.stage:
        # Busan: the round being played (its cut decides who goes on); Hong Kong: the whole event, with its
        # prize places, also while a playoff table is played.
        per_stage = event.format == Event.Format.BUSAN and play.stage.advance != Stage.Advance.PLAYOFF
        board = build_board(event, play.stage if per_stage else None, play)
    draw = seating.public_draw(event)
    tables = seating.by_table(seating.seats(draw)) if draw is not None else []
    return {
        "festival": event.festival, "event": event, "play": play, "board": board, "draw": draw,
        "standing_slides": _chunks(board.rows, HALL_ROWS) if board else [],
        "table_slides": _chunks(tables, HALL_TABLES),
    }


@live("hall")
def hall(request, festival, event):
    """For the projector: large type, cycles through the draw and the standings (static/js/hall.js)."""
    return render(request, "scoring/public/hall.html", _hall_context(request, festival, event))


@live("hall-live", fragment=True)
def hall_live(request, festival, event):
    return render(request, "scoring/public/_hall.html", _hall_context(request, festival, event))


PREFIX = "f/<slug:festival>/<slug:event>/"
urlpatterns = [
    path(PREFIX + "standings/", standings_page, name="public-standings"),
    path(PREFIX + "standings/live/", standings_live, name="public-standings-live"),
    path(PREFIX + "standings/<int:stage>/", standings_page, name="public-standings-stage"),
    path(PREFIX + "standings/<int:stage>/live/", standings_live, name="public-standings-stage-live"),
    path(PREFIX + "player/", find_player, name="public-find-player"),
    path(PREFIX + "player/<int:number>/", player_page, name="public-player"),
    path(PREFIX + "player/<int:number>/live/", player_live, name="public-player-live"),
    path(PREFIX + "hall/", hall, name="public-hall"),
    path(PREFIX + "hall/live/", hall_live, name="public-hall-live"),
]
