from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def ensure_role_groups(sender, using="default", **kwargs):
    """The role groups (tournament/permissions.py) exist after every migrate and every flush — a
    transactional test's flush would otherwise leave the following tests without them."""
    from django.contrib.auth.models import Group

    from .permissions import ROLES

    for name in ROLES:
        Group.objects.using(using).get_or_create(name=name)


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Tournament")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        post_migrate.connect(ensure_role_groups, sender=self)
