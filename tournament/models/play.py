"""Stages, games and table draws (R8).

An event has stages (Busan: rounds 1–3 and the final; Hong Kong: one stage); a stage has games; a draw
seats the stage's players at numbered tables in seat order. A Busan draw holds for every game of its
stage; a Hong Kong stage gets a new seating for every game. Draws are never deleted: a redraw discards
the earlier draft, a release and an un-release are state changes, and all of it is in the audit log.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .festival import Event
from .registration import Registration


class Stage(models.Model):
    class Advance(models.TextChoices):
        PER_TABLE = "table", _("Top players of each table")
        PER_STAGE = "stage", _("Top players of the stage")
        FINAL = "final", _("Final: decides the places")
        NONE = "none", _("No advancement")
        PLAYOFF = "playoff", _("Playoff: orders tied players")

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="stages", verbose_name=_("event"))
    number = models.PositiveSmallIntegerField(_("stage"))
    name = models.CharField(_("name"), max_length=60)
    games = models.PositiveSmallIntegerField(_("games"))
    advance = models.CharField(_("advancement"), max_length=10, choices=Advance.choices)
    advance_count = models.PositiveSmallIntegerField(_("advancing"), default=0)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        constraints = [models.UniqueConstraint(fields=["event", "number"], name="stage_number_unique")]

    def __str__(self) -> str:
        return f"{self.event} – {self.name}"

    @property
    def is_final(self) -> bool:
        return self.advance == self.Advance.FINAL

    @property
    def display_name(self) -> str:
        # A Hong Kong event plays one stage, with no advancement (R8.2): the final of seed 003 (決賽), its
        # only other stage a playoff after it (R7) — never "Round 1" of rounds that do not exist.
        if self.is_final or self.advance == self.Advance.NONE:
            return gettext("Final")
        if self.advance == self.Advance.PLAYOFF:
            return gettext("Playoff")
        return gettext("Round %(number)s") % {"number": self.number}


class Draw(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        RELEASED = "released", _("Released")
        DISCARDED = "discarded", _("Discarded (redrawn)")

    class Method(models.TextChoices):
        RANDOM = "random", _("Computer draw")
        BY_NUMBER = "number", _("By player number")
        MOVEMENT = "movement", _("Top two move up a table")
        PLAYOFF = "playoff", _("Playoff table")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="draws", verbose_name=_("stage"))
    # The first game of the stage this seating is for (Busan: 1, for all the stage's games).
    game = models.PositiveSmallIntegerField(_("game"), default=1)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.DRAFT)
    method = models.CharField(_("method"), max_length=10, choices=Method.choices, default=Method.RANDOM)
    seed = models.BigIntegerField(_("seed"))
    algorithm_version = models.CharField(_("algorithm"), max_length=20)
    constraints = models.JSONField(_("constraints"), default=dict)
    violations = models.JSONField(_("unmet constraints"), default=list)
    swaps = models.PositiveSmallIntegerField(_("swaps by hand"), default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)

    class Meta:
        ordering = ["stage", "game", "-created_at"]
        verbose_name = _("draw")
        verbose_name_plural = _("draws")
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "game"], condition=models.Q(status="released"), name="one_released_draw_per_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stage} – game {self.game} ({self.status})"

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT

    @property
    def is_released(self) -> bool:
        return self.status == self.Status.RELEASED


class DrawTable(models.Model):
    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="tables")
    number = models.PositiveSmallIntegerField(_("table"))

    class Meta:
        ordering = ["draw", "number"]
        constraints = [models.UniqueConstraint(fields=["draw", "number"], name="table_number_unique")]

    def __str__(self) -> str:
        return f"{self.draw} – table {self.number}"


class Seat(models.Model):
    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="seats")
    table = models.ForeignKey(DrawTable, on_delete=models.PROTECT, related_name="seats")
    # Seat 1 plays first; play goes clockwise (R8.2).
    position = models.PositiveSmallIntegerField(_("seat"))
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="seats")

    class Meta:
        ordering = ["table__number", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_position_unique"),
            models.UniqueConstraint(fields=["draw", "registration"], name="seated_once_per_draw"),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.position}"


class StageEntry(models.Model):
    """Who plays a stage: the checked-in players for the first, those who advanced for the next ones."""

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="entries")
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="stage_entries")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["stage", "registration"], name="stage_entry_unique")]

    def __str__(self) -> str:
        return f"{self.stage} – {self.registration_id}"


class Lot(models.Model):
    """A recorded lot (R7): the software draws numbered cards for tied players; the highest wins."""

    class Purpose(models.TextChoices):
        ADVANCE = "advance", _("Tie at the cut")
        MOVE = "move", _("Tie for moving up a table")
        PLACE = "place", _("Tie for a place")
        PLAYOFF = "playoff", _("Playoff result")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="lots")
    purpose = models.CharField(_("purpose"), max_length=10, choices=Purpose.choices)
    game = models.PositiveSmallIntegerField(_("game"), null=True, blank=True)
    table_number = models.PositiveSmallIntegerField(_("table"), null=True, blank=True)
    players = models.JSONField(_("players"))  # registration ids
    numbers = models.JSONField(_("numbers drawn"))  # {registration id: number}
    seed = models.CharField(_("seed"), max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["stage", "created_at"]

    def __str__(self) -> str:
        return f"{self.stage} lot {self.purpose} {self.players}"

    @property
    def tiebreak(self) -> dict[int, int]:
        return {int(player): number for player, number in self.numbers.items()}
