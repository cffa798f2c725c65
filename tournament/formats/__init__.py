"""Tournament formats and computer table draws as pure Python (no Django).

Everything here takes plain data (ids, numbers, dataclasses) and returns plain data, so whole events
can be played through in tests without a database (RULES R7–R9, DESIGN "draw and ranking algorithms
take plain data").

Modules:

- :mod:`.tables`   – table sizes for N players (R8.1) and a merge proposal after withdrawals.
- :mod:`.ranking`  – results as data (:class:`SeatResult`), standings, shared ranks, cuts with ties
  at the cut, recorded lots (R7).
- :mod:`.draw`     – the constrained, seeded, reproducible random draw and the manual swap (R8).
- :mod:`.busan`    – Busan 2014 elimination: stage plan and advancement (R8.1).
- :mod:`.hongkong` – Hong Kong 2016 "top two move up a table" (R8.2).
"""

from .draw import ALGORITHM_VERSION, Constraints, DrawOutcome, Entrant, Violation, draw_tables, swap_players
from .ranking import DrawnLot, Ranked, SeatResult, Standing, cut, draw_lot, rank, standings
from .tables import merge_proposal, table_sizes

__all__ = [
    "ALGORITHM_VERSION",
    "Constraints",
    "DrawOutcome",
    "DrawnLot",
    "Entrant",
    "Ranked",
    "SeatResult",
    "Standing",
    "Violation",
    "cut",
    "draw_lot",
    "draw_tables",
    "merge_proposal",
    "rank",
    "standings",
    "swap_players",
    "table_sizes",
]
