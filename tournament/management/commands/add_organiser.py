"""Give an account the right to create festivals (it then organises the festivals it creates)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from tournament.permissions import ORGANISE_FESTIVALS
from tournament.visible_names import validate_visible_name

TRIES = 3


class Command(BaseCommand):
    help = "Let USERNAME create festivals; with --create, make the account first (asks for its password twice)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--create", action="store_true", help="make the account if it does not exist")
        parser.add_argument("--password", help="the new account's password (otherwise you are asked)")

    def handle(self, *args, username, create, password, **options):
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is None:
            if not create:
                raise CommandError(f"There is no account {username!r}; add --create to make it.")
            try:
                validate_visible_name(username)
            except ValidationError as error:
                raise CommandError(error.messages[0]) from None
            if password is None:
                password = self.ask_password(User(username=username))
            if not password:
                raise CommandError("A password is needed.")
            user = User.objects.create_user(username=username, password=password)
            self.stdout.write(f"Made the account {username}.")
        app_label, codename = ORGANISE_FESTIVALS.split(".")
        permission = Permission.objects.get(content_type__app_label=app_label, codename=codename)
        user.user_permissions.add(permission)
        self.stdout.write(self.style.SUCCESS(f"{username} may now create festivals and organises those it creates."))

    def ask_password(self, user) -> str:
        """Asked twice, as Django's createsuperuser does: a typo would lock the first organiser out. An empty,
        weak or mistyped password is refused and asked again, three times at most."""
        import getpass

        for _attempt in range(TRIES):
            password = getpass.getpass(f"Password for {user.username}: ")
            again = getpass.getpass("Password (again): ")
            if password != again:
                problem = "The passwords do not match."
            elif not password.strip():
                problem = "The password cannot be empty."
            else:
                try:
                    validate_password(password, user)
                except ValidationError as error:
                    problem = " ".join(error.messages)
                else:
                    return password
            self.stderr.write(problem)
        raise CommandError(f"{problem} Nothing was made; run the command again.")
