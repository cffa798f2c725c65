"""The migration that makes a referee's assignment last the whole event keeps every row: the newest round's
referee of each table holds it now, the others are ended (history), and the audit log says what was done."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.factories import make_staff, released_stage

BEFORE = [("scoring", "0004_table_link_last_contact")]
AFTER = [("scoring", "0005_referee_assignment_per_event")]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_each_table_keeps_the_referee_of_its_newest_round_and_nothing_is_lost():
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps
        OldAssignment, OldStage = old.get_model("scoring", "RefereeAssignment"), old.get_model("tournament", "Stage")  # noqa: N806
        first = released_stage(16)  # built with today's models; the stage tables are the same before and after
        event = first.event
        kim, lee, park = (make_staff(event.festival, "referee", username=name) for name in ("kim", "lee", "park"))
        closed = timezone.now() - dt.timedelta(hours=1)
        OldStage.objects.filter(pk=first.pk).update(closed_at=closed)
        second = OldStage.objects.create(event_id=event.pk, number=2, name="Round 2", games=3, advance="table",
                                         advance_count=4)

        def assign(stage, table, user):
            return OldAssignment.objects.create(stage_id=stage.pk, table_number=table, referee_id=user.pk).pk

        round1 = {table: assign(first, table, user) for table, user in ((1, kim), (2, kim), (3, lee), (4, park))}
        round2 = {1: assign(second, 1, lee), 2: assign(second, 2, kim)}
        shared = assign(second, 2, park)  # the old pages let two referees share a table: the later one keeps it
        other = released_stage(4)
        elsewhere = assign(other, 1, make_staff(other.event.festival, "referee", username="choi"))

        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        new = executor.loader.project_state(AFTER).apps
        Assignment, AuditEntry = new.get_model("scoring", "RefereeAssignment"), new.get_model("tournament", "AuditEntry")  # noqa: N806

        assert Assignment.objects.count() == 8  # nothing deleted
        assert all(row.event_id == row.stage.event_id for row in Assignment.objects.select_related("stage"))
        current = dict(Assignment.objects.filter(event_id=event.pk, ended_at__isnull=True)
                       .values_list("table_number", "pk"))
        assert current == {1: round2[1], 2: shared, 3: round1[3], 4: round1[4]}
        ended = {row.pk: row.ended_at for row in Assignment.objects.filter(ended_at__isnull=False)}
        assert set(ended) == {round1[1], round1[2], round2[2]}
        assert ended[round1[1]] == ended[round1[2]] == closed  # ended when their round closed
        assert ended[round2[2]] > closed  # its round is still open: ended by the migration
        assert Assignment.objects.get(pk=elsewhere).ended_at is None

        log = {entry.event_id: entry for entry in AuditEntry.objects.filter(action="referee.assigned")}
        assert set(log) == {event.pk, other.event.pk}
        assert log[event.pk].after == {"tables": {"1": "lee", "2": "park", "3": "lee", "4": "park"}}
        assert log[event.pk].actor_label == "migration" and "last the whole event" in log[event.pk].reason

        executor = MigrationExecutor(connection)
        executor.migrate(BEFORE)  # and back: every row returns to the stage it was given for
        back = executor.loader.project_state(BEFORE).apps.get_model("scoring", "RefereeAssignment")
        assert back.objects.count() == 8
        assert back.objects.get(pk=shared).stage_id == second.pk
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
