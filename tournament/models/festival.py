"""A festival (대회, 大賽) and the events (종목) it runs."""

import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..formats.ranking import CRITERIA
from .fields import ListField, ListValidator

TIMEZONE_CHOICES = [(name, name) for name in ("Asia/Seoul", "Asia/Hong_Kong", "Asia/Taipei", "Europe/London", "UTC")]
# The country whose numbering a phone number typed without its country code ("010 4444 5555") belongs to, by the
# festival's time zone: each zone offered above is one country's, and UTC is none (such numbers keep their digits).
PHONE_REGIONS = {"Asia/Seoul": "KR", "Asia/Hong_Kong": "HK", "Asia/Taipei": "TW", "Europe/London": "GB"}


# Defaults and allowed codes of the list settings (functions: a list default must not be shared between rows,
# and the allowed codes are read when checking, so a migration does not freeze them).
def default_languages() -> list[str]:
    return ["ko", "en"]


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def default_stage_games() -> list[int]:
    return [3, 3, 3]


def tiebreak_criteria() -> tuple[str, ...]:
    return CRITERIA


class Festival(models.Model):
    slug = models.SlugField(_("short name in links"), max_length=60, unique=True)
    name = models.CharField(_("name"), max_length=200)
    venue = models.CharField(_("venue"), max_length=200, blank=True)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"))
    contact = models.CharField(_("contact"), max_length=200, blank=True)
    languages = ListField(
        _("languages"), max_length=40, default=default_languages, help_text=_("Comma-separated language codes."),
        validators=[ListValidator(_("Use only these language codes: %(codes)s."), choices=language_codes, least=1)],
    )
    timezone = models.CharField(_("time zone"), max_length=40, choices=TIMEZONE_CHOICES, default="Asia/Seoul")
    # Personal data (Korea's PIPA, Hong Kong's PDPO): the collection notice shown before registering (empty: the
    # default text in the reader's language), its version (raised on every edit, stored with each consent), the
    # age below which a guardian consents, and how long contacts and birth years are kept after the last event.
    privacy_notice = models.TextField(_("collection notice"), blank=True)
    privacy_notice_version = models.PositiveIntegerField(_("collection notice version"), default=1, editable=False)
    guardian_age = models.PositiveSmallIntegerField(
        _("guardian's consent below the age of"), default=14,
        help_text=_("Players younger than this on the first day register with a parent's or guardian's consent."),
    )
    retention_days = models.PositiveIntegerField(
        _("keep contacts and birth years for (days after the last event)"), default=90,
    )
    # A child registered online keeps the place this long while the guardian has not agreed (services.guardian).
    guardian_hold_days = models.PositiveSmallIntegerField(
        _("days a child's place is held for the guardian's agreement"), default=3,
    )
    # Results leave the organiser only for a ranking body named here, and only for players who agreed to it
    # separately (PIPA art. 17: 제3자 제공; PDPO: 資料轉移). Empty: nothing leaves the organiser.
    ranking_recipient = models.CharField(_("results given for a ranking to"), max_length=200, blank=True)
    ranking_recipient_keeps = models.CharField(_("how long the ranking body keeps them"), max_length=200, blank=True)
    personal_data_erased_at = models.DateTimeField(_("personal data erased"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "name"]
        verbose_name = _("festival")
        verbose_name_plural = _("festivals")
        # Granted by the superuser (or `manage.py add_organiser`): may create festivals, and organises those.
        permissions = [("organise_festivals", _("May organise festivals"))]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        if self.starts_on and self.ends_on and self.ends_on < self.starts_on:
            raise ValidationError({"ends_on": _("The last day cannot be before the first day.")})

    @property
    def tzinfo(self):
        return zoneinfo.ZoneInfo(self.timezone)

    @property
    def phone_region(self) -> str | None:
        """The country code (ISO 3166) local phone numbers are read in (models.registration.contact_key)."""
        return PHONE_REGIONS.get(self.timezone)

    def get_absolute_url(self) -> str:
        return reverse("festival", kwargs={"festival": self.slug})


class Event(models.Model):
    class Game(models.TextChoices):
        CLASSIC = "classic", _("Rummikub")
        WORD = "word", _("Rummikub Word")

    class Format(models.TextChoices):
        BUSAN = "busan", _("Elimination (Busan 2014)")
        HONG_KONG = "hk", _("Move up a table (Hong Kong 2016)")

    class Ruleset(models.TextChoices):
        WRC_2014 = "wrc-2014", _("World rules 2014 (joker 50)")
        HK_2016 = "hk-2016", _("Hong Kong 2016 (joker 30, average points)")
        CASUAL = "casual", _("Casual (joker 30)")

    class CheckinOverride(models.TextChoices):
        SCHEDULE = "", _("Follow the schedule")
        OPEN = "open", _("Open (reopened by the organiser)")
        CLOSED = "closed", _("Closed (by the organiser)")

    class Numbering(models.TextChoices):
        REGISTRATION = "registration", _("In registration order")
        RANDOM = "random", _("At random")

    class FirstSeating(models.TextChoices):
        BY_NUMBER = "number", _("By player number")
        RANDOM = "random", _("Computer draw")

    festival = models.ForeignKey(Festival, on_delete=models.PROTECT, related_name="events", verbose_name=_("festival"))
    slug = models.SlugField(_("short name in links"), max_length=60)
    name = models.CharField(_("name"), max_length=200)
    game = models.CharField(_("kind of game"), max_length=10, choices=Game.choices, default=Game.CLASSIC)
    format = models.CharField(_("format"), max_length=10, choices=Format.choices, default=Format.BUSAN)
    ruleset = models.CharField(_("rules"), max_length=20, choices=Ruleset.choices, default=Ruleset.WRC_2014)
    capacity = models.PositiveIntegerField(_("places"), default=128)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    registration_opens_at = models.DateTimeField(_("registration opens"))
    registration_closes_at = models.DateTimeField(_("registration closes"))
    withdrawal_deadline = models.DateTimeField(_("withdrawal deadline"))
    checkin_opens_at = models.DateTimeField(_("check-in opens"))
    checkin_closes_at = models.DateTimeField(_("check-in closes"))
    checkin_override = models.CharField(
        _("check-in"), max_length=10, choices=CheckinOverride.choices, default=CheckinOverride.SCHEDULE, blank=True
    )
    numbering = models.CharField(
        _("player numbers"), max_length=20, choices=Numbering.choices, default=Numbering.REGISTRATION
    )
    numbering_seed = models.BigIntegerField(_("numbering seed"), null=True, blank=True)
    numbers_assigned_at = models.DateTimeField(_("numbers assigned"), null=True, blank=True)
    # Check-in closed with empty places: the organiser lets the desk give them to waiting-list players present
    # in the hall, in line order, until numbers are assigned (services.late_places).
    late_places_opened_at = models.DateTimeField(_("late places opened"), null=True, blank=True)

    # Draw settings (R8). Busan: games per preliminary round and in the final; Hong Kong: games and game 1's seating.
    stage_games = ListField(
        _("games per round"), max_length=40, default=default_stage_games,
        help_text=_("Busan format: games in each preliminary round, comma-separated (e.g. 3,3,3)."),
        validators=[ListValidator(_("Write the games of each round as whole numbers from 1 to 9, e.g. 3,3,3."),
                                  low=1, high=9, least=1)],
    )
    final_games = models.PositiveSmallIntegerField(_("games in the final"), default=1)
    rotation_games = models.PositiveSmallIntegerField(_("games (Hong Kong format)"), default=3)
    first_seating = models.CharField(
        _("first game seating (Hong Kong format)"), max_length=10,
        choices=FirstSeating.choices, default=FirstSeating.BY_NUMBER,
    )
    avoid_same_affiliation = models.BooleanField(_("keep players of one school or club apart"), default=True)
    avoid_repeat_opponents = models.BooleanField(_("avoid players who already met"), default=True)
    spread_seeds = models.BooleanField(_("spread seeded players across tables"), default=True)
    # On by default: players turning up on the day are normal at a festival; the desk can admit them only
    # while check-in is open, within the places (else onto the waiting list).
    walk_ins = models.BooleanField(
        _("the desk may register walk-ins"), default=True,
        help_text=_("Players who arrive without registering are entered and checked in at the desk."),
    )
    class SheetsBy(models.TextChoices):
        REFEREES = "referees", _("Referees at the tables")
        PLAYERS = "players", _("The players at each table")

    # Who enters each game's score sheet: a referee per table, or the four players on their own phones, agreeing
    # on it before the chief referee confirms (scoring/services/agreement.py). Fixed once a stage is drawn.
    sheets_by = models.CharField(
        _("who enters the sheets"), max_length=8, choices=SheetsBy.choices, default=SheetsBy.REFEREES,
        help_text=_("With the players, any player at the table enters the game's sheet on their phone and the "
                    "others agree or dispute it; the chief referee confirms and settles disputes."),
    )
    agreement_minutes = models.PositiveSmallIntegerField(
        _("minutes to agree"), default=5, validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text=_("After this long without a dispute, a sheet most of the table agreed to goes to the chief "
                    "referee as it is (“agreed by 3 of 4”)."),
    )
    # What the public sees: the organiser decides per event.
    public_draw = models.BooleanField(_("show the draw to the public"), default=True)
    public_standings = models.BooleanField(_("show the standings to the public"), default=True)
    public_scores = models.BooleanField(_("show each game's scores to the public"), default=True)

    class PublicNames(models.TextChoices):
        FULL = "full", _("Full names")
        MASKED = "masked", _("Masked names (김*준, 王*欣, J. Smith)")

    public_names = models.CharField(
        _("names on public pages"), max_length=8, choices=PublicNames.choices, default=PublicNames.FULL,
    )
    public_affiliations = models.BooleanField(_("show schools and clubs to the public"), default=True)
    # Ranking points per final place (R9: not for players under 15 on the event date).
    ranking_points = ListField(
        _("ranking points per place"), max_length=400, blank=True, default=list,
        help_text=_("Comma-separated points for places 1, 2, 3 …, e.g. 100,70,50,40."),
        validators=[ListValidator(_("Write whole numbers from 0 to 100000, comma-separated, e.g. 100,70,50."),
                                  low=0, high=100_000)],
    )
    # R9: results count toward the Korean ranking except for players under 15; an event may give them points.
    under_15_no_points = models.BooleanField(
        _("no ranking points for players under 15"), default=True,
        help_text=_("Rule R9: players under 15 keep their place but earn no ranking points."),
    )
    # The day's timetable as the organiser edited it (tournament.schedule): empty = generated from the plan.
    timetable = models.JSONField(_("schedule as edited"), default=list, blank=True)
    # Standings order (R7): empty = wins, then points as the rules say (total or average).
    tiebreaks = ListField(
        _("standings order"), max_length=80, blank=True, default=list,
        help_text=_("Comma-separated, in order, from: wins, points, average, lot, playoff. Empty: wins, then "
                    "points as the rules say."),
        validators=[ListValidator(_("Use only: wins, points, average, lot, playoff."), choices=tiebreak_criteria)],
    )

    class Meta:
        ordering = ["starts_at", "name"]
        verbose_name = _("event")
        verbose_name_plural = _("events")
        constraints = [models.UniqueConstraint(fields=["festival", "slug"], name="event_slug_unique_in_festival")]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        errors = {}
        pairs = [
            ("starts_at", "ends_at", _("The event must end after it starts.")),
            ("registration_opens_at", "registration_closes_at", _("Registration must close after it opens.")),
            ("checkin_opens_at", "checkin_closes_at", _("Check-in must close after it opens.")),
        ]
        for start, end, message in pairs:
            if getattr(self, start) and getattr(self, end) and getattr(self, end) <= getattr(self, start):
                errors[end] = message
        if errors:
            raise ValidationError(errors)

    def get_absolute_url(self) -> str:
        return reverse("event", kwargs={"festival": self.festival.slug, "event": self.slug})

    def overlaps(self, other: "Event") -> bool:
        """R9: a player may not enter two events that run at the same time."""
        return self.starts_at < other.ends_at and other.starts_at < self.ends_at

    def registration_is_open(self, now=None) -> bool:
        """Between registration's opening and closing, and never once check-in has closed (R9: nobody is
        admitted after it), whatever the closing time says."""
        now = now or timezone.now()
        return self.registration_opens_at <= now < self.registration_closes_at and not self.checkin_has_closed(now)

    @property
    def registration_ends_at(self):
        """When registration closes by the schedule: its own closing time, or check-in's if that comes first."""
        return min(self.registration_closes_at, self.checkin_closes_at)

    def places_held(self, *, registered: int, checked_in: int, now=None) -> int:
        """How many places are taken: by the registered players until check-in closes, then by the players
        checked in. A registered player who did not come has lost the place (R9), which may have gone to a
        waiting-list player in the hall (a late place): counting both would be more than the places."""
        return min(checked_in if self.checkin_has_closed(now) else registered, self.capacity)

    @property
    def places_taken(self) -> int:
        """`places_held` from the counts a list of events is annotated with (`registered_count`,
        `checked_in_count`: tournament.views.helpers.with_counts, the organiser's festival page)."""
        return self.places_held(registered=self.registered_count, checked_in=self.checked_in_count)

    @property
    def absent_count(self) -> int:
        """Registered players who did not check in, once check-in has closed (from the annotated counts)."""
        return self.registered_count - self.checked_in_count if self.checkin_has_closed() else 0

    def withdrawal_is_open(self, now=None) -> bool:
        now = now or timezone.now()
        return now < self.withdrawal_deadline

    def checkin_has_closed(self, now=None) -> bool:
        """Check-in is over (not merely not open yet): by the organiser, by the schedule, or by numbering."""
        if self.numbers_assigned_at or self.checkin_override == self.CheckinOverride.CLOSED:
            return True
        if self.checkin_override == self.CheckinOverride.OPEN:
            return False
        return (now or timezone.now()) >= self.checkin_closes_at

    def checkin_is_open(self, now=None) -> bool:
        """R9: late arrivals are refused once check-in closes; the organiser may close early or reopen."""
        if self.checkin_override == self.CheckinOverride.OPEN:
            return True
        if self.checkin_override == self.CheckinOverride.CLOSED:
            return False
        now = now or timezone.now()
        return self.checkin_opens_at <= now < self.checkin_closes_at
