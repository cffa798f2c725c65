"""Festivals and events made and edited from the app (DESIGN.md: organisers never need the Django admin).

One function per use case. Each checks what only the database knows (a short name in links already taken, a
name used twice, places already given, an event that has started, a timetable that no longer fits) and
refuses with a message per field (`FieldsRefused`); forms check the shape of the input before.

An event's times come in R9's order — registration opens before the withdrawal deadline, which comes no later
than play starts; registration closes by the time check-in closes (`Event.registration_is_open`) — and a
time already past is saved only when the organiser confirms it (`past_confirmed`: an event entered after it
took place). Only the times being set are checked: an event imported or loaded with odd or past times (a file,
the demo) keeps them while other details change, so a finished event can still be renamed.

Once an event has started (its first stage exists: `draws.start_event`), the values that decide results —
the game, the format, the rules, the stage plan, the standings order — are refused; everything else may still
change (a later end, another hall, what the public sees). Every change is in the audit log with the changed
fields' values before and after.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..festival_time import festival_moment
from ..models import Event, Festival, Registration
from ..permissions import ORGANISER
from ..schedule import Slot, as_json, first_problem, problem, shifted, stored
from ..slugs import RESERVED_EVENT_SLUGS, RESERVED_FESTIVAL_SLUGS
from .audit import Actor, record
from .errors import ServiceError
from .locking import lock_event, lock_festival, lock_festival_events
from .registration import fill_free_places
from .staff import grant_role

FESTIVAL_FIELDS = ("name", "slug", "starts_on", "ends_on", "venue", "contact", "timezone", "languages",
                   "privacy_notice", "guardian_age", "retention_days", "guardian_hold_days", "ranking_recipient",
                   "ranking_recipient_keeps")
# What the players agree to: a change is a new version of the notice, read and agreed to again.
NOTICE_FIELDS = ("privacy_notice", "ranking_recipient", "ranking_recipient_keeps")
EVENT_FIELDS = (
    "name", "slug", "game", "format", "ruleset", "capacity", "starts_at", "ends_at", "registration_opens_at",
    "registration_closes_at", "withdrawal_deadline", "checkin_opens_at", "checkin_closes_at", "stage_games",
    "final_games", "rotation_games", "first_seating", "numbering", "avoid_same_affiliation",
    "avoid_repeat_opponents", "spread_seeds", "public_draw", "public_standings", "public_scores", "public_names",
    "public_affiliations", "ranking_points",
    "under_15_no_points", "tiebreaks", "walk_ins", "sheets_by", "agreement_minutes",
)
# What decides results: refused once the event has started.
RESULT_FIELDS = ("game", "format", "ruleset", "stage_games", "final_games", "rotation_games", "first_seating",
                 "tiebreaks")
# What the generated timetable is made from.
PLAN_FIELDS = ("format", "stage_games", "final_games", "rotation_games")
MOVING_TIMES = ("starts_at", "ends_at", "registration_opens_at", "registration_closes_at", "withdrawal_deadline",
                "checkin_opens_at", "checkin_closes_at")
DAY = "day"  # the error key of an event day outside the festival's days (forms show it at the day)


# Times that say something has not happened yet; registration opening in the past just means "open now".
FUTURE_TIMES = ("checkin_opens_at", "checkin_closes_at", "starts_at", "ends_at", "registration_closes_at",
                "withdrawal_deadline")
PAST_CONFIRMED = "times in the past confirmed"  # the audit entry's reason


class FieldsRefused(ServiceError):
    """Refused, with the reason at each field (model field names, and `DAY`); `past`: the fields refused only
    because they lie in the past, which the organiser may confirm."""

    def __init__(self, errors: dict[str, str], past: tuple[str, ...] = ()):
        super().__init__(" ".join(str(message) for message in errors.values()), code="invalid")
        self.errors = errors
        self.past = past


@dataclass(frozen=True)
class EventSaved:
    event: Event
    changed: tuple[str, ...] = ()
    promoted: list = field(default_factory=list)  # registrations moved up from the waiting list
    schedule_generated: bool = False  # an edited timetable was made again from the new plan


def _plain(value):
    """A value as the audit log keeps it (JSON)."""
    return value.isoformat() if isinstance(value, dt.date | dt.datetime) else value


def _snapshot(instance, names) -> dict:
    return {name: _plain(getattr(instance, name)) for name in names}


def _model_errors(instance, exclude=()) -> dict[str, str]:
    try:
        instance.full_clean(exclude=list(exclude), validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        return {name: " ".join(messages) for name, messages in error.message_dict.items()}
    return {}


def free_slug(text: str, fallback: str, taken) -> str:
    """A short name in links made from `text` (a Korean or Chinese name makes none: then `fallback`), with
    "-2", "-3" … added until `taken(slug)` is false."""
    base = slugify(text)[:50].strip("-")
    if not any("a" <= ch <= "z" for ch in base):  # "2030 부산 대회" makes only "2030"
        base = fallback
    for number in range(1, 1000):
        slug = base if number == 1 else f"{base}-{number}"
        if not taken(slug):
            return slug
    return f"{base}-{timezone.now():%Y%m%d%H%M%S}"


def festival_slug_taken(slug: str, *, exclude: int | None = None) -> bool:
    return slug in RESERVED_FESTIVAL_SLUGS or Festival.objects.filter(slug=slug).exclude(pk=exclude).exists()


def event_slug_taken(festival: Festival, slug: str, *, exclude: int | None = None) -> bool:
    return slug in RESERVED_EVENT_SLUGS or festival.events.filter(slug=slug).exclude(pk=exclude).exists()


def started(event: Event) -> str:
    """The stage that shows the event has started ("Round 1"), or "" before its first draw."""
    first = event.stages.order_by("number").first()
    return str(first.display_name) if first else ""


def locked_fields(event: Event) -> dict[str, str]:
    """Fields that may no longer change, with the reason shown at each."""
    locked = {}
    stage = started(event) if event.pk else ""
    if stage:
        reason = _("Cannot change: the event has started (%(stage)s is drawn), and this would change its "
                   "results.") % {"stage": stage}
        locked = dict.fromkeys(RESULT_FIELDS, reason)
    if stage:
        # The tables' cards, the players' pages and the chief's board of a drawn round are made for one way.
        locked["sheets_by"] = _("Cannot change: %(stage)s is drawn, and its tables already enter their sheets "
                                "this way.") % {"stage": stage}
    if event.pk and event.numbers_assigned_at:
        locked["numbering"] = _("Cannot change: the player numbers are already assigned.")
    return locked


# --- festivals ---------------------------------------------------------------------------------------------


def _festival_errors(festival: Festival, *, renamed: bool = True) -> dict[str, str]:
    errors = _model_errors(festival, exclude=["slug"])
    if festival.slug in RESERVED_FESTIVAL_SLUGS:
        errors["slug"] = _("“%(slug)s” is used by the organiser's pages; choose another.") % {"slug": festival.slug}
    elif festival_slug_taken(festival.slug, exclude=festival.pk):
        errors["slug"] = _("Another festival already uses “%(slug)s”; choose another.") % {"slug": festival.slug}
    else:
        errors.update({k: v for k, v in _model_errors(festival).items() if k == "slug"})
    if renamed and Festival.objects.filter(name__iexact=festival.name).exclude(pk=festival.pk).exists():
        errors["name"] = _("There is already a festival called “%(name)s”.") % {"name": festival.name}
    return errors


def create_festival(*, values: dict, actor: Actor) -> Festival:
    """A new festival; whoever creates it becomes its organiser."""
    with transaction.atomic():
        festival = Festival(**{name: values[name] for name in FESTIVAL_FIELDS})
        errors = _festival_errors(festival)
        if errors:
            raise FieldsRefused(errors)
        try:
            with transaction.atomic():
                festival.save()
        except IntegrityError:  # the same short name, taken a moment ago
            raise FieldsRefused({"slug": _("Another festival already uses “%(slug)s”; choose another.")
                                 % {"slug": festival.slug}}) from None
        record(actor=actor, action="festival.created", target=festival, festival=festival,
               after=_snapshot(festival, FESTIVAL_FIELDS))
        if actor.user is not None:
            grant_role(festival=festival, user=actor.user, role=ORGANISER, actor=actor)
    return festival


def _local_day(moment: dt.datetime, tz) -> dt.date:
    return timezone.localtime(moment, tz).date()


def _same_wall_time(moment: dt.datetime, old_tz, new_tz) -> dt.datetime:
    """The same clock time in the new zone; a time the new zone skips or shows twice refuses the zone."""
    wall = timezone.localtime(moment, old_tz)
    try:
        return festival_moment(wall.date(), wall.time(), new_tz)
    except ValidationError as error:
        raise FieldsRefused({"timezone": error.messages[0]}) from None


def _move_to_time_zone(festival: Festival, events: list[Event], old_tz, actor: Actor) -> None:
    """Another time zone keeps every event's clock times (10:20 stays 10:20, now in the new zone)."""
    new_tz = festival.tzinfo
    for event in events:
        before = _snapshot(event, MOVING_TIMES)
        for name in MOVING_TIMES:
            setattr(event, name, _same_wall_time(getattr(event, name), old_tz, new_tz))
        if event.timetable:
            event.timetable = as_json([Slot(s.label, _same_wall_time(s.starts, old_tz, new_tz),
                                            _same_wall_time(s.ends, old_tz, new_tz), s.kind, s.number)
                                       for s in stored(event) if s.ends is not None])
        event.save(update_fields=[*MOVING_TIMES, "timetable"])
        record(actor=actor, action="event.time_zone", target=event, event=event, before=before,
               after=_snapshot(event, MOVING_TIMES), reason=festival.timezone)


def _days_problem(festival: Festival, before: dict, events: list[Event], old_tz) -> dict[str, str]:
    """New days must keep the events they held (one already outside the old days, from an import, is left be)."""
    first = dt.date.fromisoformat(before["starts_on"]) if "starts_on" in before else festival.starts_on
    last = dt.date.fromisoformat(before["ends_on"]) if "ends_on" in before else festival.ends_on
    for event in events:
        day = _local_day(event.starts_at, old_tz)
        if first <= day <= last and not festival.starts_on <= day <= festival.ends_on:
            where = "starts_on" if day < festival.starts_on else "ends_on"
            return {where: _("“%(event)s” is on %(day)s, outside these days; move the event first.") % {
                "event": event.name, "day": date_format(day)}}
    return {}


def update_festival(*, festival: Festival, values: dict, actor: Actor) -> Festival:
    """The organiser edits the festival. A new time zone keeps the events' clock times, until one has started;
    new days must still hold the festival's events."""
    with transaction.atomic():
        festival = lock_festival(festival)
        changed = [name for name in FESTIVAL_FIELDS if getattr(festival, name) != values[name]]
        if not changed:
            return festival
        old_tz = festival.tzinfo
        before = _snapshot(festival, changed)
        for name in changed:
            setattr(festival, name, values[name])
        if set(NOTICE_FIELDS) & set(changed):
            # A new notice is a new version: consents given before name the one they agreed to.
            before["privacy_notice_version"] = festival.privacy_notice_version
            festival.privacy_notice_version += 1
            changed.append("privacy_notice_version")
        errors = _festival_errors(festival, renamed="name" in changed)
        events = lock_festival_events(festival)
        if "timezone" in changed:
            begun = next((e for e in events if started(e)), None)
            if begun is not None:
                errors["timezone"] = _("“%(event)s” has started; its times cannot move to another time zone.") % {
                    "event": begun.name}
        if {"starts_on", "ends_on"} & set(changed) and not errors.keys() & {"starts_on", "ends_on"}:
            errors.update(_days_problem(festival, before, events, old_tz))
        if errors:
            raise FieldsRefused(errors)
        try:
            with transaction.atomic():
                festival.save(update_fields=changed)
        except IntegrityError:
            raise FieldsRefused({"slug": _("Another festival already uses “%(slug)s”; choose another.")
                                 % {"slug": festival.slug}}) from None
        record(actor=actor, action="festival.updated", target=festival, festival=festival, before=before,
               after=_snapshot(festival, changed))
        if "timezone" in changed:
            _move_to_time_zone(festival, events, old_tz, actor)
    return festival


# --- events ------------------------------------------------------------------------------------------------


def _event_errors(event: Event, *, new_day: bool = True, renamed: bool = True) -> dict[str, str]:
    festival = event.festival
    errors = _model_errors(event, exclude=["festival", "slug", "timetable"])
    if event.slug in RESERVED_EVENT_SLUGS:
        errors["slug"] = _("“%(slug)s” is used by the organiser's pages; choose another.") % {"slug": event.slug}
    elif event_slug_taken(festival, event.slug, exclude=event.pk):
        errors["slug"] = _("Another event of this festival already uses “%(slug)s”; choose another.") % {
            "slug": event.slug}
    else:
        errors.update({k: v for k, v in _model_errors(event, exclude=["festival", "timetable"]).items()
                       if k == "slug"})
    if renamed and festival.events.filter(name__iexact=event.name).exclude(pk=event.pk).exists():
        errors["name"] = _("This festival already has an event called “%(name)s”.") % {"name": event.name}
    day = _local_day(event.starts_at, festival.tzinfo) if event.starts_at else None
    if new_day and day and not festival.starts_on <= day <= festival.ends_on:
        errors[DAY] = _("Choose a day of the festival (%(first)s – %(last)s).") % {
            "first": date_format(festival.starts_on), "last": date_format(festival.ends_on)}
    return errors


def _minute(moment: dt.datetime | None) -> dt.datetime | None:
    return moment.replace(second=0, microsecond=0) if moment else moment


def _when(event: Event, name: str) -> str:
    return date_format(timezone.localtime(getattr(event, name), event.festival.tzinfo), "SHORT_DATETIME_FORMAT")


def _order_errors(event: Event, changed) -> dict[str, str]:
    """R9's order of the times the organiser set (`changed`); a pair neither of whose times changed is left as it
    was (an imported event's)."""
    rules = (
        ("registration_opens_at", "withdrawal_deadline", "withdrawal_deadline",
         _("The withdrawal deadline cannot come before registration opens (%(time)s).")),
        ("withdrawal_deadline", "starts_at", "withdrawal_deadline",
         _("The withdrawal deadline cannot come after play starts (%(time)s).")),
        ("registration_closes_at", "checkin_closes_at", "registration_closes_at",
         _("Registration must close by the time check-in closes (%(time)s): nobody can register after that.")),
    )
    errors = {}
    for first, last, where, message in rules:
        if not {first, last} & set(changed) or where in errors:
            continue
        early, late = getattr(event, first), getattr(event, last)
        if early and late and late < early:
            errors[where] = message % {"time": _when(event, last if where == first else first)}
    return errors


def _past_errors(event: Event, changed, now: dt.datetime) -> dict[str, str]:
    """The times set (`changed`) that have already passed."""
    message = _("This time has already passed.")
    return {name: message for name in FUTURE_TIMES
            if name in changed and getattr(event, name) and getattr(event, name) < _minute(now)}


def _time_errors(event: Event, changed, *, now: dt.datetime, past_confirmed: bool, errors: dict) -> None:
    """Raise for times out of order, or (unless confirmed) already past, with every other problem (`errors`)."""
    errors = errors | {k: v for k, v in _order_errors(event, changed).items() if k not in errors}
    past = {} if past_confirmed else {k: v for k, v in _past_errors(event, changed, now).items() if k not in errors}
    if errors or past:
        raise FieldsRefused(errors | past, past=tuple(past))


def create_event(*, festival: Festival, values: dict, actor: Actor, now=None,
                 past_confirmed: bool = False) -> Event:
    """A new event; its times in R9's order, and none already past unless `past_confirmed`."""
    now = now or timezone.now()
    with transaction.atomic():
        # The festival's row is the lock new events of one festival take (the event has none yet).
        festival = lock_festival(festival)
        event = Event(festival=festival, **{name: values[name] for name in EVENT_FIELDS})
        _time_errors(event, MOVING_TIMES, now=now, past_confirmed=past_confirmed, errors=_event_errors(event))
        try:
            with transaction.atomic():
                event.save()
        except IntegrityError:
            raise FieldsRefused({"slug": _("Another event of this festival already uses “%(slug)s”; choose "
                                           "another.") % {"slug": event.slug}}) from None
        past = past_confirmed and bool(_past_errors(event, MOVING_TIMES, now))
        record(actor=actor, action="event.created", target=event, event=event,
               after=_snapshot(event, EVENT_FIELDS), reason=PAST_CONFIRMED if past else "")
    return event


def _fit_timetable(event: Event, changed: list[str], old_start: dt.datetime) -> bool:
    """Keep an edited timetable in step with the event: a new plan makes it again from the plan (returns
    True), a new start moves it along. Raises when it no longer fits the event's times."""
    if not event.timetable:
        return False
    if set(changed) & set(PLAN_FIELDS):
        event.timetable = []
        return True
    if "starts_at" in changed:
        event.timetable = shifted(event.timetable, event.starts_at - old_start)
    trouble = first_problem(event, stored(event))
    if trouble:
        where = "ends_at" if "ends_at" in changed else "starts_at"
        raise FieldsRefused({where: _("The edited schedule no longer fits: %(problem)s Change the schedule "
                                      "first, or generate it again.") % {"problem": trouble}})
    return False


def update_event(*, event: Event, values: dict, actor: Actor, now=None, past_confirmed: bool = False) -> EventSaved:
    """The organiser edits the event. Once it has started, what decides results is refused (the reason at each
    field); fewer places than players already holding one is refused; more places move the waiting list up.
    The times changed come in R9's order, and none already past unless `past_confirmed`."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        changed = [name for name in EVENT_FIELDS if getattr(event, name) != values[name]]
        if not changed:
            return EventSaved(event)
        locked = locked_fields(event)
        refused = {name: locked[name] for name in changed if name in locked}
        if refused:
            raise FieldsRefused(refused)
        before = _snapshot(event, changed)
        old_start, old_capacity, old_timetable = event.starts_at, event.capacity, event.timetable
        for name in changed:
            setattr(event, name, values[name])
        tz = event.festival.tzinfo
        errors = _event_errors(event, new_day=_local_day(old_start, tz) != _local_day(event.starts_at, tz),
                               renamed="name" in changed)
        taken = Registration.objects.filter(event=event, status=Registration.Status.REGISTERED).count()
        if event.capacity < taken:
            errors["capacity"] = _("%(count)s players already hold a place; withdraw some first, or keep at "
                                   "least %(count)s places.") % {"count": taken}
        # A time counts as set when it moves by a minute or more (the form shows minutes).
        moved = [name for name in MOVING_TIMES if name in changed and _minute(dt.datetime.fromisoformat(
            before[name])) != _minute(getattr(event, name))]
        _time_errors(event, moved, now=now, past_confirmed=past_confirmed, errors=errors)
        regenerated = _fit_timetable(event, changed, old_start)
        saved = [*changed, "timetable"] if event.timetable != old_timetable else changed
        event.save(update_fields=saved)
        after = _snapshot(event, changed)
        if "timetable" in saved:
            before["timetable"], after["timetable"] = old_timetable, event.timetable
        past = past_confirmed and bool(_past_errors(event, moved, now))
        record(actor=actor, action="event.updated", target=event, event=event, before=before, after=after,
               reason=PAST_CONFIRMED if past else "")
        promoted = fill_free_places(event=event, actor=actor) if event.capacity > old_capacity else []
    return EventSaved(event, tuple(changed), promoted, regenerated)


# --- the day's timetable -----------------------------------------------------------------------------------


def save_timetable(*, event: Event, slots: list[Slot], actor: Actor) -> Event:
    """The organiser's timetable: every slot inside the event's times, each ending after it starts."""
    with transaction.atomic():
        event = lock_event(event)
        for slot in slots:
            found = problem(event, slot)
            if found is not None:
                raise ServiceError(f"{slot.label}: {found[1]}", code="outside")
        timetable = as_json(slots)
        if not timetable:
            raise ServiceError(_("A schedule needs at least one slot."), code="empty")
        if timetable == event.timetable:
            return event
        before = event.timetable
        event.timetable = timetable
        event.save(update_fields=["timetable"])
        record(actor=actor, action="event.schedule_edited", target=event, event=event,
               before={"timetable": before}, after={"timetable": timetable})
    return event


def generate_timetable(*, event: Event, actor: Actor) -> Event:
    """Back to the timetable generated from the start time and the plan (the edited one stays in the log)."""
    with transaction.atomic():
        event = lock_event(event)
        if not event.timetable:
            return event
        before = event.timetable
        event.timetable = []
        event.save(update_fields=["timetable"])
        record(actor=actor, action="event.schedule_generated", target=event, event=event,
               before={"timetable": before}, after={"timetable": []})
    return event
