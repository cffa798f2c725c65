"""Demo accounts, one per role, all with the password the README publishes. Development only."""

from django.contrib.auth.models import Group, User

from ..permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE

PASSWORD = "rummikub-demo"  # noqa: S105 - published in the README on purpose; never used outside development
ROLE_ACCOUNTS = {"organiser": ORGANISER, "chief": CHIEF_REFEREE, "referee": REFEREE, "desk": DESK}
SUPERUSER = "admin"


def ensure_accounts() -> dict[str, User]:
    """Create the accounts that are missing; an existing account keeps its password (someone may have
    changed it) but gets its role's group back."""
    users = {}
    for username, role in ROLE_ACCOUNTS.items():
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        if role == ORGANISER and not user.is_staff:
            # Organisers edit their festivals' details in the admin (scoped to their festivals there).
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        users[username] = user
    admin = User.objects.filter(username=SUPERUSER).first()
    if admin is None:
        admin = User.objects.create_superuser(username=SUPERUSER, email="", password=PASSWORD)
    users[SUPERUSER] = admin
    return users


def join_staff(users: dict[str, User], festivals) -> None:
    """A role counts only at festivals whose staff the user is on (tournament/permissions.py)."""
    for festival in festivals:
        festival.staff.add(*(users[username] for username in ROLE_ACCOUNTS))
