"""The chief referee's and organiser's conduct pages (R9; HK conduct rules 9, 15, 17).

- the event's conduct page: every record, the players on a third warning (prominent: the chief referee
  decides on disqualification), a form per action (warning; disqualification; withdrawal or forfeit);
- a disqualification, withdrawal or forfeit goes through a preview of its effect (later draws, the table
  left short and the software's merge proposal, past results kept and marked) before it is applied.

Chief referees and organisers of the event's festival only; checked here, on the server.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from tournament.forms.confirm import ConfirmForm
from tournament.models import ConductRecord, Registration
from tournament.permissions import CHIEF_REFEREE
from tournament.services.audit import Actor
from tournament.services.confirmation import Unconfirmed
from tournament.services.errors import ServiceError
from tournament.views.helpers import run_service, staff_view

from ..forms.conduct import ACTIONS, ConductForm, KeepPlayingForm
from ..services import conduct as conduct_services
from ..services.progress import current_stage

Kind = ConductRecord.Kind


chief_view = staff_view(CHIEF_REFEREE, home="conduct")  # organisers hold every role


def _page_url(event) -> str:
    return reverse("conduct", kwargs={"festival": event.festival.slug, "event": event.slug})


def _initial(request) -> dict:
    """The third-warning prompt links here with the player's number filled in."""
    number = request.GET.get("number", "")
    return {"number": number} if number.isdecimal() and len(number) <= 5 else {}


def _context(request, event, bound: ConductForm | None = None) -> dict:
    records = list(ConductRecord.objects.filter(event=event)
                   .select_related("registration__player", "stage", "created_by").order_by("-created_at", "-id"))
    pending = conduct_services.pending_decisions(event)
    players = Registration.objects.select_related("player").in_bulk([registration for registration, _n in pending])
    initial = _initial(request)
    forms = {}
    for action in ACTIONS:
        if bound is not None and bound.action == action:
            forms[action] = bound
        else:
            forms[action] = ConductForm(event=event, action=action, initial=initial, prefix=action)
    return {
        "festival": event.festival, "event": event, "records": records, "forms": forms,
        "pending": [(players[registration], count, KeepPlayingForm(initial={"number": players[registration].number}))
                    for registration, count in pending if registration in players],
        "current_stage": current_stage(event),
        "decision_at": conduct_services.DECISION_AT,
        "is_organiser": request.is_organiser,
    }


@require_safe
@chief_view
def conduct_page(request, event):
    return render(request, "scoring/conduct/conduct.html", _context(request, event))


def _apply(request, event, form: ConductForm, expect: str | None = None):
    stage = form.stage_obj or current_stage(event)
    try:
        conduct_services.record_conduct(
            event=event, registration=form.registration, kind=form.cleaned_data["kind"],
            note=form.cleaned_data["note"], stage=stage, game=form.cleaned_data["game"], actor=Actor.of(request),
            request_key=form.cleaned_data["key"], expect=expect,
        )
    except ServiceError as error:
        messages.error(request, error.message)
        return None
    return form.registration


def _preview(request, event, form: ConductForm, action: str, notice: str = ""):
    """What a disqualification, withdrawal or forfeit would change, to confirm or go back; nothing changes."""
    kind = form.cleaned_data["kind"]
    effect = conduct_services.departure_effect(event=event, registration=form.registration, kind=kind)
    return render(request, "scoring/conduct/preview.html", {
        "festival": event.festival, "event": event, "form": form, "effect": effect, "action": action,
        "kind_label": Kind(kind).label, "registration": form.registration, "notice": notice,
    })


@require_POST
@chief_view
def conduct_record(request, event):
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        messages.error(request, _("Choose what to record."))
        return redirect(_page_url(event))
    form = ConductForm(request.POST, event=event, action=action, prefix=action)
    if not form.is_valid():
        return render(request, "scoring/conduct/conduct.html", _context(request, event, bound=form), status=400)
    registration = form.registration
    kind = form.cleaned_data["kind"]
    # A departure is applied only with the confirmation of the effect the preview showed (the same state, worked
    # out again under the lock); without it, or when it changed since, the preview is shown (again).
    expect = None if kind == Kind.WARNING else ConfirmForm(request.POST).expect()
    if expect == "":
        return _preview(request, event, form, action)
    # The same form sent again (a double tap, a resent page): the service answers with the record it made.
    resent = ConductRecord.objects.filter(request_key=form.cleaned_data["key"], registration=registration,
                                          kind=kind).exists()
    try:
        applied = _apply(request, event, form, expect)
    except Unconfirmed as refusal:
        return _preview(request, event, form, action, notice=refusal.message)
    if applied is None:
        return redirect(_page_url(event))
    name = registration.player.name
    if resent:
        messages.info(request, _("This was already recorded (%(name)s: %(kind)s); nothing changed.")
                      % {"name": name, "kind": Kind(kind).label})
    elif kind == Kind.WARNING:
        warnings = ConductRecord.objects.filter(registration=registration, kind=Kind.WARNING).count()
        if warnings >= conduct_services.DECISION_AT:
            messages.warning(request, _(
                "%(name)s now has %(count)s warnings: the chief referee decides whether to disqualify them."
            ) % {"name": name, "count": warnings})
        else:
            messages.success(request, _("Warning %(count)s recorded for %(name)s.") % {"count": warnings, "name": name})
    else:
        messages.success(request, _("%(name)s: %(kind)s recorded. They are left out of every later draw.")
                         % {"name": name, "kind": Kind(kind).label})
    return redirect(_page_url(event))


@require_POST
@chief_view
def keep_playing(request, event):
    form = KeepPlayingForm(request.POST)
    registration = None
    if form.is_valid():
        registration = Registration.objects.filter(event=event, number=form.cleaned_data["number"]).first()
    if registration is None:
        messages.error(request, _("Say why the player keeps playing."))
        return redirect(_page_url(event))
    return run_service(
        request, lambda: conduct_services.keep_playing(event=event, registration=registration,
                                                       note=form.cleaned_data["note"], actor=Actor.of(request)),
        done=_("Decision recorded: the player keeps playing."), then=_page_url(event))


PREFIX = "<slug:festival>/<slug:event>/conduct/"

urlpatterns = [
    path(PREFIX, conduct_page, name="conduct"),
    path(PREFIX + "record/", conduct_record, name="conduct-record"),
    path(PREFIX + "keep/", keep_playing, name="conduct-keep"),
]
