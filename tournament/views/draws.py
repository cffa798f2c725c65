"""The organiser's draw pages: start the event, draft, swap, redraw, release, print, table cards."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from ..forms.draws import DrawForm, SwapForm, UnreleaseForm
from ..models import Draw, Stage
from ..models.registration import name_key
from ..permissions import ORGANISER
from ..public_names import public_name, told_apart
from ..qr import qr_svg
from ..services import draws as draw_services
from ..services import seating
from ..services.audit import Actor
from .confirm import Page, blocker_links, confirm_and_run
from .helpers import run_service, staff_view


def _back(event) -> str:
    return reverse("manage-draws", kwargs={"festival": event.festival.slug, "event": event.slug})


organiser_view = staff_view(ORGANISER, home="manage-draws")


@organiser_view
def draws_page(request, event):
    stages = list(event.stages.all())
    stage = stages[-1] if stages else None
    draw = seating.working_draw(stage) if stage else None
    seats = seating.seats(draw) if draw else []
    names = {seat.registration_id: seat.registration.player.name for seat in seats}
    one_table = len({seat.table.number for seat in seats}) == 1
    # At one table nobody can be kept apart: a draft stored before services.draws._violations_data said so may
    # still list constraints there.
    unmet = draw.violations if draw and not one_table else []
    violations = [dict(v, names=[names.get(p, p) for p in v["players"]]) for v in unmet]
    tables = seating.by_table(seats, unmet)
    context = {
        "festival": event.festival, "event": event, "stages": stages, "stage": stage, "draw": draw,
        "for_staff": True, "tables": tables, "violations": violations,
        "one_table_of": len(seats) if one_table else 0,  # everyone together: nobody to keep apart
        "draw_form": DrawForm(), "swap_form": SwapForm(seats=seats) if draw and draw.is_draft else None,
        "unrelease_form": UnreleaseForm(),
        "checked_in": draw_services.checked_in(event).count(),
        "start_blockers": blocker_links(draw_services.start_blockers(event), _start_fix(event)) if not stage else [],
    }
    return render(request, "tournament/draws/manage.html", context)


def _start_fix(event):
    def fix(blocker):
        where = {"festival": event.festival.slug, "event": event.slug}
        if blocker.code == "not_numbered":
            return reverse("manage-event", kwargs=where) + "#numbers-heading", _("Check-in and player numbers")
        if blocker.code == "too_few":
            return reverse("desk", kwargs=where), _("Check-in desk")
        return None
    return fix


@require_POST
@organiser_view
def start(request, event):
    return run_service(request, lambda: draw_services.start_event(event=event, actor=Actor.of(request)),
                       done=_("The first round is ready to be drawn."), then=_back(event))


@require_POST
@organiser_view
def draft(request, event, stage):
    stage = get_object_or_404(Stage, event=event, number=stage)
    form = DrawForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("seed", []):
            messages.error(request, error)
        return redirect(_back(event))
    return run_service(
        request, lambda: draw_services.draft_draw(stage=stage, actor=Actor.of(request), seed=form.cleaned_data["seed"]),
        done=_("A new draft draw is ready. Check it, then release it."), then=_back(event))


def _draw(event, draw: int) -> Draw:
    return get_object_or_404(Draw, pk=draw, stage__event=event)


@require_POST
@organiser_view
def swap(request, event, draw):
    draw = _draw(event, draw)
    form = SwapForm(request.POST, seats=seating.seats(draw))
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(_back(event))
    return run_service(
        request, lambda: draw_services.swap_seats(draw=draw, first=form.cleaned_data["first"],
                                                  second=form.cleaned_data["second"], actor=Actor.of(request)),
        done=_("The two players have swapped seats."), then=_back(event))


@require_http_methods(["GET", "POST"])
@organiser_view
def release(request, event, draw):
    """Release a draft: GET shows how many players at how many tables will see it; the POST confirms."""
    draw = _draw(event, draw)
    return confirm_and_run(
        request, preview=lambda: draw_services.release_preview(draw),
        call=lambda expect: draw_services.release_draw(draw=draw, actor=Actor.of(request), expect=expect),
        page=Page(action=reverse("draw-release", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                         "draw": draw.pk}),
                  back=_back(event), back_label=_("Table draw"), button=_("Release the draw"),
                  context={"festival": event.festival, "event": event}),
        done=_("The draw is released: players can see their tables now."), then=_back(event))


@require_POST
@organiser_view
def unrelease(request, event, draw):
    draw = _draw(event, draw)
    form = UnreleaseForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason for taking the draw back."))
        return redirect(_back(event))
    return run_service(
        request, lambda: draw_services.unrelease_draw(draw=draw, actor=Actor.of(request),
                                                      reason=form.cleaned_data["reason"]),
        done=_("The draw is back to draft and hidden from players."), then=_back(event))


@organiser_view
def print_draw(request, event, draw):
    draw = _draw(event, draw)
    seats = seating.seats(draw)
    # Printed to hang in the hall: public names (tournament/public_names.py), in the order they read.
    by_name = sorted(seats, key=lambda seat: name_key(public_name(seat.registration.player, event)))
    return render(request, "tournament/draws/print.html", {
        "festival": event.festival, "event": event, "draw": draw, "tables": seating.by_table(seats),
        "by_name": by_name,
    })


@organiser_view
def table_cards(request, event, draw):
    draw = _draw(event, draw)
    cards = []
    for number, seats in seating.by_table(seating.seats(draw)):
        url = request.build_absolute_uri(
            reverse("public-table", kwargs={"festival": event.festival.slug, "event": event.slug, "number": number})
        )
        # Printed for the table: public names, two alike with their player numbers (tournament/public_names.py).
        names = told_apart(event, [seat.registration for seat in seats])
        cards.append({"number": number, "seats": list(zip(seats, names, strict=True)), "url": url, "qr": qr_svg(url)})
    return render(request, "tournament/draws/cards.html", {
        "festival": event.festival, "event": event, "draw": draw, "cards": cards,
        "each_game": seating.plays_each_game_anew(event) and draw.stage.games > 1,
    })


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
