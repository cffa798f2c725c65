"""What each person working at a festival has to do now, with direct links: My work.

The organiser sees each event's next step in the flow of the day (DESIGN.md); the desk, per event, whether
check-in is open now, opens later or has closed, and how many registered players are still missing; the chief
referee the sheets waiting for confirmation (and how many have warnings) and the round and game being played; a
referee the tables they hold (in the round being played), and before the draw that their tables appear after it.
Events that need someone now come first. Everything is read in a fixed number of queries, whatever the number of
festivals and events.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.formats import format_of
from tournament.models import Draw, Event, Festival, Registration, StaffRole, Stage
from tournament.permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE, ROLES
from tournament.services import seating
from tournament.services.late_places import LatePlaces, late_places

from .models import RefereeAssignment, ScoreSheet
from .services.progress import progress_of


@dataclass(frozen=True)
class Link:
    label: str
    url: str
    now: bool = False  # something waits behind it now: shown as the main button


@dataclass(frozen=True)
class DeskWork:
    """The desk's view of an event: check-in `state` ("open" now, "later", "closed"), the times to show, the
    registered players and how many of them have not arrived; late places the desk gives now (R9)."""

    state: str
    opens_at: dt.datetime
    closes_at: dt.datetime
    opens_today: bool
    override: str  # the organiser's: "open" (reopened), "closed" (closed early), "" (the schedule)
    closed_on_time: bool  # closed by the schedule, at `closes_at`
    registered: int
    missing: int
    late_places_url: str = ""

    @property
    def now(self) -> bool:
        return self.state == "open" or bool(self.late_places_url)


@dataclass(frozen=True)
class ChiefWork:
    """The chief referee's view of an event: the round being played (None: none now) and its game, the sheets
    waiting for confirmation, and how many of those carry warnings the referee accepted."""

    stage: Stage | None
    game: int | None
    waiting: int
    with_warnings: int

    @property
    def now(self) -> bool:
        return self.waiting > 0 or self.stage is not None


@dataclass
class EventWork:
    event: Event
    next_step: Link | None = None  # the organiser's
    desk: DeskWork | None = None
    chief: ChiefWork | None = None
    referee_note: str = ""  # "before_draw" or "no_table": a referee who holds no table of the event
    links: list[Link] = field(default_factory=list)

    @property
    def now(self) -> bool:
        """Something of the event needs this person now: it comes before those that do not."""
        return any(part is not None and part.now for part in (self.next_step, self.desk, self.chief))


@dataclass
class FestivalWork:
    festival: Festival
    roles: list[str]
    events: list[EventWork]

    @property
    def is_organiser(self) -> bool:
        return ORGANISER in self.roles

    @property
    def now(self) -> bool:
        return any(item.now for item in self.events)


def _event_url(name: str, event: Event, **kwargs) -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


def next_step(event: Event, stages: list[Stage], now) -> Link:
    """The organiser's next action in the flow of the day: check-in, late places, numbers, draw, release, play,
    results. `stages` carry `first_games` (their seatings of game 1, draft or released). Every step but the
    registrations before check-in and the results is the day's work: needed now."""

    def today(label: str, url: str) -> Link:
        return Link(label, url, now=True)

    if not stages:
        if event.numbers_assigned_at is None:
            if event.checkin_is_open(now):
                return today(_("Close check-in"), _event_url("manage-event", event) + "#checkin-heading")
            if now < event.checkin_opens_at and event.checkin_override == "":
                return Link(_("Registrations"), _event_url("manage-event", event))
            late = _late_places(event, now)
            if late.usable:  # places empty after check-in, players waiting (R9)
                return today(_("Late places at the desk"), _event_url("desk-late-places", event))
            if not late.opened and not late.blockers:
                return today(_("Open late places"), _event_url("manage-event", event) + "#late-places")
            return today(_("Assign player numbers"), _event_url("manage-event", event) + "#numbers-heading")
        return today(_("Make the first draw"), _event_url("manage-draws", event))
    stage = stages[-1]
    statuses = {draw.status for draw in stage.first_games}
    if Draw.Status.RELEASED not in statuses:
        text = (_("Release the draw of %(stage)s") if statuses else _("Make the draw of %(stage)s"))
        return today(text % {"stage": stage.display_name}, _event_url("manage-draws", event))
    if stage.closed_at is None:
        return today(_("Follow %(stage)s and close it") % {"stage": stage.display_name},
                     _event_url("board-stage", event, stage=stage.number))
    if stage.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
        return today(_("Make the draw of the next round"), _event_url("manage-draws", event))
    return Link(_("Results"), _event_url("manage-results", event))


def _late_places(event: Event, now) -> LatePlaces:
    """R9: places left empty after check-in, for waiting-list players present; from the counts `my_work` reads
    with the events (one query for them all), else read here."""
    return late_places(event, now=now, checked_in=getattr(event, "checked_in_count", None),
                       waiting=getattr(event, "waiting_count", None))


def my_work(user) -> tuple[list[FestivalWork], list["HeldTable"]]:
    """The user's festivals with their roles and each event's state and links, and the tables they hold as a
    referee; the festivals and events that need the user now first, each in its own order otherwise."""
    now = timezone.now()
    festivals = Festival.objects.all() if user.is_superuser else Festival.objects.filter(staff_roles__user=user)
    stages = Stage.objects.order_by("number").prefetch_related(
        Prefetch("draws", queryset=Draw.objects.filter(game=1).only("pk", "stage_id", "status"), to_attr="first_games"))
    registered = Q(registrations__status=Registration.Status.REGISTERED)
    festivals = list(festivals.distinct().prefetch_related(
        Prefetch("events", queryset=Event.objects.order_by("starts_at", "name").annotate(
            registered_count=Count("registrations", filter=registered),
            checked_in_count=Count("registrations", filter=registered & Q(registrations__checked_in_at__isnull=False)),
            waiting_count=Count("registrations", filter=Q(registrations__status=Registration.Status.WAITLISTED)),
        ).prefetch_related(
            Prefetch("stages", queryset=stages, to_attr="stage_list"))),
        Prefetch("staff_roles", queryset=StaffRole.objects.filter(user=user), to_attr="my_roles"),
    ))
    held_by_festival = {festival.pk: set(ROLES) if user.is_superuser else {row.role for row in festival.my_roles}
                        for festival in festivals}
    tables = [] if user.is_superuser else my_tables(
        user, [pk for pk, held in held_by_festival.items() if REFEREE in held])
    chief = chief_work([event for festival in festivals for event in festival.events.all()
                        if held_by_festival[festival.pk] & {ORGANISER, CHIEF_REFEREE}])
    holds_tables_in = {row.assignment.event_id for row in tables}
    work = []
    for festival in festivals:
        held = held_by_festival[festival.pk]
        roles = [role for role in ROLES if role in held]
        events = []
        for event in festival.events.all():
            event.festival = festival  # reverse() needs it; it is already here
            item = EventWork(event=event)
            if ORGANISER in held:
                item.next_step = next_step(event, event.stage_list, now)
                item.links.append(Link(_("Organiser's page"), _event_url("manage-event", event)))
            if held & {ORGANISER, CHIEF_REFEREE}:
                item.chief = chief[event.pk]
                item.links.append(Link(_("Live board"), _event_url("board", event),
                                       now=item.chief.waiting > 0 and ORGANISER not in held))
            if held & {ORGANISER, DESK}:
                item.desk = desk_work(event, now)
                item.links.append(Link(_("Check-in desk"), _event_url("desk", event),
                                       now=item.desk.state == "open" and ORGANISER not in held))
            if REFEREE in held and not user.is_superuser and event.pk not in holds_tables_in:
                item.referee_note = _referee_note(event.stage_list)
            events.append(item)
        events.sort(key=lambda item: not item.now)  # stable: in their order otherwise
        work.append(FestivalWork(festival=festival, roles=roles, events=events))
    work.sort(key=lambda festival: not festival.now)
    return work, tables


def desk_work(event: Event, now) -> DeskWork:
    """The desk's line of an event, from the counts `my_work` reads with the events (R9: check-in closes at a
    set time; the organiser may close it early or reopen it)."""
    if event.checkin_is_open(now):
        state = "open"
    elif event.checkin_has_closed(now):
        state = "closed"
    else:
        state = "later"
    zone = event.festival.tzinfo
    late = _late_places(event, now)
    return DeskWork(
        state=state, opens_at=event.checkin_opens_at, closes_at=event.checkin_closes_at,
        opens_today=timezone.localdate(event.checkin_opens_at, zone) == timezone.localdate(now, zone),
        override=event.checkin_override, closed_on_time=state == "closed" and now >= event.checkin_closes_at,
        registered=event.registered_count,
        missing=event.registered_count - event.checked_in_count,
        late_places_url=_event_url("desk-late-places", event) if late.usable else "",
    )


def _released(stage: Stage) -> bool:
    return any(draw.status == Draw.Status.RELEASED for draw in stage.first_games)


def _stage_in_play(stages: list[Stage]) -> Stage | None:
    """The latest round not closed whose seating is released (seating.stage_in_play), from the stages `my_work`
    reads with the events."""
    playing = [stage for stage in stages if stage.closed_at is None and _released(stage)]
    return playing[-1] if playing else None


def _referee_note(stages: list[Stage]) -> str:
    """What a referee who holds no table of the event is told: before its first draw, that tables appear
    after it; while a round is played, where a table comes from; nothing between rounds or after the last."""
    if not any(_released(stage) for stage in stages):
        return "before_draw"
    return "no_table" if _stage_in_play(stages) is not None else ""


def chief_work(events: list[Event]) -> dict[int, ChiefWork]:
    """Per event: the round and game being played, the sheets waiting for confirmation and those among them with
    warnings; two queries whatever the number of events (none without events)."""
    if not events:
        return {}
    playing = {event.pk: _stage_in_play(event.stage_list) for event in events}
    stage_ids = [stage.pk for stage in playing.values() if stage is not None]
    S = ScoreSheet.Status
    waiting, warned, confirmed = {}, {}, {}
    rows = (ScoreSheet.objects.filter(Q(status=S.SUBMITTED) | Q(status=S.CONFIRMED, stage__in=stage_ids),
                                      stage__event__in=[event.pk for event in events])
            .values_list("stage__event", "stage", "game", "status")
            .annotate(n=Count("id"), warned=Count("id", filter=~Q(warnings=[]))).order_by())
    for event_id, stage_id, game, status, n, with_warnings in rows:
        if status == S.SUBMITTED:
            waiting[event_id] = waiting.get(event_id, 0) + n
            warned[event_id] = warned.get(event_id, 0) + with_warnings
        else:
            confirmed[stage_id, game] = n
    tables = seating.table_counts(stages=stage_ids)
    work = {}
    for event in events:
        stage = playing[event.pk]
        game = _game_in_play(event, stage, tables, confirmed) if stage is not None else None
        work[event.pk] = ChiefWork(stage=stage, game=game, waiting=waiting.get(event.pk, 0),
                                   with_warnings=warned.get(event.pk, 0))
    return work


def _game_in_play(event: Event, stage: Stage, tables: dict, confirmed: dict) -> int:
    """The live board's game (`StageProgress.seated_game`), from the counts read for all the events: `tables` by
    (stage, Draw.game), `confirmed` by (stage, game)."""
    games = range(1, stage.games + 1)
    return progress_of(stage, format_of(event),
                       tables={g: tables[stage.pk, g] for g in games if (stage.pk, g) in tables},
                       confirmed={g: confirmed[stage.pk, g] for g in games if (stage.pk, g) in confirmed}).seated_game


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
    current = seating.stages_in_play({row.event_id for row in held}, tables={row.table_number for row in held})
    return [HeldTable(assignment=row, stage=current.get(row.event_id)) for row in held]
