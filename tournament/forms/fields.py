"""What several forms read the same way.

- A list typed as comma text: organisers write "100, 70, 50" in one box, the code gets [100, 70, 50]. The model
  side (what a valid list is) is `tournament.models.fields.ListField`; this module only reads and writes the
  text, so the admin, the organiser's pages, the import and the export all read it the same way.
- A time of a festival's day as an instant (`festival_moment`, `FestivalMomentField`): a time the clocks skip
  or show twice in the festival's zone is refused, never shifted.
- A name someone can see (`validate_visible_name`): every name the app takes — a player's, a guardian's, a
  festival's, an event's, a timetable slot's, an account's — has at least one character that shows.
"""

import datetime as dt
import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format, time_format
from django.utils.translation import gettext as _

NUMBER = re.compile(r"[0-9]{1,9}")  # longer is out of any field's range; int() of 5000 digits would fail


def as_text(values) -> str:
    """[100, 70, 50] → "100,70,50": how the pages and the export file write a list."""
    return ",".join(str(value) for value in values)


def parse_list(text: str, rule) -> list:
    """" 100, 70,50" → [100, 70, 50] (or codes, when `rule` is not about numbers); blank text → [].

    Full-width digits and commas (typed with a Korean or Chinese keyboard) count as ordinary ones. Every part
    must be there ("1,,2" and "10," are refused) and numbers are plain digits: anything else raises the
    field's one error, `rule.error()` (a `tournament.models.fields.ListValidator`). Values are not checked here."""
    parts = [part.strip() for part in unicodedata.normalize("NFKC", text or "").split(",")]
    if parts == [""]:
        return []
    if "" in parts or (rule.numbers and not all(NUMBER.fullmatch(part) for part in parts)):
        raise rule.error()
    return [int(part) for part in parts] if rule.numbers else parts


class CommaListField(forms.Field):
    """A text box whose cleaned value is a list checked by `rule` (a `tournament.models.fields.ListValidator`)."""

    widget = forms.TextInput

    def __init__(self, *, rule, max_length=None, **kwargs):
        self.rule, self.max_length = rule, max_length
        super().__init__(validators=[rule], **kwargs)

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        if self.max_length is not None and not widget.is_hidden:
            attrs["maxlength"] = str(self.max_length)
        return attrs

    def prepare_value(self, value):
        return as_text(value) if isinstance(value, list | tuple) else value

    def to_python(self, value) -> list:
        if isinstance(value, list):
            return value
        text = str(value or "").strip()
        if self.max_length is not None and len(text) > self.max_length:
            raise self.rule.error()
        return parse_list(text, self.rule)


# Characters that show nothing, by Unicode category: spaces and separators (Z*), control, format (zero-width
# joiners, bidi marks, tag characters), surrogate, private-use and unassigned code points (C*), and combining
# marks (M*), which show only on a letter before them.
INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Mc", "Me"})
# Letters and symbols drawn as blank space, which their categories do not tell: the Hangul fillers (category Lo,
# Unicode's "default ignorable" letters) and the blank Braille pattern (So).
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_invisible(ch: str) -> bool:
    return ch in BLANK_CHARACTERS or ch.isspace() or unicodedata.category(ch) in INVISIBLE_CATEGORIES


def validate_visible_name(value: str) -> None:
    """Refuses a name (not empty) whose every character is invisible; raises ValidationError code "invisible".
    For forms (a field's validator) and for services that make names (accounts): catch and re-raise as theirs."""
    if value and all(is_invisible(ch) for ch in value):
        raise ValidationError(_("This name is made of only blank or invisible characters. Please type a name "
                                "that can be read."), code="invisible")


# --- times of a festival's day ---------------------------------------------------------------------------


def festival_moment(day: dt.date, time: dt.time, tz) -> dt.datetime:
    """The instant `time` on `day` means in zone `tz`. A time the clocks skip (going forward) or show twice
    (going back) is refused with a ValidationError saying so, codes "clock_gap" and "clock_overlap": the
    organiser chooses another time rather than the app guessing an hour."""
    wall = dt.datetime.combine(day, time.replace(tzinfo=None))
    first, second = wall.replace(tzinfo=tz, fold=0), wall.replace(tzinfo=tz, fold=1)
    # zoneinfo: fold=0 takes the offset before the change and fold=1 the one after, for a skipped time too.
    before, after = first.utcoffset(), second.utcoffset()
    if before == after:
        return first
    change = _change(wall - after, wall - before, tz, after)  # in UTC, without tzinfo
    params = {"time": time_format(time, "H:i"), "day": date_format(day, "DATE_FORMAT"), "zone": str(tz),
              "change": time_format(change + before, "H:i"), "to": time_format(change + after, "H:i")}
    if before < after:
        raise ValidationError(_("%(time)s does not exist on %(day)s in %(zone)s: the clocks go forward at "
                                "%(change)s (to %(to)s). Choose another time.") % params, code="clock_gap")
    raise ValidationError(
        _("%(time)s happens twice on %(day)s in %(zone)s: the clocks go back at %(change)s (to %(to)s), so it "
          "could be %(first)s or %(second)s. Choose a time outside that hour.")
        % {**params, "first": _named_instant(first), "second": _named_instant(second)}, code="clock_overlap")


def _change(one: dt.datetime, other: dt.datetime, tz, offset_after: dt.timedelta) -> dt.datetime:
    """The first minute between two UTC times from which the zone's offset is `offset_after` (a change is
    an hour, at most a day, apart)."""
    minute = min(one, other).replace(second=0, microsecond=0)
    while minute.replace(tzinfo=dt.UTC).astimezone(tz).utcoffset() != offset_after:
        minute += dt.timedelta(minutes=1)
    return minute


def _named_instant(moment: dt.datetime) -> str:
    """"01:30 BST (UTC+01:00)": the clock time, the zone's name for it and its offset."""
    minutes = int(moment.utcoffset().total_seconds() // 60)
    offset = f"{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return f"{time_format(moment, 'H:i')} {moment.tzname()} (UTC{offset})"


class FestivalMomentField(forms.DateTimeField):
    """A date and time typed in the festival's zone (`zone`, set by the form; else the active zone), read
    through `festival_moment`. A value with its own offset is an instant already and is taken as it is."""

    zone = None

    def to_python(self, value):
        # Django's DateTimeField.to_python, with festival_moment where it calls from_current_timezone.
        if value in self.empty_values:
            return None
        if isinstance(value, dt.datetime):
            moment = value
        elif isinstance(value, dt.date):
            moment = dt.datetime(value.year, value.month, value.day)
        else:
            try:
                moment = parse_datetime(value.strip())
            except ValueError:
                raise ValidationError(self.error_messages["invalid"], code="invalid") from None
            if not moment:  # the other input formats
                moment = super(forms.DateTimeField, self).to_python(value)
        if timezone.is_aware(moment):
            return moment
        return festival_moment(moment.date(), moment.time(), self.zone or timezone.get_current_timezone())
