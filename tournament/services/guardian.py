"""A child's guardian who really agreed (Korea's PIPA art. 22-2; Hong Kong's PDPO asks the same of a minor's
data): the organiser checks it, the child's own tick is not it.

A child registering online (services.consent.needs_guardian) is *waiting for the guardian*
(Registration.guardian_check) until the guardian agrees:
- a guardian's contact that is an e-mail address gets a link (/guardian/<token>/; only the token's hash is
  kept). The page shows the festival's notice and the child's details; agreeing records who (the name the
  guardian types), when and how. While the child has a place, it is held for the festival's
  `guardian_hold_days`; then services.guardian_release gives it to the next on the waiting list.
- a guardian's phone number only: the guardian signs the paper consent form at the desk on the day, and the
  desk's check-in records it (services.checkin). The place is kept until then.
The status machine is not touched: a held place counts as taken, like any other.

E-mails go after the transaction commits (never for a change rolled back), in the language the child's form
was filled in, and a failure to send is recorded, not raised: the organiser sees that no link went out and
sends it again.
"""

import datetime as dt
import hashlib
import logging
import secrets
import smtplib
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import Registration
from .audit import SYSTEM, Actor, record
from .consent import Consent, stamp_ranking
from .errors import ServiceError
from .locking import lock_event, lock_player, lock_registration, lock_rows

logger = logging.getLogger(__name__)
Check = Registration.GuardianCheck
AGREED = (Check.EMAIL, Check.PAPER)
# What each kind of e-mail is about: its template (templates/tournament/email/) and whether it carries a link.
LINK, PROMOTED, RELEASED = "link", "promoted", "released"
FIELDS = ["guardian_check", "guardian_checked_at", "guardian_checked_name", "guardian_language",
          "guardian_token_hash", "guardian_previous_token_hash", "guardian_held_until"]
TOKEN_LENGTH = 43  # secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def by_email(contact: str) -> bool:
    return "@" in (contact or "")


def snapshot(registration: Registration) -> dict:
    """The guardian's side as the audit log keeps it (no personal data)."""
    return {"check": registration.guardian_check,
            "held_until": registration.guardian_held_until.isoformat() if registration.guardian_held_until else None}


# --- hooks called by services.registration inside its transaction (the event locked) -------------------------


def on_consent(registration: Registration, *, consent: Consent, now) -> None:
    """After the consent is stored: a guardian's agreement on the online form waits for the guardian; one on
    the desk's paper form is checked there and then; an import's is the organiser's declaration (nothing)."""
    if consent.by != Registration.ConsentBy.GUARDIAN:
        return
    if consent.how == Registration.ConsentHow.PAPER:
        _agree(registration, how=Check.PAPER, name=registration.player.guardian_name, now=now)
        registration.save(update_fields=FIELDS)
    elif consent.how == Registration.ConsentHow.ONLINE:
        registration.guardian_language = consent.language
        _wait(registration, now=now)


def carry(registration: Registration, *, agreed: Registration, now) -> None:
    """Entering one more event with an agreement given before (services.registration.register_existing_player):
    a guardian's agreement already checked for the same notice covers this event too; one still awaited makes
    this entry wait as well."""
    if agreed.consent_by != Registration.ConsentBy.GUARDIAN:
        return
    checked = (Registration.objects.filter(player_id=registration.player_id, guardian_check__in=AGREED,
                                           consent_notice_version=agreed.consent_notice_version)
               .exclude(pk=registration.pk).order_by("-guardian_checked_at").first())
    if checked is not None:
        registration.guardian_check, registration.guardian_checked_at = checked.guardian_check, checked.guardian_checked_at
        registration.guardian_checked_name = checked.guardian_checked_name
        registration.guardian_language = checked.guardian_language
        registration.save(update_fields=FIELDS)
    elif agreed.guardian_check == Check.WAITING:
        registration.guardian_language = agreed.guardian_language
        _wait(registration, now=now)


def on_promoted(registration: Registration, *, now) -> None:
    """A child waiting for the guardian got a place from the waiting list: the place is held from now, and the
    guardian gets a new link saying so."""
    if not registration.waits_for_guardian:
        return
    registration.guardian_held_until = _hold_end(registration, now)
    token = _new_link(registration, keep_previous=True)
    registration.save(update_fields=FIELDS)
    if token:
        _send_after_commit(registration, PROMOTED, token)


def on_released(registration: Registration, *, now) -> None:
    """The hold is over and the place went to the waiting list (services.guardian_release): the guardian is
    told, with a new link (they may still agree; the child keeps their place in the line)."""
    token = _new_link(registration, keep_previous=True)
    registration.save(update_fields=FIELDS)
    if token:
        _send_after_commit(registration, RELEASED, token)


def _wait(registration: Registration, *, now) -> None:
    registration.guardian_check = Check.WAITING
    registration.guardian_checked_at, registration.guardian_checked_name = None, ""
    registration.guardian_held_until = _hold_end(registration, now)
    token = _new_link(registration)
    registration.save(update_fields=FIELDS)
    if token:
        _send_after_commit(registration, LINK, token)


def _hold_end(registration: Registration, now) -> dt.datetime | None:
    """Until when a place waits for the guardian's link: only a place (not the waiting list), and only for a
    guardian who can get the link (a phone-only guardian agrees at the desk on the day)."""
    if registration.status != Registration.Status.REGISTERED or not by_email(registration.player.guardian_contact):
        return None
    return now + dt.timedelta(days=registration.event.festival.guardian_hold_days)


def _new_link(registration: Registration, *, keep_previous: bool = False) -> str | None:
    """A new token for an e-mail guardian; None for a phone-only guardian. The old link stops working, unless
    `keep_previous` (a link the app sends when the place moves: the guardian may be agreeing on the old one at
    that very moment)."""
    registration.guardian_previous_token_hash = registration.guardian_token_hash if keep_previous else ""
    if not by_email(registration.player.guardian_contact):
        registration.guardian_token_hash = registration.guardian_previous_token_hash = ""
        return None
    token = secrets.token_urlsafe(32)
    registration.guardian_token_hash = token_hash(token)
    return token


def _agree(registration: Registration, *, how: str, name: str, now) -> None:
    registration.guardian_check, registration.guardian_checked_at = how, now
    registration.guardian_checked_name = name[:100]
    registration.guardian_held_until = None


# --- the guardian's link ------------------------------------------------------------------------------------


def by_token(token: str) -> Registration | None:
    if not token or len(token) > 100:
        return None
    hashed = token_hash(token)
    return (Registration.objects.select_related("event__festival", "player")
            .filter(Q(guardian_token_hash=hashed) | Q(guardian_previous_token_hash=hashed)).first())


def waiting_together(registration: Registration):
    """The registrations one agreement covers: the player's registrations at the festival still waiting."""
    return Registration.objects.filter(player_id=registration.player_id, guardian_check=Check.WAITING,
                                       status__in=Registration.ACTIVE)


def agree_by_link(*, token: str, name: str, ranking: bool | None = None, now=None) -> Registration:
    """The guardian agrees on the link's page: every registration of the child at the festival that waits for
    the guardian (the page lists them) is checked, with the typed name, the time and how. Agreeing again, or
    with a link replaced by a newer one, changes nothing. `ranking`: the guardian's answer to the separate
    question about the festival's ranking body (None: not asked), which replaces the one on the child's form."""
    now = now or timezone.now()
    found = by_token(token)
    if found is None:
        raise ServiceError(_("This link is not valid (any more). Use the newest e-mail, or ask the organisers."),
                           code="unknown")
    with transaction.atomic():
        event_ids = sorted({found.event_id, *waiting_together(found).values_list("event_id", flat=True)})
        for event_id in event_ids:  # in a fixed order: two agreements never wait for each other's locks
            lock_event(event_id)
        registration = lock_registration(found, "event__festival", "player")
        hashed = token_hash(token)
        if not (secrets.compare_digest(registration.guardian_token_hash, hashed)
                or secrets.compare_digest(registration.guardian_previous_token_hash, hashed)):
            raise ServiceError(_("This link is not valid (any more). Use the newest e-mail, or ask the "
                                 "organisers."), code="unknown")
        if not registration.is_active:
            raise ServiceError(_("This registration was withdrawn: there is nothing to agree to."), code="withdrawn")
        if not registration.waits_for_guardian:
            return registration
        covered = waiting_together(registration).filter(event_id__in=event_ids)  # the events locked above
        player = lock_player(registration.player_id)
        answered = stamp_ranking(player, agrees=ranking, festival=registration.event.festival, now=now)
        if answered:
            player.save(update_fields=answered)
        for waiting in lock_rows(covered).select_related("event"):
            before = snapshot(waiting)
            _agree(waiting, how=Check.EMAIL, name=name, now=now)
            waiting.save(update_fields=FIELDS)
            record(actor=Actor(label="guardian link"), action="registration.guardian_agreed", target=waiting,
                   event=waiting.event, before=before,
                   after=snapshot(waiting) | ({"results_to_ranking": ranking} if ranking is not None else {}))
        registration.refresh_from_db()
    return registration


# --- the organiser and the desk -----------------------------------------------------------------------------


def resend_link(*, registration: Registration, actor: Actor, now=None) -> Registration:
    """The organiser sends the guardian a new link (the old one stops working). A child with a place gets the
    festival's full hold again from now: the organiser chose to wait."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = lock_registration(registration, "player")
        registration.event = event
        if not registration.is_active or not registration.waits_for_guardian:
            raise ServiceError(_("%(name)s is not waiting for a guardian's agreement.")
                               % {"name": registration.player.name}, code="not_waiting")
        if not by_email(registration.player.guardian_contact):
            raise ServiceError(_("The guardian of %(name)s gave a phone number, not an e-mail address: they sign "
                                 "the paper form at the desk on the day.") % {"name": registration.player.name},
                               code="phone")
        before = snapshot(registration)
        if registration.status == Registration.Status.REGISTERED:
            registration.guardian_held_until = _hold_end(registration, now)
        token = _new_link(registration)
        registration.save(update_fields=FIELDS)
        record(actor=actor, action="registration.guardian_link_resent", target=registration, event=event,
               before=before, after=snapshot(registration))
        _send_after_commit(registration, LINK, token)
    return registration


def agree_on_paper(registration: Registration, *, event, actor: Actor, now) -> None:
    """The guardian signed the paper consent form at the desk: recorded on a locked registration (the caller
    holds the event's lock; the desk's check-in, services.checkin)."""
    if not registration.waits_for_guardian:
        return
    before = snapshot(registration)
    _agree(registration, how=Check.PAPER, name=registration.player.guardian_name, now=now)
    registration.save(update_fields=FIELDS)
    record(actor=actor, action="registration.guardian_agreed", target=registration, event=event, before=before,
           after=snapshot(registration))


def record_paper_agreement(*, registration: Registration, actor: Actor, now=None) -> Registration:
    """The desk records the guardian's paper form for a child on the waiting list (no check-in: no place)."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = lock_registration(registration, "player")
        if not registration.is_active:
            raise ServiceError(_("%(name)s has withdrawn from this event.") % {"name": registration.player.name},
                               code="withdrawn")
        agree_on_paper(registration, event=event, actor=actor, now=now)
    return registration


def waiting_q(prefix: str = "") -> Q:
    """Registrations (reached through `prefix`) waiting for the guardian, with a place or on the list."""
    return Q(**{f"{prefix}guardian_check": Check.WAITING, f"{prefix}status__in": Registration.ACTIVE})


# --- e-mail ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mail:
    subject: str
    body: str


def link_url(token: str) -> str:
    return settings.SITE_URL + reverse("guardian-page", kwargs={"token": token})


def _send_after_commit(registration: Registration, kind: str, token: str) -> None:
    pk = registration.pk
    transaction.on_commit(lambda: send(pk, kind, token))


def compose(registration: Registration, kind: str, token: str) -> Mail:
    """The message in the guardian's language, times in the festival's zone."""
    festival = registration.event.festival
    language = registration.guardian_language or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(festival.tzinfo):
        until = registration.guardian_held_until
        context = {
            "festival": festival, "event": registration.event, "player": registration.player,
            "guardian": registration.player.guardian_name or _("parent or guardian"),
            "age": festival.guardian_age, "url": link_url(token),
            "until": date_format(timezone.localtime(until), "DATETIME_FORMAT") if until else "",
            "starts": date_format(timezone.localtime(registration.event.starts_at), "DATETIME_FORMAT"),
            "contact": festival.contact, "waiting_list": registration.status == Registration.Status.WAITLISTED,
        }
        subjects = {
            LINK: _("%(festival_name)s: please agree to the registration of %(player)s"),
            PROMOTED: _("%(festival_name)s: a place for %(player)s, waiting for your agreement"),
            RELEASED: _("%(festival_name)s: the place held for %(player)s went to the waiting list"),
        }
        subject = subjects[kind] % {"festival_name": festival.name, "player": registration.player.name}
        body = render_to_string(f"tournament/email/guardian_{kind}.txt", context)
    return Mail(subject=" ".join(subject.split()), body=body)


def send(registration_id: int, kind: str, token: str) -> bool:
    """Send one message to the guardian's e-mail address; True when the mail server took it. A failure is
    logged and recorded (the organiser's list shows that no link went out), never raised."""
    registration = (Registration.objects.select_related("event__festival", "player")
                    .filter(pk=registration_id).first())
    if registration is None or not by_email(registration.player.guardian_contact):
        return False
    mail = compose(registration, kind, token)
    contact = registration.event.festival.contact
    message = EmailMessage(subject=mail.subject, body=mail.body, to=[registration.player.guardian_contact],
                           reply_to=[contact] if by_email(contact) else None)
    try:
        message.send()
    except (smtplib.SMTPException, OSError):
        logger.exception("The e-mail to the guardian of registration %s (%s) was not sent.", registration_id, kind)
        record(actor=SYSTEM, action="registration.guardian_mail_failed", target=registration,
               event=registration.event, after={"kind": kind})
        return False
    Registration.objects.filter(pk=registration_id).update(guardian_link_sent_at=timezone.now())
    return True
