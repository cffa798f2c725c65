"""Plausible score sheets made with `rules/` (R1, R3–R6), without playing the game.

Each table gets real racks dealt from a shuffled 106-tile set (14 each); the tiles drawn during the game
come from the rest of that set. The end state is imagined, not played: one player went out and the
others hold part of what they had, or the pool ran dry and nobody went out (blocked), or the round's
time ran out. A player who never opened holds every tile dealt and drawn, and whether they could have
opened is decided by `rules.meld.can_open` on that rack — so the sheet is always consistent (100 when
they could not, 200 when they could, R5). Referees enter the tiles on about half of the tables and
only count (value, jokers, the "could have opened?" answer) on the others. Pure: no database.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules.meld import can_open
from rules.rulesets import Ruleset
from rules.tiles import Tile, format_tiles, full_set, joker_count, numbers_sum

from ..games.classic import Entry, SeatEntry
from ..models import ScoreSheet

DEALT = 14  # tiles per player (R1)

# How games end (R4): mostly somebody goes out.
END_WEIGHTS = {ScoreSheet.End.WENT_OUT: 82, ScoreSheet.End.BLOCKED: 13, ScoreSheet.End.TIME: 5}
NEVER_OPENED = 0.09  # share of losers who never made the initial meld
KNOCKED_RACK = 0.008  # share of losers whose rack was knocked over (R5.3, where the rules have it)
JOKER_KEPT = 0.35  # an opened player still holds a joker they had
TILES_ENTERED = 0.55  # share of tables where the referee taps the tiles instead of counting


def _draws(rng: random.Random, end: str, players: int, pool: int) -> list[int]:
    """How many tiles each player drew from the pool during the game."""
    if end == ScoreSheet.End.BLOCKED:
        total = pool  # the pool ran dry (R4)
    elif end == ScoreSheet.End.TIME:
        total = rng.randint(pool // 3, pool - 1)
    else:
        total = min(pool, rng.choice((0, 2, 4, 6, 8, 10, 12, 16, 20, 24)))
    counts = [0] * players
    for _ in range(total):
        counts[rng.randrange(players)] += 1
    return counts


def _final_rack(rng: random.Random, end: str, held: list[Tile]) -> list[Tile]:
    """What an opened loser still holds: some of the tiles they had, never an empty rack. Jokers are
    usually played, so most of them are gone."""
    held = [tile for tile in held if not tile.is_joker or rng.random() < JOKER_KEPT]
    most = min(len(held), 10 if end == ScoreSheet.End.WENT_OUT else 14)
    size = min(rng.randint(1, most), rng.randint(1, most))  # small racks are more common
    return rng.sample(held, size)


def plausible_entry(rng: random.Random, ruleset: Ruleset, registrations: Sequence[int]) -> Entry:
    """A sheet for one table: `registrations` in seat order (seat 1 first)."""
    tiles = full_set()
    rng.shuffle(tiles)
    players = len(registrations)
    racks = [tiles[i * DEALT:(i + 1) * DEALT] for i in range(players)]
    pool = tiles[players * DEALT:]
    end = rng.choices(list(END_WEIGHTS), weights=list(END_WEIGHTS.values()))[0]
    drawn = _draws(rng, end, players, len(pool))
    for i, count in enumerate(drawn):
        racks[i] = racks[i] + pool[:count]
        pool = pool[count:]
    winner = rng.randrange(players) if end == ScoreSheet.End.WENT_OUT else None
    counted = rng.random() >= TILES_ENTERED
    seats = []
    for index, registration in enumerate(registrations):
        position = index + 1
        if index == winner:
            seats.append(SeatEntry(position=position, registration_id=registration, went_out=True))
            continue
        # Drawn under every ruleset, so that one seed plays the same sheets up to a knocked-over rack; only
        # rules that have the penalty (R5.3) record it, the others count that rack like any other.
        knocked = rng.random() < KNOCKED_RACK
        if knocked and ruleset.knocked_rack_penalty is not None:
            seats.append(SeatEntry(position=position, registration_id=registration, conduct_penalty=True))
            continue
        opened = rng.random() >= NEVER_OPENED
        rack = _final_rack(rng, end, racks[index]) if opened else racks[index]
        could_open = None if opened else can_open(rack, ruleset.initial_meld_threshold)
        if counted:
            seats.append(SeatEntry(position=position, registration_id=registration, rack_value=numbers_sum(rack),
                                   jokers=joker_count(rack), opened=opened, could_open=could_open))
        else:
            seats.append(SeatEntry(position=position, registration_id=registration,
                                   tiles=format_tiles(rack, sort=True), opened=opened, could_open=could_open))
    return Entry(end=end, seats=tuple(seats))
