"""Who may do what: a role is held at one festival (StaffRole); organisers hold every role there.

The one place that answers permission questions; views ask through tournament/views/helpers.py (staff_view),
services and other apps through has_role / roles_at.
"""

from .models import StaffRole

ORGANISER = StaffRole.Role.ORGANISER.value
CHIEF_REFEREE = StaffRole.Role.CHIEF_REFEREE.value
REFEREE = StaffRole.Role.REFEREE.value
DESK = StaffRole.Role.DESK.value
ROLES = (ORGANISER, CHIEF_REFEREE, REFEREE, DESK)
ORGANISE_FESTIVALS = "tournament.organise_festivals"


def roles_at(user, festival) -> set[str]:
    if not user.is_authenticated or not user.is_active:
        return set()
    if user.is_superuser:
        return set(ROLES)
    # A set: no order, so not StaffRole's default one (a join of the festival for nothing).
    return set(StaffRole.objects.filter(festival=festival, user=user).order_by().values_list("role", flat=True))


def has_role(user, festival, *roles: str) -> bool:
    """Organisers manage everything of their festival, so they hold every role there."""
    held = roles_at(user, festival)
    return ORGANISER in held or bool(held.intersection(roles))


def people_with_role(festival, role: str):
    """The active accounts holding `role` itself at the festival, by username."""
    from django.contrib.auth import get_user_model

    return (get_user_model().objects.filter(staff_roles__festival=festival, staff_roles__role=role, is_active=True)
            .distinct().order_by("username"))


def may_organise_festivals(user) -> bool:
    """May create festivals (granted by the superuser, or `manage.py add_organiser`)."""
    return user.is_authenticated and user.is_active and user.has_perm(ORGANISE_FESTIVALS)
