"""A general format (issue 4, "welcome if cheap"): several games of random tables of 4 that avoid
repeat opponents, as mahjong tournaments do. Ranking over all games by wins then total points (R7).

Each game is an ordinary computer draw (:func:`.draw.draw_tables`) with every earlier table of the
event given as "already met", so the repeat-opponent constraint does the work; affiliation and seed
spreading stay on unless switched off. This is random pairing, not Swiss pairing by score (left out).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from .draw import Constraints, Draw, Entrant, draw_tables, met_pairs_from_tables


def next_round(
    entrants: Iterable[Entrant | Hashable],
    previous_rounds: Sequence[Sequence[Sequence[Hashable]]] = (),
    *,
    seed: int,
    constraints: Constraints | None = None,
    table_sizes: Sequence[int] | None = None,
) -> Draw:
    """Draw the next game's tables, avoiding everyone met in ``previous_rounds`` (lists of tables)."""
    return draw_tables(
        entrants, table_sizes, met_pairs_from_tables(previous_rounds), constraints or Constraints(), seed=seed
    )
