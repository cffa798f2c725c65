"""Who works at a festival, and as what: one row per person and role (a person may hold several)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .festival import Festival


class StaffRole(models.Model):
    class Role(models.TextChoices):
        ORGANISER = "organiser", _("organiser")
        CHIEF_REFEREE = "chief referee", _("chief referee")
        REFEREE = "referee", _("referee")
        DESK = "desk", _("desk")

    festival = models.ForeignKey(Festival, on_delete=models.CASCADE, related_name="staff_roles",
                                 verbose_name=_("festival"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_roles",
                             verbose_name=_("user"))
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["festival", "user", "role"]
        verbose_name = _("staff role")
        verbose_name_plural = _("staff roles")
        constraints = [models.UniqueConstraint(fields=["festival", "user", "role"], name="staff_role_unique")]

    def __str__(self) -> str:
        return f"{self.user} – {self.get_role_display()} ({self.festival})"
