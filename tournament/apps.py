from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Tournament")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import checks, public_cache  # noqa: F401 (checks registers the deployment's system checks)

        public_cache.connect()
