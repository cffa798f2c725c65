"""The player's personal page: their registrations, QR code, withdraw, enter more events.

The unguessable token in the link is the only key; an unknown or malformed token gets the normal 404 page.
"""

import re

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from tournament.forms.registration import DetailsAgainForm, EnterAgainForm, WithdrawForm
from tournament.models import Event, Player, Registration
from tournament.notice import notice_for
from tournament.permissions import DESK, has_role
from tournament.qr import qr_svg
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.consent import needs_guardian
from tournament.services.erasure import erasure_due
from tournament.services.errors import ServiceError
from tournament.services.registration import (
    needs_details_again,
    register_existing_player,
    with_waiting_position,
    withdraw,
)
from tournament.views.registration import outcome_message, remember_player_token
from tournament.visibility import visibility
from tournament.zone import use_festival_zone

from ..standing import standings

PLAYER_LINK = "player link"
# What models.registration.new_token produces; anything else is answered like an unknown token, before it
# reaches the database (PostgreSQL refuses e.g. NUL characters in a query).
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


def _player(token: str) -> Player:
    if not TOKEN_SHAPE.fullmatch(token):
        raise Http404
    player = get_object_or_404(Player.objects.select_related("festival"), token=token)
    use_festival_zone(player.festival)
    return player


def _actor(request) -> Actor:
    actor = Actor.of(request)
    return actor if actor.user else Actor(label=PLAYER_LINK)


def refused_to_staff(request, player: Player) -> bool:
    """A desk phone that scanned a player's code must not make the player's own choices (their public name,
    their results given to a ranking body, erasing their data): said, and nothing changes. The player makes
    them on their own phone."""
    if not has_role(request.user, player.festival, DESK):
        return False
    messages.error(request, _("These are the player's own choices: they make them on their own phone. Nothing was "
                              "changed."))
    return True


# For the views of the personal page kept in other modules (erasing one's data, downloading it).
player_from_token, player_actor = _player, _actor


def _desk_urls(festival, registration, next_url: str) -> dict:
    """The desk's check-in / undo URLs for this registration."""
    kwargs = {"festival": festival.slug, "event": registration.event.slug, "registration": registration.pk}
    return {"checkin": reverse("desk-checkin", kwargs=kwargs), "undo": reverse("desk-undo", kwargs=kwargs),
            "guardian_signed": reverse("desk-guardian-signed", kwargs=kwargs), "next": next_url}


@never_cache
def player_page(request, token):
    player = _player(token)
    festival = player.festival
    remember_player_token(request, player.token)
    now = timezone.now()
    registrations = list(
        with_waiting_position(player.registrations.select_related("event__festival")).order_by("event__starts_at", "id")
    )
    active_events = [r.event for r in registrations if r.is_active]
    entered_ids = {event.pk for event in active_events}
    open_events = []
    for event in festival.events.filter(registration_opens_at__lte=now, registration_closes_at__gt=now):
        if event.pk in entered_ids or not event.registration_is_open(now):  # check-in over: closed too
            continue
        event.clash = next((other for other in active_events if other.overlaps(event)), None)
        open_events.append(event)

    seats = seating.current_seats(registrations)
    standing = standings(r for r in registrations if r.is_active)
    is_desk = has_role(request.user, festival, DESK)
    for registration in registrations:
        registration.standing = standing.get(registration.pk)
        registration.standing_shown = visibility(registration.event).standings
        # Out of the event: the seat of a round already played would send them to a table in vain.
        out = registration.standing is not None and registration.standing.out
        registration.seat = None if out else seats.get(registration.pk)
        # A table keeping its own sheet: the seated player enters and agrees to it from here.
        registration.sheet_url = (
            reverse("player-sheet-table", kwargs={"token": player.token, "event": registration.event.slug})
            if registration.seat is not None and registration.event.sheets_by == Event.SheetsBy.PLAYERS
            and registration.is_active and registration.seat.draw.stage.closed_at is None else "")
        # Still to play: a player out of the event, or of a finished one, has nothing to withdraw from.
        registration.still_to_play = (registration.is_active and not out and now < registration.event.ends_at
                                      and not (registration.standing is not None and registration.standing.final))
        # The service refuses a checked-in player's withdrawal (the desk handles it): do not offer it.
        registration.can_withdraw = (registration.is_active and not registration.is_checked_in
                                     and registration.event.withdrawal_is_open(now))
        registration.checkin_closed = not registration.event.checkin_is_open(now)
        registration.desk = (
            _desk_urls(festival, registration, request.path)
            if is_desk and registration.status == Registration.Status.REGISTERED
            else None
        )
    page_url = request.build_absolute_uri(player.get_absolute_url())
    return render(request, "tournament/player_page.html", {
        "player": player,
        "festival": festival,
        "registrations": registrations,
        "open_events": open_events,
        "is_desk": is_desk,
        "qr_svg": qr_svg(page_url, title=_("QR code of this page, for the desk to scan")),
        "withdraw_form": WithdrawForm(),
        "erasure_due": timezone.localtime(erasure_due(festival), festival.tzinfo).date(),
        "child": needs_guardian(festival, player.birth_year),
    })


def player_withdraw(request, token, registration_id):
    player = _player(token)
    if request.method != "POST":
        return redirect(player.get_absolute_url())
    registration = get_object_or_404(Registration.objects.select_related("event"), pk=registration_id, player=player)
    form = WithdrawForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Tick “Yes, withdraw me” to confirm. Nothing was changed."))
        return redirect(player.get_absolute_url())
    try:
        withdraw(registration=registration, actor=_actor(request))
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("You have withdrawn from %(event)s.") % {"event": registration.event.name})
    return redirect(player.get_absolute_url())


# Refusals the player answers by reading the festival's notice and agreeing (again), after an erasure with
# their contact and birth year.
ASK_CONSENT = ("consent_needed", "notice_changed", "guardian", "details_needed")


def player_enter(request, token, event):
    """Enter one more event. Where the festival's notice needs agreeing to (again), the notice and the
    agreement are shown first, and nothing is entered until the player (a child's guardian) agrees; after an
    erasure the contact and birth year (a child's guardian) are asked with it."""
    player = _player(token)
    if request.method != "POST":
        return redirect(player.get_absolute_url())
    try:
        event = Event.objects.get(festival_id=player.festival_id, slug=event)
    except Event.DoesNotExist:
        raise Http404 from None
    form_class = DetailsAgainForm if needs_details_again(player) else EnterAgainForm
    agreeing = "notice_version" in request.POST  # sent from the notice's page, not the plain button
    form = form_class(request.POST if agreeing else None, player=player)
    if agreeing and not form.is_valid():
        return _ask_consent(request, player, event, form)
    try:
        registration = register_existing_player(
            event=event, player=player, actor=_actor(request), consent=form.given_consent() if agreeing else None,
            details_again=form.details_again() if agreeing and form_class is DetailsAgainForm else None)
    except ServiceError as error:
        if error.code in ASK_CONSENT:
            return _ask_consent(request, player, event, form_class(player=player),
                                reason=error.message if agreeing else "")
        messages.error(request, error.message)
    else:
        messages.success(request, _("%(event)s: %(outcome)s") % {
            "event": event.name, "outcome": outcome_message(registration)
        })
    return redirect(player.get_absolute_url())


def _ask_consent(request, player, event, form, reason: str = ""):
    return render(request, "tournament/player_enter.html", {
        "player": player, "festival": player.festival, "event": event, "form": form, "reason": reason,
        "details_again": isinstance(form, DetailsAgainForm), "notice": notice_for(player.festival)})
