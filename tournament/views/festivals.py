"""The organiser makes and edits festivals and events here, never in the Django admin.

A new festival: anyone signed in who may organise festivals (`permissions.may_organise_festivals`); the
creator becomes its organiser. Everything else: the festival's organisers (staff_view). A new event starts
from a preset (?preset=busan, no JavaScript needed); "Propose" fills the plan and the day's times again from
the expected players and the start time without saving.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from ..formats import format_named
from ..forms.festival import EventForm, FestivalForm, PresetForm
from ..forms.timetable import SlotFormSet, initial_rows, row_labels
from ..models import Event, Festival
from ..notice import Notice, default_sections
from ..permissions import ORGANISER, may_organise_festivals
from ..presets import PRESETS
from ..schedule import checkin_slot, is_edited
from ..services import ServiceError
from ..services import festivals as service
from ..services.audit import Actor
from .helpers import staff_view
from .manage import EventSlugConverter  # noqa: F401  (registers the event_slug converter the routes use)

festival_organiser = staff_view(ORGANISER, home="manage-festival")
event_organiser = staff_view(ORGANISER, home="manage-event")


def _festival_url(festival: Festival) -> str:
    return reverse("manage-festival", kwargs={"festival": festival.slug})


def _event_url(event: Event, name: str = "manage-event") -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


def _refused(form, refusal: ServiceError) -> None:
    if isinstance(refusal, service.FieldsRefused):
        if hasattr(form, "refuse"):
            form.refuse(refusal.errors, past=refusal.past)
        else:
            for name, message in refusal.errors.items():
                form.add_error(name if name in form.fields else None, message)
    else:
        form.add_error(None, refusal.message)


# --- festivals ---------------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def festival_new(request):
    if not may_organise_festivals(request.user):
        raise PermissionDenied
    form = FestivalForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            festival = service.create_festival(values=form.values(), actor=Actor.of(request))
        except ServiceError as refusal:
            _refused(form, refusal)
        else:
            messages.success(request, _("The festival “%(name)s” is created; you are its organiser. Add its "
                                        "events now.") % {"name": festival.name})
            return redirect(_festival_url(festival))
    return render(request, "tournament/manage/festival_form.html", {"form": form, "festival": None})


@require_http_methods(["GET", "POST"])
@festival_organiser
def festival_edit(request, festival):
    form = FestivalForm(request.POST if request.method == "POST" else None, festival=festival)
    if form.is_bound and form.is_valid():
        try:
            festival = service.update_festival(festival=festival, values=form.values(), actor=Actor.of(request))
        except ServiceError as refusal:
            _refused(form, refusal)
        else:
            messages.success(request, _("The festival is saved."))
            return redirect(_festival_url(festival))
    notice = Notice(version=festival.privacy_notice_version, sections=default_sections(festival))
    return render(request, "tournament/manage/festival_form.html",
                  {"form": form, "festival": festival, "notice": notice})


# --- events ------------------------------------------------------------------------------------------------


def _event_page(request, festival, form, event=None):
    return render(request, "tournament/manage/event_form.html", {
        "festival": festival, "event": event, "form": form, "plan": form.plan(),
        "locked": bool(form.locked), "format": format_named(form.current("format")),
    })


def _proposed(request, festival, form, event=None, locked=None):
    """The "Propose" button: the form again with the plan and the times proposed from now (nothing saved)."""
    proposed = EventForm(festival=festival, event=event, locked=locked, initial=form.proposal())
    messages.info(request, _("The plan and the day's times are proposed again; check them and save."))
    if form.passed_start is not None:
        messages.warning(request, _("%(time)s has passed on that day, so play is proposed from now.") % {
            "time": form.passed_start.strftime("%H:%M")})
    return _event_page(request, festival, proposed, event)


@require_http_methods(["GET", "POST"])
@festival_organiser
def event_new(request, festival):
    if request.method == "GET":
        choice = PresetForm(request.GET) if "preset" in request.GET else None
        if choice is None or not choice.is_valid():
            return render(request, "tournament/manage/event_preset.html",
                          {"festival": festival, "presets": PRESETS.values(), "choice": choice})
        initial = EventForm.initial_for_preset(choice.cleaned_data["preset"], festival)
        return _event_page(request, festival, EventForm(festival=festival, initial=initial))
    form = EventForm(request.POST, festival=festival)
    if "propose" in request.POST:
        return _proposed(request, festival, form)
    if form.is_valid():
        try:
            event = service.create_event(festival=festival, values=form.values(), actor=Actor.of(request),
                                         past_confirmed=form.confirmed_past())
        except ServiceError as refusal:
            _refused(form, refusal)
        else:
            messages.success(request, _("The event “%(name)s” is created.") % {"name": event.name})
            return redirect(_event_url(event))
    return _event_page(request, festival, form)


@require_http_methods(["GET", "POST"])
@event_organiser
def event_edit(request, event):
    festival, locked = event.festival, service.locked_fields(event)
    if request.method == "GET":
        form = EventForm(festival=festival, event=event, locked=locked, initial=EventForm.initial_for_event(event))
        return _event_page(request, festival, form, event)
    form = EventForm(request.POST, festival=festival, event=event, locked=locked)
    if "propose" in request.POST:
        return _proposed(request, festival, form, event, locked)
    if form.is_valid():
        try:
            saved = service.update_event(event=event, values=form.values(), actor=Actor.of(request),
                                         past_confirmed=form.confirmed_past())
        except ServiceError as refusal:
            _refused(form, refusal)
        else:
            messages.success(request, _("The event is saved.") if saved.changed else _("Nothing was changed."))
            if saved.promoted:
                messages.info(request, ngettext("%(count)s player moved up from the waiting list.",
                                                "%(count)s players moved up from the waiting list.",
                                                len(saved.promoted)) % {"count": len(saved.promoted)})
            if saved.schedule_generated:
                messages.info(request, _("The plan changed, so the schedule was generated again from it."))
            return redirect(_event_url(saved.event, "manage-event-edit"))
    return _event_page(request, festival, form, event)


# --- the day's timetable -----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@event_organiser
def event_schedule(request, event):
    """Edit the timetable, or generate it again from the start time and the plan (one button)."""
    actor = Actor.of(request)
    if request.method == "POST" and request.POST.get("action") == "generate":
        service.generate_timetable(event=event, actor=actor)
        messages.success(request, _("The schedule is generated again from the start time and the plan."))
        return redirect(_event_url(event, "manage-event-schedule"))
    if request.method == "POST":
        formset = SlotFormSet(request.POST, event=event, prefix="slot")
        if formset.is_valid():
            try:
                service.save_timetable(event=event, slots=formset.slots, actor=actor)
            except ServiceError as refusal:
                messages.error(request, refusal.message)
            else:
                messages.success(request, _("The schedule is saved."))
                return redirect(_event_url(event, "manage-event-schedule"))
    else:
        formset = SlotFormSet(initial=initial_rows(event), event=event, prefix="slot")
    rows = list(zip(formset.forms, row_labels(event, formset), strict=True))
    return render(request, "tournament/manage/event_schedule.html", {
        "festival": event.festival, "event": event, "formset": formset, "rows": rows,
        "checkin": checkin_slot(event), "edited": is_edited(event),
    })


urlpatterns = [
    path("new-festival/", festival_new, name="manage-festival-new"),
    path("<slug:festival>/edit/", festival_edit, name="manage-festival-edit"),
    path("<slug:festival>/new-event/", event_new, name="manage-event-new"),
    path("<slug:festival>/<event_slug:event>/edit/", event_edit, name="manage-event-edit"),
    path("<slug:festival>/<event_slug:event>/schedule/", event_schedule, name="manage-event-schedule"),
]
