"""The one locking rule: every service that changes an event takes that event's lock first.

Inside its transaction, before it reads anything it decides on, a service calls `lock_event` — registrations,
check-in, numbers, draws, sheets, lots, stages, results, conduct, table links alike. One lock per event means
two changes to one event never interleave and never deadlock each other, whatever rows they touch next.

The one shared use is a table's own score sheet: a whole hall of referees submits at once, so `submit_sheet`
takes the lock shared — submissions do not wait for one another, but each waits for an exclusive change in
progress (a draw taken back, a stage closed, a sheet confirmed) and such a change waits for them.

Other rows are locked here too, and only here: a player (`lock_player`, what is theirs across the festival's
events), a registration (`lock_registration`), several rows at once (`lock_rows`), always after the event
locks the same change takes. Rows are locked with `select_for_update(of=("self",))`, never as a side
effect of `select_related`. SQLite has no row locks; it admits one writer at a time to the whole database,
which keeps the same order.
"""

from django.db import connection, connections
from django.db.models import QuerySet
from django.db.transaction import TransactionManagementError

from ..models import Event, Festival, Player, Registration


def lock_event(event: Event | int, *, shared: bool = False) -> Event:
    """The event, freshly read and locked until the end of the current transaction (with its festival).

    Given an Event whose festival was read with it (a view's `get_event`), the event alone is read again and
    that festival kept: the event's lock never locked the festival's row, and a change to the festival takes
    the festival's own lock (`lock_festival`), so a second read here would be no fresher in any way that
    counts — only 18 columns and a join more on every tap."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_event() holds its lock until the end of a transaction; open one.")
    pk = event if isinstance(event, int) else event.pk
    festival = event.festival if isinstance(event, Event) and Event.festival.is_cached(event) else None
    rows = Event.objects.all() if festival is not None else Event.objects.select_related("festival")
    if shared:
        if connection.features.has_select_for_update:
            with connection.cursor() as cursor:  # Django has no FOR SHARE; the lock is all this query is for
                cursor.execute(f"SELECT 1 FROM {Event._meta.db_table} WHERE id = %s FOR SHARE", [pk])
        locked = rows.get(pk=pk)
    else:
        locked = rows.select_for_update(of=("self",)).get(pk=pk)
    if festival is not None:
        locked.festival = festival  # an event never moves to another festival
    return locked


def lock_festival(festival: Festival | int) -> Festival:
    """The festival, freshly read and locked: the lock of changes to the festival itself (its settings, its
    staff, a new event, which has no row of its own to lock yet)."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_festival() needs a transaction.")
    pk = festival if isinstance(festival, int) else festival.pk
    return Festival.objects.select_for_update(of=("self",)).get(pk=pk)


def lock_festival_events(festival) -> list[Event]:
    """Every event of a festival locked, in a fixed order (an import of registrations touches them all)."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_festival_events() needs a transaction.")
    return list(Event.objects.select_for_update(of=("self",)).filter(festival=festival).order_by("pk"))


def lock_player(player: Player | int) -> Player:
    """The player, freshly read and locked (with its festival): the lock of what is the person's across the
    festival's events — their details, agreements, how their name shows. A service that also locks events
    takes them first (in a fixed order), then the player."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_player() needs a transaction.")
    pk = player if isinstance(player, int) else player.pk
    return Player.objects.select_for_update(of=("self",)).select_related("festival").get(pk=pk)


def lock_registration(registration: Registration | int, *related: str) -> Registration:
    """The registration, freshly read and locked, with `related` (names for `select_related`: read, not
    locked). The caller holds its event's lock."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_registration() needs a transaction.")
    pk = registration if isinstance(registration, int) else registration.pk
    rows = Registration.objects.select_for_update(of=("self",))
    # select_related() without names would follow every foreign key.
    return (rows.select_related(*related) if related else rows).get(pk=pk)


def lock_rows(rows: QuerySet) -> QuerySet:
    """`rows` (any model's), to be locked as they are read: a waiting list, the players a walk-in may be, a
    referee's tables. Only their own table's rows are locked, whatever the caller joins. The caller holds
    the event locks of the change."""
    locked = rows.select_for_update(of=("self",))
    if not connections[locked.db].in_atomic_block:
        raise TransactionManagementError("lock_rows() needs a transaction.")
    return locked
