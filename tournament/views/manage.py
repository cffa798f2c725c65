"""The organiser's pages: my festivals, a festival's events, and one event's registrations,
check-in (R9: it closes at a set time; the organiser may close early or reopen) and player numbers (R8.2).

Every page needs a signed-in user; every festival page checks the organiser role on the server.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import redirect, render
from django.urls import path, register_converter, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ..forms.manage import (
    CheckinOverrideForm,
    NumberingForm,
    RegistrationFilterForm,
    RegistrationPickForm,
    WithdrawForm,
)
from ..models import AuditEntry, Event, Registration
from ..permissions import ORGANISER
from ..services import ServiceError
from ..services import checkin as checkin_service
from ..services import guardian as guardian_service
from ..services import late_places as late_service
from ..services import registration as registration_service
from ..services.audit import Actor
from ..services.erasure import erasure_due, registrations_holding_contact
from ..services.festivals import PAST_CONFIRMED
from ..services.identity import flag_possible_duplicates, mark_possible_duplicates
from ..slugs import RESERVED_EVENT_SLUGS
from .confirm import Page, blocker_links, confirm_and_run
from .helpers import form_errors, run_service, staff_view

REGISTRATIONS_PER_PAGE = 100
AUDIT_ENTRIES_SHOWN = 20

S = Registration.Status


def _counts(prefix: str = "") -> dict:
    """Count expressions for registrations by state; `prefix` reaches them from an event ('registrations__')."""

    def status(value):
        return Q(**{f"{prefix}status": value})

    field = f"{prefix}id" if prefix else "id"
    return {
        "registered_count": Count(field, filter=status(S.REGISTERED)),
        "waitlisted_count": Count(field, filter=status(S.WAITLISTED)),
        "withdrawn_count": Count(field, filter=status(S.WITHDRAWN)),
        "checked_in_count": Count(
            field, filter=status(S.REGISTERED) & Q(**{f"{prefix}checked_in_at__isnull": False})
        ),
        "guardian_waiting_count": Count(field, filter=guardian_service.waiting_q(prefix)),
    }


organiser_view = staff_view(ORGANISER, home="manage-event")


def _event_url(event: Event) -> str:
    return reverse("manage-event", kwargs={"festival": event.festival.slug, "event": event.slug})


# --- Pages -----------------------------------------------------------------------------------------------


@require_GET
@staff_view(ORGANISER, home="manage-festival")
def manage_festival(request, festival):
    events = list(festival.events.annotate(**_counts("registrations__")).order_by("starts_at", "name"))
    festival.last_event_end = max((e.ends_at for e in events), default=None)  # erasure_due without a query
    personal_data = {"holding_contact": registrations_holding_contact(festival),
                     "erased_on": timezone.localtime(erasure_due(festival), festival.tzinfo).date(),
                     "erased_at": festival.personal_data_erased_at
                     and timezone.localtime(festival.personal_data_erased_at, festival.tzinfo).date()}
    return render(request, "tournament/manage/festival.html", {"festival": festival, "events": events,
                                                                "personal_data": personal_data})


@require_GET
@organiser_view
def manage_event(request, event):
    counts = Registration.objects.filter(event=event).aggregate(**_counts())
    now = timezone.now()
    counts["places_taken"] = event.places_held(registered=counts["registered_count"],
                                               checked_in=counts["checked_in_count"], now=now)
    closed = event.checkin_has_closed(now)
    counts["absent_count"] = counts["registered_count"] - counts["checked_in_count"] if closed else 0
    # htmx asks for one part of the page by its id (HX-Target); everyone else gets the whole page.
    part = request.htmx.target if request.htmx else None
    if part == "event-counts":
        return render(
            request,
            "tournament/manage/_counts.html",
            {"event": event, "counts": counts, "now": now, "checkin_open": event.checkin_is_open(now)},
        )

    filter_form = RegistrationFilterForm(request.GET or None)
    registrations = flag_possible_duplicates(Registration.objects.filter(event=event)).select_related("player")
    registrations = (
        filter_form.filter(registrations)
        if filter_form.is_bound
        else registrations.order_by("created_at", "id")
    )
    page = Paginator(registrations, REGISTRATIONS_PER_PAGE).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    mark_possible_duplicates(page.object_list)  # one query for the page, none without a duplicate
    # Keep the filter in the page links.
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "festival": event.festival,
        "event": event,
        "counts": counts,
        "now": now,
        "checkin_open": event.checkin_is_open(now),
        "late": late_service.late_places(event, now=now),
        "numbering_form": NumberingForm(initial={"method": event.numbering}),
        "numbering_blockers": blocker_links(
            checkin_service.numbering_blockers(event, now=now),
            lambda b: (_checkin_close_url(event), _("Close check-in")) if b.code == "open" else None),
        "filter_form": filter_form,
        "filter_refused": filter_form.is_bound and not filter_form.is_valid(),
        "page": page,
        "query": query.urlencode(),
    }
    if part == "registrations-table":
        return render(request, "tournament/manage/_registrations.html", context)
    context["audit_entries"] = _recent_audit(event)
    return render(request, "tournament/manage/event.html", context)


def _recent_audit(event: Event) -> list[AuditEntry]:
    """The last entries with a readable action and whom it concerned (one query for all their players)."""
    entries = list(AuditEntry.objects.filter(event=event).select_related("actor")[:AUDIT_ENTRIES_SHOWN])
    registration_ids = {e.target_id for e in entries if e.target_type == "registration" and e.target_id}
    names = (
        dict(
            Registration.objects.filter(event=event, pk__in=registration_ids).values_list(
                "pk", "player__name"
            )
        )
        if registration_ids
        else {}
    )
    for entry in entries:
        entry.concerns = names.get(entry.target_id, "") if entry.target_type == "registration" else ""
        entry.detail = _audit_detail(entry)
    return entries


def _audit_detail(entry: AuditEntry) -> str:
    after = entry.after if isinstance(entry.after, dict) else {}
    if entry.action == "checkin.override" and "override" in after:
        labels = dict(Event.CheckinOverride.choices)
        return str(labels.get(after["override"], after["override"]))
    if entry.action == "checkin.numbered":
        method = str(dict(Event.Numbering.choices).get(after.get("method"), after.get("method", "")))
        if after.get("seed") is not None:
            return _("%(method)s, seed %(seed)s") % {"method": method, "seed": after["seed"]}
        return method
    past = _("times in the past confirmed") if entry.reason == PAST_CONFIRMED else ""
    if entry.action == "event.updated":  # which details: their names, as the event's form calls them
        return ", ".join([*(str(Event._meta.get_field(name).verbose_name) for name in after
                            if name in {f.name for f in Event._meta.get_fields()}), *([past] if past else [])])
    return past or entry.reason


# --- Actions (POST only) ---------------------------------------------------------------------------------


def _checkin_close_url(event: Event) -> str:
    return reverse("manage-checkin", kwargs={"festival": event.festival.slug, "event": event.slug}) + "?checkin=closed"


@require_http_methods(["GET", "POST"])
@organiser_view
def set_checkin(request, event):
    """Close check-in, reopen it or follow the schedule. Closing it shuts everyone not checked in out (R9): GET
    shows who that is, and the POST must carry that confirmation (services.confirmation)."""
    form = CheckinOverrideForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect(_event_url(event))
    override, before = form.cleaned_data["checkin"], event.checkin_override
    renumber = form.cleaned_data["renumber"]

    def preview():
        return checkin_service.checkin_preview(event=event, override=override, renumber=renumber)

    if request.method != "POST" and not preview().needed:  # nothing to confirm: the page offers a plain button
        return redirect(_event_url(event))

    def done(changed):
        if before == override:
            return _("Nothing changed: check-in was already “%(state)s”.") % {
                "state": changed.get_checkin_override_display()}
        return _("Check-in: %(state)s.") % {"state": changed.get_checkin_override_display()}

    return confirm_and_run(
        request, preview=preview,
        call=lambda expect: checkin_service.set_checkin_override(event=event, override=override,
                                                                 actor=Actor.of(request), expect=expect,
                                                                 renumber=renumber),
        page=Page(action=reverse("manage-checkin", kwargs={"festival": event.festival.slug, "event": event.slug}),
                  back=_event_url(event), button=preview().title, danger=True,
                  context={"festival": event.festival, "event": event, "choices": _reopen_choices(event, form)},
                  hidden=[("checkin", form.data["checkin"])] + ([("renumber", "on")] if renumber else [])),
        done=done, then=_event_url(event))


def _reopen_choices(event: Event, form: CheckinOverrideForm) -> list[dict]:
    """Reopening after numbering: the two ways, each a link to its own confirmation page (keep is the default)."""
    if not event.numbers_assigned_at:
        return []
    url = reverse("manage-checkin", kwargs={"festival": event.festival.slug, "event": event.slug})
    value, renumber = form.data["checkin"], form.cleaned_data["renumber"]
    return [
        {"label": _("Keep the numbers given"), "url": f"{url}?checkin={value}", "current": not renumber},
        {"label": _("Renumber everyone"), "url": f"{url}?checkin={value}&renumber=on", "current": renumber},
    ]


@require_http_methods(["GET", "POST"])
@organiser_view
def open_late_places(request, event):
    """Check-in closed with empty places: let the desk give them to waiting-list players present (POST)."""
    if request.method != "POST":
        return redirect(_event_url(event) + "#checkin-heading")
    return run_service(
        request, lambda: late_service.open_late_places(event=event, actor=Actor.of(request)),
        done=_("Late places are open: the desk gives them to waiting-list players who are here, in line order."),
        then=_event_url(event) + "#checkin-heading")


@require_http_methods(["GET", "POST"])
@organiser_view
def assign_numbers(request, event):
    """Number the checked-in players (R8.2), once: GET shows who gets a number and who does not."""
    form = NumberingForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return redirect(_event_url(event))
    method = form.cleaned_data["method"]

    def fix(blocker):
        if blocker.code == "open":
            return _checkin_close_url(event), _("Close check-in")
        return None

    return confirm_and_run(
        request, preview=lambda: checkin_service.numbering_preview(event=event, method=method),
        call=lambda expect: checkin_service.assign_numbers(event=event, method=method, actor=Actor.of(request),
                                                           expect=expect),
        page=Page(action=reverse("manage-numbers", kwargs={"festival": event.festival.slug, "event": event.slug}),
                  back=_event_url(event) + "#numbers-heading", button=_("Assign player numbers"), fix=fix,
                  context={"festival": event.festival, "event": event}, hidden=[("method", method)]),
        done=_("Player numbers are assigned; check-in is closed."), then=_event_url(event))


@require_http_methods(["GET", "POST"])
@organiser_view
def withdraw(request, event):
    """GET asks for a reason and a confirmation (no JavaScript needed); POST withdraws."""
    data = request.POST if request.method == "POST" else request.GET
    pick = RegistrationPickForm(data, event=event)
    if not pick.is_valid():
        messages.error(request, form_errors(pick))
        return redirect(_event_url(event) + "#registrations")
    chosen = pick.cleaned_data["registration"]
    form = (
        WithdrawForm(data, event=event)
        if request.method == "POST"
        else WithdrawForm(initial={"registration": chosen.pk}, event=event)
    )
    if request.method == "POST" and form.is_valid():
        try:
            registration_service.withdraw(
                registration=chosen,
                actor=Actor.of(request),
                by_organiser=True,
                reason=form.cleaned_data["reason"],
            )
        except ServiceError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("%(name)s is withdrawn.") % {"name": chosen.player.name})
        return redirect(_event_url(event) + "#registrations")
    context = {
        "festival": event.festival,
        "event": event,
        "registration": chosen,
        "form": form,
        "frees_place": chosen.status == S.REGISTERED,
        "promotes": chosen.status == S.REGISTERED and not event.checkin_has_closed(),
    }
    return render(request, "tournament/manage/withdraw.html", context)


@require_POST
@organiser_view
def resend_guardian_link(request, event):
    """A new link to a child's guardian, who has not agreed yet (the old link stops working)."""
    pick = RegistrationPickForm(request.POST, event=event)
    if not pick.is_valid():
        messages.error(request, form_errors(pick))
        return redirect(_event_url(event) + "#registrations")
    chosen = pick.cleaned_data["registration"]
    return run_service(
        request, lambda: guardian_service.resend_link(registration=chosen, actor=Actor.of(request)),
        done=_("A new link is on its way to the guardian of %(name)s; the old one no longer works.")
        % {"name": chosen.player.name},
        then=_event_url(event) + "#registrations")


class EventSlugConverter:
    """An event slug that is not one of the words the import/export pages use under manage/<festival>/.

    Refusing the words here keeps manage/<festival>/<word>/ for those pages whatever the order of the routes
    (tournament/urls.py), so the resolver never answers 404 for an event called "import".
    """

    regex = "[-a-zA-Z0-9_]+"

    def to_python(self, value: str) -> str:
        if value in RESERVED_EVENT_SLUGS:
            raise ValueError(value)
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(EventSlugConverter, "event_slug")

urlpatterns = [
    path("<slug:festival>/", manage_festival, name="manage-festival"),
    path("<slug:festival>/<event_slug:event>/", manage_event, name="manage-event"),
    path("<slug:festival>/<event_slug:event>/check-in/", set_checkin, name="manage-checkin"),
    path("<slug:festival>/<event_slug:event>/numbers/", assign_numbers, name="manage-numbers"),
    path("<slug:festival>/<event_slug:event>/late-places/", open_late_places, name="manage-late-places"),
    path("<slug:festival>/<event_slug:event>/withdraw/", withdraw, name="manage-withdraw"),
    path("<slug:festival>/<event_slug:event>/guardian-link/", resend_guardian_link, name="manage-guardian-link"),
]
