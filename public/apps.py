from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PublicConfig(AppConfig):
    name = "public"
    verbose_name = _("Public pages")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import cache

        cache.connect()
