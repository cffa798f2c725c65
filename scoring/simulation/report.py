"""What a simulated (or real) event produced: a canonical dump of its confirmed sheets, the final order,
and the command's short summary. Each function reads with a fixed number of queries."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from tournament.formats import format_of
from tournament.formats.ranking import AVERAGE
from tournament.models import Event, Lot, Registration, StageEntry
from tournament.services import seating

from ..games.classic import ruleset_of
from ..models import ScoreSheet, SheetSeat
from ..services.progress import current_stage, stage_results


@dataclass(frozen=True)
class Place:
    rank: int
    number: int
    name: str
    wins: int
    points: Decimal
    tied: bool


def confirmed_results(event: Event) -> list[tuple]:
    """Per stage, game and table (in that order): the end and each player's (number, score, win), by number."""
    rows = (
        SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
        .order_by("sheet__stage__number", "sheet__game", "sheet__table_number", "registration__number")
        .values_list("sheet__stage__number", "sheet__game", "sheet__table_number", "sheet__end",
                     "registration__number", "score", "win")
    )
    tables: dict[tuple, list] = {}
    for stage, game, table, end, number, score, win in rows:
        tables.setdefault((stage, game, table, end), []).append((number, str(score), win))
    return [(*key, tuple(seats)) for key, seats in tables.items()]


def final_order(event: Event) -> list[Place]:
    """Busan: the final's places (R8.1); Hong Kong: wins, then average points over the stage (R8.2).
    Players still tied share a place (R7: a playoff or a lot decides, not the software)."""
    stage = current_stage(event)
    if stage is None:
        return []
    players = list(StageEntry.objects.filter(stage=stage).order_by("registration_id")
                   .values_list("registration_id", flat=True))
    ranked = format_of(event).final_ranked(players, stage_results(stage), ruleset_of(event).points)
    who = {r.id: (r.number, r.player.name)
           for r in Registration.objects.filter(id__in=players).select_related("player")}
    return [Place(r.rank, *who[r.player_id], r.wins, r.points, r.tied) for r in ranked]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _stage_lines(event: Event) -> list[str]:
    sheets = Counter(ScoreSheet.objects.filter(stage__event=event, status=ScoreSheet.Status.CONFIRMED)
                     .values_list("stage__number", flat=True))
    lots = Counter(Lot.objects.filter(stage__event=event).values_list("stage__number", flat=True))
    tables = seating.table_counts(events=[event.pk])
    lines = []
    for stage in event.stages.order_by("number"):
        per_game = Counter({game: n for (stage_id, game), n in tables.items() if stage_id == stage.pk})
        sizes = sorted(set(per_game.values())) or [0]
        table_text = _count(sizes[0], "table") if len(sizes) == 1 else f"{sizes[0]}–{sizes[-1]} tables"
        lines.append(f"  {stage.name}: {table_text}, {_count(stage.games, 'game')}, "
                     f"{_count(sheets[stage.number], 'sheet')} confirmed"
                     + (f", {_count(lots[stage.number], 'lot')} drawn" if lots[stage.number] else ""))
    return lines


def _sheet_line(event: Event) -> str:
    seats = SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
    ends = Counter(ScoreSheet.objects.filter(stage__event=event, status=ScoreSheet.Status.CONFIRMED)
                   .values_list("end", flat=True))
    never = Counter(seats.filter(opened=False, conduct_penalty=False, went_out=False).values_list("could_open",
                                                                                              flat=True))
    jokers = seats.filter(jokers__gt=0).count()
    knocked = seats.filter(conduct_penalty=True).count()
    return (f"  Sheets: {ends['went_out']} went out, {ends['blocked']} blocked, {ends['time']} stopped by time; "
            f"never opened {never[True] + never[False]} (could open {never[True]}, could not {never[False]}); "
            f"{_count(jokers, 'rack')} with jokers; {_count(knocked, 'knocked-over rack')}")


def summary_lines(event: Event, *, podium: int = 4) -> list[str]:
    players = event.registrations.filter(number__isnull=False).count()
    lines = [f"{event.name} — festival {event.festival.slug}, event {event.slug}, {players} players"]
    lines += _stage_lines(event)
    lines.append(_sheet_line(event))
    places = final_order(event)[:podium]
    per_game = " a game" if ruleset_of(event).points == AVERAGE else ""  # R7: Hong Kong ranks by average
    lines.append("  Podium: " + "; ".join(
        f"{p.rank}{'=' if p.tied else ''}. #{p.number} {p.name} ({_count(p.wins, 'win')}, {p.points:+.2f}{per_game})"
        for p in places))
    return lines
