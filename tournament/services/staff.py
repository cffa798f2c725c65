"""Who works at a festival: the organiser adds people by username or e-mail and gives each a role.

A person without an account gets one with no password and a one-time link to set it, shown to the organiser
(no e-mail server needed). The link is Django's password-reset token: it stops working once the password is
set, or after settings.PASSWORD_RESET_TIMEOUT. Existing accounts never get such a link from an organiser —
that would let an organiser take over someone else's account.

Removing a role ends what it opened at once: every permission check reads the roles afresh.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from ..models import Festival, StaffRole
from ..permissions import ORGANISER, ROLES
from .audit import Actor, record
from .errors import ServiceError
from .locking import lock_festival

User = get_user_model()


@dataclass(frozen=True)
class StaffAdded:
    user: object
    role: str
    account_created: bool




def _role(role: str) -> str:
    if role not in ROLES:
        raise ServiceError(_("Choose one of the roles."), code="no_role")
    return role


def find_account(identifier: str):
    """The account a username or an e-mail address names, or None; several accounts sharing one e-mail
    address are refused rather than guessed between."""
    identifier = identifier.strip()
    if "@" in identifier:
        matches = list(User.objects.filter(email__iexact=identifier)[:2])
        if len(matches) > 1:
            raise ServiceError(_("Several accounts use this e-mail address; add the person by username."),
                               code="ambiguous_email")
        if matches:
            return matches[0]
    return User.objects.filter(username__iexact=identifier).first()


def _new_account(identifier: str):
    identifier = identifier.strip()
    if "@" in identifier:
        try:
            validate_email(identifier)
        except ValidationError:
            raise ServiceError(_("Write a username or a valid e-mail address."), code="bad_identifier") from None
        base = "".join(ch for ch in identifier.split("@")[0] if ch.isalnum() or ch in "._-")[:140] or "staff"
        username, suffix = base, 1
        while User.objects.filter(username__iexact=username).exists():
            suffix += 1
            username = f"{base}{suffix}"
        email = identifier
    else:
        username, email = identifier, ""
        try:
            UnicodeUsernameValidator()(username)
        except ValidationError:
            raise ServiceError(_("A username may hold only letters, digits and @ . + - _ (no spaces)."),
                               code="bad_identifier") from None
        if len(username) > 150:
            raise ServiceError(_("A username has at most 150 characters."), code="bad_identifier")
    user = User(username=username, email=email)
    user.set_unusable_password()
    user.save()
    return user


def add_staff(*, festival: Festival, identifier: str, role: str, actor: Actor) -> StaffAdded:
    """Give a person (found by username or e-mail, or a new account) a role at the festival."""
    role = _role(role)
    if not identifier or not identifier.strip():
        raise ServiceError(_("Write a username or an e-mail address."), code="bad_identifier")
    with transaction.atomic():
        festival = lock_festival(festival)
        user = find_account(identifier)
        created = user is None
        if created:
            user = _new_account(identifier)
        elif not user.is_active:
            raise ServiceError(_("This account is switched off; ask the site administrator."), code="inactive")
        added = StaffRole.objects.get_or_create(festival=festival, user=user, role=role)[1]
        if not added:
            raise ServiceError(_("%(user)s already works here in this role.") % {"user": user.get_username()},
                               code="already")
        record(actor=actor, action="staff.added", target=user, festival=festival,
               after={"user": user.get_username(), "role": role, "account_created": created})
    return StaffAdded(user=user, role=role, account_created=created)


def grant_role(*, festival: Festival, user, role: str, actor: Actor) -> None:
    """The same as add_staff for a known account; safe to repeat (the festival's creator becomes organiser)."""
    role = _role(role)
    with transaction.atomic():
        festival = lock_festival(festival)
        added = StaffRole.objects.get_or_create(festival=festival, user=user, role=role)[1]
        if added:
            record(actor=actor, action="staff.added", target=user, festival=festival,
                   after={"user": user.get_username(), "role": role, "account_created": False})


def remove_role(*, festival: Festival, user, role: str, actor: Actor) -> None:
    """End a person's role at once; a festival always keeps one organiser."""
    role = _role(role)
    with transaction.atomic():
        festival = lock_festival(festival)
        held = StaffRole.objects.filter(festival=festival, user=user, role=role)
        if not held.exists():
            raise ServiceError(_("This person does not hold that role here."), code="not_held")
        if role == ORGANISER and StaffRole.objects.filter(festival=festival, role=ORGANISER).count() == 1:
            raise ServiceError(_("A festival keeps at least one organiser: add another organiser first."),
                               code="last_organiser")
        held.delete()
        record(actor=actor, action="staff.removed", target=user, festival=festival,
               before={"user": user.get_username(), "role": role})


def set_password_path(*, festival: Festival, user) -> str:
    """The one-time path where a staff account made by an organiser sets its password. Only for such
    accounts (no usable password yet), and only while the person works at the festival."""
    if user.has_usable_password() or not StaffRole.objects.filter(festival=festival, user=user).exists():
        raise ServiceError(_("This account already has a password; its owner signs in with it."),
                           code="has_password")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})
