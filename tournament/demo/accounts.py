"""Demo accounts, one per role, all with the password the README publishes. Development only."""

from django.contrib.auth.models import Permission, User

from ..models import StaffRole
from ..permissions import CHIEF_REFEREE, DESK, ORGANISE_FESTIVALS, ORGANISER, REFEREE

PASSWORD = "rummikub-demo"  # noqa: S105 - published in the README on purpose; never used outside development
ROLE_ACCOUNTS = {"organiser": ORGANISER, "chief": CHIEF_REFEREE, "referee": REFEREE, "desk": DESK}
SUPERUSER = "admin"


def ensure_accounts() -> dict[str, User]:
    """Create the accounts that are missing; an existing account keeps its password (someone may have
    changed it). The organiser may create festivals."""
    users = {}
    for username, role in ROLE_ACCOUNTS.items():
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_user(username=username, password=PASSWORD)
        if role == ORGANISER:
            app_label, codename = ORGANISE_FESTIVALS.split(".")
            user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
        users[username] = user
    admin = User.objects.filter(username=SUPERUSER).first()
    if admin is None:
        admin = User.objects.create_superuser(username=SUPERUSER, email="", password=PASSWORD)
    users[SUPERUSER] = admin
    return users


def join_staff(users: dict[str, User], festivals) -> None:
    """Each demo account holds its role at every demo festival (tournament/permissions.py)."""
    for festival in festivals:
        for username, role in ROLE_ACCOUNTS.items():
            StaffRole.objects.get_or_create(festival=festival, user=users[username], role=role)
