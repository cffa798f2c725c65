"""Who did what, when, from what to what, and why. Append-only."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditEntry(models.Model):
    at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who acted when there is no account: "player link", "table 3 link", "import", "demo" …
    actor_label = models.CharField(max_length=100, blank=True)
    action = models.CharField(_("action"), max_length=60, db_index=True)
    festival = models.ForeignKey("tournament.Festival", null=True, blank=True, on_delete=models.PROTECT)
    event = models.ForeignKey("tournament.Event", null=True, blank=True, on_delete=models.PROTECT)
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.BigIntegerField(null=True, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor or self.actor_label} {self.action}"
