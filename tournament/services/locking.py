"""The one locking rule: every service that changes an event takes that event's lock first.

Inside its transaction, before it reads anything it decides on, a service calls `lock_event` — registrations,
check-in, numbers, draws, sheets, lots, stages, results, conduct, table links alike. One lock per event means
two changes to one event never interleave and never deadlock each other, whatever rows they touch next.

The one shared use is a table's own score sheet: a whole hall of referees submits at once, so `submit_sheet`
takes the lock shared — submissions do not wait for one another, but each waits for an exclusive change in
progress (a draw taken back, a stage closed, a sheet confirmed) and such a change waits for them.

Rows are locked with `select_for_update(of=("self",))`, never as a side effect of `select_related`.
SQLite has no row locks; it admits one writer at a time to the whole database, which keeps the same order.
"""

from django.db import connection
from django.db.transaction import TransactionManagementError

from ..models import Event, Festival


def lock_event(event: Event | int, *, shared: bool = False) -> Event:
    """The event, freshly read and locked until the end of the current transaction (with its festival)."""
    if not connection.in_atomic_block:
        raise TransactionManagementError("lock_event() holds its lock until the end of a transaction; open one.")
    pk = event if isinstance(event, int) else event.pk
    if shared:
        if connection.features.has_select_for_update:
            with connection.cursor() as cursor:  # Django has no FOR SHARE; the lock is all this query is for
                cursor.execute(f"SELECT 1 FROM {Event._meta.db_table} WHERE id = %s FOR SHARE", [pk])
        return Event.objects.select_related("festival").get(pk=pk)
    return Event.objects.select_for_update(of=("self",)).select_related("festival").get(pk=pk)


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
