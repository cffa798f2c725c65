"""Sets: groups and runs, with jokers (R2).

* Group: 3 or 4 tiles of one number, all colours different.
* Run: 3 or more tiles of one colour, consecutive numbers; 1 may precede 2, nothing follows 13 (no wrap).
* A joker stands for one tile and is worth the number of the tile it stands for.

The tiles of a set are treated as an unordered collection. Where a joker's role is ambiguous
(``R5 J J`` could be the group 5-5-5 or the runs 3-4-5, 4-5-6, 5-6-7), :func:`analyse_set` picks the
**most valuable** valid interpretation (here run 5-6-7, worth 18) — the same rule the meld solver
uses (R3: "jokers taking their most valuable role"). Between interpretations of equal value it picks,
deterministically, a run before a group, a run placed as high as possible, and for a group joker the
first missing colour in the order R, B, Y, K.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .tiles import COLOURS, Tile


@dataclass(frozen=True, slots=True)
class PlacedSet:
    """A valid set with each tile's role. ``represents[i]`` is the tile ``tiles[i]`` stands for
    (itself for a numbered tile; the chosen tile for a joker). Tiles are in play order."""

    kind: str  # "group" | "run"
    tiles: tuple[Tile, ...]
    represents: tuple[Tile, ...]

    @property
    def value(self) -> int:
        """Sum of the numbers the tiles stand for (R2: a joker counts as its tile)."""
        return sum(t.number for t in self.represents)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "tiles": [str(t) for t in self.tiles],
            "as": [str(t) for t in self.represents],
            "value": self.value,
        }

    def __str__(self) -> str:
        return " ".join(str(t) for t in self.tiles)


def _as_group(reals: list[Tile], jokers: int) -> PlacedSet | None:
    size = len(reals) + jokers
    if not 3 <= size <= 4 or not reals:
        return None
    number = reals[0].number
    colours = [t.colour for t in reals]
    if any(t.number != number for t in reals) or len(set(colours)) != len(colours):
        return None
    missing = [c for c in COLOURS if c not in colours]
    if len(missing) < jokers:  # pragma: no cover - size <= 4 guarantees enough colours
        return None
    # Play order: colour order R, B, Y, K with each joker in the slot of the colour it stands for.
    stand_ins = missing[:jokers]
    pairs = [(t, t) for t in reals] + [(Tile("J", 0), Tile(c, number)) for c in stand_ins]
    pairs.sort(key=lambda p: p[1].sort_key)
    return PlacedSet("group", tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))


def _as_run(reals: list[Tile], jokers: int) -> PlacedSet | None:
    length = len(reals) + jokers
    if length < 3 or length > 13 or not reals:
        return None
    colour = reals[0].colour
    numbers = sorted(t.number for t in reals)
    if any(t.colour != colour for t in reals) or len(set(numbers)) != len(numbers):
        return None
    lo, hi = numbers[0], numbers[-1]
    if hi - lo + 1 > length:  # the gaps need more jokers than there are
        return None
    # Highest start such that the run still covers lo and does not pass 13 (no wrap, R2).
    start = min(lo, 13 - length + 1)
    if start + length - 1 < hi:  # pragma: no cover - implied by the checks above
        return None
    by_number = {t.number: t for t in reals}
    tiles, reps = [], []
    for n in range(start, start + length):
        tiles.append(by_number.get(n, Tile("J", 0)))
        reps.append(Tile(colour, n))
    return PlacedSet("run", tuple(tiles), tuple(reps))


def analyse_set(tiles: Iterable[Tile]) -> PlacedSet | None:
    """The most valuable valid reading of ``tiles`` as one set (R2), or ``None`` if it is no set."""
    tiles = list(tiles)
    reals = [t for t in tiles if not t.is_joker]
    jokers = len(tiles) - len(reals)
    options = [s for s in (_as_run(reals, jokers), _as_group(reals, jokers)) if s is not None]
    if not options:
        return None
    return max(options, key=lambda s: s.value)  # max keeps the first (the run) on a tie


def is_valid_set(tiles: Iterable[Tile]) -> bool:
    return analyse_set(tiles) is not None


def is_group(tiles: Iterable[Tile]) -> bool:
    tiles = list(tiles)
    reals = [t for t in tiles if not t.is_joker]
    return _as_group(reals, len(tiles) - len(reals)) is not None


def is_run(tiles: Iterable[Tile]) -> bool:
    tiles = list(tiles)
    reals = [t for t in tiles if not t.is_joker]
    return _as_run(reals, len(tiles) - len(reals)) is not None


def set_value(tiles: Iterable[Tile]) -> int:
    """Value of the most valuable reading of ``tiles`` as a set; ``ValueError`` if it is no set."""
    placed = analyse_set(tiles)
    if placed is None:
        raise ValueError("not a valid group or run")
    return placed.value


def check_placed_set(placed: PlacedSet) -> bool:
    """Is this *placed* set (with the stated joker roles) a valid set? Used by tests and callers
    that receive sets from elsewhere."""
    if len(placed.tiles) != len(placed.represents):
        return False
    for t, r in zip(placed.tiles, placed.represents, strict=True):
        if r.is_joker or (not t.is_joker and t != r):
            return False
    reps = list(placed.represents)
    if placed.kind == "group":
        return (
            3 <= len(reps) <= 4
            and len({r.number for r in reps}) == 1
            and len({r.colour for r in reps}) == len(reps)
        )
    if placed.kind == "run":
        nums = [r.number for r in reps]
        return (
            len(reps) >= 3
            and len({r.colour for r in reps}) == 1
            and nums == list(range(nums[0], nums[0] + len(nums)))
            and nums[-1] <= 13
        )
    return False
