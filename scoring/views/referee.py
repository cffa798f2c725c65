"""The referee's entry on the phone: a table's games, and one game's score sheet, for every game.

Two ways in reach the same pages: the table's private link (`t/<token>/`, no account: the table of that
number in the event's current stage) and a signed-in referee's address (`referee/<stage>/<table>/`, for the
referee holding that table number of the event, or the chief referee). Either way in, every page the table's
phone asks for notes that the table was heard from (the live board shows it). Every page works as plain
GET/POST forms; htmx adds the live check (`…/preview/`), which answers with exactly the judgement the submit
will apply. What differs between Rummikub and Rummikub Word (the form, the check, the rows) comes from
`scoring.games.game_of`.
"""

from functools import wraps
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Prefetch
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from tournament.services import seating
from tournament.services.errors import ServiceError
from tournament.views.errors import page_not_found, permission_denied
from tournament.zone import use_festival_zone

from ..forms.common import new_key
from ..forms.table_players import AnswerForm
from ..games import game_of
from ..models import ScoreSheet, SheetSeat
from ..services.access import LinkRefusal, TableAccess, table_by_link, table_for_user, table_stage
from ..services.agreement import agreements
from ..services.links import heard_from
from ..services.sheets import SheetExists, SheetRefused, submit_sheet
from ..services.table_sheets import correct_entered_sheet, enter_sheet, sheet_changed
from .seat_codes import seated_here

DRAFT_PREFIX = "rk-sheet"


# --- ways in ---------------------------------------------------------------------------------------------

def refusal_page(request, response):
    if request.htmx:  # a refused live check reloads the page instead of swapping an error page into it
        response["HX-Refresh"] = "true"
    return response


def by_link(view):
    @wraps(view)
    def wrapper(request, token, stage=None, **kwargs):
        access = table_by_link(token, request.user)
        if isinstance(access, LinkRefusal):
            return refusal_page(request, link_refused(request, access))
        heard_from(link=access.link)
        if stage is not None and stage != access.stage.number:
            # A page of an earlier round (a form left open, a draft sent late): nothing is saved there, and the
            # card now opens the current round.
            messages.warning(request, _("That round is over. This card now opens table %(table)s of %(stage)s.")
                             % {"table": access.table_number, "stage": access.stage.display_name})
            if request.htmx:
                return HttpResponseClientRedirect(access.table_url())
            return redirect(access.table_url())
        return enter_table(request, view, access, kwargs)
    return wrapper


def link_refused(request, refusal: LinkRefusal):
    """Why a table card opens no table, in the layout and the reader's language. Every unknown or malformed
    token gets the same page (404): it tells nothing about which tokens exist."""
    return render(request, "scoring/referee/link_refused.html", {"refusal": refusal},
                  status=refusal.status)


def by_account(view):
    @wraps(view)
    def wrapper(request, stage_id, table, **kwargs):
        stage = table_stage(stage_id, table)
        if stage is None:
            return refusal_page(request, page_not_found(request))
        if not request.user.is_authenticated:
            target = reverse("referee-table", kwargs={"stage_id": stage_id, "table": table})
            if request.htmx:
                return HttpResponseClientRedirect(f"{reverse('login')}?{urlencode({'next': target})}")
            return redirect_to_login(request.get_full_path() if request.method == "GET" else target)
        access = table_for_user(request.user, stage, table)
        if access is None:
            return refusal_page(request, permission_denied(request))
        if access.assignment is not None:  # the table's own referee: the board hears from the table
            heard_from(assignment=access.assignment)
        return enter_table(request, view, access, kwargs)
    return wrapper


def enter_table(request, view, access: TableAccess, kwargs):
    use_festival_zone(access.stage.event.festival)
    game = kwargs.get("game")
    if game is not None and not 1 <= game <= access.stage.games:
        return refusal_page(request, page_not_found(request))
    return view(request, access, **kwargs)


# --- what the pages show ---------------------------------------------------------------------------------

def draft_key(access: TableAccess, game: int, idempotency_key: str) -> str:
    """The browser's localStorage key of a draft; the JavaScript builds the same from the page's data."""
    return f"{DRAFT_PREFIX}|{access.draft_scope}|{game}|{idempotency_key}"


def _sheets(access: TableAccess, game: int | None = None):
    sheets = ScoreSheet.objects.filter(stage=access.stage, table_number=access.table_number)
    if game is not None:
        sheets = sheets.filter(game=game)
    return list(
        sheets.select_related("submitted_by").prefetch_related(
            Prefetch("seats", queryset=SheetSeat.objects.select_related("registration__player").order_by("position"))
        ).order_by("game", "-version")
    )


def _games(access: TableAccess, sheets) -> list[dict]:
    """Each game of the stage at this table: its seating (seat order) and its newest sheet."""
    latest = {}
    for sheet in sheets:
        latest.setdefault(sheet.game, sheet)
    seats_of_draw = {}
    rows = []
    for game in range(1, access.stage.games + 1):
        draw = seating.game_draw(access.stage, game)
        if draw is not None and draw.pk not in seats_of_draw:
            seats_of_draw[draw.pk] = seating.seats(draw, table=access.table_number)
        seats = seats_of_draw[draw.pk] if draw is not None else []
        sheet = latest.get(game)
        if sheet is not None and sheet.status != ScoreSheet.Status.SUPERSEDED:
            state = sheet.status
        elif draw is None:
            state = "not_released"
        elif not seats:
            state = "no_table"
        else:
            state = "to_enter"
        rows.append({"number": game, "state": state, "seats": seats, "sheet": sheet, "url": access.game_url(game)})
    return rows


def _context(access: TableAccess, **extra) -> dict:
    stage = access.stage
    return {"access": access, "stage": stage, "event": stage.event, "table_number": access.table_number,
            "closed": stage.closed_at is not None, **extra}


@require_safe
def table_page(request, access: TableAccess):
    sheets = _sheets(access)
    games = _games(access, sheets)
    return render(request, "scoring/referee/table.html", _context(
        access, games=games,
        # The sheets still to enter, kept on the phone for a dropped Wi-Fi (static/js/offline.js).
        offline_prefetch=" ".join(row["url"] for row in games if row["state"] in ("to_enter", "returned")),
        # Every sheet the server holds for this table acknowledges the draft it was sent from.
        done_drafts=" ".join(draft_key(access, sheet.game, sheet.idempotency_key) for sheet in sheets),
    ))


class _Game:
    """One game at the table: its seating, the newest sheet, the form state, and the game's strategy."""

    def __init__(self, access: TableAccess, game: int):
        self.access, self.number = access, game
        self.rules = game_of(access.stage.event)
        draw = seating.game_draw(access.stage, game)
        self.seats = seating.seats(draw, table=access.table_number) if draw is not None else []
        self.released = draw is not None
        self.sheets = _sheets(access, game)
        newest = self.sheets[0] if self.sheets else None
        self.live = newest if newest is not None and newest.status in ScoreSheet.LIVE else None
        self.returned = newest if newest is not None and newest.status == ScoreSheet.Status.RETURNED else None

    @property
    def open_for_entry(self) -> bool:
        return bool(self.seats) and self.live is None and self.access.stage.closed_at is None

    @property
    def correctable(self) -> bool:
        """A player of a table keeping its own sheet may correct it into a new version until it is confirmed."""
        return (self.access.answer_url(self.number) is not None and self.live is not None
                and self.live.status == ScoreSheet.Status.SUBMITTED and self.access.stage.closed_at is None)

    def form(self, data=None, *, require_key=True, correcting=False):
        initial = {"idempotency_key": new_key()}
        if correcting:
            initial.update(self.rules.initial_from(self.live))
        elif self.returned is not None:
            initial.update(self.rules.initial_from(self.returned))
        return self.rules.entry_form(data, event=self.access.stage.event, seats=self.seats, initial=initial,
                                     require_key=require_key)

    def judge(self, form):
        return self.rules.judge(self.access.stage.event, self.seats, form.entry())

    def render(self, request, *, form=None, judgement=None, shown=None, status=200, notice="", correcting=False):
        access = self.access
        if form is None and self.open_for_entry and shown is None:
            form = self.form()
        elif form is None and correcting and self.correctable:
            form = self.form(correcting=True)
        sheet = None if correcting and form is not None else (shown or self.live)
        answer_url = access.answer_url(self.number)
        agreement = agreements([sheet], access.stage.event).get(sheet.pk) if sheet and answer_url else None
        return render(request, "scoring/referee/game.html", _context(
            access, agreement=agreement, answer_url=answer_url, correctable=self.correctable,
            # The version the player is correcting: the one they opened, kept through a re-shown form.
            correcting=(request.POST.get("correcting", "")[:5] or self.live.version)
            if correcting and form is not None and self.live else None,
            seat_code=access.asks_seat_code, my_seat=(my_seat := _my_seat(access, sheet)),
            my_answer=agreement.answers.get(my_seat) if agreement is not None and my_seat else None,
            answer_form=_answer_form(access, sheet) if agreement is not None else None,
            answer_rows=_answer_rows(sheet, agreement) if agreement is not None else [],
            done_url=access.game_url(self.number) if answer_url else access.table_url(),
            game=self.number, rules=self.rules, seats=self.seats, released=self.released, form=form,
            judgement=judgement, sheet=sheet, returned=self.returned, notice=notice,
            submit_url=access.game_url(self.number), preview_url=access.preview_url(self.number),
            status_url=access.status_url(self.number),
            draft_scope=access.draft_scope, restore=form is not None and not form.is_bound,
            done_drafts=" ".join(draft_key(access, s.game, s.idempotency_key) for s in self.sheets),
            **(self.rules.entry_context() if form is not None else {}),
            **self.rules.check_context(form, judgement),
        ), status=status)


def _my_seat(access: TableAccess, sheet: ScoreSheet | None) -> int | None:
    """The seat of the player whose personal page this is, on the sheet shown."""
    if access.player is None or sheet is None:
        return None
    return next((seat.position for seat in sheet.seats.all() if seat.registration_id == access.player.pk), None)


def _answer_form(access: TableAccess, sheet: ScoreSheet) -> AnswerForm:
    return AnswerForm(asks_seat_code=access.asks_seat_code, sheet=sheet)


def _answer_rows(sheet: ScoreSheet, agreement) -> list[dict]:
    """Each seat of the sheet with its player's latest answer (None: not yet)."""
    return [{"seat": seat, "answer": agreement.answers.get(seat.position)} for seat in sheet.seats.all()]


def _send(request, access: TableAccess, game: int, current: "_Game", form):
    """Records the sheet: a referee's (or the chief's) submission as ever; at a table keeping its own sheet, the
    seated player's entry or correction (the table card says which seat by its code)."""
    values = {"entry": form.entry(), "accept_warnings": form.cleaned_data["accept_warnings"],
              "idempotency_key": form.cleaned_data["idempotency_key"]}
    if access.player is None and not access.asks_seat_code:
        return submit_sheet(stage=access.stage, game=game, table_number=access.table_number, actor=access.actor,
                            via=access.via, **values)
    player = seated_here(request, access, game)
    correcting = request.POST.get("correcting", "")
    if correcting:
        if current.live is None or not correcting.isdecimal():
            raise sheet_changed()
        return correct_entered_sheet(sheet=current.live, version=int(correcting[:5]), player=player, **values)
    return enter_sheet(stage=access.stage, game=game, table_number=access.table_number, player=player, **values)


# --- the game page: GET shows, POST checks or submits ----------------------------------------------------

@require_http_methods(["GET", "HEAD", "POST"])
def game_page(request, access: TableAccess, game: int):
    current = _Game(access, game)
    correcting = request.GET.get("correct") == "1" or bool(request.POST.get("correcting"))
    if request.method != "POST":
        return current.render(request, correcting=correcting)
    if not current.seats:
        messages.error(request, _("This game has not been released yet.") if not current.released
                       else _("There is no such table in this game."))
        return redirect(access.game_url(game))
    action = request.POST.get("action")
    longer = current.rules.more_rows(request.POST, current.seats) if action == "more" else None
    if longer is not None:  # "more rows" without JavaScript: the same sheet, longer; nothing is checked or saved
        form = current.form(longer)
        form.is_valid()
        return current.render(request, form=form, correcting=correcting)
    form = current.form(request.POST)
    if not form.is_valid():
        return current.render(request, form=form, notice=_("Please correct the marked fields."),
                              correcting=correcting)
    if action == "check":  # the live check without JavaScript: nothing is saved
        return current.render(request, form=form, judgement=current.judge(form), correcting=correcting)
    try:
        sheet = _send(request, access, game, current, form)
    except SheetRefused as refused:
        return current.render(request, form=form, judgement=refused.judgement, notice=refused.message,
                              correcting=correcting)
    except SheetExists as exists:
        if exists.sheet is None:  # the other sheet vanished in a race (returned meanwhile): keep what was typed
            return current.render(request, form=form, notice=exists.message)
        current.live = exists.sheet
        return current.render(request, shown=exists.sheet, notice=exists.message)
    except ServiceError as error:
        if error.code == "changed":  # corrected or confirmed meanwhile: the sheet as it is now
            return current.render(request, notice=error.message)
        return current.render(request, form=form, notice=error.message, correcting=correcting)
    if not _is_this_tables_live_sheet(sheet, access, game):
        # The key belonged to an earlier draft that was returned (or to another table): send a new one.
        fresh = current.form(_with_new_key(request.POST))
        fresh.is_valid()
        return current.render(request, form=fresh, notice=_(
            "This draft was already sent earlier. Check the sheet and send it again."))
    if access.answer_url(game) is not None:  # the table's players answer it next: the sheet, as entered
        messages.success(request, _("Game %(game)s of table %(table)s is entered: the other players at the table "
                                    "agree to it on their phones.") % {"game": game, "table": access.table_number})
        return redirect(access.game_url(game))
    messages.success(request, _("Game %(game)s of table %(table)s was sent to the chief referee.")
                     % {"game": game, "table": access.table_number})
    return redirect(access.table_url())


def _is_this_tables_live_sheet(sheet: ScoreSheet, access: TableAccess, game: int) -> bool:
    return (sheet.stage_id == access.stage.pk and sheet.game == game and sheet.table_number == access.table_number
            and sheet.status in ScoreSheet.LIVE)


def _with_new_key(data):
    data = data.copy()
    data["idempotency_key"] = new_key()
    return data


@require_POST
def preview(request, access: TableAccess, game: int):
    """The live check: each seat's result, every problem, and what the game adds (zero-sum, running totals)."""
    current = _Game(access, game)
    if not current.seats:
        return render(request, "scoring/referee/_check.html", {"unavailable": True})
    form = current.form(request.POST, require_key=False)
    judgement = current.judge(form) if form.is_valid() else None
    return render(request, "scoring/referee/_check.html", {
        "form": form, "judgement": judgement, "rules": current.rules, "oob": True,
        **current.rules.check_context(form, judgement),
    })


# --- routes ----------------------------------------------------------------------------------------------

def _link(view):
    return never_cache(by_link(view))


def _account(view):
    return never_cache(by_account(view))


# Pages with a table's secret in the address or a sheet in progress are never cached.
urlpatterns = [
    path("t/<str:token>/", _link(table_page), name="referee-link-table"),
    path("t/<str:token>/stage-<int:stage>/game/<int:game>/", _link(game_page), name="referee-link-game"),
    path("t/<str:token>/stage-<int:stage>/game/<int:game>/preview/", _link(preview), name="referee-link-preview"),
    path("referee/<int:stage_id>/<int:table>/", _account(table_page), name="referee-table"),
    path("referee/<int:stage_id>/<int:table>/game/<int:game>/", _account(game_page), name="referee-game"),
    path("referee/<int:stage_id>/<int:table>/game/<int:game>/preview/", _account(preview),
         name="referee-preview"),
]
