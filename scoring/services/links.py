"""Private table links and referee assignments: who may enter a table's sheets.

A table link is the long random token printed on the table card and the paper score sheet. It belongs to the
event and a table number, not to a stage: it opens the table of that number in the event's current stage
(`seating.stage_in_play`), so the card printed before round 1 still opens the table in the final (Hong Kong
keeps its table numbers from game to game, R8.2). It stops working only when it is revoked and replaced.
Referees with an account open the tables they hold: a table number of the event, like the card, in every round
until someone changes it (`assign_tables`, `unassign_tables`).
Tokens never go into the audit log: the log names the table, not the secret.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.formats import table_sizes
from tournament.models import Event
from tournament.permissions import REFEREE, has_role
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event, lock_festival_events, lock_rows
from tournament.services.seating import event_table_numbers

from ..models import RefereeAssignment, TableLink

CONTACT_GRAIN = timedelta(seconds=30)


def heard_from(*, link: TableLink | None = None, assignment: RefereeAssignment | None = None, now=None) -> None:
    """The table's phone asked for a page — through its card's `link`, or as the referee holding the table
    (`assignment`): note the time, at most once per CONTACT_GRAIN (the row as loaded says whether it is due, so
    most requests write nothing). Not an event change: no event lock and no audit record, which every page view
    of every table would otherwise fill."""
    now = now or timezone.now()
    for row in (link, assignment):
        if row is None or (row.last_contact_at is not None and row.last_contact_at > now - CONTACT_GRAIN):
            continue
        (type(row).objects.filter(pk=row.pk).exclude(last_contact_at__gt=now - CONTACT_GRAIN)
         .update(last_contact_at=now))


def last_heard(link: TableLink | None, assignment: RefereeAssignment | None):
    """When the table was last heard from, by its card or its referee (None: never)."""
    times = [row.last_contact_at for row in (link, assignment) if row is not None and row.last_contact_at]
    return max(times, default=None)


def live_links(event: Event, *, table: int | None = None) -> dict[int, TableLink]:
    """The event's live link of each table number (or of `table` alone), in one query."""
    links = TableLink.objects.filter(event=event, revoked_at__isnull=True).order_by()  # a dict: no join to order by
    if table is not None:
        links = links.filter(table_number=table)
    return {link.table_number: link for link in links}


def ensure_links(*, event: Event, actor: Actor) -> list[TableLink]:
    """One live link per table number the event's released seatings use; tables that have one keep it. Safe to
    repeat: once a stage with more tables is released, making the links again adds only the missing ones."""
    with transaction.atomic():
        event = lock_event(event)
        tables = event_table_numbers(event)
        if not tables:
            raise ServiceError(_("No seating of this event is released yet, so it has no tables."),
                               code="not_released")
        existing = live_links(event)
        missing = [number for number in tables if number not in existing]
        if missing:
            TableLink.objects.bulk_create([TableLink(event=event, table_number=number) for number in missing])
            record(actor=actor, action="link.created", target=event, event=event, after={"tables": missing})
    return [link for number, link in sorted(live_links(event).items()) if number in tables]


def revoke_link(*, link: TableLink, actor: Actor, now=None) -> TableLink:
    """Stop a link (a lost or photographed card) and make its replacement: the organiser reprints the card.
    The old card then says it was replaced (scoring/views/referee.py), so its holder asks for the new one."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(link.event_id)
        link = TableLink.objects.get(pk=link.pk)
        if link.revoked_at is not None:
            raise ServiceError(_("This link has already been revoked."), code="revoked")
        link.revoked_at = now
        link.save(update_fields=["revoked_at"])
        new = TableLink.objects.create(event=event, table_number=link.table_number)
        record(actor=actor, action="link.revoked", target=link, event=event,
               before={"link": link.pk}, after={"link": new.pk, "table": link.table_number})
    return new


def table_limit(event: Event, numbers: list[int] | None = None) -> int:
    """The highest table number of the event: of its released seatings (`numbers`, when already read; the first
    round has the most tables), or before the first release the tables its places would make (R8.1), since
    referees may be given their tables before the draw."""
    numbers = event_table_numbers(event) if numbers is None else numbers
    return max(numbers) if numbers else len(table_sizes(event.capacity))


def current_referees(event: Event, *, table: int | None = None) -> dict[int, RefereeAssignment]:
    """Who holds each table of the event now (or `table` alone), by table number, in one query."""
    held = RefereeAssignment.objects.filter(event=event, ended_at__isnull=True).order_by()  # a dict: no join to order by
    if table is not None:
        held = held.filter(table_number=table)
    return {row.table_number: row for row in held.select_related("referee")}


def _check_tables(event: Event, first: int, last: int) -> None:
    if not 1 <= first <= last:
        raise ServiceError(_("Write the tables from the smaller number to the larger, e.g. 1–8."), code="range")
    limit = table_limit(event)
    if last > limit:
        raise ServiceError(ngettext("There is no table %(table)s: this event has %(count)s table.",
                                    "There is no table %(table)s: this event has %(count)s tables.", limit)
                           % {"table": last, "count": limit}, code="no_table")


def assign_tables(*, event: Event, first: int, last: int, referee, actor: Actor, now=None) -> dict:
    """Tables `first` to `last` of the event to one referee of its festival, from now until changed: whoever
    held one of them before no longer does. Tables the referee already holds stay as they are (sent twice,
    nothing changes). Returns the tables given and the previous holders ({table: username})."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        _check_tables(event, first, last)
        user = get_user_model().objects.filter(pk=getattr(referee, "pk", referee) or None).first()
        if user is None or not user.is_active or not has_role(user, event.festival, REFEREE):
            raise ServiceError(_("Only a referee of this festival can be assigned to a table."), code="not_referee")
        held = {row.table_number: row for row in lock_rows(RefereeAssignment.objects.filter(
            event=event, ended_at__isnull=True, table_number__gte=first, table_number__lte=last,
        )).select_related("referee")}
        replaced = {number: row for number, row in held.items() if row.referee_id != user.pk}
        given = [number for number in range(first, last + 1) if number not in held or number in replaced]
        if given:
            RefereeAssignment.objects.filter(pk__in=[row.pk for row in replaced.values()]).update(ended_at=now)
            RefereeAssignment.objects.bulk_create([
                RefereeAssignment(event=event, table_number=number, referee=user, assigned_at=now)
                for number in given])
            record(actor=actor, action="referee.assigned", target=event, event=event,
                   before={"tables": {str(n): row.referee.get_username() for n, row in sorted(replaced.items())}}
                   if replaced else None,
                   after={"tables": given, "referee": user.get_username()})
    return {"tables": given, "replaced": {n: row.referee.get_username() for n, row in replaced.items()},
            "referee": user}


def unassign_tables(*, event: Event, first: int, last: int, actor: Actor, referee=None, now=None) -> list[int]:
    """No referee for tables `first` to `last` any more (only `referee`'s, when given: a page left open does not
    take away a table someone else has been given since). The ended assignments stay, with when they ended."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(event)
        if not 1 <= first <= last:
            raise ServiceError(_("Write the tables from the smaller number to the larger, e.g. 1–8."), code="range")
        rows = lock_rows(RefereeAssignment.objects.filter(
            event=event, ended_at__isnull=True, table_number__gte=first, table_number__lte=last))
        if referee is not None:
            rows = rows.filter(referee_id=getattr(referee, "pk", referee))
        rows = list(rows.select_related("referee").order_by("table_number"))
        if not rows:
            raise ServiceError(_("No referee holds these tables."), code="not_assigned")
        RefereeAssignment.objects.filter(pk__in=[row.pk for row in rows]).update(ended_at=now)
        record(actor=actor, action="referee.unassigned", target=event, event=event,
               before={"tables": {str(row.table_number): row.referee.get_username() for row in rows}})
    return [row.table_number for row in rows]


def end_tables_of_former_referee(*, festival, user, actor: Actor, now=None) -> None:
    """Someone who no longer referees at the festival (their role removed) holds none of its tables any more:
    each open assignment ends (kept, with when it ended), one audit record per event. Runs inside
    `tournament.services.staff.remove_role`'s transaction, the festival locked; its events are locked next, in
    their fixed order."""
    if has_role(user, festival, REFEREE):  # still a referee there (or an organiser, who holds every role)
        return
    now = now or timezone.now()
    events = {event.pk: event for event in lock_festival_events(festival)}
    rows = list(lock_rows(RefereeAssignment.objects.filter(
        event_id__in=list(events), referee=user, ended_at__isnull=True)).order_by("event_id", "table_number"))
    if not rows:
        return
    RefereeAssignment.objects.filter(pk__in=[row.pk for row in rows]).update(ended_at=now)
    freed: dict[int, list[int]] = {}
    for row in rows:
        freed.setdefault(row.event_id, []).append(row.table_number)
    for event_id, tables in freed.items():
        event = events[event_id]
        event.festival = festival
        record(actor=actor, action="referee.unassigned", target=event, event=event,
               before={"tables": {str(number): user.get_username() for number in tables}},
               after={"because": "staff.removed"})
