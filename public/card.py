"""A player's public page as plain data, built from the event's snapshot: no query per phone, and an ETag that
changes only when what that player's page shows changes.

While a round is played every confirmed sheet changes the event's version. Keyed by the version, the live
fragment of every player's page was rendered again after each confirmation, five queries each, for 512
players: at 2,500 phones that was half the workers' time (docs/PERFORMANCE.md, "The load test at 5×"). Now
the queries run once per version for every player (`Book`), and a `Card` holds exactly what the fragment
shows — strings and numbers in the active language — so its digest is the fragment's identity: a sheet
confirmed at another table that leaves this player's rank alone leaves their page's ETag alone, and their
phones get a 304 and nothing is rendered again.

The fragment's template reads only the card; `tests/scoring/test_player_card.py` checks that equal digests
mean equal pages across a played event.
"""

import hashlib
from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import get_language

from scoring.services.conduct import departures
from tournament.formats import format_of
from tournament.models import ConductRecord, Draw, Event, Registration, Seat, Stage
from tournament.public_names import public_name, told_apart
from tournament.services.seating import first_unplayed, plays_each_game_anew
from tournament.visibility import Visibility, visibility

from .board import signed
from .moves import STAYS, UP, Move, moves_after
from .snapshot import Snapshot, event_snapshot


@dataclass(frozen=True)
class Mate:
    number: int | None
    name: str
    url: str  # the mate's public page, "" without a number


@dataclass(frozen=True)
class GameRow:
    stage: str
    game: int
    table: int  # 0 when the draw is not public
    score: str
    win: bool
    rank: str  # the player's rank in the event after this game
    mates: tuple[Mate, ...]


@dataclass(frozen=True)
class NextGame:
    stage: str
    game: int
    table: int
    seat: int
    seats: tuple[tuple[int, str], ...]  # (position, name), the player included
    came_from: int = 0  # Hong Kong: the table of the player's last game (R8.2)
    moved: str = ""  # "up" or "stays"; "lot" while a lot decides (R7)
    wraps: bool = False  # moved up from the last table to table 1
    #: Hong Kong: the player's game is confirmed and the next one not seated yet (`seat` is 0, `seats` empty):
    #: where they go (public/moves.py)
    move: Move | None = None

    @property
    def move_game(self) -> int:
        """The game whose last tables are still being played while `move` is shown."""
        return self.game - 1


@dataclass(frozen=True)
class Leaving:
    kind: str  # its label
    stage: str
    game: int | None


@dataclass(frozen=True)
class Stats:
    rank: str  # the rank in the standings; once the results are final, the final place
    games: int
    wins: int
    points: str  # the total, or the average where the standings rank by average
    final: bool = False  # `rank` is the final place (and games, wins, points those of the stage reached)


@dataclass(frozen=True)
class Card:
    shown: Visibility
    points_average: bool
    leaving: Leaving | None
    stats: Stats | None
    next: NextGame | None
    games: tuple[GameRow, ...]

    @property
    def digest(self) -> str:
        return hashlib.blake2b(repr(self).encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class SeatRow:
    stage: int  # the stage's number
    table: int  # the table's id
    number: int  # the table's number
    position: int
    registration: int


class Book:
    """Everything every player's page needs, read once per version of the event: the players come with the
    snapshot's standings, and the released seats are read as plain rows (a few queries, no model per seat)."""

    def __init__(self, event: Event, snapshot: Snapshot):
        self.event = event
        self.snapshot = snapshot
        self.shown = visibility(event)
        entrants = snapshot.standings.registrations
        self.registrations: dict[int, Registration] = {r.number: r for r in entrants.values() if r.number}
        self.stages: dict[int, Stage] = {s.number: s for s in event.stages.all()}
        self.seats: dict[int, list[tuple[Stage, int, SeatRow]]] = {}  # registration → released seats, play order
        self.tables: dict[int, list[SeatRow]] = {}  # table → its seats, in seat order
        if self.shown.draw:
            for registration, table, number, position, game, stage in (
                    Seat.objects.filter(draw__stage__event=event, draw__status=Draw.Status.RELEASED)
                    .order_by("draw__stage__number", "draw__game", "table__number", "position")
                    .values_list("registration_id", "table_id", "table__number", "position", "draw__game",
                                 "draw__stage__number")):
                row = SeatRow(stage, table, number, position, registration)
                self.seats.setdefault(registration, []).append((self.stages[stage], game, row))
                self.tables.setdefault(table, []).append(row)
        self.players: dict[int, Registration] = dict(entrants)  # by id: whoever a page names
        unknown = {row.registration for rows in self.tables.values() for row in rows} - self.players.keys()
        if unknown:  # seated but not among the entrants: not expected, but never a gap
            self.players.update((r.id, r) for r in Registration.objects.filter(id__in=unknown).select_related("player"))
        self.leaving: dict[int, ConductRecord] = departures(event)
        self.moves: dict[int, Move] = {}  # where the players of confirmed tables go (Hong Kong, R8.2)
        if self.shown.draw and plays_each_game_anew(event) and self.seats:
            self.moves = self._moves()
        self.lines = {line.player: line for line in snapshot.standings.lines}
        # A finished event: the final place first, as the results page, the standings and the API say it.
        self.places = snapshot.final_places() if self.shown.results else {}
        self.results: dict[int, list] = {}
        for result in snapshot.results:
            self.results.setdefault(result.player_id, []).append(result)
        self._cards: dict[tuple[int, str], Card] = {}
        self._missing: set[int] = set()

    def _moves(self) -> dict[int, Move]:
        """The moves after the game of the latest released seating, for its confirmed tables."""
        stage, game = max(((stage, game) for rows in self.seats.values() for stage, game, _row in rows),
                          key=lambda found: (found[0].number, found[1]))
        tables: dict[int, list[SeatRow]] = {}
        for rows in self.seats.values():
            for seat_stage, seat_game, row in rows:
                if seat_stage.number == stage.number and seat_game == game:
                    tables.setdefault(row.number, []).append(row)
        in_order = {number: [row.registration for row in sorted(rows, key=lambda row: row.position)]
                    for number, rows in tables.items()}
        return moves_after(self.event, stage, game, in_order)

    def registration(self, number: int) -> Registration | None:
        """The player with `number`: an entrant, or one not (yet) entered in a stage, read on first ask."""
        found = self.registrations.get(number)
        if found is None and number not in self._missing:
            found = (Registration.objects.filter(event=self.event, number=number).select_related("player")
                     .first())
            if found is None:
                self._missing.add(number)
            else:
                self.registrations[number] = self.players[found.id] = found
        return found

    def card(self, number: int) -> Card | None:
        """The card of the player with `number`, in the active language; None when there is no such player."""
        key = (number, get_language())
        card = self._cards.get(key)
        if card is None:
            registration = self.registration(number)
            if registration is None:
                return None
            card = self._cards[key] = self._build(registration)
        return card

    def _name(self, registration: Registration) -> str:
        return public_name(registration.player, self.event)

    def _names(self, registrations: list[Registration]) -> list[str]:
        """One table's public names: two that read the same carry their player numbers (public_names.py)."""
        return told_apart(self.event, registrations)

    def _url(self, number: int | None) -> str:
        if not number:
            return ""
        return reverse("public-player", kwargs={"festival": self.event.festival.slug, "event": self.event.slug,
                                                "number": number})

    def _stage_name(self, number: int) -> str:
        stage = self.stages.get(number)
        return str(stage.display_name) if stage is not None else ""

    def _build(self, registration: Registration) -> Card:
        shown, snapshot = self.shown, self.snapshot
        mine = self.results.get(registration.id, [])
        ranks = snapshot.running_ranks(registration.id) if shown.standings else {}
        games = []
        for result in mine if shown.games else ():
            mates = []
            if shown.draw:
                entrants = snapshot.standings.registrations
                table = sorted((entrants[p] for p in snapshot.at_table[(result.stage, result.game, result.table)]
                                if p in entrants), key=lambda r: r.number or 0)
                mates = [Mate(r.number, name, self._url(r.number))
                         for r, name in zip(table, self._names(table), strict=True) if r.id != registration.id]
            games.append(GameRow(self._stage_name(result.stage), result.game, result.table if shown.draw else 0,
                                 signed(result.score) if shown.scores else "", result.win and shown.scores,
                                 ranks.get((result.stage, result.game), ""), tuple(mates)))
        line = self.lines.get(registration.id) if shown.standings else None
        average = snapshot.standings.points == "average"
        stats = None
        place = self.places.get(registration.id)
        if place is not None:
            stats = Stats(f"{place.place}=" if place.tied else str(place.place), place.games, place.wins,
                          signed(place.points), final=True)
        elif line is not None and line.games:
            stats = Stats(f"{line.rank}=" if line.tied else str(line.rank), line.games, line.wins,
                          signed(line.average if average else line.total))
        return Card(shown=shown, points_average=average,
                    leaving=self._leaving(registration), stats=stats, next=self._next(registration, mine),
                    games=tuple(games))

    def _next(self, registration: Registration, mine: list) -> NextGame | None:
        if not self.shown.draw:
            return None
        played = {(r.stage, r.game) for r in mine}
        found = first_unplayed(self.seats.get(registration.id, ()), played,
                               each_game_anew=plays_each_game_anew(self.event))
        if found is None:
            return self._moving(registration, mine)
        seat, game = found
        stage = self.stages[seat.stage]
        rows = self.tables[seat.table]
        names = self._names([self.players[row.registration] for row in rows])
        seats = tuple((row.position, name) for row, name in zip(rows, names, strict=True))
        came_from, moved = 0, ""
        if mine and format_of(self.event).each_game_anew and mine[-1].stage == stage.number:
            # R8.2: after every game the top two of each table move up a table (k → k+1, the last → 1).
            came_from = mine[-1].table
            moved = STAYS if seat.number == came_from else UP
        # Only the last table's top two move up to table 1.
        wraps = moved == UP and seat.number == 1
        return NextGame(str(stage.display_name), game, seat.number, seat.position, seats, came_from, moved, wraps)

    def _moving(self, registration: Registration, mine: list) -> NextGame | None:
        """Hong Kong: the player's game is confirmed, the next game not seated yet (the other tables play on):
        where they go (R8.2)."""
        move = self.moves.get(registration.id)
        if move is None or not mine:
            return None
        last = mine[-1]
        return NextGame(self._stage_name(last.stage), last.game + 1, move.to if move.kind == UP else move.table,
                        0, (), move.table, move.kind, move.wraps, move)

    def _leaving(self, registration: Registration) -> Leaving | None:
        record = self.leaving.get(registration.id)
        if record is None:
            return None
        return Leaving(str(record.get_kind_display()), str(record.stage.display_name) if record.stage else "",
                       record.game if record.stage else None)


def player_book(event: Event) -> Book:
    """The book of the event's current version (built once per version per process, with its snapshot)."""
    snapshot = event_snapshot(event)
    return snapshot.derived("player-book", lambda: Book(event, snapshot))
