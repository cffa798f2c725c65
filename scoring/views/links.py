"""The organiser's table links, QR codes, referee cards, who holds each table, and paper score sheets.

A table link is the private address printed on the referee's table card: a referee enters that table's sheets
with it, without an account (scoring/views/referee.py). Links belong to the event (one card per table for the
whole event); the pages are reached from a stage, whose seating and paper sheets they show. Referees hold tables
for the whole event too: the links page shows who holds each and offers the referees page's forms
(scoring/views/referees.py)."""

from functools import lru_cache

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from tournament.formats import format_of
from tournament.models import Draw, Seat
from tournament.qr import qr_svg
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.views.helpers import form_errors, run_service

from ..forms.board import LinkForm, TableForm
from ..models import TableLink
from ..services import links as link_services
from ..standings import ranking_order
from .referees import referee_context
from .staff import PREFIX, get_stage, organiser_view, stage_url


@lru_cache(maxsize=2048)
def _qr(url: str, scale: int = 4) -> str:
    """A table's QR code; drawing one takes ~10 ms, so the links page of 128 tables reuses them."""
    return qr_svg(url, scale=scale)


def entry_url(request, token: str) -> str:
    """The referee's page of a table link (scoring/views/referee.py)."""
    return request.build_absolute_uri(reverse("referee-link-table", kwargs={"token": token}))


def _seating_by_table(draw: Draw | None) -> dict[int, list[Seat]]:
    return dict(seating.by_table(seating.seats(draw))) if draw is not None else {}


@require_safe
@never_cache
@organiser_view
def links_page(request, event, stage):
    stage = get_stage(event, stage)
    draws = seating.released_draws(stage)
    # Hong Kong seats every game anew (R8.2): the referee at a table needs to see who sits there now.
    tables = _seating_by_table(draws[max(draws)] if draws else None)
    live = link_services.live_links(event)
    referees = referee_context(event)
    rows = []
    for number, seats in sorted(tables.items()):
        link = live.get(number)
        url = entry_url(request, link.token) if link else ""
        rows.append({"number": number, "seats": seats, "link": link, "url": url, "qr": _qr(url) if url else "",
                     "assignment": referees["held"].get(number)})
    return render(request, "scoring/board/links.html", {
        "festival": event.festival, "event": event, "stage": stage, "rows": rows,
        "missing": len(set(seating.event_table_numbers(event)) - set(live)), **referees,
    })


def _link_action(request, event, stage, action, done):
    stage = get_stage(event, stage)
    return run_service(request, lambda: action(stage), done=done, then=stage_url(event, stage, "board-links"))


def _invalid(request, event, stage, form):
    messages.error(request, form_errors(form) or _("Something in the form is missing."))
    return redirect(stage_url(event, get_stage(event, stage), "board-links"))


@require_POST
@organiser_view
def make_links(request, event, stage):
    return _link_action(request, event, stage,
                        lambda s: link_services.ensure_links(event=s.event, actor=Actor.of(request)),
                        _("Every table has its private link for the whole event. Print the referee cards."))


@require_POST
@organiser_view
def revoke(request, event, stage):
    form = LinkForm(request.POST)
    if not form.is_valid():
        return _invalid(request, event, stage, form)
    link = get_object_or_404(TableLink, pk=form.cleaned_data["link"], event=event)
    return _link_action(request, event, stage,
                        lambda s: link_services.revoke_link(link=link, actor=Actor.of(request)),
                        _("The old link of table %(table)s no longer works; print the new one.")
                        % {"table": link.table_number})


@require_safe
@never_cache
@organiser_view
def print_sheets(request, event, stage):
    """Paper score sheets, one page per table: the Hong Kong layout of seed 003 with the table's entry QR."""
    stage = get_stage(event, stage)
    form = TableForm(request.GET)
    only = form.cleaned_data["table"] if form.is_valid() else None
    draws = seating.released_draws(stage)
    by_game = {game: _seating_by_table(draw) for game, draw in _unique(draws).items()}
    first = by_game.get(1, {})
    live = link_services.live_links(event)
    # Who holds each table now; a closed round's sheet leaves the line to be written by hand.
    held = link_services.current_referees(event) if not stage.closed_at else {}
    fmt = format_of(event)  # Hong Kong: each game seated anew, its seats written on its row (R8.2)
    positions = range(1, 1 + max((len(seats) for seats in first.values()), default=4))
    sheets = []
    for number, seats in sorted(first.items()):
        if only and number != only:
            continue
        link = live.get(number)
        # A closed stage's sheet is kept for the record: its QR would open another round's table.
        url = entry_url(request, link.token) if link and not stage.closed_at else ""
        rows = []
        for game in range(1, stage.games + 1):
            seated = by_game.get(fmt.draw_game(game), {}).get(number, []) if game in draws else []
            by_position = {seat.position: seat for seat in seated}
            rows.append({"game": game,
                         "seats": [by_position.get(p) for p in positions] if fmt.each_game_anew else None})
        sheets.append({"number": number, "seats": seats, "rows": rows, "qr": _qr(url, 3) if url else "",
                       "referees": [held[number].referee] if number in held else []})
    return render(request, "scoring/board/print.html", {
        "festival": event.festival, "event": event, "stage": stage, "sheets": sheets, "each_game_anew": fmt.each_game_anew,
        "positions": list(positions), "ranking_order": ranking_order(event),
    })


@require_safe
@never_cache
@organiser_view
def referee_cards(request, event):
    """The referees' table cards of the whole event, one per page: the table number and its private QR code.
    Printed once; each card opens its table in whichever round is being played."""
    form = TableForm(request.GET)
    only = form.cleaned_data["table"] if form.is_valid() else None
    cards = []
    for number, link in sorted(link_services.live_links(event).items()):
        if only and number != only:
            continue
        url = entry_url(request, link.token)
        # A player-run table: whoever holds the phone says which seat they are by their seat's code.
        codes = list(enumerate(link.seat_codes, start=1)) if event.sheets_by == event.SheetsBy.PLAYERS else []
        cards.append({"number": number, "qr": _qr(url, 6), "seat_codes": codes})
    return render(request, "scoring/board/cards.html", {
        "festival": event.festival, "event": event, "stage": seating.stage_in_play(event), "cards": cards,
        "missing": len(set(seating.event_table_numbers(event)) - {card["number"] for card in cards}),
    })


def _unique(draws: dict[int, Draw]) -> dict[int, Draw]:
    """Busan repeats game 1's draw for every game: read each seating once."""
    seen, out = set(), {}
    for game, draw in sorted(draws.items()):
        if draw.pk not in seen:
            seen.add(draw.pk)
            out[game] = draw
    return out


urlpatterns = [
    path(PREFIX + "links/<int:stage>/", links_page, name="board-links"),
    path(PREFIX + "links/<int:stage>/make/", make_links, name="board-links-make"),
    path(PREFIX + "links/<int:stage>/revoke/", revoke, name="board-links-revoke"),
    path(PREFIX + "links/<int:stage>/print/", print_sheets, name="board-print"),
    path(PREFIX + "links/cards/", referee_cards, name="board-link-cards"),
]
