"""The referee's game page for a Rummikub Word event (issue 8, R10): same addresses, access, sheet life
cycle and live check as the classic page (scoring.views.referee dispatches here when event.game is "word");
only the form differs — turn by turn, then jokers left — and the running totals it shows."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from ..forms.entry import new_key
from ..forms.word import WordSheetForm, initial_from_word_sheet, more_rows_data
from ..services.access import TableAccess
from ..services.word_sheets import judge_word, submit_word_sheet
from .referee import _context, _Game, draft_key, submitted


def check_rows(form: WordSheetForm | None, judgement) -> dict:
    """What the check panel shows: each judged turn (points, running total) and each seat's total."""
    if form is None:
        return {}
    names = {s.position: s.registration.player.name for s in form.seats}
    turn_lines = []
    if judgement is not None and judgement.score is not None:
        turn_lines = [{"turn": t, "name": names.get(t.seat, "")} for t in judgement.score.turns]
    seat_totals = [{"seat": s, "position": s.position, "result": judgement.result(s.position) if judgement else None}
                   for s in form.seats]
    return {"turn_lines": turn_lines, "seat_totals": seat_totals}


class _WordGame(_Game):
    def form(self, data=None, *, require_key=True) -> WordSheetForm:
        initial = {"idempotency_key": new_key()}
        if self.returned is not None:
            initial.update(initial_from_word_sheet(self.returned))
        return WordSheetForm(data, seats=self.seats, initial=initial, require_key=require_key)

    def render(self, request, *, form=None, judgement=None, shown=None, status=200, notice=""):
        access = self.access
        if form is None and self.open_for_entry and shown is None:
            form = self.form()
        sheet = shown or self.live
        return render(request, "scoring/referee/word_game.html", _context(
            access, game=self.number, seats=self.seats, released=self.released, form=form,
            turn_rows=form.turn_rows() if form is not None else [],
            joker_rows=form.joker_rows() if form is not None else [],
            judgement=judgement, sheet=sheet, returned=self.returned, notice=notice,
            turns=list(sheet.word_turns.all()) if sheet is not None else [],
            submit_url=access.game_url(self.number), preview_url=access.preview_url(self.number),
            done_drafts=" ".join(draft_key(access, s.game, s.idempotency_key) for s in self.sheets),
            **check_rows(form, judgement),
        ), status=status)


def _judge(form: WordSheetForm):
    turns, jokers = form.entry()
    return judge_word(form.seats, turns, jokers)


def word_game_page(request, access: TableAccess, game: int):
    current = _WordGame(access, game)
    if request.method != "POST":
        return current.render(request)
    if not current.seats:
        messages.error(request, _("This game has not been released yet.") if not current.released
                       else _("There is no such table in this game."))
        return redirect(access.game_url(game))
    action = request.POST.get("action")
    if action == "more":  # "more rows" without JavaScript: the same sheet, longer; nothing is checked or saved
        form = current.form(more_rows_data(request.POST, current.seats))
        form.is_valid()
        return current.render(request, form=form)
    form = current.form(request.POST)
    if not form.is_valid():
        return current.render(request, form=form, notice=_("Please correct the marked fields."))
    if action == "check":
        return current.render(request, form=form, judgement=_judge(form))
    turns, jokers = form.entry()
    return submitted(request, current, access, game, form, lambda: submit_word_sheet(
        stage=access.stage, game=game, table_number=access.table_number, turns=turns, jokers_left=jokers,
        end=form.cleaned_data["end"], accept_warnings=form.cleaned_data["accept_warnings"],
        idempotency_key=form.cleaned_data["idempotency_key"], actor=access.actor, via=access.via))


def word_preview(request, access: TableAccess, game: int):
    """The live check: each turn's points, every player's running total, and every problem."""
    current = _WordGame(access, game)
    if not current.seats:
        return render(request, "scoring/referee/_word_check.html", {"unavailable": True})
    form = current.form(request.POST, require_key=False)
    judgement = _judge(form) if form.is_valid() else None
    return render(request, "scoring/referee/_word_check.html", {
        "form": form, "judgement": judgement, **check_rows(form, judgement),
    })

