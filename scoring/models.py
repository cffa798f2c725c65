"""Score sheets: what referees enter, checked by `rules/`, confirmed by a chief referee.

Confirmed sheets are the single source of standings, advancement and Hong Kong movement. A sheet is
never overwritten: a returned sheet stays and the referee submits a new version; a correction of a
confirmed sheet is a new version and the old one becomes "superseded".
"""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournament.models import Draw, Event, Registration, Stage


def new_link_token() -> str:
    return secrets.token_urlsafe(24)


SEATS_AT_A_TABLE = 4


def new_seat_codes() -> list[str]:
    """Four different 4-digit codes, one per seat of a table card: in an event whose players keep their own
    sheets, a phone handed round the table is told which seat answers by its code."""
    codes: list[str] = []
    while len(codes) < SEATS_AT_A_TABLE:
        code = f"{secrets.randbelow(10_000):04d}"
        if code not in codes:
            codes.append(code)
    return codes


class TableLink(models.Model):
    """The private link printed on a table card: it opens the table of its number in the event's current
    stage (one card for the whole event), to enter that table's sheets without an account."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="table_links")
    table_number = models.PositiveSmallIntegerField(_("table"))
    token = models.CharField(max_length=64, unique=True, default=new_link_token, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    # When the table's phone last asked for one of its pages (to the half minute): the chief referee's board
    # shows which tables have gone quiet (a dropped Wi-Fi, a flat battery).
    last_contact_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Printed on the card, seat 1 to 4: who at the table enters or answers through the card (player-run events).
    seat_codes = models.JSONField(default=new_seat_codes, editable=False)

    class Meta:
        ordering = ["event", "table_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "table_number"], condition=Q(revoked_at__isnull=True),
                name="one_live_link_per_event_table",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} – table {self.table_number}"

    @property
    def label(self) -> str:
        return f"table {self.table_number} link"


class RefereeAssignment(models.Model):
    """A referee with an account holds a table of the event — its number, like the table card — from the moment
    they are assigned until someone changes it: every round, stage and game (Hong Kong seats every game anew,
    the tables keep their numbers, R8.2). One referee holds a table at a time; a referee may hold several.

    A change never deletes: the row that ends gets `ended_at`, so the rows of a table are the history of who
    held it (and the audit log says who changed it). Rows from before assignments lasted the whole event keep
    the stage they were given for."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="referee_assignments")
    table_number = models.PositiveSmallIntegerField(_("table"))
    referee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    assigned_at = models.DateTimeField(_("assigned at"), null=True, blank=True)  # empty on converted rows
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    # When the referee last asked for a page of this table (to the half minute): the live board's "heard from",
    # as TableLink.last_contact_at is for the table's card.
    last_contact_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["event", "table_number", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "table_number"], condition=Q(ended_at__isnull=True),
                name="one_referee_per_event_table",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} – table {self.table_number}: {self.referee}"


class ScoreSheet(models.Model):
    class Status(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted")
        CONFIRMED = "confirmed", _("Confirmed")
        RETURNED = "returned", _("Returned to the referee")
        SUPERSEDED = "superseded", _("Replaced by a correction")

    class End(models.TextChoices):
        WENT_OUT = "went_out", _("Someone went out (Rummikub)")
        BLOCKED = "blocked", _("Blocked: the pool is empty")
        TIME = "time", _("Stopped by time")

    LIVE = (Status.SUBMITTED, Status.CONFIRMED)

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="sheets")
    game = models.PositiveSmallIntegerField(_("game"))
    table_number = models.PositiveSmallIntegerField(_("table"))
    # The seating the sheet was entered against (Busan: the stage's draw; Hong Kong: that game's).
    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="sheets")
    version = models.PositiveSmallIntegerField(_("version"), default=1)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.SUBMITTED)
    end = models.CharField(_("how the game ended"), max_length=10, choices=End.choices)
    # The problems rules/ found that are warnings, which the referee accepted ("yes, this is right").
    warnings = models.JSONField(_("accepted warnings"), default=list, blank=True)
    # One per draft on the referee's phone: a double tap or a retry records one sheet.
    idempotency_key = models.CharField(max_length=64, unique=True)
    submitted_at = models.DateTimeField(_("submitted at"), auto_now_add=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    submitted_via = models.CharField(_("submitted by"), max_length=100)
    decided_at = models.DateTimeField(_("confirmed or returned at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(_("reason"), blank=True, help_text=_("Why it was returned or corrected."))
    corrects = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections"
    )
    # In an event whose players keep their own sheets: the seat of the player who entered this version.
    entered_by_seat = models.PositiveSmallIntegerField(_("entered by seat"), null=True, blank=True)

    class Meta:
        ordering = ["stage", "game", "table_number", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["stage", "game", "table_number", "version"], name="sheet_version_unique"
            ),
            # At most one submitted-or-confirmed sheet per table and game: two referees racing to submit
            # the same table cannot both win.
            models.UniqueConstraint(
                fields=["stage", "game", "table_number"], condition=Q(status__in=["submitted", "confirmed"]),
                name="one_live_sheet_per_table_game",
            ),
            models.UniqueConstraint(
                fields=["stage", "game", "table_number"], condition=Q(status="confirmed"),
                name="one_confirmed_sheet_per_table_game",
            ),
        ]
        indexes = [models.Index(fields=["stage", "status"])]

    def __str__(self) -> str:
        return f"{self.stage} game {self.game} table {self.table_number} v{self.version} ({self.status})"


class SheetSeat(models.Model):
    """One player's line on a sheet: what the referee entered and what rules/ computed from it."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField(_("seat"))
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="sheet_seats")
    went_out = models.BooleanField(_("went out"), default=False)
    tiles = models.CharField(_("tiles"), max_length=400, blank=True)
    rack_value = models.PositiveSmallIntegerField(_("rack value"), null=True, blank=True)
    jokers = models.PositiveSmallIntegerField(_("jokers"), default=0)
    opened = models.BooleanField(_("had opened"), default=True)
    could_open = models.BooleanField(_("could have opened"), null=True, blank=True)
    conduct_penalty = models.BooleanField(_("knocked-over rack"), default=False)
    penalty = models.DecimalField(_("penalty"), max_digits=8, decimal_places=2)
    score = models.DecimalField(_("score"), max_digits=8, decimal_places=2)
    win = models.BooleanField(_("win"), default=False)

    class Meta:
        ordering = ["sheet", "position"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "position"], name="sheet_seat_unique"),
            models.UniqueConstraint(fields=["sheet", "registration"], name="sheet_player_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.sheet} seat {self.position}"


class WordTurn(models.Model):
    """One turn of a Rummikub Word sheet (R10), as the referee entered it, and the points rules/ gave it.

    The game's result lives on the sheet's SheetSeat rows like a classic sheet's (score = the player's
    total, penalty = 30 per joker left), so standings, exports and the board need nothing new."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.PROTECT, related_name="word_turns")
    index = models.PositiveSmallIntegerField(_("turn"))  # 1-based, in play order
    position = models.PositiveSmallIntegerField(_("seat"))
    words = models.CharField(_("words"), max_length=400, blank=True, help_text=_("As entered, separated by spaces."))
    drew = models.BooleanField(_("drew"), default=False)
    used_all_tiles = models.BooleanField(_("used all tiles"), default=False)
    points = models.PositiveSmallIntegerField(_("points"), default=0)

    class Meta:
        ordering = ["sheet", "index"]
        constraints = [models.UniqueConstraint(fields=["sheet", "index"], name="word_turn_unique")]

    def __str__(self) -> str:
        return f"{self.sheet} turn {self.index}"


class SheetAnswer(models.Model):
    """A seated player's answer to a sheet the table entered itself: agreed, or disputed with a reason.

    Never changed nor deleted: a player's latest answer to a version counts (agreeing, then disputing, is a
    change of mind before the chief referee confirms; a dispute stands until the sheet is corrected). A new
    version of the sheet is answered anew (scoring/services/agreement.py)."""

    class Answer(models.TextChoices):
        AGREED = "agreed", _("Agreed")
        DISPUTED = "disputed", _("Disputed")

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.PROTECT, related_name="answers")
    position = models.PositiveSmallIntegerField(_("seat"))
    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="sheet_answers")
    answer = models.CharField(_("answer"), max_length=8, choices=Answer.choices)
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    answered_at = models.DateTimeField(_("answered at"))
    via = models.CharField(max_length=40)  # "personal page" or "table card"
    # One per tap on the phone: an answer sent twice (a retry, the outbox) is recorded once.
    idempotency_key = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["sheet", "position", "answered_at", "id"]
        indexes = [models.Index(fields=["sheet", "position"])]

    def __str__(self) -> str:
        return f"{self.sheet} seat {self.position}: {self.answer}"
