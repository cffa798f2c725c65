"""A table whose players keep its sheet: the player's way in from their personal page (the same table and game
pages as a referee's, scoring/views/referee.py), and the answer a seated player gives to the sheet as entered —
from their personal page, or from the table card with their seat's code.

An answer is a plain form post (the page then shows the sheet as it stands); the phone's outbox sends one
queued offline and asks for JSON (static/js/answer-outbox.js), which says what became of it.
"""

from functools import wraps

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from tournament.services.errors import ServiceError
from tournament.views.errors import page_not_found
from tournament.zone import use_festival_zone

from ..forms.table_players import AnswerForm
from ..models import ScoreSheet
from ..services.access import TableAccess, table_for_player
from ..services.table_sheets import answer_sheet, sheet_changed
from .offline import sheet_status
from .referee import by_link, enter_table, game_page, preview, refusal_page, table_page
from .seat_codes import seated_here


def by_player(view):
    @wraps(view)
    def wrapper(request, token, event, stage=None, **kwargs):
        access = table_for_player(token, event)
        if access is None:
            return refusal_page(request, page_not_found(request))
        if not isinstance(access, TableAccess):  # a known player with no table to keep now
            use_festival_zone(access.festival)
            return refusal_page(request, render(request, "scoring/referee/player_no_table.html", {"player": access}))
        if stage is not None and stage != access.stage.number:
            messages.warning(request, _("That round is over. Here is your table in %(stage)s.")
                             % {"stage": access.stage.display_name})
            return redirect(access.table_url())
        return enter_table(request, view, access, kwargs)
    return wrapper


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@require_POST
def answer(request, access: TableAccess, game: int):
    """A seated player agrees to or disputes the version of the game's sheet they saw."""
    form = AnswerForm(request.POST, asks_seat_code=access.asks_seat_code)
    try:
        if not form.is_valid():
            raise ServiceError(" ".join(str(m) for errors in form.errors.values() for m in errors), code="invalid")
        data = form.cleaned_data
        sheet = ScoreSheet.objects.select_related("stage__event").filter(
            pk=data["sheet"], stage=access.stage, game=game, table_number=access.table_number).first()
        if sheet is None or access.answer_url(game) is None:
            raise sheet_changed()
        player = seated_here(request, access, game)
        given = answer_sheet(sheet=sheet, version=data["version"], player=player, agree=data["answer"] == "agree",
                             reason=data["reason"], idempotency_key=data["key"])
    except ServiceError as error:
        if _wants_json(request):
            return JsonResponse({"status": "refused", "code": error.code, "message": error.message})
        messages.error(request, error.message)
        return redirect(access.game_url(game))
    said = (_("Seat %(seat)s agreed to the sheet.") if given.answer == given.Answer.AGREED
            else _("Seat %(seat)s disputed the sheet: the chief referee is told.")) % {"seat": given.position}
    if _wants_json(request):
        return JsonResponse({"status": given.answer, "message": said})
    messages.success(request, said)
    return redirect(access.game_url(game))


def _player(view):
    return never_cache(by_player(view))


PLAYER = "p/<str:token>/sheets/<slug:event>/"
PLAYER_GAME = PLAYER + "stage-<int:stage>/game/<int:game>/"
urlpatterns = [
    path(PLAYER, _player(table_page), name="player-sheet-table"),
    path(PLAYER_GAME, _player(game_page), name="player-sheet-game"),
    path(PLAYER_GAME + "preview/", _player(preview), name="player-sheet-preview"),
    path(PLAYER_GAME + "status/", _player(sheet_status), name="player-sheet-status"),
    path(PLAYER_GAME + "answer/", _player(answer), name="player-sheet-answer"),
    path("t/<str:token>/stage-<int:stage>/game/<int:game>/answer/", never_cache(by_link(answer)),
         name="referee-link-answer"),
]
