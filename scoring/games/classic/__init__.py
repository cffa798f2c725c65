"""Rummikub (R4–R6): a sheet holds each seat's rack — tiles, or a counted value and jokers."""

from django.utils.translation import gettext as _

from tournament.services.errors import ServiceError

from ...models import SheetSeat
from ..base import Judgement, SheetGame
from .entry import Entry, SeatEntry, has_knocked_rack_rule, judge, ruleset_of
from .forms import SheetCorrectionForm, SheetForm, initial_from_sheet, tile_pad

__all__ = ["CLASSIC", "Entry", "SeatEntry", "judge", "ruleset_of"]


class ClassicGame(SheetGame):
    key = "classic"
    entry_template = "scoring/referee/classic/_entry.html"
    check_template = "scoring/referee/classic/_check.html"
    recorded_template = "scoring/referee/_sheet.html"
    line_template = "scoring/board/classic/_line.html"
    review_template = ""
    script = "js/sheet.js"
    badge = ""
    page_class = ""
    check_id = "sheet-check"
    marks_seats = True  # the check marks each problem at its seat card
    keeps_drafts = True  # static/js/sheet.js keeps a draft on the phone until the server has the sheet

    def check_kind(self, entry) -> None:
        if not isinstance(entry, Entry):
            raise ServiceError(_("This event is not a Rummikub Word event."), code="not_word")

    def check_seats(self, entry: Entry, seats) -> None:
        expected = {(seat.position, seat.registration_id) for seat in seats}
        entered = {(seat.position, seat.registration_id) for seat in entry.seats}
        if expected != entered or len(entry.seats) != len(seats):
            raise ServiceError(_("The sheet must name exactly the players seated at this table."),
                               code="wrong_players")

    def judge(self, event, seats, entry: Entry) -> Judgement:
        return judge(ruleset_of(event), entry)

    def store(self, sheet, seats, entry: Entry, judgement: Judgement) -> None:
        lines = []
        for seat in entry.seats:
            result = judgement.result(seat.position)
            lines.append(SheetSeat(
                sheet=sheet, position=seat.position, registration_id=seat.registration_id, went_out=seat.went_out,
                tiles=seat.tiles.strip().upper(), rack_value=seat.rack_value, jokers=seat.jokers or 0,
                opened=seat.opened,
                could_open=result.could_open if result.could_open is not None else seat.could_open,
                conduct_penalty=seat.conduct_penalty, penalty=result.penalty, score=result.score, win=result.win,
            ))
        SheetSeat.objects.bulk_create(lines)

    def audit(self, seats, entry: Entry, judgement: Judgement) -> dict:
        return {"end": entry.end, "seats": [
            {"seat": seat.position, "registration": seat.registration_id,
             "score": str(judgement.result(seat.position).score), "win": judgement.result(seat.position).win}
            for seat in entry.seats
        ]}

    def entry_form(self, data=None, *, event, seats, initial=None, require_key=True) -> SheetForm:
        return SheetForm(data, seats=seats, knocked_rack=has_knocked_rack_rule(event), initial=initial,
                         require_key=require_key)

    def correction_form(self, data=None, *, event, seats, initial=None) -> SheetCorrectionForm:
        return SheetCorrectionForm(data, seats=seats, knocked_rack=has_knocked_rack_rule(event), initial=initial)

    def initial_from(self, sheet) -> dict:
        return initial_from_sheet(sheet)

    def entry_context(self) -> dict:
        return {"pad": tile_pad()}

    def check_context(self, form, judgement: Judgement | None) -> dict:
        """The seat cards with each seat's problems and result, under the form's fields."""
        rows = form.seat_rows() if form is not None else []
        for row in rows:
            row["problems"] = judgement.seat_problems(row["position"]) if judgement else []
            row["result"] = judgement.result(row["position"]) if judgement else None
        return {"rows": rows}


CLASSIC = ClassicGame()
