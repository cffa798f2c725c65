"""Worst-case search for the meld solver, used by ``python -m bench.meld --search N``.

Seeded and reproducible: N random 40-tile racks dealt from a shuffled 106-tile set, then adversarial
families (two jokers, pairs of every tile, near-runs with holes, dense windows of numbers; then racks
of 60-106 tiles with jokers and long runs with jokers, of any size) and a short
local search from the slowest rack found (swap one tile, keep the swap if it is slower). Every rack is
timed once; the slowest 2 % are timed again and keep their best of three, so one pause of a loaded
machine does not become "the worst case". Times are the process's CPU time (``time.process_time``):
on a shared machine the wall clock also counts waiting for a core.
"""

from __future__ import annotations

import random
import time

from rules.meld import best_meld
from rules.tiles import COLOURS, JOKER, Tile, format_tiles, full_set

SIZE = 40


def _time(rack, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        best_meld(rack)
        best = min(best, time.process_time() - t)
    return best


def random_racks(rng: random.Random, count: int):
    for _ in range(count):
        deck = full_set()
        rng.shuffle(deck)
        yield "random", deck[:SIZE]


def _fill(rng: random.Random, tiles: list[Tile]) -> list[Tile]:
    """Trim or pad (from the rest of the set) to SIZE tiles."""
    tiles = list(tiles)[:SIZE]
    rest = full_set()
    for t in tiles:
        rest.remove(t)
    rng.shuffle(rest)
    return tiles + rest[: SIZE - len(tiles)]


def adversarial_racks(rng: random.Random, count: int):
    """``count`` racks of each family."""
    numbered = [Tile(c, n) for c in COLOURS for n in range(1, 14)]
    for _ in range(count):
        deck = [t for t in full_set() if not t.is_joker]
        rng.shuffle(deck)
        yield "two jokers", [JOKER, JOKER] + deck[: SIZE - 2]
    for _ in range(count):
        pairs = rng.sample(numbered, (SIZE - 2) // 2)
        yield "pairs of every colour + 2 jokers", [JOKER, JOKER] + [t for t in pairs for _ in range(2)]
    for _ in range(count):
        tiles = [JOKER] * rng.randint(0, 2)
        for c in COLOURS:  # runs with single holes, so jokers and duplicates have many choices
            for n in range(1, 14):
                if rng.random() < 0.75:
                    tiles += [Tile(c, n)] * rng.randint(1, 2)
        rng.shuffle(tiles)
        yield (
            "near-runs with holes",
            _fill(rng, [JOKER] * tiles.count(JOKER) + [t for t in tiles if not t.is_joker]),
        )
    for _ in range(count):
        low = rng.randint(1, 9)
        window = [Tile(c, n) for c in COLOURS for n in range(low, low + 5) for _ in range(2)]
        rng.shuffle(window)
        jokers = rng.randint(0, 2)
        yield "dense 5-number window", [JOKER] * jokers + window[: SIZE - jokers]
    yield from big_racks(rng, count)


def big_racks(rng: random.Random, count: int):
    """Racks larger than 40 tiles, with jokers: ``count`` dealt racks of 60-106 tiles, then ``count``
    racks of long runs (each colour from a low to a high number, one or two copies, a few holes)."""
    for _ in range(count):
        deck = [t for t in full_set() if not t.is_joker]
        rng.shuffle(deck)
        jokers = rng.choice((1, 2, 2))
        yield "60-106 tiles + jokers", [JOKER] * jokers + deck[: rng.randint(60, 106) - jokers]
    for _ in range(count):
        tiles = [JOKER] * rng.choice((1, 2, 2))
        for c in COLOURS:
            low, high = rng.randint(1, 4), rng.randint(10, 13)
            copies = rng.randint(1, 2)
            tiles += [Tile(c, n) for n in range(low, high + 1) if rng.random() > 0.15 for _ in range(copies)]
        yield "long runs + jokers", tiles


def climb(rng: random.Random, rack: list[Tile], steps: int) -> tuple[list[Tile], float]:
    """Local search: swap one tile of the rack for one outside it; keep the slower rack."""
    worst, worst_t = list(rack), _time(rack, 3)
    for _ in range(steps):
        rest = full_set()
        for t in worst:
            rest.remove(t)
        if not rest:
            break
        cand = list(worst)
        cand[rng.randrange(len(cand))] = rng.choice(rest)
        t = _time(cand, 3)
        if t > worst_t:
            worst, worst_t = cand, t
    return worst, worst_t


def _pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(q * len(s)))]


def search(seed: int, count: int, family_count: int, climb_steps: int, row) -> None:
    """Print the search's rows with ``row(label, n, median, worst, extra)`` (times in seconds)."""
    rng = random.Random(seed)
    families: dict[str, list[tuple[float, list[Tile]]]] = {}
    for label, rack in [*random_racks(rng, count), *adversarial_racks(rng, family_count)]:
        families.setdefault(label, []).append((_time(rack), rack))
    overall: tuple[float, list[Tile]] = (0.0, [])
    for label, timed in families.items():
        timed.sort(key=lambda p: p[0])
        keep = max(1, len(timed) // 50)
        timed[-keep:] = [(_time(r, 3), r) for _, r in timed[-keep:]]
        timed.sort(key=lambda p: p[0])
        times = [t for t, _ in timed]
        extra = f"p99 {_pct(times, 0.99) * 1e3:.3f} ms"
        row(f"search: {label}", len(times), _pct(times, 0.5), times[-1], extra)
        overall = max(overall, timed[-1], key=lambda p: p[0])
    if climb_steps:
        rack, t = climb(rng, overall[1], climb_steps)
        row(f"search: local search, {climb_steps} swaps", climb_steps, t, t, "from the slowest rack above")
        overall = max(overall, (t, rack), key=lambda p: p[0])
    print(
        f"slowest rack ({len(overall[1])} tiles, {overall[0] * 1e3:.3f} ms, best of 3): "
        f"{format_tiles(overall[1], sort=True)}"
    )
    whole = _time(full_set(), 5)
    row("best_meld, 106 tiles (whole set)", 1, whole, whole, "best of 5")
