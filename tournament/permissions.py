"""Roles are Django groups; a role counts at a festival only for its staff (Festival.staff)."""

from django.core.exceptions import PermissionDenied

ORGANISER = "organiser"
CHIEF_REFEREE = "chief referee"
REFEREE = "referee"
DESK = "desk"
ROLES = (ORGANISER, CHIEF_REFEREE, REFEREE, DESK)


def roles_at(user, festival) -> set[str]:
    if not user.is_authenticated:
        return set()
    if user.is_superuser:
        return set(ROLES)
    if not festival.staff.filter(pk=user.pk).exists():
        return set()
    return set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))


def has_role(user, festival, *roles: str) -> bool:
    """Organisers manage everything of their festival, so they hold every role there."""
    held = roles_at(user, festival)
    return ORGANISER in held or bool(held.intersection(roles))


def require_role(user, festival, *roles: str) -> None:
    if not has_role(user, festival, *roles):
        raise PermissionDenied
