"""Turning what the referee entered into a rules/ game record, and judging it (R4–R6)."""

from dataclasses import dataclass, field
from decimal import Decimal

from rules.errors import RecordError
from rules.record import SeatRecord, TableRecord, seat_from_dict
from rules.rulesets import Ruleset, get_ruleset
from rules.scoring import GameScore, score_game
from rules.validation import ERROR, Problem, validate

from .problems import message


def ruleset_of(event) -> Ruleset:
    return get_ruleset(event.ruleset)


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


@dataclass(frozen=True)
class Judgement:
    """rules/'s verdict: problems (translated), and the scores when there is no error."""

    problems: list[dict] = field(default_factory=list)
    score: GameScore | None = None

    @property
    def errors(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] == ERROR]

    @property
    def warnings(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] != ERROR]

    def seat_problems(self, position: int) -> list[dict]:
        return [p for p in self.problems if p["seat"] == position]

    @property
    def table_problems(self) -> list[dict]:
        return [p for p in self.problems if p["seat"] is None]

    def result(self, position: int):
        return self.score.by_seat(position) if self.score else None

    @property
    def total(self) -> Decimal | None:
        return sum((s.score for s in self.score.seats), Decimal("0")) if self.score else None


def _problem(problem: Problem) -> dict:
    return {"code": problem.code, "seat": problem.seat, "severity": problem.severity,
            "message": message(problem.code, problem.message)}


def to_record(entry: Entry) -> tuple[TableRecord | None, list[dict]]:
    seats, problems = [], []
    for seat in entry.seats:
        data = {
            "seat": seat.position, "player": str(seat.registration_id), "went_out": seat.went_out,
            "tiles": seat.tiles.strip() or None, "rack_value": seat.rack_value, "jokers": seat.jokers,
            "opened": seat.opened, "could_open": seat.could_open, "conduct_penalty": seat.conduct_penalty,
        }
        if seat.went_out:
            data.update(tiles=None, rack_value=None, jokers=None)
        try:
            seats.append(seat_from_dict(data))
        except RecordError as error:
            code = "bad_tiles" if error.path.endswith("tiles") else "bad_entry"
            problems.append({"code": code, "seat": seat.position, "severity": ERROR,
                             "message": message(code) + (f" ({error.reason})" if code == "bad_tiles" else "")})
            seats.append(SeatRecord(seat=seat.position, player=str(seat.registration_id), went_out=seat.went_out,
                                    rack_value=0, jokers=0, opened=True))
    if problems:
        return None, problems
    return TableRecord(end=entry.end, seats=tuple(seats)), []


def judge(ruleset: Ruleset, entry: Entry) -> Judgement:
    record, problems = to_record(entry)
    if record is None:
        return Judgement(problems=problems)
    found = [_problem(p) for p in validate(ruleset, record)]
    if any(p["severity"] == ERROR for p in found):
        return Judgement(problems=found)
    return Judgement(problems=found, score=score_game(ruleset, record))
