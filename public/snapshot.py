"""An event's standings and every player's history, computed once per change of the event, not per phone.

During play 500 phones poll their player pages. Each page needs the whole event's standings and the
player's running rank after every game, and every confirmed sheet changes them, so a per-page cache
barely helps: the load test (docs/PERFORMANCE.md) spent its time recomputing the same standings for
each phone. A snapshot is keyed by `live.event_state(event)` (the event's data version and public
settings), so it never outlives the data it came from, and is kept per process: it holds model
instances and is rebuilt in tens of milliseconds, so sharing it through Redis would cost more in
pickling than it saves. Several workers each build it once per version.

Nothing in a snapshot may be changed by its readers; they share it.
"""

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from scoring.results.event import Results, results_final, results_for_events
from scoring.results.event import Row as ResultRow
from scoring.standings import Standings, criteria_for, event_standings, running_ranks
from tournament.formats.ranking import SeatResult
from tournament.models import Event

from .version import event_state

KEEP = 6  # snapshots kept per process: an old version is never asked for again, and a big event's is megabytes


@dataclass
class Snapshot:
    standings: Standings
    results: list[SeatResult]  # every confirmed result, in play order
    at_table: dict[tuple[int, int, int], list[int]]  # (stage, game, table) → players
    criteria: tuple[tuple[str, ...], str]
    event: Event
    _derived: dict = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def derived(self, name: str, build):
        """What `build()` derives from this snapshot, built once per version and shared by every reader (the
        running ranks; public/card.py's book of every player)."""
        with self._lock:
            if name not in self._derived:
                self._derived[name] = build()
            return self._derived[name]

    def event_results(self) -> Results:
        """The event's results as the results page reads them: places (stage reached, then wins and points of
        that stage, lots and playoffs applied), `final` once the deciding stage is complete."""
        return self.derived("results", lambda: results_for_events([self.event], conduct=True)[self.event.pk])

    def final_places(self) -> dict[int, ResultRow]:
        """Registration id → their row of the final places, once the results are final; else empty. What
        every public answer says first about a finished event."""
        if not self.derived("final", lambda: results_final(self.event)):
            return {}
        results = self.event_results()
        return {row.registration.pk: row for row in results.rows} if results.final else {}

    def running_lines(self, player: int) -> dict[tuple[int, int], tuple[int, bool]]:
        """The player's (rank, tied) in the event after each of their games (R7). Lots drawn so far break
        ties here as in the standings, so the last running rank is the current one."""
        return self.derived("running-ranks", self._all_running_ranks).get(player, {})

    def running_ranks(self, player: int) -> dict[tuple[int, int], str]:
        """`running_lines` as the pages show them: "3", or "3=" for a shared rank."""
        return {column: f"{rank}=" if tied else str(rank) for column, (rank, tied) in self.running_lines(player).items()}

    def _all_running_ranks(self) -> dict[int, dict[tuple[int, int], tuple[int, bool]]]:
        criteria, points = self.criteria
        lines = running_ranks(self.standings.registrations, self.results, self.standings.columns, criteria, points,
                              self.standings.tiebreak)
        return {player: {column: (line.rank, line.tied) for column, line in games.items()}
                for player, games in lines.items()}


_snapshots: "OrderedDict[tuple, Snapshot]" = OrderedDict()
_snapshots_lock = threading.Lock()


def event_snapshot(event: Event) -> Snapshot:
    key = (event.pk, event_state(event))
    with _snapshots_lock:
        snapshot = _snapshots.get(key)
        if snapshot is not None:
            _snapshots.move_to_end(key)
            return snapshot
    snapshot = _build(event)
    with _snapshots_lock:
        _snapshots[key] = snapshot
        while len(_snapshots) > KEEP:
            _snapshots.popitem(last=False)
    return snapshot


def forget_snapshots() -> None:
    """Tests: a rolled-back test database may reuse ids, and so a key."""
    with _snapshots_lock:
        _snapshots.clear()


def _build(event: Event) -> Snapshot:
    standings = event_standings(event)
    results = sorted((r for line in standings.lines for r in line.cells.values()),
                     key=lambda r: (r.stage, r.game, r.table))
    at_table: dict[tuple[int, int, int], list[int]] = {}
    for result in results:
        at_table.setdefault((result.stage, result.game, result.table), []).append(result.player_id)
    return Snapshot(standings, results, at_table, criteria_for(event), event)
