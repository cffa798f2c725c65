"""The seating: who sits where, at which table, for which game (R8). Its one home.

Every "where does this player sit" and every "who is at this table" is answered here, and `write_seating` is
the only code that creates Draw, DrawTable and Seat rows (a computer draw, Hong Kong movement, a playoff
table, an imported event), `swap_places` the only one that moves a seated player (a swap by hand).

A Busan draw seats a stage's players once for all its games (R8.1); a Hong Kong stage seats every game anew,
the later ones by movement (R8.2); so "the seating of game g" depends on the format: `game_draw` asks it
(`tournament.formats.format_of`).
Readers take no lock; the services that change a seating lock the event first (`locking.lock_event`).
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from ..formats import format_of
from ..models import Draw, DrawTable, Event, Registration, Seat, Stage
from ..visibility import visibility

SEAT_ORDER = ("table__number", "position")
T = TypeVar("T")


# --- which draw ---------------------------------------------------------------------------------------------

def plays_each_game_anew(event: Event) -> bool:
    """Hong Kong seats every game of a stage anew (R8.2); Busan keeps a stage's tables (R8.1)."""
    return format_of(event).each_game_anew


def game_draw(stage: Stage, game: int) -> Draw | None:
    """The released seating `game` of `stage` is played in, or None (not released, or no such game)."""
    if not 1 <= game <= stage.games:
        return None
    released = stage.draws.filter(status=Draw.Status.RELEASED)
    # One at most (the constraint one_released_draw_per_game): by id, not Draw's ordering (two joins).
    return released.filter(game=format_of(stage.event).draw_game(game)).order_by("pk").first()


def is_game_draw(draw: Draw, stage: Stage, game: int) -> bool:
    """Whether `draw` is the seating `game` of `stage` is played in — what `game_draw` would find — from the
    draw in hand (as read under the event's lock, when it decides a change), without a query: a game has one
    released seating at most (the constraint one_released_draw_per_game)."""
    return (draw.status == Draw.Status.RELEASED and draw.stage_id == stage.pk and 1 <= game <= stage.games
            and draw.game == format_of(stage.event).draw_game(game))


def released_draws(stage: Stage) -> dict[int, Draw]:
    """The released seating of every game of `stage` that has one, in one query."""
    released = {draw.game: draw for draw in stage.draws.filter(status=Draw.Status.RELEASED)}
    draw_game = format_of(stage.event).draw_game
    return {game: released[draw_game(game)] for game in range(1, stage.games + 1) if draw_game(game) in released}


def counted_draws(stage: Stage) -> list[Draw]:
    """The stage's released draws (one per game in Hong Kong, one in all in Busan), each with `table_count`, its
    number of tables; one query."""
    return list(stage.draws.filter(status=Draw.Status.RELEASED).annotate(table_count=Count("tables"))
                .order_by("game"))


def working_draw(stage: Stage) -> Draw | None:
    """The seating the organiser works on: the newest draft or released draw of the stage's latest game."""
    return stage.draws.exclude(status=Draw.Status.DISCARDED).order_by("-game", "-created_at").first()


def latest_released_draw(event: Event) -> Draw | None:
    """The seating players need now: the newest released draw of the event's latest stage."""
    return (Draw.objects.filter(stage__event=event, status=Draw.Status.RELEASED).select_related("stage")
            .order_by("-stage__number", "-game").first())


def public_draw(event: Event) -> Draw | None:
    """The seating the public sees now: the latest released one, if the organiser shows the draw."""
    return latest_released_draw(event) if visibility(event).draw else None


def has_released_draw(event: Event) -> bool:
    return Draw.objects.filter(stage__event=event, status=Draw.Status.RELEASED).exists()


def stage_in_play(event: Event, *, table: int | None = None) -> Stage | None:
    """The stage in play now: the latest one whose seating is released and that is not closed, or None
    (before the first release, between a closed round and the next release, after the last round).

    The stage comes with `table_count`, its number of tables, and with `table` also `has_table`: whether a
    table of that number plays in it (one query, for a table card opened at every refresh)."""
    released = Q(draws__status=Draw.Status.RELEASED)
    stages = (Stage.objects.filter(released, event=event, closed_at__isnull=True)
              .annotate(table_count=Count("draws__tables__number", distinct=True)))
    if table is not None:
        stages = stages.annotate(has_table=Exists(DrawTable.objects.filter(
            draw__stage=OuterRef("pk"), draw__status=Draw.Status.RELEASED, number=table)))
    return stages.select_related("event__festival").order_by("-number").first()


def stages_in_play(events: Iterable[int], *, tables: Iterable[int] = ()) -> dict[int, Stage]:
    """`stage_in_play` of several events at once, by event id, in two queries: each stage comes with
    `seated_tables`, the numbers among `tables` that play in it (a referee's tables, on My work)."""
    released, tables, events = Q(draws__status=Draw.Status.RELEASED), set(tables), set(events)
    current: dict[int, Stage] = {}
    if not events:
        return current
    for stage in (Stage.objects.filter(released, event__in=events, closed_at__isnull=True).distinct()
                  .order_by("event", "number")):
        current[stage.event_id] = stage  # the latest open stage with a released seating wins
    seated = set(DrawTable.objects.filter(draw__stage__in=[stage.pk for stage in current.values()],
                                          draw__status=Draw.Status.RELEASED, number__in=tables)
                 .order_by().values_list("draw__stage", "number").distinct()) if current and tables else set()
    for stage in current.values():
        stage.seated_tables = {number for stage_id, number in seated if stage_id == stage.pk}
    return current


def stage_table_numbers(stage: Stage) -> list[int]:
    """The tables of `stage`: every table number of its released seatings (Hong Kong keeps its numbers from
    game to game, R8.2), in one query."""
    return sorted(set(DrawTable.objects.filter(draw__stage=stage, draw__status=Draw.Status.RELEASED)
                      .values_list("number", flat=True)))


def event_table_numbers(event: Event) -> list[int]:
    """Every table number the event's released seatings use (Busan: the first round has the most)."""
    return sorted(set(DrawTable.objects.filter(draw__stage__event=event, draw__status=Draw.Status.RELEASED)
                      .values_list("number", flat=True)))


def table_counts(*, stages: Iterable[int] = (), events: Iterable[int] = ()) -> dict[tuple[int, int], int]:
    """How many tables each released seating has, by (stage id, the game of its draw): of the stages
    `stages`, or of every stage of the events `events` (ids); one query, none when neither is given."""
    stages, events = list(stages), list(events)
    if not stages and not events:
        return {}
    rows = DrawTable.objects.filter(draw__status=Draw.Status.RELEASED)
    if stages:
        rows = rows.filter(draw__stage__in=stages)
    if events:
        rows = rows.filter(draw__stage__event__in=events)
    return {(stage, game): n for stage, game, n in
            rows.values_list("draw__stage", "draw__game").annotate(n=Count("id")).order_by()}


def table_numbers_of(draws: Iterable[int]) -> dict[int, list[int]]:
    """Each draw's table numbers in order, by draw id; one query."""
    numbers: dict[int, list[int]] = {}
    for draw, number in DrawTable.objects.filter(draw__in=list(draws)).order_by("number").values_list("draw", "number"):
        numbers.setdefault(draw, []).append(number)
    return numbers


def table_count_sql() -> str:
    """How many tables a draw has, as an SQL scalar subquery whose one parameter (%s) is the draw's id: for one
    statement that counts more beside it (the live board's, scoring/services/board_counts.py)."""
    q = connection.ops.quote_name
    table, draw = q(DrawTable._meta.db_table), q(DrawTable._meta.get_field("draw").column)
    return f"(SELECT COUNT(*) FROM {table} WHERE {draw} = %s)"


def draw_size(draw: Draw) -> tuple[int, int]:
    """(tables, players) of a draw, a draft too; two queries."""
    return DrawTable.objects.filter(draw=draw).count(), Seat.objects.filter(draw=draw).count()


# --- who sits where ----------------------------------------------------------------------------------------

def _seats_of(draw: Draw | int, table: int | None):
    """The seats of the draw, or of its table `table` alone: found through the table (its draw and number are
    unique together), so reading one table costs the same however many tables the draw has (filtering the
    draw's seats by their table's number walked every seat of the draw)."""
    if table is None:
        return Seat.objects.filter(draw=draw)
    return Seat.objects.filter(table__draw=draw, table__number=table)


def seats(draw: Draw, *, table: int | None = None) -> list[Seat]:
    """The draw's seats (or one table's), in table and seat order, with their players; one query."""
    rows = _seats_of(draw, table)
    return list(rows.select_related("table", "registration__player").order_by(*SEAT_ORDER))


def places(draw: Draw | int, *, table: int, named: bool = False) -> list[Seat]:
    """One table's seats, in seat order: position and player (the registration id), what a score sheet is
    checked and stored against; `named`: with the player's number and name too, what a sheet's form shows.
    One query, reading nothing else of the registration and player (`seats` reads them whole)."""
    rows = _seats_of(draw, table).order_by("position")
    if named:
        return list(rows.select_related("registration__player")
                    .only("position", "registration__number", "registration__player__name"))
    return list(rows.only("position", "registration_id"))


def names_by_table(draw: Draw, *, table: int | None = None) -> dict[int, list[str]]:
    """The players' names at each table of the draw (or at `table` alone), in seat order, by table number; one
    query of the names alone (the live board lists them on every row, and answers a tap with one)."""
    rows = _seats_of(draw, table)
    names: dict[int, list[str]] = {}
    for number, name in rows.order_by(*SEAT_ORDER).values_list("table__number", "registration__player__name"):
        names.setdefault(number, []).append(name)
    return names


def by_table(seated: Iterable[Seat], violations: Sequence[dict] = ()) -> list[tuple[int, list[Seat]]]:
    """Seats grouped by table number, in order; a seat is `flagged` when it is part of an unmet draw
    constraint at its table (the draw's stored violations)."""
    flagged = {(v["table"], player) for v in violations for player in v["players"]}
    tables: dict[int, list[Seat]] = {}
    for seat in seated:
        seat.flagged = (seat.table.number, seat.registration_id) in flagged
        tables.setdefault(seat.table.number, []).append(seat)
    return sorted(tables.items())


def seats_of(draw: Draw, registrations: Iterable[int]) -> dict[int, Seat]:
    """The seats of these registrations (ids) in `draw`, a draft too, with their tables, by registration id;
    one query. Seats not there are missing from the answer."""
    return {seat.registration_id: seat for seat in Seat.objects.filter(
        draw=draw, registration_id__in=list(registrations)).select_related("table")}


def table_of(draw: Draw, registration: Registration) -> int | None:
    """The number of the table `registration` sits at in `draw` (a draft too), or None."""
    return (Seat.objects.filter(draw=draw, registration=registration).values_list("table__number", flat=True)
            .first())


def event_seats(event: Event) -> list[Seat]:
    """Every seat of the event's released seatings (the one being played too), with its draw and table, by
    stage id, game, table and seat; one query."""
    return list(Seat.objects.filter(draw__stage__event=event, draw__status=Draw.Status.RELEASED)
                .select_related("draw", "table")
                .order_by("draw__stage_id", "draw__game", "table__number", "position"))


def table_numbers(draw: Draw | None) -> list[int]:
    if draw is None:
        return []
    return list(DrawTable.objects.filter(draw=draw).order_by("number").values_list("number", flat=True))


def player_ids(draw: Draw) -> list[list[int]]:
    """The draw's tables as lists of registration ids in seat order: plain data for the formats."""
    tables: dict[int, list[int]] = {}
    for number, registration_id in draw.seats.order_by(*SEAT_ORDER).values_list("table__number",
                                                                                "registration_id"):
        tables.setdefault(number, []).append(registration_id)
    return [tables[number] for number in sorted(tables)]


def current_seats(registrations: Iterable[Registration]) -> dict[int, Seat]:
    """Each registration's seat in the newest released draw that seats it; one query."""
    found: dict[int, Seat] = {}
    for seat in (Seat.objects.filter(registration__in=registrations, draw__status=Draw.Status.RELEASED)
                 .select_related("table", "draw__stage").order_by("-draw__stage__number", "-draw__game")):
        found.setdefault(seat.registration_id, seat)
    return found


def newest_seat_in_stage(registration: Registration, stage: Stage) -> Seat | None:
    """The registration's seat in the stage's newest released draw that seats it (Hong Kong: the latest game)."""
    return (Seat.objects.filter(registration=registration, draw__stage=stage, draw__status=Draw.Status.RELEASED)
            .select_related("table").order_by("-draw__game").first())


@dataclass(frozen=True)
class NextTable:
    """The next game a player has to play: where, and with whom (seat order, the player included)."""

    stage: Stage
    game: int
    table: int
    seat: int
    seats: list[Seat]


def next_table(event: Event, registration: Registration, played: set[tuple[int, int]]) -> NextTable | None:
    """The released seating of the player's first game without a result in `played` ((stage, game) pairs)."""
    mine = (Seat.objects.filter(registration=registration, draw__status=Draw.Status.RELEASED)
            .select_related("draw__stage", "table").order_by("draw__stage__number", "draw__game"))
    found = first_unplayed(((seat.draw.stage, seat.draw.game, seat) for seat in mine), played,
                           each_game_anew=plays_each_game_anew(event))
    if found is None:
        return None
    seat, game = found
    tablemates = list(Seat.objects.filter(table=seat.table).select_related("registration__player").order_by("position"))
    return NextTable(stage=seat.draw.stage, game=game, table=seat.table.number, seat=seat.position, seats=tablemates)


def first_unplayed(seats: Iterable[tuple[Stage, int, T]], played: set[tuple[int, int]], *,
                   each_game_anew: bool) -> tuple[T, int] | None:
    """Of one player's released seats, given as (stage, game of the seat's draw, the seat) in play order, the
    first whose game has no result in `played`, and that game: a Busan seat holds every game of its stage
    from its draw's on (R8.1), a Hong Kong seat its one game (R8.2)."""
    for stage, draw_game, seat in seats:
        for game in [draw_game] if each_game_anew else range(draw_game, stage.games + 1):
            if (stage.number, game) not in played:
                return seat, game
    return None


def met_pairs(event: Event) -> set[frozenset]:
    """Everyone who already sat at a table together in this event's released draws."""
    tables: dict[int, list[int]] = {}
    for table_id, registration_id in Seat.objects.filter(
        draw__stage__event=event, draw__status=Draw.Status.RELEASED
    ).values_list("table_id", "registration_id"):
        tables.setdefault(table_id, []).append(registration_id)
    pairs = set()
    for players in tables.values():
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                pairs.add(frozenset((a, b)))
    return pairs


# --- the one writer ----------------------------------------------------------------------------------------

def write_seating(draw: Draw, tables: Sequence[Sequence[int]] | Mapping[int, Sequence[int]]) -> Draw:
    """Store a seating: the unsaved `draw` (its stage, game, status, method, seed …) and its `tables`, lists of
    registration ids in seat order, numbered 1, 2, … in order (or a mapping of table number to that list).

    The caller holds the event lock and writes the audit record. A released seating gets a release time."""
    if draw.status == Draw.Status.RELEASED and draw.released_at is None:
        draw.released_at = timezone.now()
    draw.save(force_insert=True)
    numbered = tables if isinstance(tables, Mapping) else dict(enumerate(tables, start=1))
    rows = DrawTable.objects.bulk_create([DrawTable(draw=draw, number=n) for n in sorted(numbered)])
    if any(row.pk is None for row in rows):  # a database that cannot return ids from a bulk insert
        rows = list(DrawTable.objects.filter(draw=draw).order_by("number"))
    Seat.objects.bulk_create([
        Seat(draw=draw, table=row, position=position, registration_id=player)
        for row in rows
        for position, player in enumerate(numbered[row.number], start=1)
    ])
    return draw


def swap_places(draw: Draw, first: int, second: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two players seated in `draw` (registration ids) take each other's table and seat. Returns where `first`
    and `second` sat before, as (table number, seat).

    The caller holds the event lock, has checked that both sit in the draft `draw`, and writes the audit record."""
    seated = {seat.registration_id: seat for seat in draw.seats.filter(
        registration_id__in=[first, second]).select_related("table")}
    a, b = seated[first], seated[second]
    a_place, b_place = (a.table, a.position), (b.table, b.position)
    # Positions are unique per table: park one seat at 0 while the other moves.
    a.position = 0
    a.save(update_fields=["position"])
    b.table, b.position = a_place
    b.save(update_fields=["table", "position"])
    a.table, a.position = b_place
    a.save(update_fields=["table", "position"])
    return (a_place[0].number, a_place[1]), (b_place[0].number, b_place[1])
