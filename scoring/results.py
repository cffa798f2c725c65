"""Final places and ranking points (issue 6; R7, R8.1, R8.2, R9).

Decisions (the sources only settle part of this; each choice is written here once):

- **Busan (R8.1)**: places 1–4 come from the final's game(s): wins, then points (as
  `tournament.formats.busan.final_places` ranks them). Everyone eliminated earlier is placed below by the
  stage they reached (a later stage is better) and, within one stage, by wins then points over *that*
  stage's games. The sources only decide places 1–4, so players still level below them simply share a place.
- **Hong Kong (R8.2)**: total wins, then average points per game, over the event's (non-playoff) stage.
- Points are total or average as the event's ruleset says (as the standings do, R7).
- **Ties** share a place ("1, 2, 2, 4"). A tie on a prize place (1–4) is not guessed (R7): the organiser
  resolves it by a recorded lot (`Lot.Purpose.PLACE`) or a one-game playoff (`scoring.services.playoff`).
  A lot or a playoff applies to a tie only if it covers every tied player; its order separates those
  players and nobody else. A playoff game that is itself level (a blocked game with equal winners) leaves
  those players tied — a second playoff or a lot then decides. Playoff games never count in anyone's
  wins or points.
- **Ranking points (R9)**: `event.ranking_points` lists the points of places 1, 2, 3 …; places beyond the
  list get 0. Players sharing a place each get the **average** of the points of the places they span
  (tied for 2nd by two players: (points of 2nd + points of 3rd) / 2), rounded to 0.01.
- **Under 15 (R9)**: only the birth year is known, so the age is the one the player reaches during the
  event's year: under 15 if event year − birth year < 15. A player who turns 15 later in that year counts
  as 15 (the rule errs by at most a year, in the player's favour). Under-15 players keep their place but get
  no ranking points, and those points are **not passed down**: the place's points stay unassigned, so the
  next player gets exactly what their own place is worth.

The functions at the top are pure (plain data in and out); `event_results` / `results_for_events` read the
database in a constant number of queries whatever the number of players or events.
"""

from __future__ import annotations

import datetime as dt
import itertools
import unicodedata
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from rules.rulesets import get_ruleset
from tournament.formats.draw import new_seed
from tournament.formats.ranking import AVERAGE, PRIZE_PLACES, TOTAL, draw_lot, id_key
from tournament.forms.fields import as_text
from tournament.models import (
    ConductRecord,
    Draw,
    DrawTable,
    Event,
    Lot,
    Registration,
    Stage,
    StageEntry,
)
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event

from .models import ScoreSheet, SheetSeat

PODIUM = 3
UNDER_AGE = 15  # R9
CENT = Decimal("0.01")
PLAYOFF = "playoff"
LOT = "lot"


# --- pure ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Showing:
    """How far a player got and how they did there (over the games of the stage they reached)."""

    player: Hashable
    level: int = 1  # the stage reached: higher is better
    wins: int = 0
    total: Decimal = Decimal(0)
    games: int = 0

    @property
    def average(self) -> Decimal:
        return (self.total / self.games).quantize(CENT, ROUND_HALF_UP) if self.games else Decimal(0)

    def points(self, kind: str) -> Decimal:
        return self.average if kind == AVERAGE else self.total


@dataclass(frozen=True)
class Decider:
    """A recorded lot or a played playoff: orders `players` by `values` (higher first, equal = still tied)."""

    kind: str  # PLAYOFF or LOT
    players: frozenset
    values: dict = field(hash=False)


@dataclass(frozen=True)
class Place:
    showing: Showing
    place: int
    shared: int = 1  # how many players share this place
    decided_by: str = ""  # PLAYOFF or LOT when one separated this player's tie

    @property
    def player(self) -> Hashable:
        return self.showing.player

    @property
    def tied(self) -> bool:
        return self.shared > 1


@dataclass(frozen=True)
class Tie:
    place: int
    players: tuple
    prize: bool  # on a prize place: must be decided by lot or playoff (R7)


@dataclass(frozen=True)
class Placing:
    places: tuple[Place, ...]
    ties: tuple[Tie, ...]

    @property
    def prize_ties(self) -> tuple[Tie, ...]:
        return tuple(t for t in self.ties if t.prize)


def _split(members: list[Showing], deciders: Sequence[Decider], how: str = "") -> list[tuple[list[Showing], str]]:
    """Separate tied players by the newest decider that covers them all and tells some of them apart."""
    if len(members) < 2:
        return [(members, how)]
    ids = {s.player for s in members}
    for decider in reversed(deciders):
        if not ids <= decider.players or any(p not in decider.values for p in ids):
            continue
        if len({decider.values[p] for p in ids}) < 2:
            continue
        ordered = sorted(members, key=lambda s: -decider.values[s.player])
        out = []
        for _value, bucket in itertools.groupby(ordered, key=lambda s: decider.values[s.player]):
            out.extend(_split(list(bucket), deciders, how or decider.kind))
        return out
    return [(members, how)]


def order_places(showings: Iterable[Showing], *, points: str = TOTAL, deciders: Sequence[Decider] = (),
                 prize_places: int = PRIZE_PLACES) -> Placing:
    """Final places: stage reached, wins, points (total or average); deciders separate ties (R7, R8).

    `deciders` are in the order they were recorded (the newest one that separates a tie counts).
    """
    if points not in (TOTAL, AVERAGE):
        raise ValueError(f"points must be {TOTAL!r} or {AVERAGE!r}")

    def key(s: Showing):
        return (s.level, s.wins, s.points(points))

    ordered = sorted(showings, key=lambda s: id_key(s.player))
    ordered.sort(key=key, reverse=True)
    places, ties, before = [], [], 0
    for _key, group in itertools.groupby(ordered, key=key):
        for members, how in _split(list(group), deciders):
            place = before + 1
            places.extend(Place(s, place, len(members), how) for s in members)
            if len(members) > 1:
                ties.append(Tie(place, tuple(s.player for s in members), place <= prize_places))
            before += len(members)
    return Placing(tuple(places), tuple(ties))


def playoff_values(showings: Iterable[Showing]) -> dict:
    """A playoff's order as decider values: wins, then points in its game; level results stay level.

    (Not `tiebreak_from_order`, which would split a level playoff game by player id.)"""
    key = {s.player: (s.wins, s.total) for s in showings}
    distinct = sorted(set(key.values()))
    return {p: distinct.index(k) + 1 for p, k in key.items()}


def ranking_points(places: Iterable[Place], table: Sequence[int], no_points: Collection = ()) -> dict:
    """Points per player: shared places average the places they span; `no_points` players get 0 (R9)."""
    out = {}
    for p in places:
        if p.player in no_points:
            out[p.player] = Decimal(0)
            continue
        spanned = table[p.place - 1: p.place - 1 + p.shared]
        out[p.player] = (Decimal(sum(spanned)) / p.shared).quantize(CENT, ROUND_HALF_UP)
    return out


def is_under_age(event_year: int, birth_year: int | None) -> bool:
    """R9, from the birth year only: the age reached during the event's year is below 15."""
    return birth_year is not None and event_year - birth_year < UNDER_AGE


# --- reading an event (constant queries) ----------------------------------------------------------------

@dataclass
class Row:
    place: int
    shared: int
    registration: Registration
    stage: Stage | None  # the stage reached
    wins: int
    games: int
    total: Decimal
    points: Decimal  # what the places use: total or average
    ranking_points: Decimal
    under_age: bool
    decided_by: str = ""
    left: str = ""  # a conduct record that took the player out of the event (shown, R9)

    @property
    def player(self):
        return self.registration.player

    @property
    def tied(self) -> bool:
        return self.shared > 1


@dataclass
class TieView:
    place: int
    registrations: list[Registration]
    prize: bool
    pending_playoff: Stage | None = None  # a playoff for these players waiting for its sheet
    stage: Stage | None = None  # the stage the tied players reached (where a lot is recorded)


@dataclass
class Results:
    event: Event
    final: bool  # the deciding stage (Busan final / Hong Kong stage) has every game confirmed
    rows: list[Row]
    ties: list[TieView]
    points_kind: str
    points_table: list[int]
    deciding_stage: Stage | None
    playoffs: list[Stage]  # every playoff stage, in order
    pending_playoffs: list[Stage]
    stages: list[Stage] = field(default_factory=list)
    playoff_players: dict[int, list[Registration]] = field(default_factory=dict)  # stage id → players

    @property
    def prize_ties(self) -> list[TieView]:
        return [t for t in self.ties if t.prize]

    @property
    def settled(self) -> bool:
        """Final, and no prize place is still shared."""
        return self.final and not self.prize_ties

    @property
    def podium(self) -> list[Row]:
        return [row for row in self.rows if row.place <= PODIUM]


def event_year(event: Event) -> int:
    return timezone.localtime(event.starts_at, event.festival.tzinfo).year


def points_kind(event: Event) -> str:
    return AVERAGE if get_ruleset(event.ruleset).points == AVERAGE else TOTAL


@dataclass
class _Loaded:
    stages: dict[int, list[Stage]] = field(default_factory=dict)  # event id → stages by number
    entries: dict[int, set[int]] = field(default_factory=dict)  # stage id → registration ids
    stats: dict[tuple[int, int], tuple[int, Decimal, int]] = field(default_factory=dict)  # (reg, stage)
    tables: dict[tuple[int, int], int] = field(default_factory=dict)  # (stage, draw game) → released tables
    confirmed: dict[tuple[int, int], int] = field(default_factory=dict)  # (stage, game) → confirmed sheets
    lots: dict[int, list[Lot]] = field(default_factory=dict)  # event id → PLACE lots, oldest first
    registrations: dict[int, Registration] = field(default_factory=dict)
    left: dict[int, str] = field(default_factory=dict)  # registration → conduct kind label


def _load(event_ids: list[int], *, conduct: bool) -> _Loaded:
    data = _Loaded()
    stages = Stage.objects.filter(event_id__in=event_ids).order_by("event_id", "number")
    for stage in stages:
        data.stages.setdefault(stage.event_id, []).append(stage)
    for stage_id, registration in StageEntry.objects.filter(stage__event_id__in=event_ids).values_list(
            "stage_id", "registration_id"):
        data.entries.setdefault(stage_id, set()).add(registration)
    for row in (SheetSeat.objects.filter(sheet__stage__event_id__in=event_ids,
                                         sheet__status=ScoreSheet.Status.CONFIRMED)
                .values("registration_id", "sheet__stage_id").order_by()
                .annotate(wins=Count("id", filter=Q(win=True)), total=Sum("score"), games=Count("id"))):
        data.stats[(row["registration_id"], row["sheet__stage_id"])] = (
            row["wins"], Decimal(row["total"] or 0), row["games"])
    for row in (DrawTable.objects.filter(draw__stage__event_id__in=event_ids, draw__status=Draw.Status.RELEASED)
                .values("draw__stage_id", "draw__game").order_by().annotate(n=Count("id"))):
        data.tables[(row["draw__stage_id"], row["draw__game"])] = row["n"]
    for row in (ScoreSheet.objects.filter(stage__event_id__in=event_ids, status=ScoreSheet.Status.CONFIRMED)
                .values("stage_id", "game").order_by().annotate(n=Count("id"))):
        data.confirmed[(row["stage_id"], row["game"])] = row["n"]
    for lot in Lot.objects.filter(stage__event_id__in=event_ids, purpose=Lot.Purpose.PLACE).select_related(
            "stage").order_by("created_at", "id"):
        data.lots.setdefault(lot.stage.event_id, []).append(lot)
    data.registrations = {
        r.id: r for r in Registration.objects.filter(stage_entries__stage__event_id__in=event_ids)
        .distinct().select_related("player")
    }
    if conduct:
        labels = dict(ConductRecord.Kind.choices)
        for registration, kind in ConductRecord.objects.filter(
                event_id__in=event_ids, kind__in=ConductRecord.LEAVES_EVENT).order_by("created_at", "id").values_list(
                "registration_id", "kind"):
            data.left[registration] = str(labels[kind])
    return data


def _stage_complete(event: Event, stage: Stage, data: _Loaded) -> bool:
    """Every game has a released seating and a confirmed sheet for each of its tables."""
    for game in range(1, stage.games + 1):
        draw_game = game if event.format == Event.Format.HONG_KONG else 1
        tables = data.tables.get((stage.id, draw_game), 0)
        if tables == 0 or data.confirmed.get((stage.id, game), 0) != tables:
            return False
    return True


def _build(event: Event, data: _Loaded) -> Results:
    stages = data.stages.get(event.id, [])
    playoffs = [s for s in stages if s.advance == Stage.Advance.PLAYOFF]
    played = [s for s in stages if s.advance != Stage.Advance.PLAYOFF]
    if event.format == Event.Format.HONG_KONG:
        deciding = played[-1] if played else None
    else:
        deciding = next((s for s in played if s.advance == Stage.Advance.FINAL), None)
    final = deciding is not None and _stage_complete(event, deciding, data)

    reached: dict[int, Stage] = {}
    for stage in played:  # in stage order: the last one a player entered wins
        for registration in data.entries.get(stage.id, ()):
            reached[registration] = stage
    showings = []
    for registration, stage in reached.items():
        wins, total, games = data.stats.get((registration, stage.id), (0, Decimal(0), 0))
        showings.append(Showing(registration, stage.number, wins, total, games))

    # Deciders in the order they count (the last one that separates a tie wins): playoffs in stage order,
    # then lots as drawn. The services never record both for one tie (no lot while a playoff waits; no
    # playoff for a tie a lot has settled), so this order only matters for stale records after corrections.
    deciders, pending = [], []
    for stage in playoffs:
        players = data.entries.get(stage.id, set())
        if not _stage_complete(event, stage, data):
            pending.append(stage)
            continue
        values = playoff_values(
            Showing(p, 1, *data.stats.get((p, stage.id), (0, Decimal(0), 0))) for p in players)
        deciders.append(Decider(PLAYOFF, frozenset(players), values))
    for lot in data.lots.get(event.id, []):
        deciders.append(Decider(LOT, frozenset(int(p) for p in lot.players), lot.tiebreak))

    kind = points_kind(event)
    placing = order_places(showings, points=kind, deciders=deciders)
    table = event.ranking_points
    year = event_year(event)
    young = {s.player for s in showings
             if is_under_age(year, data.registrations[s.player].player.birth_year)}
    points = ranking_points(placing.places, table, young)
    rows = [
        Row(place=p.place, shared=p.shared, registration=data.registrations[p.player],
            stage=reached[p.player], wins=p.showing.wins, games=p.showing.games, total=p.showing.total,
            points=p.showing.points(kind), ranking_points=points[p.player], under_age=p.player in young,
            decided_by=p.decided_by, left=data.left.get(p.player, ""))
        for p in placing.places
    ]
    ties = []
    for tie in placing.ties:
        waiting = next((s for s in pending if set(tie.players) <= data.entries.get(s.id, set())), None)
        ties.append(TieView(tie.place, [data.registrations[p] for p in tie.players], tie.prize, waiting,
                            reached[tie.players[0]]))
    return Results(event=event, final=final, rows=rows, ties=ties, points_kind=kind, points_table=table,
                   deciding_stage=deciding, playoffs=playoffs,
                   pending_playoffs=pending, stages=stages,
                   playoff_players={s.id: sorted((data.registrations[p] for p in data.entries.get(s.id, ())),
                                                 key=lambda r: r.player.name) for s in playoffs})


def event_results(event: Event) -> Results:
    """Final (or provisional) places and ranking points of one event, in a constant number of queries."""
    data = _load([event.id], conduct=True)
    return _build(event, data)


def results_for_events(events: Sequence[Event]) -> dict[int, Results]:
    """The same for many events at once (season view): still a constant number of queries."""
    data = _load([e.id for e in events], conduct=False)
    return {e.id: _build(e, data) for e in events}


# --- organiser actions ---------------------------------------------------------------------------------

def find_prize_tie(results: Results, place: int) -> TieView:
    tie = next((t for t in results.ties if t.place == place), None)
    if tie is None:
        raise ServiceError(_("No players share place %(place)s.") % {"place": place}, code="no_tie")
    if not tie.prize:
        raise ServiceError(_("Only ties on the prize places 1–%(n)s are decided by lot or playoff.")
                           % {"n": PRIZE_PLACES}, code="not_prize")
    if not results.final:
        raise ServiceError(_("Ties are decided once every game of the final stage is confirmed."),
                           code="not_final")
    return tie


def draw_place_lot(*, event: Event, place: int, actor: Actor, seed: int | str | None = None) -> Lot:
    """R7: the software draws numbered cards for the players sharing a prize place and records them."""
    with transaction.atomic():
        event = lock_event(event)
        results = event_results(event)
        tie = find_prize_tie(results, place)
        if tie.pending_playoff is not None:
            raise ServiceError(_("A playoff for these players is waiting for its result."), code="playoff_pending")
        seed = new_seed() if seed is None else seed
        lot = draw_lot([r.id for r in tie.registrations], seed)
        numbers = {str(p): n for p, n in lot.numbers.items()}
        row = Lot.objects.create(stage=tie.stage, purpose=Lot.Purpose.PLACE, players=list(lot.players),
                                 numbers=numbers, seed=str(seed), created_by=actor.user)
        record(actor=actor, action="lot.place", target=row, event=event,
               after={"place": place, "players": list(lot.players), "numbers": numbers, "seed": str(seed)})
    return row


def set_ranking_points(*, event: Event, points: list[int], actor: Actor) -> Event:
    """The organiser's ranking-points table: points of places 1, 2, 3 …, whole numbers 0..100000 (R9)."""
    try:
        Event._meta.get_field("ranking_points").clean(points, event)
    except ValidationError as error:
        raise ServiceError(" ".join(error.messages), code="bad_points") from None
    with transaction.atomic():
        event = lock_event(event)
        before = event.ranking_points
        if before == points:  # saved again unchanged (a phone sending twice): nothing to record
            return event
        event.ranking_points = points
        event.save(update_fields=["ranking_points"])
        # The audit log keeps the table as comma text, as its older entries have it.
        record(actor=actor, action="event.ranking_points", target=event, event=event,
               before={"ranking_points": as_text(before)}, after={"ranking_points": as_text(points)})
    return event


# --- season (R9: ranking points across festivals) ---------------------------------------------------------

def ranking_id_key(value: str) -> str:
    return "".join(unicodedata.normalize("NFKC", value or "").split()).casefold()


@dataclass
class Contribution:
    event: Event
    place: int
    shared: int
    points: Decimal


@dataclass
class Person:
    key: tuple
    name: str
    birth_year: int
    ranking_id: str
    affiliation: str
    total: Decimal = Decimal(0)
    rank: int = 0
    contributions: list[Contribution] = field(default_factory=list)


@dataclass
class Season:
    year: int
    years: list[int]
    people: list[Person]
    events: list[Event]  # events with final results, in date order


def person_keys(players: Iterable) -> dict[int, tuple]:
    """One person across festivals (players are per festival):

    1. players with a national ranking id are one person per id (compared without spaces, case-folded);
    2. players without one are one person per normalised name (`name_key`) and birth year — and join the
       person with a ranking id of that same name and birth year when there is exactly one such person.
    """
    players = list(players)
    by_name: dict[tuple, set[str]] = {}
    for p in players:
        rid = ranking_id_key(p.ranking_id)
        if rid:
            by_name.setdefault((p.name_key, p.birth_year), set()).add(rid)
    keys = {}
    for p in players:
        rid = ranking_id_key(p.ranking_id)
        if not rid:
            ids = by_name.get((p.name_key, p.birth_year), set())
            rid = next(iter(ids)) if len(ids) == 1 else ""
        keys[p.id] = ("id", rid) if rid else ("name", p.name_key, p.birth_year)
    return keys


def _year_bounds(year: int) -> tuple[dt.datetime, dt.datetime]:
    # A day of margin either side: the exact local year of each event is checked afterwards.
    return (dt.datetime(year, 1, 1, tzinfo=dt.UTC) - dt.timedelta(days=1),
            dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=1))


def season_years() -> list[int]:
    return sorted({d.year for d in Event.objects.dates("starts_at", "year")}, reverse=True)


def season_standings(year: int, years: list[int] | None = None) -> Season:
    """Ranking points added up per person over the year's events with final results (constant queries)."""
    start, end = _year_bounds(year)
    events = [e for e in Event.objects.filter(starts_at__gte=start, starts_at__lt=end)
              .select_related("festival").order_by("starts_at", "id") if event_year(e) == year]
    results = results_for_events(events)
    counted = [e for e in events if results[e.id].final and results[e.id].points_table]
    rows = [(e, row) for e in counted for row in results[e.id].rows]
    keys = person_keys(row.registration.player for _e, row in rows)
    people: dict[tuple, Person] = {}
    for event, row in rows:
        player = row.registration.player
        key = keys[player.id]
        person = people.get(key)
        if person is None:
            person = people[key] = Person(key, player.name, player.birth_year, player.ranking_id,
                                          player.affiliation)
        person.name, person.affiliation = player.name, player.affiliation or person.affiliation  # latest
        person.ranking_id = person.ranking_id or player.ranking_id
        if row.ranking_points > 0:
            person.total += row.ranking_points
            person.contributions.append(Contribution(event, row.place, row.shared, row.ranking_points))
    ranked = sorted((p for p in people.values() if p.total > 0), key=lambda p: (-p.total, p.name, p.key))
    for index, person in enumerate(ranked):
        previous = ranked[index - 1] if index else None
        person.rank = previous.rank if previous and previous.total == person.total else index + 1
    return Season(year=year, years=years if years is not None else season_years(), people=ranked,
                  events=counted)
