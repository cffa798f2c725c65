"""Conduct during an event (R9): warnings, disqualification, withdrawal or forfeit mid-event, and the chief
referee's decision to keep a player on after a third warning.

Records are never deleted; a player's past results stay and are marked. A player with a
disqualification, withdrawal or forfeit record leaves every later draw.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .festival import Event
from .play import Stage
from .registration import Registration


class ConductRecord(models.Model):
    class Kind(models.TextChoices):
        WARNING = "warning", _("Warning")
        DISQUALIFIED = "disqualified", _("Disqualified")
        WITHDREW = "withdrew", _("Withdrew during the event")
        FORFEIT = "forfeit", _("Forfeit (did not finish)")
        KEPT = "kept", _("Keeps playing after a third warning")

    LEAVES_EVENT = (Kind.DISQUALIFIED, Kind.WITHDREW, Kind.FORFEIT)
    # What a referee or the chief referee records about a player's conduct; KEPT is the chief's decision on it.
    OFFENCES = (Kind.WARNING, *LEAVES_EVENT)

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="conduct_records")
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="conduct_records")
    kind = models.CharField(_("kind"), max_length=15, choices=Kind.choices)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    game = models.PositiveSmallIntegerField(_("game"), null=True, blank=True)
    note = models.TextField(_("what happened"))
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The form's one-time key: a phone on poor Wi-Fi that sends the same warning twice records it once.
    request_key = models.CharField(max_length=32, null=True, blank=True, unique=True, editable=False)

    class Meta:
        ordering = ["event", "created_at", "id"]
        verbose_name = _("conduct record")
        verbose_name_plural = _("conduct records")
        indexes = [models.Index(fields=["event", "kind"])]

    def __str__(self) -> str:
        return f"{self.registration} – {self.kind}"
