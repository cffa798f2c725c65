"""The check-in desk (R9): a volunteer on a phone finds a player and checks them in with one tap.

Everything works as plain GET forms and POST forms; htmx (when present) swaps only the results, the tapped
row and the counts, so a whole morning of check-ins needs no page reload.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from ..forms.desk import CorrectionForm, DeskActionForm, DeskSearchForm, LatePlacesForm, WalkInForm
from ..forms.guardian import GuardianSignedForm
from ..models import Registration
from ..notice import notice_for
from ..permissions import DESK
from ..qr import qr_svg
from ..services import ServiceError
from ..services.audit import Actor
from ..services.checkin import check_in, checkin_closed_message, undo_check_in
from ..services.desk_search import (
    SEARCH_LIMIT,
    desk_counts,
    missing_registrations,
    player_by_token,
    search_festival,
    search_registrations,
)
from ..services.guardian import record_paper_agreement
from ..services.identity import mark_possible_duplicates
from ..services.late_places import give_late_places, late_places, waiting_line
from ..services.queued_checkin import ALREADY, KEY_SHAPE, check_in_queued
from ..services.registration import correct_player
from ..services.walk_in import walk_in
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
    }
    counts = context["counts"] = desk_counts(event=event)
    context["late"] = late_places(event, now=now, checked_in=counts["checked_in"], waiting=counts["waitlisted"])
    context.update(extra)
    return context


def _search_context(request, event) -> dict:
    form = DeskSearchForm(request.GET)
    query = form.query()
    found = search_registrations(event=event, query=query)
    # A scanned player of this festival who is not in this event: say so rather than "nobody found".
    elsewhere = player_by_token(event=event, token=query.token) if query.is_link and not found else None
    others = search_festival(event=event, query=query)
    mark_possible_duplicates(found + others)
    return {
        "other_events": others[:SEARCH_LIMIT],
        "more_other_events": len(others) > SEARCH_LIMIT,
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


@require_POST
@desk_view
def guardian_signed(request, event, registration):
    """A child waiting for the guardian: the desk ticks that the guardian signed the paper consent form. With a
    place, the child is checked in with it; on the waiting list, the agreement alone is recorded."""
    form = GuardianSignedForm(request.POST)
    with_place = Registration.objects.filter(pk=registration, event=event,
                                             status=Registration.Status.REGISTERED).exists()

    def service(*, registration, actor):
        if not form.is_valid():
            raise ServiceError(" ".join(form.errors.get("signed", [])) or _("Nothing was changed."),
                               code="not_ticked")
        if with_place:
            return check_in(registration=registration, actor=actor, guardian_signed=True)
        return record_paper_agreement(registration=registration, actor=actor)

    done = (_("%(name)s is checked in; the guardian's paper form is recorded.") if with_place
            else _("The guardian's paper form for %(name)s is recorded."))
    return _tap(request, event, registration, service, done)


@require_POST
@desk_view
def checkin_queued(request, event, registration):
    """A check-in tapped offline, sent by the desk's outbox: answers JSON, with what the desk should show."""
    registration = _registration(event, registration)
    name = {"name": registration.player.name}
    key = request.POST.get("key", "")
    if not KEY_SHAPE.fullmatch(key):
        return JsonResponse({"status": "refused", "message": _("This check-in was not sent by the desk page.")},
                            status=400)
    try:
        registration, outcome = check_in_queued(registration=registration, actor=Actor.of(request), key=key)
    except ServiceError as refusal:
        return JsonResponse({"status": "refused", "message": refusal.message})
    if outcome == ALREADY:
        return JsonResponse({"status": outcome, "message": _(
            "%(name)s was already checked in by another desk: not checked in twice.") % name})
    return JsonResponse({"status": outcome, "message": _("%(name)s is checked in.") % name})


def _registration(event, registration_id: int) -> Registration:
    return get_object_or_404(Registration.objects.select_related("player"), pk=registration_id, event=event)


def _link_url(event, registration: Registration) -> str:
    return reverse("desk-link", kwargs={"festival": event.festival.slug, "event": event.slug,
                                        "registration": registration.pk})


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@desk_view
def walk_in_view(request, event):
    """A player who did not register: entered and checked in in one step, then the personal link of the person
    entered is shown. When stored players have the typed name, the form comes back once with them to choose
    from (services.walk_in)."""
    form = WalkInForm(request.POST if request.method == "POST" else None, event=event)
    if request.method == "POST" and form.is_valid():
        try:
            registration = walk_in(event=event, details=form.player_details(), actor=Actor.of(request),
                                   consent=form.given_consent(), choice=form.person_choice())
        except ServiceError as refusal:
            if refusal.code == "choose":
                # Stored players of this name changed since the form was checked: show them as they are now.
                form = WalkInForm(request.POST, event=event)
                form.is_valid()
                form.add_error("person", refusal.message)
            else:
                form.add_error(None, refusal.message)
        else:
            if registration.is_checked_in:
                messages.success(request, _("%(name)s is registered and checked in.") % {"name": registration.player.name})
            else:
                messages.warning(request, _("%(name)s is on the waiting list: the event is full, so not checked in.")
                                 % {"name": registration.player.name})
            return redirect(_link_url(event, registration))
    return render(request, "tournament/desk/walk_in.html",
                  _common(request, event, form=form, notice=notice_for(event.festival),
                          closed=checkin_closed_message(event)))


@require_safe
@never_cache
@desk_view
def link(request, event, registration):
    """A player lost their personal link: the desk shows its QR code and address on screen."""
    registration = _registration(event, registration)
    url = request.build_absolute_uri(registration.player.get_absolute_url())
    return render(request, "tournament/desk/link.html", _common(
        request, event, r=registration, url=url, next_url=request.path,
        qr=qr_svg(url, title=_("QR code of %(name)s's personal page") % {"name": registration.player.name}),
    ))


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@desk_view
def correct(request, event, registration):
    """Fix a typo in a player's name, school or club, or birth year (desk row or organiser's list)."""
    registration = _registration(event, registration)
    player = registration.player
    asked = DeskActionForm(request.POST if request.method == "POST" else request.GET).safe_next(request)
    if request.method == "POST":
        form = CorrectionForm(request.POST, erased=bool(player.personal_data_erased_at))
        if form.is_valid():
            data = form.cleaned_data
            try:
                player = correct_player(registration=registration, name=data["name"], affiliation=data["affiliation"],
                                        birth_year=data.get("birth_year", player.birth_year),
                                        actor=Actor.of(request))
            except ServiceError as refusal:
                form.add_error(None, refusal.message)
            else:
                messages.success(request, _("The details of %(name)s are corrected.") % {"name": player.name})
                return redirect(asked or _desk_url(event, player.name))
    else:
        form = CorrectionForm(initial={"name": player.name, "affiliation": player.affiliation,
                                       "birth_year": player.birth_year}, erased=bool(player.personal_data_erased_at))
    return render(request, "tournament/desk/correct.html", _common(request, event, r=registration, form=form, asked=asked,
                                                                   next_url=asked or _desk_url(event, player.name)))


def _late_url(event) -> str:
    return reverse("desk-late-places", kwargs={"festival": event.festival.slug, "event": event.slug})


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
@desk_view
def late_places_view(request, event):
    """Check-in closed with empty places: the waiting list in order; the desk ticks who is in the hall and
    those players get the places, in line order (services.late_places)."""
    line = waiting_line(event)
    form = LatePlacesForm(request.POST if request.method == "POST" else None, line=line)
    if request.method == "POST" and form.is_valid():
        try:
            given = give_late_places(event=event, registration_ids=form.cleaned_data["registration"],
                                     actor=Actor.of(request))
        except ServiceError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, _("Late places given; checked in: %(names)s.")
                             % {"names": ", ".join(r.player.name for r in given)})
            return redirect(_late_url(event))
    ticked = {str(value) for value in form["registration"].value() or []}
    return render(request, "tournament/desk/late_places.html",
                  _common(request, event, line=line, form=form, ticked=ticked, next_url=_late_url(event)))


urlpatterns = [
    path("<slug:festival>/<slug:event>/", desk, name="desk"),
    path("<slug:festival>/<slug:event>/search/", search, name="desk-search"),
    path("<slug:festival>/<slug:event>/counts/", counts, name="desk-counts"),
    path("<slug:festival>/<slug:event>/missing/", missing, name="desk-missing"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/checkin/", checkin, name="desk-checkin"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/undo/", undo, name="desk-undo"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/guardian-signed/", guardian_signed,
         name="desk-guardian-signed"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/checkin/queued/", checkin_queued,
         name="desk-checkin-queued"),
    path("<slug:festival>/<slug:event>/walk-in/", walk_in_view, name="desk-walk-in"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/link/", link, name="desk-link"),
    path("<slug:festival>/<slug:event>/r/<int:registration>/correct/", correct, name="desk-correct"),
    path("<slug:festival>/<slug:event>/late-places/", late_places_view, name="desk-late-places"),
]
