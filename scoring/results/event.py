"""An event's results read from the database in a constant number of queries, whatever the number of
players or events: places, podium, ties on prize places and what decides them, ranking points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from rules.rulesets import get_ruleset
from tournament.formats import format_of
from tournament.formats.ranking import AVERAGE, PRIZE_PLACES, TOTAL
from tournament.models import (
    ConductRecord,
    Event,
    Lot,
    Registration,
    Stage,
    StageEntry,
)
from tournament.services import seating
from tournament.services.errors import ServiceError

from ..models import ScoreSheet, SheetSeat
from ..services.progress import progress_of, stage_progress
from .placing import (
    LOT,
    PLAYOFF,
    PODIUM,
    Decider,
    Showing,
    is_under_age,
    order_places,
    playoff_values,
    ranking_points,
)


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


def registration_under_age(registration, year: int) -> bool:
    """R9 from the birth year; once it is erased, from what was stored at the erasure (results stay as they were)."""
    birth_year = registration.player.birth_year
    if birth_year is None:
        return bool(registration.under_age)
    return is_under_age(year, birth_year)


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
    data.tables.update(seating.table_counts(events=event_ids))
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
    """Every game has a released seating and a confirmed sheet for each of its tables (`stage_progress`, from
    what `_load` read for all the events at once)."""
    games = range(1, stage.games + 1)  # a seating's Draw.game is one of the stage's games
    tables = {game: data.tables[stage.id, game] for game in games if (stage.id, game) in data.tables}
    confirmed = {game: data.confirmed[stage.id, game] for game in games if (stage.id, game) in data.confirmed}
    return progress_of(stage, format_of(event), tables=tables, confirmed=confirmed).complete


def _build(event: Event, data: _Loaded) -> Results:
    stages = data.stages.get(event.id, [])
    playoffs = [s for s in stages if s.advance == Stage.Advance.PLAYOFF]
    played = [s for s in stages if s.advance != Stage.Advance.PLAYOFF]
    deciding = format_of(event).deciding_stage(stages)
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
    # R9 by default; an event may switch the rule off (under_15_no_points), then nobody is "under age" here.
    young = {s.player for s in showings if event.under_15_no_points
             and registration_under_age(data.registrations[s.player], year)}
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


def results_final(event: Event) -> bool:
    """`event_results(event).final` for what it costs to know only that (3 queries, not the whole results): the
    deciding stage (Busan final / Hong Kong stage) has every game confirmed."""
    deciding = format_of(event).deciding_stage(list(event.stages.all()))
    return deciding is not None and stage_progress(deciding).complete


def results_for_events(events: Sequence[Event], *, conduct: bool = False) -> dict[int, Results]:
    """The same for many events at once (season view, a player's events): still a constant number of queries.
    With `conduct` the rows say who left the event (R9)."""
    data = _load([e.id for e in events], conduct=conduct)
    return {e.id: _build(e, data) for e in events}


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
