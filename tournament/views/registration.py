"""Public registration for an event (R9): no login, rate-limited, the player's link kept private."""

import math

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext
from django_ratelimit.core import get_usage

from ..forms.registration import PublicRegistrationForm
from ..models import Registration
from ..models.registration import contact_key
from ..notice import notice_for
from ..services import guardian
from ..services.audit import Actor
from ..services.errors import ServiceError
from ..services.registration import register, waiting_position
from .helpers import get_event

# Personal-page tokens of the players created or visited in this browser session: a player among them with the
# details typed is the person themselves, so the registration service refuses a clash with them (R9); nobody
# else's registrations are looked at, so the answer reveals nothing about who exists.
PLAYER_TOKENS_SESSION_KEY = "player_tokens"
REMEMBERED_TOKENS = 20


def remember_player_token(request, token: str) -> None:
    tokens = request.session.get(PLAYER_TOKENS_SESSION_KEY, [])
    if token in tokens:
        return
    request.session[PLAYER_TOKENS_SESSION_KEY] = ([token] + tokens)[:REMEMBERED_TOKENS]


def outcome_message(registration: Registration) -> str:
    if registration.status == Registration.Status.WAITLISTED:
        outcome = _("The event is full, so you are on the waiting list at position %(position)s. "
                    "If a place frees up before the withdrawal deadline, you move up automatically.") % {
            "position": waiting_position(registration)
        }
    else:
        outcome = _("You are registered.")
    return " ".join(part for part in (outcome, guardian_outcome(registration)) if part)


def guardian_outcome(registration: Registration) -> str:
    """What a child registered online is told about their guardian's agreement (services.guardian)."""
    if not registration.waits_for_guardian:
        return ""
    player = registration.player
    if not guardian.by_email(player.guardian_contact):
        return _("Your parent or guardian agrees on paper at the desk on the day: come together, before check-in "
                 "closes.")
    sent = _("Your parent or guardian must agree too: we sent a link to %(contact)s.") % {
        "contact": player.masked_guardian_contact}
    until = registration.guardian_held_until
    if until is None:
        return sent
    tzinfo = registration.event.festival.tzinfo
    return sent + " " + _("Your place is held until %(until)s; if they have not agreed by then, it goes to the next "
                          "player on the waiting list.") % {
        "until": date_format(timezone.localtime(until, tzinfo), "DATETIME_FORMAT")}


# Registration floods, counted by django-ratelimit in the shared cache: per client address, with room for a class
# or a club registering together from one school network (settings.REGISTRATION_RATE, 40 in 10 minutes), and per
# contact, however typed, from any address (settings.REGISTRATION_CONTACT_RATE, a few a minute). Every POST
# counts, whether or not it registers anyone.
ADDRESS_GROUP = "registration.address"
CONTACT_GROUP = "registration.contact"
CONTACT_REFUSAL = gettext_noop("Several registrations with this contact were sent in the last minute, so this one "
                               "was not saved. Please wait a minute and send it again: what you typed is still in "
                               "the form.")


def contact_refusal() -> str:
    return _(CONTACT_REFUSAL)


def address_refusal(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Many registrations were sent from this connection in the last few minutes, so this one was not saved. "
        "Please wait %(minutes)s minute and send it again: what you typed is still in the form. To register a "
        "large group at once, send the list to the organiser.",
        "Many registrations were sent from this connection in the last few minutes, so this one was not saved. "
        "Please wait %(minutes)s minutes and send it again: what you typed is still in the form. To register a "
        "large group at once, send the list to the organiser.",
        minutes) % {"minutes": minutes}


def _refusal(request, festival) -> str:
    """Why this POST is one too many, or "" (and it is counted)."""
    address = get_usage(request, group=ADDRESS_GROUP, key="ip", rate=settings.REGISTRATION_RATE, method="POST",
                        increment=True)
    if address is not None and address["should_limit"]:
        return address_refusal(address["time_left"])
    typed = request.POST.get("contact", "").strip()[:200]
    if not typed:
        return ""
    # The same contact however typed (one a phone number cannot be read from keeps its own key).
    contact = contact_key(typed, festival.phone_region) or typed.casefold()
    usage = get_usage(request, group=CONTACT_GROUP, key=lambda _group, _request: contact,
                      rate=settings.REGISTRATION_CONTACT_RATE, method="POST", increment=True)
    return contact_refusal() if usage is not None and usage["should_limit"] else ""


def _refused(request, event, context, message: str):
    """The form again with what was typed and why nothing was saved (429)."""
    if event.registration_is_open():
        form = PublicRegistrationForm(request.POST, festival=event.festival)
        form.is_valid()
        form.errors.clear()
        form.add_error(None, message)
        context.update(form=form, notice=notice_for(event.festival))
    else:
        messages.error(request, message)
    return render(request, "tournament/register.html", context, status=429)


def event_register(request, festival, event):
    event = get_event(festival, event)
    context = {"festival": event.festival, "event": event}
    refusal = _refusal(request, event.festival) if request.method == "POST" else ""
    if refusal:
        return _refused(request, event, context, refusal)
    if not event.registration_is_open():
        if request.method == "POST":
            messages.error(request, _("Registration for this event has closed: check-in is over, so nothing was "
                                      "saved.") if event.checkin_has_closed()
                           else _("Registration for this event is not open, so nothing was saved."))
        return render(request, "tournament/register.html", context)

    form = PublicRegistrationForm(request.POST if request.method == "POST" else None, festival=event.festival)
    if request.method == "POST" and form.is_valid():
        try:
            registration = register(event=event, details=form.player_details(), actor=Actor.of(request),
                                    consent=form.given_consent(),
                                    own_tokens=request.session.get(PLAYER_TOKENS_SESSION_KEY, []))
        except ServiceError as error:
            form.add_error(None, error.message)
            if error.code == "notice_changed":
                # Show the notice as it is now, and ask again.
                event.festival.refresh_from_db()
                form = _ask_again(request, event.festival, error.message)
        else:
            return _after_registration(request, registration)
    context["form"] = form
    context["notice"] = notice_for(event.festival)
    return render(request, "tournament/register.html", context)


def _ask_again(request, festival, message: str) -> PublicRegistrationForm:
    data = request.POST.copy()
    data["notice_version"] = str(festival.privacy_notice_version)
    data.pop("agree", None)
    data.pop("guardian_agrees", None)
    form = PublicRegistrationForm(data, festival=festival)
    form.is_valid()
    form.errors.clear()  # the fields were right; only the agreement is asked again
    form.add_error(None, message)
    return form


def _after_registration(request, registration: Registration):
    # Always a new player (services.identity): their own page, whoever else has the same details.
    player = registration.player
    remember_player_token(request, player.token)
    messages.success(request, outcome_message(registration))
    return redirect(player.get_absolute_url())


urlpatterns = [
    path("f/<slug:festival>/<slug:event>/register/", event_register, name="event-register"),
]
