"""A Rummikub sheet as entered (R4–R6): each seat's rack as tiles, or a counted value and jokers; and its
judgement by rules/ — the same for the live check and for the submit."""

from dataclasses import dataclass
from decimal import Decimal

from rules.errors import RecordError
from rules.record import SeatRecord, TableRecord, seat_from_dict
from rules.rulesets import Ruleset, get_ruleset
from rules.scoring import score_game
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


def _problem(code: str, severity: str, seat: int | None, text: str) -> dict:
    return {"code": code, "seat": seat, "severity": severity, "message": text}


def to_record(entry: Entry) -> tuple[TableRecord | None, list[dict]]:
    seats, problems = [], []
    for seat in entry.seats:
        data = {
            "seat": seat.position, "player": str(seat.registration_id), "went_out": seat.went_out,
            "tiles": seat.tiles.strip() or None, "rack_value": seat.rack_value, "jokers": seat.jokers,
            "opened": seat.opened, "could_open": seat.could_open, "conduct_penalty": seat.conduct_penalty,
        }
        # A seat that went out keeps whatever its rack fields hold: rules/ refuses a winner holding tiles
        # (winner_holds_tiles) rather than the sheet storing tiles nobody judged.
        try:
            seats.append(seat_from_dict(data))
        except RecordError as error:
            code = "bad_tiles" if error.path.endswith("tiles") else "bad_entry"
            text = message(code) + (f" ({error.reason})" if code == "bad_tiles" else "")
            problems.append(_problem(code, ERROR, seat.position, text))
            seats.append(SeatRecord(seat=seat.position, player=str(seat.registration_id), went_out=seat.went_out,
                                    rack_value=0, jokers=0, opened=True))
    if problems:
        return None, problems
    return TableRecord(end=entry.end, seats=tuple(seats)), []


def judge(ruleset: Ruleset, entry: Entry) -> Judgement:
    record, problems = to_record(entry)
    if record is None:
        return Judgement(problems=problems)
    found = [_problem(p.code, p.severity, p.seat, message(p.code, p.message)) for p in validate(ruleset, record)]
    if any(p["severity"] == ERROR for p in found):
        return Judgement(problems=found)
    score = score_game(ruleset, record)
    return Judgement(problems=found, score=score, results={s.seat: s for s in score.seats},
                     total=sum((s.score for s in score.seats), Decimal("0")))
