"""Standings from confirmed sheets (R7): wins, then points, then the event's tie-breaks.

`compute` is pure (plain rows in, plain rows out) so it can be benchmarked and tested without a database;
`event_standings` fetches what it needs in a constant number of queries.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.translation import gettext_lazy

from rules.rulesets import get_ruleset
from tournament.formats.ranking import AVERAGE, TOTAL, SeatResult, Standing, rank_by
from tournament.models import Event, Lot, Registration, Stage

from .models import ScoreSheet, SheetSeat


@dataclass
class Line:
    player: int
    rank: int = 0
    tied: bool = False
    games: int = 0
    wins: int = 0
    total: Decimal = Decimal("0")
    points: Decimal = Decimal("0")  # what the ranking uses: total or average
    cells: dict[tuple[int, int], SeatResult] = field(default_factory=dict)

    @property
    def average(self) -> Decimal:
        return (self.total / self.games).quantize(Decimal("0.01")) if self.games else Decimal("0")


def criteria_for(event: Event) -> tuple[tuple[str, ...], str]:
    """The event's ordering and which points it reports: R7 wins, then total (Busan) or average (HK)."""
    points = get_ruleset(event.ruleset).points
    chosen = tuple(event.tiebreaks)
    if not chosen:
        chosen = ("wins", "average" if points == AVERAGE else "points", "playoff", "lot")
    return chosen, (AVERAGE if points == AVERAGE else TOTAL)


# What each criterion asks for, as a referee's paper sheet states the event's ranking.
CRITERION_WORDS = {
    "wins": gettext_lazy("most wins"),
    "points": gettext_lazy("most points in total"),
    "average": gettext_lazy("highest average points per game"),
    "playoff": gettext_lazy("playoff game"),
    "lot": gettext_lazy("lots"),
}


def ranking_order(event: Event) -> str:
    """The event's ranking in words, in the current language: "most wins → highest average points per game →
    playoff game → lots" (R7: Hong Kong ranks by average points, Busan by total; or the organiser's own order)."""
    criteria, _points = criteria_for(event)
    return " → ".join(str(CRITERION_WORDS[name]) for name in criteria)


def compute(players: Iterable[int], results: Iterable[SeatResult], criteria: Sequence[str], points: str,
            tiebreak: dict[int, int] | None = None) -> list[Line]:
    lines = {p: Line(player=p) for p in players}
    for result in results:
        line = lines.setdefault(result.player_id, Line(player=result.player_id))
        line.games += 1
        line.wins += 1 if result.win else 0
        line.total += result.score
        line.cells[(result.stage, result.game)] = result
    standings = [Standing(p, line.wins, line.total, line.games) for p, line in lines.items()]
    ordered = []
    for ranked in rank_by(standings, criteria, tiebreak, points):
        line = lines[ranked.player_id]
        line.rank, line.tied, line.points = ranked.rank, ranked.tied, ranked.points
        ordered.append(line)
    return ordered


@dataclass
class Standings:
    lines: list[Line]
    columns: list[tuple[int, int]]  # (stage number, game) in play order
    points: str
    registrations: dict[int, Registration]
    stage: Stage | None = None
    tiebreak: dict[int, int] = field(default_factory=dict)  # lots drawn: player → order among the tied


def event_standings(event: Event, *, stage: Stage | None = None) -> Standings:
    """Everyone who played (or, for a stage, everyone entered in it), ranked by the event's criteria."""
    criteria, points = criteria_for(event)
    rows = SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
    if stage is not None:
        rows = rows.filter(sheet__stage=stage)
        entrants = Registration.objects.filter(stage_entries__stage=stage)
        lots = Lot.objects.filter(stage=stage)
    else:
        # A playoff game only orders the tied players (R7, scoring/results.py); it counts in nobody's wins.
        rows = rows.exclude(sheet__stage__advance=Stage.Advance.PLAYOFF)
        entrants = Registration.objects.filter(stage_entries__stage__event=event).distinct()
        lots = Lot.objects.filter(stage__event=event, purpose=Lot.Purpose.PLACE)
    results = [
        SeatResult(player_id=player, stage=stage_number, game=game, table=table, score=score, win=win)
        for player, stage_number, game, table, score, win in rows.values_list(
            "registration_id", "sheet__stage__number", "sheet__game", "sheet__table_number", "score", "win")
    ]
    registrations = {r.id: r for r in entrants.select_related("player")}
    tiebreak: dict[int, int] = {}
    for lot in lots:
        if lot.purpose != Lot.Purpose.MOVE:
            tiebreak.update(lot.tiebreak)
    lines = compute(registrations, results, criteria, points, tiebreak)
    columns = sorted({(r.stage, r.game) for r in results})
    return Standings(lines=lines, columns=columns, points=points, registrations=registrations, stage=stage,
                     tiebreak=tiebreak)


def running_ranks(players: Iterable[int], results: Sequence[SeatResult], columns: Sequence[tuple[int, int]],
                  criteria: Sequence[str], points: str, tiebreak: dict[int, int] | None = None
                  ) -> dict[int, dict[tuple[int, int], Line]]:
    """Each player's line in the standings right after each game (column) they played: one ranking per game
    played, not one per player and game (10 games of 1,024 players is 10 rankings). `results` in play order."""
    players = list(players)
    ordered = sorted(results, key=lambda r: (r.stage, r.game))
    ranks: dict[int, dict[tuple[int, int], Line]] = {}
    upto = 0
    for column in columns:
        while upto < len(ordered) and (ordered[upto].stage, ordered[upto].game) <= column:
            upto += 1
        played = {r.player_id for r in ordered[:upto] if (r.stage, r.game) == column}
        for line in compute(players, ordered[:upto], criteria, points, tiebreak):
            if line.player in played:
                ranks.setdefault(line.player, {})[column] = line
    return ranks
