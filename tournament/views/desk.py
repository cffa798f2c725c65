"""The check-in desk (R9): a volunteer on a phone finds a player and checks them in with one tap.

Everything works as plain GET forms and POST forms; htmx (when present) swaps only the results, the tapped
row and the counts, so a whole morning of check-ins needs no page reload.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from ..forms.desk import DeskActionForm, DeskSearchForm
from ..models import Registration
from ..permissions import DESK
from ..services import ServiceError
from ..services.audit import Actor
from ..services.checkin import (
    SEARCH_LIMIT,
    check_in,
    desk_counts,
    missing_registrations,
    player_by_token,
    search_registrations,
    undo_check_in,
)
from .helpers import staff_view


def _desk_url(event, query: str = "") -> str:
    url = reverse("desk", kwargs={"festival": event.festival.slug, "event": event.slug})
    return f"{url}?{urlencode({'q': query})}" if query else url


desk_view = staff_view(DESK, home="desk")


def _common(request, event, **extra) -> dict:
    now = timezone.now()
    context = {
        "festival": event.festival,
        "event": event,
        "now": now,
        "checkin_open": event.checkin_is_open(now),
        "counts": desk_counts(event=event),
    }
    context.update(extra)
    return context


def _search_context(request, event) -> dict:
    form = DeskSearchForm(request.GET)
    query = form.query()
    found = search_registrations(event=event, query=query)
    # A scanned player of this festival who is not in this event: say so rather than "nobody found".
    elsewhere = player_by_token(event=event, token=query.token) if query.is_link and not found else None
    return {
        "form": form,
        "query": form.text,
        "results": found[:SEARCH_LIMIT],
        "more_results": len(found) > SEARCH_LIMIT,
        "limit": SEARCH_LIMIT,
        "not_in_event": elsewhere,
        "next_url": _desk_url(event, form.text),
    }


@require_safe
@never_cache
@desk_view
def desk(request, event):
    return render(request, "tournament/desk/desk.html", _common(request, event, **_search_context(request, event)))


@require_safe
@never_cache
@desk_view
def search(request, event):
    if not request.htmx:
        return redirect(_desk_url(event, request.GET.get("q", "")[:200]))
    return render(request, "tournament/desk/_results.html", _common(request, event, **_search_context(request, event)))


@require_safe
@never_cache
@desk_view
def counts(request, event):
    if not request.htmx:
        return redirect(_desk_url(event))
    return render(request, "tournament/desk/_counts.html", _common(request, event))


@require_safe
@never_cache
@desk_view
def missing(request, event):
    url = reverse("desk-missing", kwargs={"festival": event.festival.slug, "event": event.slug})
    return render(
        request,
        "tournament/desk/missing.html",
        _common(request, event, missing=missing_registrations(event=event), next_url=url),
    )


def _tap(request, event, registration_id: int, service, done_message: str):
    registration = get_object_or_404(Registration.objects.select_related("player"), pk=registration_id, event=event)
    form = DeskActionForm(request.POST)
    back = form.safe_next(request) or _desk_url(event)
    error = notice = ""
    try:
        registration = service(registration=registration, actor=Actor.of(request))
    except ServiceError as refusal:
        error = refusal.message
    else:
        notice = done_message % {"name": registration.player.name}
    if request.htmx:
        # The tapped row in place (with the refusal inline), and the counts out of band.
        context = _common(request, event, r=registration, error=error, notice=notice, next_url=back, oob=True)
        return render(request, "tournament/desk/_row_response.html", context)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)
    return redirect(back)


@require_POST
@desk_view
def checkin(request, event, registration):
    return _tap(request, event, registration, check_in, _("%(name)s is checked in."))


@require_POST
@desk_view
def undo(request, event, registration):
    return _tap(request, event, registration, undo_check_in, _("Check-in of %(name)s undone."))


urlpatterns = [
    path("<slug:festival>/<slug:event>/", desk, name="desk"),
    path("<slug:festival>/<slug:event>/search/", search, name="desk-search"),
    path("<slug:festival>/<slug:event>/counts/", counts, name="desk-counts"),
    path("<slug:festival>/<slug:event>/missing/", missing, name="desk-missing"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/checkin/", checkin, name="desk-checkin"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/undo/", undo, name="desk-undo"),
]
