"""The festival form and the guided event form (tournament/services/festivals.py does the work).

Times are read and shown in the festival's time zone: views activate it (tournament/views/helpers.py), and the
event form builds its moments with the festival's zone itself, so a Hong Kong event's 10:20 stays 10:20.
The event's day and its four times of day are plain date and time inputs; registration and withdrawal
deadlines are date-and-time inputs. Everything works without JavaScript.
"""

import datetime as dt
import unicodedata

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from ..festival_time import festival_moment
from ..formats import format_named
from ..list_text import as_text
from ..models import Event, Festival
from ..models.festival import TIMEZONE_CHOICES
from ..presets import (
    MAX_PLAYERS,
    PRESETS,
    day_times,
    deadlines,
    event_values,
    festival_days,
    plan_line,
    preset_for_format,
    proposed_stage_games,
    upcoming,
)
from ..registration_fields import clean_text
from ..services.festivals import DAY, EVENT_FIELDS, event_slug_taken, festival_slug_taken, free_slug
from ..visible_names import validate_visible_name
from .fields import FestivalMomentField

MAX_NOTICE_CHARS = 5000
DATE = {"type": "date"}
TIME = {"type": "time"}
MOMENT = {"type": "datetime-local"}


def date_input():
    return forms.DateInput(attrs=DATE, format="%Y-%m-%d")


# A festival's days and deadlines lie in these years: a day in year 9999 reads as a date, but its timetable
# would run past the last date Python can hold.
FIRST_YEAR, LAST_YEAR = 2000, 2100


def plausible_day(value: dt.date) -> None:
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        raise ValidationError(_("Enter a date between the years %(first)s and %(last)s."), code="implausible",
                              params={"first": FIRST_YEAR, "last": LAST_YEAR})


def time_input(attrs=None):
    return forms.TimeInput(attrs={**TIME, **(attrs or {})}, format="%H:%M")


def moment_input():
    return forms.DateTimeInput(attrs=MOMENT, format="%Y-%m-%dT%H:%M")


def _text(value: str) -> str:
    return clean_text(value or "")


def _model_field(model, name, **kwargs):
    return model._meta.get_field(name).formfield(**kwargs)


def _checkbox(name: str) -> forms.BooleanField:
    model_field = Event._meta.get_field(name)
    return forms.BooleanField(label=model_field.verbose_name, help_text=model_field.help_text, required=False)


class FestivalForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=200, validators=[validate_visible_name])
    slug = forms.SlugField(
        label=_("Short name in links"), max_length=60, required=False,
        help_text=_("Letters a–z, digits and hyphens, as in …/f/busan-2030/. Leave it empty to make one from "
                    "the name (or the year)."),
        error_messages={"invalid": _("Use only letters a–z, digits and hyphens, e.g. busan-2030.")},
    )
    starts_on = forms.DateField(label=_("First day"), widget=date_input(), validators=[plausible_day])
    ends_on = forms.DateField(label=_("Last day"), widget=date_input(), required=False, validators=[plausible_day],
                              help_text=_("Leave it empty for a festival of one day."))
    venue = forms.CharField(label=_("Venue"), max_length=200, required=False)
    contact = forms.CharField(label=_("Contact"), max_length=200, required=False,
                              help_text=_("Shown to players: an e-mail address or a phone number."))
    timezone = forms.ChoiceField(label=_("Time zone"), choices=TIMEZONE_CHOICES, initial="Asia/Seoul",
                                 help_text=_("Every time of the festival's events is in this time zone."))
    languages = forms.MultipleChoiceField(
        label=_("Languages offered"), choices=settings.LANGUAGES, widget=forms.CheckboxSelectMultiple,
        initial=["ko", "en"], error_messages={"required": _("Offer at least one language.")},
    )
    # Personal data: the notice shown before registering (empty: the default text, in the reader's language).
    privacy_notice = forms.CharField(
        label=_("Collection notice"), required=False, max_length=MAX_NOTICE_CHARS,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_("Shown before the registration form is sent; players (or a child's parent or guardian) agree "
                    "to it. Leave it empty for the standard notice in each reader's language. Every change is a "
                    "new version, kept with each consent."),
    )
    guardian_age = forms.IntegerField(
        label=_("Guardian's consent below the age of"), min_value=1, max_value=25, required=False,
        help_text=_("Players who may be younger than this on the first day register with a parent's or "
                    "guardian's consent. Left empty: 14 in Korea (the law's age), 18 in Hong Kong (schools ask a "
                    "parent for every pupil)."),
    )
    retention_days = forms.IntegerField(
        label=_("Keep contacts and birth years for (days after the last event)"), min_value=0,
        max_value=3650, initial=90, required=False,
    )
    ranking_recipient = forms.CharField(
        label=_("Results given for a ranking to"), max_length=200, required=False,
        help_text=_("The body that keeps the ranking the results count toward, e.g. “Rummikub Korea Ranking "
                    "(Korea Boardgames)”. The notice then has its own section on this, and players agree to it "
                    "separately; those who do not are left out of the ranking file. Leave it empty when results "
                    "stay with the organisers."),
    )
    ranking_recipient_keeps = forms.CharField(
        label=_("How long the ranking body keeps them"), max_length=200, required=False,
        help_text=_("As the ranking body says, e.g. “as long as it publishes the ranking”."),
    )
    guardian_hold_days = forms.IntegerField(
        label=_("Days a child's place waits for the guardian"), min_value=1, max_value=30, initial=3, required=False,
        help_text=_("A child registered online keeps the place this long while the parent or guardian has not "
                    "agreed by the e-mailed link; then it goes to the waiting list."),
    )

    def __init__(self, *args, festival: Festival | None = None, **kwargs):
        self.festival = festival
        if festival is not None and "initial" not in kwargs:
            kwargs["initial"] = {name: getattr(festival, name) for name in self.base_fields}
        super().__init__(*args, **kwargs)

    def clean_name(self):
        return _text(self.cleaned_data["name"])

    def clean_venue(self):
        return _text(self.cleaned_data["venue"])

    def clean_contact(self):
        return _text(self.cleaned_data["contact"])

    def clean_ranking_recipient(self):
        return _text(self.cleaned_data["ranking_recipient"])

    def clean_ranking_recipient_keeps(self):
        return _text(self.cleaned_data["ranking_recipient_keeps"])

    def clean_privacy_notice(self):
        # Line breaks are kept (paragraphs); otherwise the same rules as every other text.
        text = unicodedata.normalize("NFC", self.cleaned_data["privacy_notice"]).replace("\r\n", "\n")
        lines = [line.strip() for line in text.split("\n")]
        for line in lines:
            clean_text(line)  # refuses control characters
        return "\n".join(lines).strip()

    def clean(self):
        data = super().clean()
        first, last = data.get("starts_on"), data.get("ends_on")
        if first and not last:
            data["ends_on"] = last = first
        if first and last and last < first:
            self.add_error("ends_on", _("The last day cannot be before the first day."))
        if not data.get("privacy_notice") and not data.get("contact") and "contact" not in self.errors:
            # The standard notice names who answers requests to see, correct or erase data after the day.
            self.add_error("contact", _("The standard collection notice names who answers requests to see, correct "
                                        "or erase personal data after the festival: give a contact (an e-mail "
                                        "address or a phone number), or write your own notice below."))
        if data.get("ranking_recipient") and not data.get("ranking_recipient_keeps"):
            # The notice says how long the recipient keeps what it receives (PIPA art. 17(2)).
            self.add_error("ranking_recipient_keeps", _("Say how long the ranking body keeps the results, as the "
                                                        "notice tells the players."))
        if not data.get("ranking_recipient"):
            data["ranking_recipient_keeps"] = ""
        if not data.get("slug") and data.get("name") and first:
            mine = self.festival.pk if self.festival else None
            data["slug"] = free_slug(data["name"], f"festival-{first.year}",
                                     lambda slug: festival_slug_taken(slug, exclude=mine))
        return data

    def values(self) -> dict:
        values = {name: self.cleaned_data[name] for name in self.base_fields}
        for name in ("guardian_age", "retention_days", "guardian_hold_days"):
            if values[name] is None:  # left empty: as it was (a new festival: the default)
                values[name] = getattr(self.festival, name) if self.festival else default_of(name, values["timezone"])
        return values


# A Hong Kong school competition asks a parent for every pupil: its guardian age is 18 unless the organiser says.
ADULT = 18
GUARDIAN_AGE_BY_ZONE = {"Asia/Hong_Kong": ADULT}


def default_of(name: str, zone: str):
    if name == "guardian_age" and zone in GUARDIAN_AGE_BY_ZONE:
        return GUARDIAN_AGE_BY_ZONE[zone]
    return Festival._meta.get_field(name).default


# --- events ------------------------------------------------------------------------------------------------

# Form fields that stand for model fields of another name (the day's times), for refusals from the service.
FORM_FIELD = {"starts_at": "starts", "ends_at": "ends", "checkin_opens_at": "checkin_opens",
              "checkin_closes_at": "checkin_closes", DAY: "day"}
TIMES = {"checkin_opens": "checkin_opens_at", "checkin_closes": "checkin_closes_at", "starts": "starts_at",
         "ends": "ends_at"}
MOMENTS = ("registration_opens_at", "registration_closes_at", "withdrawal_deadline")


class PresetForm(forms.Form):
    """The first step: which kind of event (?preset=busan); every value can be changed afterwards."""

    preset = forms.ChoiceField(choices=[(key, preset.name) for key, preset in PRESETS.items()],
                               error_messages={"invalid_choice": _("Choose one of the kinds of event.")})


class EventForm(forms.Form):
    # Which preset the form started from; kept for the page only (the values themselves are what counts).
    preset = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    name = forms.CharField(label=_("Name"), max_length=200, validators=[validate_visible_name])
    slug = forms.SlugField(
        label=_("Short name in links"), max_length=60, required=False,
        help_text=_("Letters a–z, digits and hyphens. Leave it empty to make one from the name."),
        error_messages={"invalid": _("Use only letters a–z, digits and hyphens, e.g. open-2030.")},
    )
    game = forms.ChoiceField(label=_("Kind of game"), choices=Event.Game.choices)
    format = forms.ChoiceField(label=_("Format"), choices=Event.Format.choices)
    ruleset = forms.ChoiceField(label=_("Rules"), choices=Event.Ruleset.choices)
    capacity = forms.IntegerField(label=_("Places"), min_value=2, max_value=MAX_PLAYERS,
                                  help_text=_("Players beyond this go on the waiting list."))
    expected_players = forms.IntegerField(
        label=_("Expected players"), min_value=2, max_value=MAX_PLAYERS, required=False,
        help_text=_("The plan is proposed for this many; empty: as many as the places."))
    day = forms.DateField(label=_("Day"), widget=date_input(), validators=[plausible_day])
    checkin_opens = forms.TimeField(label=_("Check-in opens"), widget=time_input())
    checkin_closes = forms.TimeField(label=_("Check-in closes"), widget=time_input(),
                                     help_text=_("Late arrivals are refused after this (rule R9)."))
    starts = forms.TimeField(label=_("Play starts"), widget=time_input())
    ends = forms.TimeField(label=_("Ends"), widget=time_input())
    registration_opens_at = FestivalMomentField(label=_("Registration opens"), widget=moment_input(),
                                                validators=[plausible_day])
    registration_closes_at = FestivalMomentField(label=_("Registration closes"), widget=moment_input(),
                                                 validators=[plausible_day])
    withdrawal_deadline = FestivalMomentField(label=_("Withdrawal deadline"), widget=moment_input(),
                                              validators=[plausible_day])
    stage_games = _model_field(Event, "stage_games", label=_("Games in each round"))
    final_games = forms.IntegerField(label=_("Games in the final"), min_value=1, max_value=9)
    rotation_games = forms.IntegerField(label=_("Games"), min_value=1, max_value=9,
                                        help_text=_("Rule R8.2: 3 in the Hong Kong rules (the conduct rules "
                                                    "mention 4)."))
    first_seating = forms.ChoiceField(label=_("Game 1 seating"), choices=Event.FirstSeating.choices)
    ranking_points = _model_field(Event, "ranking_points")
    under_15_no_points = _checkbox("under_15_no_points")
    tiebreaks = _model_field(Event, "tiebreaks")
    public_draw = _checkbox("public_draw")
    public_standings = _checkbox("public_standings")
    public_scores = _checkbox("public_scores")
    public_names = forms.ChoiceField(
        label=_("Names on public pages"), choices=Event.PublicNames.choices,
        widget=forms.RadioSelect,
        help_text=_("Public pages, the hall display, the printed draw and table cards, and the public data. Staff "
                    "pages and your exports keep the full names. A player may ask for a masked name from their "
                    "personal page."),
        error_messages={"invalid_choice": _("Choose full or masked names.")})
    public_affiliations = _checkbox("public_affiliations")
    numbering = forms.ChoiceField(label=_("Player numbers"), choices=Event.Numbering.choices,
                                  widget=forms.RadioSelect)
    avoid_same_affiliation = _checkbox("avoid_same_affiliation")
    avoid_repeat_opponents = _checkbox("avoid_repeat_opponents")
    spread_seeds = _checkbox("spread_seeds")
    walk_ins = _checkbox("walk_ins")
    sheets_by = forms.ChoiceField(
        label=_("Who enters the sheets"), choices=Event.SheetsBy.choices, widget=forms.RadioSelect,
        help_text=Event._meta.get_field("sheets_by").help_text,
        error_messages={"invalid_choice": _("Choose referees or the players.")})
    agreement_minutes = forms.IntegerField(
        label=_("Minutes to agree"), min_value=1, max_value=60,
        help_text=Event._meta.get_field("agreement_minutes").help_text)
    # Shown only once saving was refused for times already past (services.festivals): ticked, they are saved.
    past_confirmed = forms.BooleanField(
        label=_("These times are in the past on purpose (an event that has already taken place): save them."),
        required=False)

    def __init__(self, *args, festival: Festival, event: Event | None = None, locked: dict | None = None,
                 **kwargs):
        self.festival, self.event, self.locked = festival, event, locked or {}
        super().__init__(*args, **kwargs)
        for name in MOMENTS:
            self.fields[name].zone = festival.tzinfo
        for name, reason in self.locked.items():
            if name in self.fields:
                self.fields[name].help_text = reason
                self.fields[name].widget.attrs["aria-describedby"] = f"id_{name}_helptext"

    # --- what the form starts with ---

    @classmethod
    def initial_for_preset(cls, key: str, festival: Festival, now=None) -> dict:
        preset = PRESETS[key]
        values = event_values(preset, days=festival_days(festival.starts_on, festival.ends_on), tz=festival.tzinfo,
                              now=now or timezone.now())
        if festival.guardian_age >= ADULT:
            # Every pupil registers with a guardian's consent (a Hong Kong school competition): children's
            # names are masked on public pages unless the organiser chooses otherwise.
            values["public_names"] = Event.PublicNames.MASKED
        name = str(preset.name)
        slug = free_slug("", preset.slug, lambda slug: event_slug_taken(festival, slug))
        return {"preset": key, "name": name, "slug": slug, "expected_players": values["capacity"],
                **cls._split(values, festival)}

    @classmethod
    def initial_for_event(cls, event: Event) -> dict:
        values = {name: getattr(event, name) for name in EVENT_FIELDS}
        return {"expected_players": event.capacity, **cls._split(values, event.festival)}

    @staticmethod
    def _split(values: dict, festival: Festival) -> dict:
        tz = festival.tzinfo
        out = {name: value for name, value in values.items() if name not in TIMES.values()}
        out["day"] = timezone.localtime(values["starts_at"], tz).date()
        for name, model_name in TIMES.items():
            out[name] = timezone.localtime(values[model_name], tz).time().replace(second=0, microsecond=0)
        for name in MOMENTS:
            out[name] = timezone.localtime(values[name], tz)
        return out

    # --- reading ---

    def clean_name(self):
        return _text(self.cleaned_data["name"])

    def clean(self):
        data = super().clean()
        tz = self.festival.tzinfo
        day = data.get("day")
        if day is not None:
            for name, model_name in TIMES.items():
                if data.get(name) is not None:
                    try:
                        data[model_name] = festival_moment(day, data[name], tz)
                    except ValidationError as error:
                        self.add_error(name, error)
        pairs = [("starts_at", "ends_at", "ends", _("The event must end after it starts.")),
                 ("checkin_opens_at", "checkin_closes_at", "checkin_closes", _("Check-in must close after it opens.")),
                 ("registration_opens_at", "registration_closes_at", "registration_closes_at",
                  _("Registration must close after it opens."))]
        for first, last, where, message in pairs:
            if data.get(first) and data.get(last) and data[last] <= data[first] and where not in self.errors:
                self.add_error(where, message)
        if data.get("name") and not data.get("slug"):
            preset = preset_for_format(data.get("format"), data.get("game"))
            mine = self.event.pk if self.event else None
            data["slug"] = free_slug(data["name"], preset.slug,
                                     lambda slug: event_slug_taken(self.festival, slug, exclude=mine))
        if self.event is not None:
            for name, reason in self.locked.items():
                if name in data and name not in self.errors and data[name] != getattr(self.event, name):
                    self.add_error(name, reason)
        return data

    def values(self) -> dict:
        return {name: self.cleaned_data[name] for name in EVENT_FIELDS}

    def confirmed_past(self) -> bool:
        return bool(self.cleaned_data.get("past_confirmed"))

    def refuse(self, errors: dict, past=()) -> None:
        """Show a service's refusals (by model field) at the form's fields; `past`: the fields refused only for
        lying in the past, which the organiser may confirm."""
        for name, message in errors.items():
            where = FORM_FIELD.get(name, name)
            self.add_error(where if where in self.fields else None, message)
        if past:
            now = date_format(timezone.localtime(timezone.now(), self.festival.tzinfo), "SHORT_DATETIME_FORMAT")
            self.add_error(None, _("Some times are in the past (it is now %(now)s): players could not register or "
                                   "withdraw as these times say. Correct them, or confirm below that they are "
                                   "meant.") % {"now": now})
            self.past_refused = True

    @property
    def asks_past_confirmation(self) -> bool:
        """Whether the page shows the box that confirms times in the past (refused for them, or ticked)."""
        return getattr(self, "past_refused", False) or bool(self.is_bound and self._parsed("past_confirmed"))

    # --- the plan, and proposing it again ---

    def _parsed(self, name):
        try:
            return self.fields[name].clean(self[name].value())
        except ValidationError:
            return None

    def current(self, name):
        """A field's value as typed if it reads, else as the form started."""
        if self.is_bound:
            return self._parsed(name)
        value = self.initial.get(name, self.fields[name].initial)
        if not isinstance(value, str):
            return value
        try:  # proposed again from what was typed: it may be anything
            return self.fields[name].clean(value)
        except ValidationError:
            return None

    def plan(self) -> str:
        """The plan shown under the round settings: "128 → 64 → 32 → final 4"."""
        players = self.current("expected_players") or self.current("capacity")
        return plan_line(format=self.current("format") or Event.Format.BUSAN, players=players or 0,
                         stage_games=self.current("stage_games") or (), final_games=self.current("final_games") or 1,
                         rotation_games=self.current("rotation_games") or 3)

    def proposal(self, now=None) -> dict:
        """The typed values with the plan and the day's times proposed again from the expected players and the
        start time (the "Propose" button: no JavaScript needed). Unreadable values are kept as typed.

        Proposals start from `now`: a start on today whose check-in has already opened moves to the next half
        hour (`passed_start` keeps the one typed, for the page to say so), and registration's close and the
        withdrawal deadline are proposed again for the day (presets.deadlines), never already over."""
        now = now or timezone.now()
        tz = self.festival.tzinfo
        data = {name: self[name].value() for name in self.fields}
        format = self._parsed("format") or Event.Format.BUSAN
        preset = preset_for_format(format, self._parsed("game"))
        players = self._parsed("expected_players") or self._parsed("capacity") or preset.capacity
        games = (self._parsed("stage_games") or [preset.games])[0]
        # An elimination proposes enough rounds for the players (R8.1); the other formats keep what was typed.
        stage_games = proposed_stage_games(players, games) if format_named(format).eliminates else (
            self._parsed("stage_games") or [preset.games])
        final_games, rotation_games = self._parsed("final_games") or 1, self._parsed("rotation_games") or preset.games
        typed_day, typed_start = self._parsed("day") or self.festival.starts_on, self._parsed("starts") or preset.start
        day, start = upcoming(days=[typed_day], start=typed_start, checkin_minutes=preset.checkin_minutes, tz=tz,
                              now=now)
        self.passed_start = typed_start if (day, start) != (typed_day, typed_start) else None
        times = day_times(format=format, day=day, start=start, tz=tz, stage_games=stage_games,
                          final_games=final_games, rotation_games=rotation_games)
        data.update(expected_players=players, stage_games=as_text(stage_games), day=day)
        for name, model_name in TIMES.items():
            data[name] = timezone.localtime(times[model_name], tz).time()
        try:
            dates = deadlines(day=day, tz=tz, now=now, checkin_closes_at=times["checkin_closes_at"],
                              starts_at=times["starts_at"], opens=self._parsed("registration_opens_at"))
        except (OverflowError, ValueError):  # a day at the very end of the calendar: kept as typed
            return data
        for name in MOMENTS:
            data[name] = timezone.localtime(dates[name], tz)
        return data
