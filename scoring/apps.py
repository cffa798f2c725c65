from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Tournament's pages show standings through this hook: tournament never imports scoring.
        from tournament import standing

        from .player_standing import player_standings

        standing.register(player_standings)
