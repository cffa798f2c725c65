"""What each person working at a festival has to do now, with direct links: My work.

The organiser sees each event's next step in the flow of the day (DESIGN.md), the chief referee the live
board, a referee the tables they hold (in the round being played), the desk the desk. Everything is read in a fixed number of
queries, whatever the number of festivals and events.
"""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import Draw, Event, Festival, Registration, StaffRole, Stage
from tournament.permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE, ROLES
from tournament.services import seating
from tournament.services.late_places import LatePlaces, late_places

from .models import RefereeAssignment


@dataclass(frozen=True)
class Link:
    label: str
    url: str


@dataclass
class EventWork:
    event: Event
    next_step: Link | None = None  # the organiser's
    links: list[Link] = field(default_factory=list)


@dataclass
class FestivalWork:
    festival: Festival
    roles: list[str]
    events: list[EventWork]

    @property
    def is_organiser(self) -> bool:
        return ORGANISER in self.roles


def _event_url(name: str, event: Event, **kwargs) -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


def next_step(event: Event, stages: list[Stage], now) -> Link:
    """The organiser's next action in the flow of the day: check-in, late places, numbers, draw, release, play,
    results. `stages` carry `first_games` (their seatings of game 1, draft or released)."""
    if not stages:
        if event.numbers_assigned_at is None:
            if event.checkin_is_open(now):
                return Link(_("Close check-in"), _event_url("manage-event", event) + "#checkin-heading")
            if now < event.checkin_opens_at and event.checkin_override == "":
                return Link(_("Registrations"), _event_url("manage-event", event))
            late = _late_places(event, now)
            if late.usable:  # places empty after check-in, players waiting (R9)
                return Link(_("Late places at the desk"), _event_url("desk-late-places", event))
            if not late.opened and not late.blockers:
                return Link(_("Open late places"), _event_url("manage-event", event) + "#late-places")
            return Link(_("Assign player numbers"), _event_url("manage-event", event) + "#numbers-heading")
        return Link(_("Make the first draw"), _event_url("manage-draws", event))
    stage = stages[-1]
    statuses = {draw.status for draw in stage.first_games}
    if Draw.Status.RELEASED not in statuses:
        text = (_("Release the draw of %(stage)s") if statuses else _("Make the draw of %(stage)s"))
        return Link(text % {"stage": stage.display_name}, _event_url("manage-draws", event))
    if stage.closed_at is None:
        return Link(_("Follow %(stage)s and close it") % {"stage": stage.display_name},
                    _event_url("board-stage", event, stage=stage.number))
    if stage.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
        return Link(_("Make the draw of the next round"), _event_url("manage-draws", event))
    return Link(_("Results"), _event_url("manage-results", event))


def _late_places(event: Event, now) -> LatePlaces:
    """R9: places left empty after check-in, for waiting-list players present; from the counts `my_work` reads
    with the events (one query for them all), else read here."""
    return late_places(event, now=now, checked_in=getattr(event, "checked_in_count", None),
                       waiting=getattr(event, "waiting_count", None))


def my_work(user) -> tuple[list[FestivalWork], list["HeldTable"]]:
    """The user's festivals with their roles and each event's links, and the tables they hold as a referee."""
    now = timezone.now()
    festivals = Festival.objects.all() if user.is_superuser else Festival.objects.filter(staff_roles__user=user)
    stages = Stage.objects.order_by("number").prefetch_related(
        Prefetch("draws", queryset=Draw.objects.filter(game=1).only("pk", "stage_id", "status"), to_attr="first_games"))
    festivals = list(festivals.distinct().prefetch_related(
        Prefetch("events", queryset=Event.objects.order_by("starts_at", "name").annotate(
            checked_in_count=Count("registrations", filter=Q(registrations__status=Registration.Status.REGISTERED,
                                                             registrations__checked_in_at__isnull=False)),
            waiting_count=Count("registrations", filter=Q(registrations__status=Registration.Status.WAITLISTED)),
        ).prefetch_related(
            Prefetch("stages", queryset=stages, to_attr="stage_list"))),
        Prefetch("staff_roles", queryset=StaffRole.objects.filter(user=user), to_attr="my_roles"),
    ))
    work = []
    for festival in festivals:
        held = set(ROLES) if user.is_superuser else {row.role for row in festival.my_roles}
        roles = [role for role in ROLES if role in held]
        events = []
        for event in festival.events.all():
            event.festival = festival  # reverse() needs it; it is already here
            item = EventWork(event=event)
            if ORGANISER in held:
                item.next_step = next_step(event, event.stage_list, now)
                item.links.append(Link(_("Organiser's page"), _event_url("manage-event", event)))
            if held & {ORGANISER, CHIEF_REFEREE}:
                item.links.append(Link(_("Live board"), _event_url("board", event)))
            if held & {ORGANISER, DESK}:
                item.links.append(Link(_("Check-in desk"), _event_url("desk", event)))
            events.append(item)
        work.append(FestivalWork(festival=festival, roles=roles, events=events))
    tables = []
    if not user.is_superuser:
        tables = my_tables(user, [w.festival.pk for w in work if REFEREE in w.roles])
    return work, tables


@dataclass(frozen=True)
class HeldTable:
    """A table the referee holds, and where it is played now: `stage` is the event's round in play (None before
    its draw is released, or between rounds); `plays` whether this table has a game in it."""

    assignment: RefereeAssignment
    stage: Stage | None

    @property
    def event(self) -> Event:
        return self.assignment.event

    @property
    def table_number(self) -> int:
        return self.assignment.table_number

    @property
    def plays(self) -> bool:
        return self.stage is not None and self.table_number in self.stage.seated_tables

    @property
    def url(self) -> str:
        """The table's page in the round in play: its games and their sheets."""
        return reverse("referee-table", kwargs={"stage_id": self.stage.pk, "table": self.table_number})


def my_tables(user, festivals: list[int]) -> list[HeldTable]:
    """The tables the user holds at these festivals, in events not over, each with the round in play; three
    queries whatever the number of tables and events."""
    stages = Stage.objects.filter(event=OuterRef("event"))
    held = list(
        RefereeAssignment.objects.filter(referee=user, ended_at__isnull=True, event__festival__in=festivals)
        .exclude(Exists(stages), ~Exists(stages.filter(closed_at__isnull=True)))  # every round closed: over
        .select_related("event__festival")
        .order_by("event__starts_at", "event__name", "table_number"))
    current = seating.current_stages({row.event_id for row in held}, tables={row.table_number for row in held})
    return [HeldTable(assignment=row, stage=current.get(row.event_id)) for row in held]
