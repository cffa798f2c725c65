"""The organiser's draw pages (issue 4): start the event, draft, swap, redraw, release, print, table cards."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ..forms.draws import DrawForm, SwapForm, UnreleaseForm
from ..models import Draw, Seat, Stage
from ..permissions import ORGANISER, require_role
from ..qr import qr_svg
from ..services import ServiceError
from ..services import draws as draw_services
from ..services.audit import Actor
from .helpers import get_event


def _organiser_event(request, festival, event):
    event = get_event(festival, event)
    require_role(request.user, event.festival, ORGANISER)
    return event


def seats_of(draw: Draw):
    return list(
        Seat.objects.filter(draw=draw).select_related("table", "registration__player").order_by("table__number", "position")
    )


def tables_of(seats, violations=()):
    """Seats grouped by table, each seat marked when it is part of an unmet constraint at its table."""
    flagged = {(v["table"], player) for v in violations for player in v["players"]}
    tables: dict[int, list] = {}
    for seat in seats:
        seat.flagged = (seat.table.number, seat.registration_id) in flagged
        tables.setdefault(seat.table.number, []).append(seat)
    return sorted(tables.items())


def current_draw(stage: Stage):
    """The seating players need now: Hong Kong seats every later game by movement (R8.2), so the latest game."""
    return stage.draws.exclude(status=Draw.Status.DISCARDED).order_by("-game", "-created_at").first()


def _back(event):
    return redirect("manage-draws", festival=event.festival.slug, event=event.slug)


def _run(request, event, action, success_message):
    try:
        action()
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, success_message)
    return _back(event)


@login_required
def draws_page(request, festival, event):
    event = _organiser_event(request, festival, event)
    stages = list(event.stages.all())
    stage = stages[-1] if stages else None
    draw = current_draw(stage) if stage else None
    seats = seats_of(draw) if draw else []
    names = {seat.registration_id: seat.registration.player.name for seat in seats}
    violations = [dict(v, names=[names.get(p, p) for p in v["players"]]) for v in (draw.violations if draw else [])]
    context = {
        "festival": event.festival, "event": event, "stages": stages, "stage": stage, "draw": draw,
        "tables": tables_of(seats, draw.violations if draw else ()), "violations": violations,
        "draw_form": DrawForm(), "swap_form": SwapForm(seats=seats) if draw and draw.is_draft else None,
        "unrelease_form": UnreleaseForm(),
        "checked_in": draw_services.checked_in(event).count(),
    }
    return render(request, "tournament/draws/manage.html", context)


@login_required
@require_POST
def start(request, festival, event):
    event = _organiser_event(request, festival, event)
    return _run(request, event, lambda: draw_services.start_event(event=event, actor=Actor.of(request)),
                _("The first round is ready to be drawn."))


@login_required
@require_POST
def draft(request, festival, event, stage):
    event = _organiser_event(request, festival, event)
    stage = get_object_or_404(Stage, event=event, number=stage)
    form = DrawForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("seed", []):
            messages.error(request, error)
        return _back(event)
    return _run(request, event,
                lambda: draw_services.draft_draw(stage=stage, actor=Actor.of(request), seed=form.cleaned_data["seed"]),
                _("A new draft draw is ready. Check it, then release it."))


def _event_draw(request, festival, event, draw):
    event = _organiser_event(request, festival, event)
    return event, get_object_or_404(Draw, pk=draw, stage__event=event)


@login_required
@require_POST
def swap(request, festival, event, draw):
    event, draw = _event_draw(request, festival, event, draw)
    form = SwapForm(request.POST, seats=seats_of(draw))
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return _back(event)
    return _run(request, event,
                lambda: draw_services.swap_seats(draw=draw, first=form.cleaned_data["first"],
                                                 second=form.cleaned_data["second"], actor=Actor.of(request)),
                _("The two players have swapped seats."))


@login_required
@require_POST
def release(request, festival, event, draw):
    event, draw = _event_draw(request, festival, event, draw)
    return _run(request, event, lambda: draw_services.release_draw(draw=draw, actor=Actor.of(request)),
                _("The draw is released: players can see their tables now."))


@login_required
@require_POST
def unrelease(request, festival, event, draw):
    event, draw = _event_draw(request, festival, event, draw)
    form = UnreleaseForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason for taking the draw back."))
        return _back(event)
    return _run(request, event,
                lambda: draw_services.unrelease_draw(draw=draw, actor=Actor.of(request), reason=form.cleaned_data["reason"]),
                _("The draw is back to draft and hidden from players."))


@login_required
def print_draw(request, festival, event, draw):
    event, draw = _event_draw(request, festival, event, draw)
    seats = seats_of(draw)
    by_name = sorted(seats, key=lambda seat: seat.registration.player.name_key)
    return render(request, "tournament/draws/print.html", {
        "festival": event.festival, "event": event, "draw": draw, "tables": tables_of(seats), "by_name": by_name,
    })


@login_required
def table_cards(request, festival, event, draw):
    event, draw = _event_draw(request, festival, event, draw)
    cards = []
    for number, seats in tables_of(seats_of(draw)):
        url = request.build_absolute_uri(
            reverse("public-table", kwargs={"festival": event.festival.slug, "event": event.slug, "number": number})
        )
        cards.append({"number": number, "seats": seats, "url": url, "qr": qr_svg(url)})
    return render(request, "tournament/draws/cards.html",
                  {"festival": event.festival, "event": event, "draw": draw, "cards": cards})


urlpatterns = [
    path("<slug:festival>/<slug:event>/draws/", draws_page, name="manage-draws"),
    path("<slug:festival>/<slug:event>/draws/start/", start, name="draw-start"),
    path("<slug:festival>/<slug:event>/draws/stage-<int:stage>/draft/", draft, name="draw-draft"),
    path("<slug:festival>/<slug:event>/draws/<int:draw>/swap/", swap, name="draw-swap"),
    path("<slug:festival>/<slug:event>/draws/<int:draw>/release/", release, name="draw-release"),
    path("<slug:festival>/<slug:event>/draws/<int:draw>/unrelease/", unrelease, name="draw-unrelease"),
    path("<slug:festival>/<slug:event>/draws/<int:draw>/print/", print_draw, name="draw-print"),
    path("<slug:festival>/<slug:event>/draws/<int:draw>/cards/", table_cards, name="draw-cards"),
]
