"""Busan 2014 elimination (R8.1, seed 000): round 1 → round 2 → round 3 → final.

Defaults (settings, not hard-coded): three preliminary stages of 3 games; stages 1 and 2 advance the
**top 2 of each table** (R7 within the table over that stage's games), stage 3 the **top 4 of the
whole stage**; the final is 1 game at one table and decides places 1–4. Every stage gets a new computer
draw (:func:`.draw.draw_tables`); in a stage the tables stay the same for all its games.

Shrinking for any number of players (decisions, tested with 128, 117, 64, 33, 7 and 5):

- The plan is made from the number of players actually present (:func:`plan`); call it again with the
  players still active after withdrawals to re-plan the remaining stages (``first_stage``).
- If the players of a stage are no more than ``finalists`` (default 4), the remaining preliminary
  stages are skipped and they play the final (so 1–4 players: final only).
- "Top K of each table" takes ``min(K, seats − 1)`` from each table, so every table eliminates
  someone (a table of 2 sends 1, a table of 3 or 4 sends 2). "Top N of the stage" takes ``min(N, players − 1)``.
- A stage whose advancement would leave exactly ``finalists`` players is the last preliminary stage;
  one that would leave fewer (e.g. 5 players = tables of 3 + 2 → 2 + 1 = 3) becomes the last
  preliminary stage and advances the **top ``finalists`` of the stage** instead. The last configured
  stage also switches to "top ``finalists`` of the stage" if it would leave more than ``finalists``,
  because the final is one table.
  Examples: 128 → 64 → 32 → 4 → final; 117 → 60 → 30 → 4; 33 → 18 → 10 → 4; 7 (4+3) → 4 → final;
  5 (3+2) → top 4 of the stage → final.
- Ties at a cut (same wins and points) are reported, never guessed (R7): :class:`Advancement` lists
  them and ``resolved`` is False until a ``tiebreak`` (recorded lot numbers or a playoff order) for the
  tied players is passed in. The next stage must not be drawn while a tie is unresolved.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .ranking import TOTAL, Cut, Ranked, SeatResult, cut, rank, standings, tie_groups
from .tables import MAX_TABLE, table_sizes

PER_TABLE = "table"  # top K of each table
PER_STAGE = "stage"  # top N of the whole stage
FINAL = "final"


@dataclass(frozen=True)
class StageRule:
    games: int = 3
    advance: str = PER_TABLE  # PER_TABLE or PER_STAGE
    k: int = 2


@dataclass(frozen=True)
class BusanSettings:
    stages: tuple[StageRule, ...] = (
        StageRule(3, PER_TABLE, 2),
        StageRule(3, PER_TABLE, 2),
        StageRule(3, PER_STAGE, 4),
    )
    final_games: int = 1
    finalists: int = 4
    points: str = TOTAL  # R7: Busan ranks by wins then total points

    def __post_init__(self):
        if not 2 <= self.finalists <= MAX_TABLE:
            raise ValueError("the final is one table: 2 to 4 finalists")
        for s in self.stages:
            if s.advance not in (PER_TABLE, PER_STAGE) or s.k < 1 or s.games < 1:
                raise ValueError(f"bad stage rule {s}")


@dataclass(frozen=True)
class PlannedStage:
    number: int  # 1-based
    name: str  # "Round 1", …, "Final"
    players: int
    table_sizes: tuple[int, ...]
    games: int
    advance: str  # PER_TABLE, PER_STAGE or FINAL
    k: int  # K per table, N of the stage; for the final: places decided
    advancing: int  # players going on (for the final: 0)

    @property
    def is_final(self) -> bool:
        return self.advance == FINAL

    def advancing_from_table(self, seats: int) -> int:
        return _per_table(self.k, seats) if self.advance == PER_TABLE else 0


def _per_table(k: int, seats: int) -> int:
    return min(k, max(seats - 1, 1))


def plan(
    n_players: int, settings: BusanSettings = BusanSettings(), first_stage: int = 1
) -> list[PlannedStage]:
    """The stages still to play for ``n_players``, starting with configured stage ``first_stage``."""
    if n_players < 1:
        raise ValueError("no players")
    out: list[PlannedStage] = []
    n = n_players
    rules = settings.stages[first_stage - 1 :]
    number = first_stage
    for i, rule in enumerate(rules):
        if n <= settings.finalists:
            break
        sizes = table_sizes(n)
        mode, k = rule.advance, rule.k
        adv = sum(_per_table(k, s) for s in sizes) if mode == PER_TABLE else min(k, n - 1)
        last = i == len(rules) - 1 or adv <= settings.finalists
        if adv < settings.finalists or (last and adv != settings.finalists):
            mode, k, adv = PER_STAGE, settings.finalists, settings.finalists
        out.append(PlannedStage(number, f"Round {number}", n, tuple(sizes), rule.games, mode, k, adv))
        n = adv
        number += 1
        if last:
            break
    if n > settings.finalists:
        raise ValueError(f"no preliminary stage left for {n} players; the final is one table")
    out.append(PlannedStage(number, "Final", n, (n,), settings.final_games, FINAL, n, 0))
    return out


@dataclass(frozen=True)
class TieAtCut:
    table: int | None  # table number for "top K of each table", None for "top N of the stage"
    players: tuple[Hashable, ...]  # tied at the cut: decide by recorded lot or playoff
    places: int  # how many of them advance


@dataclass(frozen=True)
class Advancement:
    advancing: tuple[Hashable, ...]  # sure to advance (by table, then rank; or by stage rank)
    ties: tuple[TieAtCut, ...]  # unresolved ties at the cut
    rankings: tuple[tuple[Ranked, ...], ...]  # per table (PER_TABLE) or one stage ranking (PER_STAGE)

    @property
    def resolved(self) -> bool:
        return not self.ties


def _stage_standings(players: Iterable[Hashable], results: Iterable[SeatResult]):
    players = list(players)
    wanted = set(players)
    return standings((r for r in results if r.player_id in wanted), players)


def advancement(
    stage: PlannedStage,
    tables: Sequence[Sequence[Hashable]],
    results: Iterable[SeatResult],
    tiebreak: Mapping[Hashable, object] | None = None,
    withdrawn: Iterable[Hashable] = (),
    points: str = TOTAL,
) -> Advancement:
    """Who advances from a preliminary stage, given its tables (as drawn) and its games' results.

    Rank by wins then points over this stage's games (R7, R8.1): within each table for PER_TABLE,
    over all the stage's players for PER_STAGE. ``withdrawn`` players (withdrew, forfeited,
    disqualified) cannot advance; the number advancing from their table stays as planned.
    ``tiebreak`` resolves ties at the cut (lot numbers or a playoff order, higher is better).
    """
    if stage.is_final:
        raise ValueError("the final has no advancement; use final_places()")
    results = list(results)
    out = set(withdrawn)
    advancing: list[Hashable] = []
    ties: list[TieAtCut] = []
    rankings = []
    if stage.advance == PER_TABLE:
        for t, table in enumerate(tables, 1):
            active = [p for p in table if p not in out]
            ranked = rank(_stage_standings(active, results), points, tiebreak)
            c = cut(ranked, stage.advancing_from_table(len(table)))
            advancing.extend(c.advancing)
            if c.tied_at_cut:
                ties.append(TieAtCut(t, c.tied_at_cut, c.places_contested))
            rankings.append(tuple(ranked))
    else:
        active = [p for tb in tables for p in tb if p not in out]
        ranked = rank(_stage_standings(active, results), points, tiebreak)
        c: Cut = cut(ranked, stage.k)
        advancing.extend(c.advancing)
        if c.tied_at_cut:
            ties.append(TieAtCut(None, c.tied_at_cut, c.places_contested))
        rankings.append(tuple(ranked))
    return Advancement(tuple(advancing), tuple(ties), tuple(rankings))


@dataclass(frozen=True)
class FinalPlaces:
    ranked: tuple[Ranked, ...]  # place = rank; tied players share it
    ties: tuple[tuple[Hashable, ...], ...]  # shared places: organiser decides by lot or playoff

    @property
    def resolved(self) -> bool:
        return not self.ties


def final_places(
    players: Sequence[Hashable],
    results: Iterable[SeatResult],
    tiebreak: Mapping[Hashable, object] | None = None,
    points: str = TOTAL,
) -> FinalPlaces:
    """Places from the final game(s) (R8.1: its one game decides places 1–4), wins then points."""
    ranked = rank(_stage_standings(players, results), points, tiebreak)
    return FinalPlaces(tuple(ranked), tuple(tie_groups(ranked)))
