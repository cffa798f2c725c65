"""Private table links and referee assignments: who may enter a table's sheets.

A table link is the long random token printed on the table card and the paper score sheet. It belongs to the
event and a table number, not to a stage: it opens the table of that number in the event's current stage
(`seating.current_stage`), so the card printed before round 1 still opens the table in the final (Hong Kong
keeps its table numbers from game to game, R8.2). It stops working only when it is revoked and replaced.
Referees with an account open the tables they are assigned to, stage by stage.
Tokens never go into the audit log: the log names the table, not the secret.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournament.models import Event, Stage
from tournament.permissions import REFEREE, has_role
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event
from tournament.services.seating import event_table_numbers, stage_table_numbers

from ..models import RefereeAssignment, TableLink

CONTACT_GRAIN = timedelta(seconds=30)


def heard_from(*, link: TableLink, now=None) -> None:
    """The table's phone asked for a page: note the time, at most once per CONTACT_GRAIN (the link as loaded
    says whether it is due, so most requests write nothing). Not an event change: no event lock and no audit
    record, which every page view of every table would otherwise fill."""
    now = now or timezone.now()
    if link.last_contact_at is not None and link.last_contact_at > now - CONTACT_GRAIN:
        return
    (TableLink.objects.filter(pk=link.pk).exclude(last_contact_at__gt=now - CONTACT_GRAIN)
     .update(last_contact_at=now))


def live_links(event: Event) -> dict[int, TableLink]:
    """The event's live link of each table number, in one query."""
    return {link.table_number: link for link in TableLink.objects.filter(event=event, revoked_at__isnull=True)}


def _open_stage(stage: Stage) -> Stage:
    lock_event(stage.event_id)
    stage = Stage.objects.select_related("event__festival").get(pk=stage.pk)
    if stage.closed_at:
        raise ServiceError(_("This stage is closed; its referees can no longer be changed."), code="closed")
    return stage


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


def _check_table(stage: Stage, table_number: int) -> None:
    if table_number not in stage_table_numbers(stage):
        raise ServiceError(_("There is no such table in this stage."), code="no_table")


def assign_referee(*, stage: Stage, table_number: int, user, actor: Actor) -> RefereeAssignment:
    with transaction.atomic():
        stage = _open_stage(stage)
        _check_table(stage, table_number)
        user = get_user_model().objects.filter(pk=getattr(user, "pk", None)).first()
        if user is None or not user.is_active or not has_role(user, stage.event.festival, REFEREE):
            raise ServiceError(_("Only a referee of this festival can be assigned to a table."), code="not_referee")
        assignment, created = RefereeAssignment.objects.get_or_create(
            stage=stage, table_number=table_number, referee=user
        )
        if not created:
            raise ServiceError(_("This referee is already assigned to this table."), code="assigned")
        record(actor=actor, action="referee.assigned", target=stage, event=stage.event,
               after={"table": table_number, "referee": user.get_username()})
    return assignment


def unassign_referee(*, stage: Stage, table_number: int, user, actor: Actor) -> None:
    with transaction.atomic():
        lock_event(stage.event_id)
        assignment = (RefereeAssignment.objects.select_related("referee")
                      .filter(stage=stage, table_number=table_number, referee_id=getattr(user, "pk", None)).first())
        if assignment is None:
            raise ServiceError(_("This referee is not assigned to this table."), code="not_assigned")
        username = assignment.referee.get_username()
        assignment.delete()
        record(actor=actor, action="referee.unassigned", target=stage, event=stage.event,
               before={"table": table_number, "referee": username})
