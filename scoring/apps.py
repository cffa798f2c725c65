from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # A score sheet's reason is free text a referee types: contacts typed there go at the end of retention.
        from tournament.services import erasure, staff

        from .models import ScoreSheet, SheetAnswer
        from .services.links import end_tables_of_former_referee

        # Someone who stops refereeing at a festival no longer holds its tables.
        staff.when_role_removed(end_tables_of_former_referee)

        erasure.scrub_typed_text("score sheet reason",
                                 lambda festival: ScoreSheet.objects.filter(stage__event__festival=festival), "reason")
        erasure.scrub_typed_text("sheet dispute reason",
                                 lambda festival: SheetAnswer.objects.filter(sheet__stage__event__festival=festival),
                                 "reason")
