"""Invitations to work at a festival: the only way an organiser brings someone onto its staff.

The rules (docs/security.md, "Who may invite whom"):
- An invitation belongs to one festival and the organiser who made it, for one role. Nothing is granted until
  the invited person says yes: an existing account accepts when it next signs in (My work) or from the link;
  someone without an account makes their own from the link, choosing their own password.
- The link is shown to the organiser once; only the hash of its token is stored. Only the festival's own
  organisers can renew it (a new token: the old link stops working) or withdraw it.
- An account that already works at another festival, or is wanted by one, can never have its password set
  from this festival's link: an organiser of one festival must not be able to take over another's staff.
- "Invite this person" gets the same answer whether or not an account with that name or address exists.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum

from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Festival, StaffInvitation, StaffRole
from ..visible_names import validate_visible_name
from .audit import Actor, record
from .errors import ServiceError
from .locking import lock_festival
from .staff import check_role

User = get_user_model()
VALID_FOR = timedelta(days=7)
Status = StaffInvitation.Status


@dataclass(frozen=True)
class Invited:
    """An invitation and its link's token, which exists only here: show it once."""

    invitation: StaffInvitation
    token: str


class LinkAllows(Enum):
    """What a visitor holding an invitation's link may do with it."""

    NOTHING = "nothing"  # answered, withdrawn or expired
    SIGN_IN = "sign in"  # addressed to an account: its owner signs in to answer
    OTHER_ACCOUNT = "other account"  # signed in, but as someone the invitation is not for
    ANSWER = "answer"  # signed in as the invited account (or any account, for an invitation to a newcomer)
    NEW_ACCOUNT = "new account"  # a newcomer makes their own account and accepts
    SET_PASSWORD = "set password"  # an account this festival alone made earlier, which never had a password


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> tuple[str, str]:
    token = secrets.token_urlsafe(32)
    return token, _hash(token)


def check_identifier(identifier: str) -> str:
    """A username or an e-mail address, well formed whether or not an account uses it (so a refusal never
    tells whether one does)."""
    identifier = (identifier or "").strip()
    if not identifier:
        raise ServiceError(_("Write a username or an e-mail address."), code="bad_identifier")
    if "@" in identifier:
        try:
            validate_email(identifier)
        except ValidationError:
            raise ServiceError(_("Write a username or a valid e-mail address."), code="bad_identifier") from None
        return identifier
    try:
        UnicodeUsernameValidator()(identifier)
        validate_visible_name(identifier)
    except ValidationError:
        raise ServiceError(_("A username may hold only letters, digits and @ . + - _ (no spaces)."),
                           code="bad_identifier") from None
    if len(identifier) > 150:
        raise ServiceError(_("A username has at most 150 characters."), code="bad_identifier")
    return identifier


def named_account(identifier: str):
    """The one account a username or e-mail address names, or None (also when several accounts share an
    address: the invitation then waits for whoever holds its link)."""
    if "@" in identifier:
        matches = list(User.objects.filter(email__iexact=identifier)[:2])
        if len(matches) == 1:
            return matches[0]
    return User.objects.filter(username__iexact=identifier).first()


def _pending(festival: Festival, invitation_id) -> StaffInvitation:
    invitation = StaffInvitation.objects.filter(festival=festival, pk=invitation_id, status=Status.PENDING).first()
    if invitation is None:
        raise ServiceError(_("This invitation is no longer waiting for an answer."), code="not_pending")
    return invitation


def invite(*, festival: Festival, identifier: str, role: str, actor: Actor, now=None) -> Invited:
    """Invite a person (by username or e-mail) to work at the festival in `role`."""
    role, identifier = check_role(role), check_identifier(identifier)
    now = now or timezone.now()
    with transaction.atomic():
        festival = lock_festival(festival)
        account = named_account(identifier)
        if account is not None and StaffRole.objects.filter(festival=festival, user=account, role=role).exists():
            raise ServiceError(_("%(user)s already works here in this role.") % {"user": account.get_username()},
                               code="already")
        if StaffInvitation.objects.filter(festival=festival, identifier_key=identifier.casefold(), role=role,
                                          status=Status.PENDING).exists():
            raise ServiceError(_("An invitation for %(user)s in this role is waiting already: renew its link in "
                                 "the list below.") % {"user": identifier}, code="pending")
        token, token_hash = _new_token()
        invitation = StaffInvitation.objects.create(
            festival=festival, role=role, identifier=identifier, account=account, made_by=actor.user,
            token_hash=token_hash, expires_at=now + VALID_FOR)
        record(actor=actor, action="staff.invited", target=invitation, festival=festival,
               after={"identifier": identifier, "role": role})
    return Invited(invitation=invitation, token=token)


def invite_to_set_password(*, festival: Festival, user_id: int, actor: Actor, now=None) -> Invited:
    """A link for an account this festival made before invitations existed and whose password was never set.
    Refused for any account that works at, or is wanted by, another festival."""
    now = now or timezone.now()
    with transaction.atomic():
        festival = lock_festival(festival)
        row = StaffRole.objects.filter(festival=festival, user_id=user_id).select_related("user").first()
        if row is None:
            raise ServiceError(_("This person does not work at this festival."), code="not_staff")
        if not _only_here(row.user, festival):
            raise ServiceError(_("This account already has a password or works elsewhere too; its owner signs "
                                 "in with it, or asks the site administrator."), code="has_password")
        StaffInvitation.objects.filter(festival=festival, account=row.user, status=Status.PENDING).update(
            status=Status.WITHDRAWN, answered_at=now)
        token, token_hash = _new_token()
        invitation = StaffInvitation.objects.create(
            festival=festival, role=row.role, identifier=row.user.get_username(), account=row.user,
            made_by=actor.user, token_hash=token_hash, expires_at=now + VALID_FOR)
        record(actor=actor, action="staff.invited", target=invitation, festival=festival,
               after={"identifier": invitation.identifier, "role": row.role, "set_password": True})
    return Invited(invitation=invitation, token=token)


def renew(*, festival: Festival, invitation_id: int, actor: Actor, now=None) -> Invited:
    """A new link for a waiting invitation of this festival; the old link stops working."""
    now = now or timezone.now()
    with transaction.atomic():
        festival = lock_festival(festival)
        invitation = _pending(festival, invitation_id)
        token, invitation.token_hash = _new_token()
        invitation.expires_at = now + VALID_FOR
        invitation.save(update_fields=["token_hash", "expires_at"])
        record(actor=actor, action="staff.invitation_renewed", target=invitation, festival=festival,
               after={"identifier": invitation.identifier, "role": invitation.role})
    return Invited(invitation=invitation, token=token)


def withdraw(*, festival: Festival, invitation_id: int, actor: Actor, now=None) -> StaffInvitation:
    now = now or timezone.now()
    with transaction.atomic():
        festival = lock_festival(festival)
        invitation = _pending(festival, invitation_id)
        invitation.status, invitation.answered_at = Status.WITHDRAWN, now
        invitation.save(update_fields=["status", "answered_at"])
        record(actor=actor, action="staff.invitation_withdrawn", target=invitation, festival=festival,
               before={"identifier": invitation.identifier, "role": invitation.role})
    return invitation


def by_token(token: str) -> StaffInvitation | None:
    if not token or len(token) > 100:
        return None
    return StaffInvitation.objects.select_related("festival", "account").filter(token_hash=_hash(token)).first()


def _only_here(account, festival: Festival) -> bool:
    """An account whose password this festival may let its owner set: never had one, never signed in, no
    site-wide powers, and nothing to do with any other festival."""
    if account.has_usable_password() or account.last_login or account.is_staff or account.is_superuser:
        return False
    if not account.is_active:
        return False
    elsewhere = StaffRole.objects.filter(user=account).exclude(festival=festival).exists()
    wanted = StaffInvitation.objects.filter(account=account).exclude(festival=festival).exists()
    return not elsewhere and not wanted


def link_allows(invitation: StaffInvitation | None, user, now=None) -> LinkAllows:
    now = now or timezone.now()
    if invitation is None or invitation.status != Status.PENDING or invitation.expires_at <= now:
        return LinkAllows.NOTHING
    account = invitation.account
    signed_in = user is not None and user.is_authenticated
    if account is None:
        return LinkAllows.ANSWER if signed_in else LinkAllows.NEW_ACCOUNT
    if signed_in:
        return LinkAllows.ANSWER if user.pk == account.pk else LinkAllows.OTHER_ACCOUNT
    if _only_here(account, invitation.festival):
        return LinkAllows.SET_PASSWORD
    return LinkAllows.SIGN_IN


def _answerable(invitation_id: int, now) -> StaffInvitation:
    """The invitation, its festival locked, still waiting and within its time."""
    festival_id = StaffInvitation.objects.filter(pk=invitation_id).values_list("festival_id", flat=True).first()
    if festival_id is None:
        raise ServiceError(_("This invitation is no longer waiting for an answer."), code="not_pending")
    lock_festival(festival_id)
    invitation = StaffInvitation.objects.select_related("festival", "account").get(pk=invitation_id)
    if invitation.status != Status.PENDING or invitation.expires_at <= now:
        raise ServiceError(_("This invitation is no longer waiting for an answer."), code="not_pending")
    return invitation


def _grant(invitation: StaffInvitation, user, now) -> None:
    StaffRole.objects.get_or_create(festival=invitation.festival, user=user, role=invitation.role)
    invitation.status, invitation.answered_at, invitation.answered_by = Status.ACCEPTED, now, user
    invitation.save(update_fields=["status", "answered_at", "answered_by"])
    record(actor=Actor(user=user), action="staff.added", target=user, festival=invitation.festival,
           after={"user": user.get_username(), "role": invitation.role, "invitation": invitation.pk})


def _for_user(invitation_id: int, user, token: str | None, now) -> StaffInvitation:
    """The invitation `user` may answer: one addressed to their account, or, with its link's token, one to
    a newcomer (the link is what the organiser handed over)."""
    invitation = _answerable(invitation_id, now)
    if invitation.account_id is None:
        if token is None or not secrets.compare_digest(invitation.token_hash, _hash(token)):
            raise ServiceError(_("Open the invitation's link to answer it."), code="needs_link")
    elif invitation.account_id != user.pk:
        raise ServiceError(_("This invitation is for another account."), code="other_account")
    return invitation


def accept(*, invitation_id: int, user, token: str | None = None, now=None) -> StaffInvitation:
    """A signed-in account says yes: the role is its own from now on."""
    now = now or timezone.now()
    with transaction.atomic():
        invitation = _for_user(invitation_id, user, token, now)
        _grant(invitation, user, now)
    return invitation


def decline(*, invitation_id: int, user, token: str | None = None, now=None) -> StaffInvitation:
    now = now or timezone.now()
    with transaction.atomic():
        invitation = _for_user(invitation_id, user, token, now)
        invitation.status, invitation.answered_at, invitation.answered_by = Status.DECLINED, now, user
        invitation.save(update_fields=["status", "answered_at", "answered_by"])
        record(actor=Actor(user=user), action="staff.invitation_declined", target=invitation,
               festival=invitation.festival, after={"role": invitation.role})
    return invitation


def accept_as_new_account(*, invitation_id: int, username: str, password: str, now=None):
    """A newcomer makes their own account from the link (the form has checked the password) and accepts."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            invitation = _answerable(invitation_id, now)
            if invitation.account_id is not None:
                raise ServiceError(_("This invitation is for an existing account: sign in to answer it."),
                                   code="sign_in")
            if User.objects.filter(username__iexact=username).exists():
                raise ServiceError(_("This username is taken; choose another."), code="username_taken")
            email = invitation.identifier if "@" in invitation.identifier else ""
            user = User.objects.create_user(username=username, email=email, password=password)
            _grant(invitation, user, now)
    except IntegrityError:
        raise ServiceError(_("This username is taken; choose another."), code="username_taken") from None
    return user


def set_password_and_accept(*, invitation_id: int, password: str, now=None):
    """The owner of an account only this festival made (before invitations) sets its first password."""
    now = now or timezone.now()
    with transaction.atomic():
        invitation = _answerable(invitation_id, now)
        account = invitation.account
        if account is None or not _only_here(account, invitation.festival):
            raise ServiceError(_("This invitation is for an existing account: sign in to answer it."),
                               code="sign_in")
        account.set_password(password)
        account.save(update_fields=["password"])
        _grant(invitation, account, now)
    return account


def waiting_for(user, now=None) -> list[StaffInvitation]:
    """The invitations addressed to this account that still wait for its answer (shown on My work)."""
    if not user.is_authenticated:
        return []
    now = now or timezone.now()
    return list(StaffInvitation.objects.filter(account=user, status=Status.PENDING, expires_at__gt=now)
                .select_related("festival", "made_by").order_by("made_at"))
