"""The guardian's page: the link e-mailed to a child's parent or guardian (services.guardian).

No account: the unguessable token is the key, as on a player's personal page. The page shows the festival's
collection notice and the child's details, and asks for the guardian's name and agreement. It speaks the
language the child's form was filled in, unless the visitor chose another one.
"""

import re

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import path
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from ..forms.guardian import GuardianAgreementForm
from ..models import Registration
from ..notice import notice_for
from ..services import guardian
from ..services.errors import ServiceError
from ..services.registration import with_waiting_position
from ..zone import use_festival_zone

TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{32,64}")


def _state(registration: Registration, now) -> str:
    """What the page says: agreed, withdrawn, the hold over (place given away, or still kept), or waiting."""
    if not registration.is_active:
        return "withdrawn"
    if not registration.waits_for_guardian:
        return "agreed"
    until = registration.guardian_held_until
    if registration.status == Registration.Status.WAITLISTED and until is not None:
        return "released"
    if until is not None and until <= now:
        return "hold_over"
    return "waiting"


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def guardian_page(request, token):
    registration = guardian.by_token(token) if TOKEN_SHAPE.fullmatch(token) else None
    if registration is None:
        raise Http404
    festival, player = registration.event.festival, registration.player
    use_festival_zone(festival)
    if settings.LANGUAGE_COOKIE_NAME not in request.COOKIES and registration.guardian_language:
        translation.activate(registration.guardian_language)
        request.LANGUAGE_CODE = translation.get_language()
    form = GuardianAgreementForm(request.POST if request.method == "POST" else None, player=player,
                                 initial={"name": player.guardian_name})
    if request.method == "POST":
        if not registration.waits_for_guardian:  # a second tap: nothing changes
            return redirect(request.path)
        if form.is_valid():
            try:
                guardian.agree_by_link(token=token, name=form.cleaned_data["name"], ranking=form.ranking())
            except ServiceError as refusal:
                messages.error(request, refusal.message)
            else:
                messages.success(request, _("Thank you: your agreement is recorded."))
            return redirect(request.path)
    now = timezone.now()
    registrations = list(with_waiting_position(
        Registration.objects.filter(player=player).select_related("event")).order_by("event__starts_at", "id"))
    return render(request, "tournament/guardian.html", {
        "registration": registration, "player": player, "festival": festival, "form": form,
        "notice": notice_for(festival), "state": _state(registration, now), "registrations": registrations,
        "covered": {r.pk for r in registrations if r.waits_for_guardian and r.is_active},
    }, status=400 if form.is_bound else 200)


urlpatterns = [
    path("guardian/<str:token>/", guardian_page, name="guardian-page"),
]
