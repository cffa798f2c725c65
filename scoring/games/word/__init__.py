"""Rummikub Word (R10): a sheet holds every turn — the words formed or "drew" — and each seat's jokers left.

Its SheetSeat rows hold each player's total as `score`, `win`, `penalty` = 30 per joker left and `jokers` =
jokers left, so standings, exports and the board read a Word sheet like any other; the turns are WordTurn rows.
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rules.word import JOKER_LEFT_PENALTY
from tournament.services.errors import ServiceError

from ...models import ScoreSheet, SheetSeat, WordTurn
from ..base import Judgement, SheetGame
from ..problems import message
from .entry import WordEntry, WordTurnEntry, judge
from .forms import WordCorrectionForm, WordSheetForm, initial_from_word_sheet, more_rows_data

__all__ = ["WORD", "WordEntry", "WordTurnEntry", "judge"]


class WordGame(SheetGame):
    key = "word"
    entry_template = "scoring/referee/word/_entry.html"
    check_template = "scoring/referee/word/_check.html"
    recorded_template = "scoring/referee/word/_sheet.html"
    line_template = "scoring/board/word/_line.html"
    review_template = "scoring/board/word/_review.html"
    script = "js/word-sheet.js"
    badge = gettext_lazy("Rummikub Word")
    page_class = "word-sheet-page"
    check_id = "word-check"
    marks_seats = False
    keeps_drafts = False

    def check_kind(self, entry) -> None:
        if not isinstance(entry, WordEntry):
            raise ServiceError(_("This is a Rummikub Word event; its sheets are entered turn by turn."),
                               code="word_event")
        if entry.end not in ScoreSheet.End.values:
            raise ServiceError(message("bad_end"), code="bad_end")

    def check_seats(self, entry: WordEntry, seats) -> None:
        positions = {s.position for s in seats}
        if any(t.seat not in positions for t in entry.turns) or any(p not in positions for p in entry.jokers_left):
            raise ServiceError(_("The sheet must name exactly the players seated at this table."),
                               code="wrong_players")

    def judge(self, event, seats, entry: WordEntry) -> Judgement:
        return judge(seats, entry)

    def store(self, sheet, seats, entry: WordEntry, judgement: Judgement) -> None:
        # "Went out" = the player whose turn ended the game by emptying the rack (R10), when it ended that way.
        last = entry.turns[-1].seat if entry.turns and entry.end == ScoreSheet.End.WENT_OUT else None
        SheetSeat.objects.bulk_create([
            SheetSeat(sheet=sheet, position=s.position, registration_id=s.registration_id,
                      went_out=s.position == last, jokers=judgement.result(s.position).jokers_left,
                      penalty=JOKER_LEFT_PENALTY * judgement.result(s.position).jokers_left,
                      score=judgement.result(s.position).total, win=judgement.result(s.position).win)
            for s in seats
        ])
        WordTurn.objects.bulk_create([
            WordTurn(sheet=sheet, index=scored.number, position=turn.seat, words=" ".join(scored.words),
                     drew=not scored.words, used_all_tiles=turn.used_all_tiles, points=scored.points)
            for turn, scored in zip(entry.turns, judgement.score.turns, strict=True)
        ])

    def audit(self, seats, entry: WordEntry, judgement: Judgement) -> dict:
        return {"end": entry.end, "game": "word", "turns": len(judgement.score.turns), "seats": [
            {"seat": s.position, "registration": s.registration_id, "score": judgement.result(s.position).total,
             "win": judgement.result(s.position).win} for s in seats]}

    def entry_form(self, data=None, *, event, seats, initial=None, require_key=True) -> WordSheetForm:
        return WordSheetForm(data, seats=seats, initial=initial, require_key=require_key)

    def correction_form(self, data=None, *, event, seats, initial=None) -> WordCorrectionForm:
        return WordCorrectionForm(data, seats=seats, initial=initial)

    def initial_from(self, sheet) -> dict:
        return initial_from_word_sheet(sheet)

    def review_context(self, sheet, lines) -> dict:
        """The sheet's turns with each player's name; one query."""
        names = {line.position: line.registration.player.name for line in lines}
        turns = list(sheet.word_turns.all())
        for turn in turns:
            turn.name = names.get(turn.position, "")
        return {"word_turns": turns}

    def more_rows(self, data, seats):
        return more_rows_data(data, seats)

    def check_context(self, form, judgement: Judgement | None) -> dict:
        """The turn rows and jokers of the form; each judged turn with its running total; each seat's total."""
        if form is None:
            return {}
        names = {s.position: s.registration.player.name for s in form.seats}
        turn_lines = []
        if judgement is not None and judgement.score is not None:
            turn_lines = [{"turn": t, "name": names.get(t.seat, "")} for t in judgement.score.turns]
        seat_totals = [{"seat": s, "position": s.position,
                        "result": judgement.result(s.position) if judgement else None} for s in form.seats]
        return {"turn_rows": form.turn_rows(), "joker_rows": form.joker_rows(), "turn_lines": turn_lines,
                "seat_totals": seat_totals}


WORD = WordGame()
