"""A Rummikub sheet as entered (R4–R6): each seat's rack as tiles, or a counted value and jokers; and its
judgement by rules/ — the same for the live check and for the submit."""

import re
from dataclasses import dataclass
from decimal import Decimal

from rules.errors import NotationError, RecordError
from rules.record import SeatRecord, TableRecord, seat_from_dict
from rules.rulesets import Ruleset, get_ruleset
from rules.scoring import score_game
from rules.tiles import Tile
from rules.validation import ERROR, validate

from ..base import Judgement
from ..problems import message


def ruleset_of(event) -> Ruleset:
    return get_ruleset(event.ruleset)


def has_knocked_rack_rule(event) -> bool:
    """Whether the event's rules have a knocked-over-rack penalty (R5.3): the forms offer it only then."""
    return ruleset_of(event).knocked_rack_penalty is not None


@dataclass(frozen=True)
class SeatEntry:
    """One seat as entered: tiles (notation) or a counted value plus jokers."""

    position: int
    registration_id: int
    went_out: bool = False
    tiles: str = ""
    rack_value: int | None = None
    jokers: int | None = None
    opened: bool = True
    could_open: bool | None = None
    conduct_penalty: bool = False


@dataclass(frozen=True)
class Entry:
    end: str
    seats: tuple[SeatEntry, ...]


def _problem(code: str, severity: str, seat: int | None, text: str, seats=()) -> dict:
    return {"code": code, "seat": seat, "seats": list(seats), "severity": severity, "message": text}


def _bad_tokens(text: str) -> list[str]:
    """The tokens of a tiles field that are no tile (R1 notation), as typed."""
    bad = []
    for token in (t for t in re.split(r"[\s,]+", text.strip()) if t):
        try:
            Tile.parse(token)
        except NotationError:
            bad.append(token)
    return bad


def to_record(entry: Entry) -> tuple[TableRecord, list[dict], set[int]]:
    """The rules record of the entry, the problems of fields rules/ cannot read, and the seats that have
    such a problem: those are judged without their unreadable tokens, so the rest of the sheet's problems
    still show at once."""
    seats, problems, unreadable = [], [], set()
    for seat in entry.seats:
        tiles = seat.tiles.strip()
        bad = _bad_tokens(tiles) if tiles else []
        if bad:
            tokens = " ".join(bad)
            problems.append(_problem("bad_tiles", ERROR, seat.position, message("bad_tiles", params={"tokens": tokens})))
            unreadable.add(seat.position)
            tiles = " ".join(t for t in re.split(r"[\s,]+", tiles) if t and t not in bad)
        data = {
            "seat": seat.position, "player": str(seat.registration_id), "went_out": seat.went_out,
            "tiles": tiles or (None if not bad else ""), "rack_value": seat.rack_value, "jokers": seat.jokers,
            "opened": seat.opened, "could_open": seat.could_open, "conduct_penalty": seat.conduct_penalty,
        }
        # A seat that went out keeps whatever its rack fields hold: rules/ refuses a winner holding tiles
        # (winner_holds_tiles) rather than the sheet storing tiles nobody judged.
        try:
            seats.append(seat_from_dict(data))
        except RecordError:
            problems.append(_problem("bad_entry", ERROR, seat.position, message("bad_entry")))
            unreadable.add(seat.position)
            seats.append(SeatRecord(seat=seat.position, player=str(seat.registration_id), went_out=seat.went_out,
                                    rack_value=0, jokers=0, opened=True))
    return TableRecord(end=entry.end, seats=tuple(seats)), problems, unreadable


def judge(ruleset: Ruleset, entry: Entry) -> Judgement:
    record, problems, unreadable = to_record(entry)
    found = [
        _problem(p.code, p.severity, p.seat, message(p.code, p.message, p.params), p.seats)
        for p in validate(ruleset, record)
        # A seat's own problems judged on part of its rack would mislead; table-wide ones still hold.
        if p.seat is None or p.seat not in unreadable
    ]
    found = problems + found
    if any(p["severity"] == ERROR for p in found):
        return Judgement(problems=found)
    score = score_game(ruleset, record)
    return Judgement(problems=found, score=score, results={s.seat: s for s in score.seats},
                     total=sum((s.score for s in score.seats), Decimal("0")))
