"""A time of a festival's day as an instant: a time the clocks skip or show twice in the festival's zone is
refused, never shifted.

Here, not in tournament/forms, because a service reads times the same way (moving an event's times when the
festival's zone changes, services.festivals).
"""

import datetime as dt

from django.core.exceptions import ValidationError
from django.utils.formats import date_format, time_format
from django.utils.translation import gettext as _


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
