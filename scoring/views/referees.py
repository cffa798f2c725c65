"""Who holds which table: the chief referee's and organiser's page of the event's referees, and the two actions
on it (give a range of tables to a referee, take tables back), which the table links page offers too.

A referee holds a table number of the event until someone changes it, in every round and game
(scoring/services/links.py); they open their tables from My work."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from tournament.models import Event
from tournament.permissions import REFEREE, people_with_role
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.views.helpers import form_errors, run_service

from ..forms.board import AssignTablesForm, UnassignTablesForm
from ..services import links as link_services
from .staff import PREFIX, chief_view


def spans(numbers) -> str:
    """Table numbers as runs: 1, 2, 3, 4, 7 → "1–4, 7"."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def tables_text(numbers) -> str:
    numbers = list(numbers)
    return ngettext("table %(tables)s", "tables %(tables)s", len(numbers)) % {"tables": spans(numbers)}


def referee_context(event: Event) -> dict:
    """Who holds which table now, the festival's referees to choose from, and the highest table number; a fixed
    number of queries whatever the number of tables and referees."""
    held = link_services.current_referees(event)
    released = seating.event_table_numbers(event)
    tables = sorted(set(released) | set(held))
    by_referee: dict[int, list] = {}
    for number, row in sorted(held.items()):
        by_referee.setdefault(row.referee_id, [row.referee, []])[1].append(number)
    holders = sorted(((referee, tables_text(numbers)) for referee, numbers in by_referee.values()),
                     key=lambda pair: pair[0].get_username())
    free = [number for number in tables if number not in held]
    return {
        "held": held, "holders": holders, "free_tables": tables_text(free) if free else "",
        "table_rows": [{"number": number, "assignment": held.get(number)} for number in tables],
        "referees": list(people_with_role(event.festival, REFEREE)),
        "table_limit": link_services.table_limit(event, released),
    }


@require_safe
@never_cache
@chief_view
def referees_page(request, event):
    return render(request, "scoring/board/referees.html", {
        "festival": event.festival, "event": event, **referee_context(event),
    })


def referees_url(event: Event) -> str:
    return reverse("board-referees", kwargs={"festival": event.festival.slug, "event": event.slug})


def _back(request, event: Event, form) -> str:
    """Back to the page the form was on: an organiser's table links page of a stage, else the referees page."""
    stage = getattr(form, "cleaned_data", {}).get("stage")
    if stage and request.is_organiser:
        return reverse("board-links", kwargs={"festival": event.festival.slug, "event": event.slug, "stage": stage})
    return referees_url(event)


def _change(request, event, form, call, done):
    if not form.is_valid():
        messages.error(request, form_errors(form) or _("Something in the form is missing."))
        return redirect(_back(request, event, form))
    return run_service(request, lambda: call(form.cleaned_data), done=done, then=_back(request, event, form))


@require_POST
@chief_view
def assign(request, event):
    def done(result):
        given = tables_text(range(form.cleaned_data["first"], form.cleaned_data["last"] + 1))
        return _("%(referee)s holds %(tables)s from now on, in every round.") % {
            "referee": _name(result["referee"]), "tables": given}

    form = AssignTablesForm(request.POST)
    return _change(request, event, form, lambda data: link_services.assign_tables(
        event=event, first=data["first"], last=data["last"], referee=data["referee"], actor=Actor.of(request)),
        done)


@require_POST
@chief_view
def unassign(request, event):
    form = UnassignTablesForm(request.POST)
    return _change(request, event, form, lambda data: link_services.unassign_tables(
        event=event, first=data["first"], last=data["last"], referee=data.get("referee"), actor=Actor.of(request)),
        lambda tables: _("No referee holds %(tables)s now.") % {"tables": tables_text(tables)})


def _name(user) -> str:
    return user.get_full_name() or user.get_username()


urlpatterns = [
    path(PREFIX + "referees/", referees_page, name="board-referees"),
    path(PREFIX + "referees/assign/", assign, name="board-referees-assign"),
    path(PREFIX + "referees/unassign/", unassign, name="board-referees-unassign"),
]
