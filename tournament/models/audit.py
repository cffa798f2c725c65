"""Who did what, when, from what to what, and why. Append-only."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# The log stores stable codes; pages show them in the reader's language. The one table of them, for every app.
ACTION_LABELS = {
    "registration.created": _("Registered"),
    "registration.promoted": _("Moved up from the waiting list"),
    "registration.withdrawn": _("Withdrawn"),
    "import.registrations": _("Imported"),
    "player.masked": _("Player asked for a masked public name"),
    "player.unmasked": _("Player took back the masked public name"),
    "checkin.in": _("Checked in"),
    "checkin.undone": _("Check-in undone"),
    "checkin.override": _("Check-in setting changed"),
    "checkin.numbered": _("Player numbers assigned"),
    "checkin.late_places": _("Late places opened"),
    "checkin.late_place": _("Late place given at the desk"),
    "stage.created": _("Round created"),
    "stage.closed": _("Round closed"),
    "draw.drafted": _("Draft draw made"),
    "draw.swapped": _("Seats swapped by hand"),
    "draw.released": _("Draw released"),
    "draw.unreleased": _("Draw taken back"),
    "draw.moved": _("Seated by moving up a table"),
    "link.created": _("Table links made"),
    "link.revoked": _("Table link replaced"),
    "referee.assigned": _("Referee assigned"),
    "referee.unassigned": _("Referee unassigned"),
    "sheet.submitted": _("Submitted"),
    "sheet.confirmed": _("Confirmed"),
    "sheet.returned": _("Returned to the referee"),
    "sheet.corrected": _("Corrected"),
    "sheet.correction_warning": _("Correction changes a later step"),
    "sheet.agreed": _("Agreed by a player at the table"),
    "sheet.disputed": _("Disputed by a player at the table"),
    "sheet.corrected_by_table": _("Corrected at the table"),
    "lot.drawn": _("Lots drawn at the cut"),
    "lot.place": _("Lots drawn for a place"),
    "playoff.created": _("Playoff table created"),
    "event.ranking_points": _("Ranking points changed"),
    "conduct.warning": _("Warning"),
    "conduct.disqualified": _("Disqualified"),
    "conduct.withdrew": _("Withdrew during the event"),
    "conduct.forfeit": _("Forfeit (did not finish)"),
    "conduct.kept": _("Keeps playing after a third warning"),
    "festival.created": _("Festival created"),
    "festival.updated": _("Festival details changed"),
    "event.created": _("Event created"),
    "event.updated": _("Event details changed"),
    "event.time_zone": _("Times kept in the festival's new time zone"),
    "event.schedule_edited": _("Schedule edited"),
    "event.schedule_generated": _("Schedule generated again from the plan"),
    "event.imported": _("Event imported"),
    "festival.imported": _("Festival imported"),
    "demo.loaded": _("Demo loaded"),
    "privacy.erased": _("Personal data erased after the retention period"),
    "privacy.erased_on_request": _("Personal data erased at the player's request"),
}


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

    @property
    def action_label(self) -> str:
        return str(ACTION_LABELS.get(self.action, self.action))

    @property
    def who(self) -> str:
        """The account's name, or the label of whoever acted without one (a table's link …)."""
        return self.actor.get_username() if self.actor_id else self.actor_label
