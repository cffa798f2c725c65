"""Who works at a festival, and as what: roles granted and removed.

People come onto the staff only by accepting an invitation (services/invitations.py); `grant_role` is for
code that acts for the site (the festival's creator becomes its organiser, the demo).

Removing a role ends what it opened at once: every permission check reads the roles afresh, and what other apps
gave a person because of a role (a referee's tables) ends in the same transaction, through `when_role_removed`.
"""

from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import Festival, StaffRole
from ..permissions import ORGANISER, ROLES
from .audit import Actor, record
from .errors import ServiceError
from .locking import lock_festival

User = get_user_model()

# Called as `ends(festival=, user=, actor=)` inside remove_role's transaction, the festival locked; each decides
# from the roles the person still holds (an organiser keeps every role's permissions).
_ON_REMOVAL: list[Callable] = []


def when_role_removed(ends: Callable) -> None:
    """Register what ends when a person loses a role at a festival (apps register in their `ready`)."""
    if ends not in _ON_REMOVAL:
        _ON_REMOVAL.append(ends)


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ServiceError(_("Choose one of the roles."), code="no_role")
    return role


def grant_role(*, festival: Festival, user, role: str, actor: Actor) -> None:
    """Give a known account a role; safe to repeat (the festival's creator becomes organiser)."""
    role = check_role(role)
    with transaction.atomic():
        festival = lock_festival(festival)
        added = StaffRole.objects.get_or_create(festival=festival, user=user, role=role)[1]
        if added:
            record(actor=actor, action="staff.added", target=user, festival=festival,
                   after={"user": user.get_username(), "role": role, "account_created": False})


def remove_role(*, festival: Festival, user, role: str, actor: Actor) -> None:
    """End a person's role at once; a festival always keeps one organiser."""
    role = check_role(role)
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
        for ends in _ON_REMOVAL:
            ends(festival=festival, user=user, actor=actor)
