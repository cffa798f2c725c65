"""What every game's sheet has in common: the judgement of an entry, and the strategy interface.

A strategy (`SheetGame`) holds everything that differs between the games; the life cycle in
`scoring.services.sheets` and the pages around it are the same for all of them.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from rules.validation import ERROR

from ..forms.common import new_key


@dataclass(frozen=True)
class Judgement:
    """The rules engine's verdict on an entry: every problem (translated) and, when there is no error, the
    game's score with each seat's result (`result(position)`: the game's own per-seat score)."""

    problems: list[dict] = field(default_factory=list)
    score: Any = None
    results: dict[int, Any] = field(default_factory=dict)
    total: Decimal | None = None  # the classic game's zero-sum check (R6)

    @property
    def errors(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] == ERROR]

    @property
    def warnings(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] != ERROR]

    def seat_problems(self, position: int) -> list[dict]:
        """The problems at this seat: its own, and table-wide ones it is part of (R1: the seats holding the
        jokers of "more than two jokers")."""
        return [p for p in self.problems if p["seat"] == position or position in p.get("seats", ())]

    @property
    def table_problems(self) -> list[dict]:
        return [p for p in self.problems if p["seat"] is None]

    @property
    def unplaced_problems(self) -> list[dict]:
        """Table-wide problems no seat is marked with (e.g. nobody marked as out)."""
        return [p for p in self.table_problems if not p.get("seats")]

    def result(self, position: int):
        return self.results.get(position)


class SheetGame(ABC):
    """How one kind of game enters, judges and stores a sheet; `scoring.games.game_of(event)` picks it."""

    key: str  # the Event.Game value
    entry_template: str  # the referee's form fields (inside the one referee page)
    check_template: str  # the live check's game-specific part: problems, scores, totals
    recorded_template: str  # a recorded sheet, read-only
    line_template: str  # one seat's line on the chief referee's view of a sheet
    review_template: str  # what that view adds after the lines ("" for nothing)
    script: str  # the script of the referee's page and of the chief referee's correction page (a static path)
    badge: str  # shown beside the page title ("" for none)
    page_class: str  # extra CSS class of the page
    check_id: str  # the element the live check is swapped into
    marks_seats: bool  # the live check marks each problem at its seat card
    keeps_drafts: bool  # the page keeps a draft on the phone until the server has the sheet

    @abstractmethod
    def check_kind(self, entry) -> None:
        """Refuse (ServiceError) an entry that is not this game's."""

    @abstractmethod
    def check_seats(self, entry, seats) -> None:
        """Refuse (ServiceError) an entry that names other seats than `seats` (the table's, in seat order)."""

    @abstractmethod
    def judge(self, event, seats, entry) -> Judgement:
        """The rules engine's verdict: the live check and the submit apply exactly this."""

    @abstractmethod
    def store(self, sheet, seats, entry, judgement: Judgement) -> None:
        """Write the sheet's rows: one SheetSeat per seat (score, win, penalty …) and the game's own rows."""

    @abstractmethod
    def audit(self, seats, entry, judgement: Judgement) -> dict:
        """What the audit record keeps of a recorded sheet."""

    @abstractmethod
    def entry_form(self, data=None, *, event, seats, initial=None, require_key=True):
        """The referee's form for `seats`, under `event`'s rules."""

    @abstractmethod
    def correction_form(self, data=None, *, event, seats, initial=None):
        """The chief referee's form: the referee's entry form (same fields, same page parts, same live check)
        plus a reason; its one-time key is `idempotency_key`, required."""

    @abstractmethod
    def initial_from(self, sheet) -> dict:
        """A recorded sheet as the entry form's data: a returned sheet is corrected, not typed again."""

    def correction_initial(self, sheet) -> dict:
        """A confirmed sheet as the correction form's data, with a new one-time key."""
        return {**self.initial_from(sheet), "idempotency_key": new_key()}

    @abstractmethod
    def check_context(self, form, judgement: Judgement | None) -> dict:
        """What the entry and check templates need besides the form and the judgement."""

    def review_context(self, sheet, lines) -> dict:
        """What `review_template` needs, for the recorded `sheet` and its SheetSeat `lines`."""
        return {}

    def entry_context(self) -> dict:
        """What the entry template needs once, besides the form (e.g. the classic game's tile pad)."""
        return {}

    def more_rows(self, data, seats):
        """The form data with more rows to fill (a "more rows" button without JavaScript), or None."""
        return None
