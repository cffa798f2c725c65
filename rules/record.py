"""The JSON game record: one table's game, as the web app exports it and the CLI reads it.

See ``rules/README.md`` ("Game record") for the format. :func:`table_from_dict` checks *shape and
types* and raises :class:`~rules.errors.RecordError` naming the path of the bad value; whether the
sheet makes sense (someone went out, the tiles exist, ...) is :mod:`rules.validation`'s job and never
raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import NotationError, RecordError
from .tiles import Tile, format_tiles, joker_count, numbers_sum, parse_tiles

ENDS = ("went_out", "blocked", "time")  # R4

_SEAT_INPUT_KEYS = {
    "seat",
    "player",
    "went_out",
    "tiles",
    "rack_value",
    "jokers",
    "opened",
    "could_open",
    "conduct_penalty",
}
_SEAT_OUTPUT_KEYS = {"penalty", "score", "win"}  # accepted (and ignored) so output can be read back
_TABLE_INPUT_KEYS = {"number", "game", "end", "seats"}
_TABLE_OUTPUT_KEYS = {"winners", "problems", "ruleset", "void", "ok"}


@dataclass(frozen=True)
class SeatRecord:
    """One player's line on a score sheet.

    ``tiles`` (the final rack, when the referee entered the tiles) or ``rack_value`` (sum of the
    numbers on the rack, jokers excluded) + ``jokers`` (jokers held) when the referee only counted.
    ``could_open`` is the referee's answer for a player who never opened; it is ignored in favour of
    the solver when ``tiles`` are given.
    """

    seat: int
    player: str | None = None
    went_out: bool = False
    tiles: tuple[Tile, ...] | None = None
    rack_value: int | None = None
    jokers: int | None = None
    opened: bool = True
    could_open: bool | None = None
    conduct_penalty: bool = False

    @property
    def numbers(self) -> int | None:
        """Sum of the numbers on the rack (from tiles if given, else the counted value)."""
        return numbers_sum(self.tiles) if self.tiles is not None else self.rack_value

    @property
    def joker_total(self) -> int:
        """Jokers held (from tiles if given, else the counted number, default 0)."""
        if self.tiles is not None:
            return joker_count(self.tiles)
        return self.jokers or 0


@dataclass(frozen=True)
class TableRecord:
    end: str
    seats: tuple[SeatRecord, ...] = field(default_factory=tuple)
    number: int | None = None
    game: int | None = None


def _type_error(path: str, expected: str, value: Any) -> RecordError:
    return RecordError(path, f"expected {expected}, got {type(value).__name__} {value!r}"[:200])


def _get(data: dict, key: str, path: str, kind: str, *, default=None, nullable=True):
    value = data.get(key, default)
    if value is None:
        if nullable:
            return None
        raise RecordError(f"{path}.{key}", "required")
    checks = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
    }
    if not checks[kind](value):
        raise _type_error(
            f"{path}.{key}", {"int": "a whole number", "bool": "true or false", "str": "text"}[kind], value
        )
    return value


def seat_from_dict(data: Any, path: str = "seat") -> SeatRecord:
    if not isinstance(data, dict):
        raise _type_error(path, "an object", data)
    unknown = sorted(set(data) - _SEAT_INPUT_KEYS - _SEAT_OUTPUT_KEYS)
    if unknown:
        raise RecordError(f"{path}.{unknown[0]}", "unknown field")
    tiles_raw = data.get("tiles")
    tiles = None
    if tiles_raw is not None:
        if not isinstance(tiles_raw, str | list):
            raise _type_error(f"{path}.tiles", 'notation text such as "R5 J" or a list of tokens', tiles_raw)
        try:
            # Counts are checked table-wide by validation (a problem, not an exception).
            tiles = tuple(parse_tiles(tiles_raw, check_counts=False))
        except NotationError as e:
            raise RecordError(f"{path}.tiles", f"bad tile {e.token!r}: {e.reason}") from None
    return SeatRecord(
        seat=_get(data, "seat", path, "int", nullable=False),
        player=_get(data, "player", path, "str"),
        went_out=_get(data, "went_out", path, "bool", default=False, nullable=False),
        tiles=tiles,
        rack_value=_get(data, "rack_value", path, "int"),
        jokers=_get(data, "jokers", path, "int"),
        opened=_get(data, "opened", path, "bool", default=True, nullable=False),
        could_open=_get(data, "could_open", path, "bool"),
        conduct_penalty=_get(data, "conduct_penalty", path, "bool", default=False, nullable=False),
    )


def table_from_dict(data: Any, path: str = "table") -> TableRecord:
    if not isinstance(data, dict):
        raise _type_error(path, "an object", data)
    unknown = sorted(set(data) - _TABLE_INPUT_KEYS - _TABLE_OUTPUT_KEYS)
    if unknown:
        raise RecordError(f"{path}.{unknown[0]}", "unknown field")
    end = _get(data, "end", path, "str", nullable=False)
    if end not in ENDS:
        raise RecordError(f"{path}.end", f"must be one of {', '.join(ENDS)}")
    seats = data.get("seats")
    if not isinstance(seats, list):
        raise _type_error(f"{path}.seats", "a list of seats", seats)
    return TableRecord(
        end=end,
        seats=tuple(seat_from_dict(s, f"{path}.seats[{i}]") for i, s in enumerate(seats)),
        number=_get(data, "number", path, "int"),
        game=_get(data, "game", path, "int"),
    )


def seat_to_dict(seat: SeatRecord) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "player": seat.player,
        "went_out": seat.went_out,
        "tiles": format_tiles(seat.tiles) if seat.tiles is not None else None,
        "rack_value": seat.numbers,
        "jokers": seat.joker_total,
        "opened": seat.opened,
        "could_open": seat.could_open,
        "conduct_penalty": seat.conduct_penalty,
    }


def table_to_dict(table: TableRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"number": table.number}
    if table.game is not None:
        out["game"] = table.game
    out["end"] = table.end
    out["seats"] = [seat_to_dict(s) for s in table.seats]
    return out
