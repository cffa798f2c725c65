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
- :mod:`.strategy` – what differs between the formats, asked through :func:`format_of` (R8, R9).
"""

from .draw import ALGORITHM_VERSION, Constraints, DrawOutcome, Entrant, Violation, draw_tables, swap_players
from .ranking import DrawnLot, Ranked, SeatResult, Standing, cut, draw_lot, rank, standings
from .strategy import BUSAN, FORMATS, HONG_KONG, EventFormat, format_named, format_of
from .tables import merge_proposal, table_sizes

__all__ = [
    "ALGORITHM_VERSION",
    "BUSAN",
    "Constraints",
    "DrawOutcome",
    "DrawnLot",
    "Entrant",
    "EventFormat",
    "FORMATS",
    "HONG_KONG",
    "Ranked",
    "SeatResult",
    "Standing",
    "Violation",
    "cut",
    "draw_lot",
    "draw_tables",
    "format_named",
    "format_of",
    "merge_proposal",
    "rank",
    "standings",
    "swap_players",
    "table_sizes",
]
