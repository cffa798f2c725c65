"""The migration that moves table links from a stage to the event keeps every link and one live card per table."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.factories import released_stage

BEFORE = [("scoring", "0002_word_turns")]
AFTER = [("scoring", "0003_table_links_per_event")]


@pytest.mark.django_db(transaction=True)
def test_links_move_to_their_event_and_the_newest_live_link_of_each_table_stays_live():
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        old = executor.loader.project_state(BEFORE).apps
        OldLink, OldStage = old.get_model("scoring", "TableLink"), old.get_model("tournament", "Stage")
        first = released_stage(16)  # built with today's models; the stage tables are the same before and after
        event = first.event
        second = OldStage.objects.create(event_id=event.pk, number=2, name="Round 2", games=3, advance="table",
                                         advance_count=4)
        earlier, later = timezone.now() - dt.timedelta(hours=2), timezone.now() - dt.timedelta(hours=1)
        lost = timezone.now() - dt.timedelta(hours=3)
        round1 = {n: OldLink.objects.create(stage_id=first.pk, table_number=n) for n in (1, 2, 3, 4)}
        replaced = OldLink.objects.create(stage_id=first.pk, table_number=1, revoked_at=lost)
        round2 = {n: OldLink.objects.create(stage_id=second.pk, table_number=n) for n in (1, 2)}
        OldLink.objects.filter(pk__in=[link.pk for link in round1.values()]).update(created_at=earlier)
        OldLink.objects.filter(pk__in=[link.pk for link in round2.values()]).update(created_at=later)
        other = released_stage(4)
        elsewhere = OldLink.objects.create(stage_id=other.pk, table_number=1)

        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        TableLink = executor.loader.project_state(AFTER).apps.get_model("scoring", "TableLink")  # noqa: N806

        assert TableLink.objects.count() == 8  # nothing deleted
        assert set(TableLink.objects.values_list("event", flat=True)) == {event.pk, other.event.pk}
        live = {link.table_number: link.pk for link in TableLink.objects.filter(event_id=event.pk, revoked_at__isnull=True)}
        assert live == {1: round2[1].pk, 2: round2[2].pk, 3: round1[3].pk, 4: round1[4].pk}
        revoked = TableLink.objects.filter(event_id=event.pk, revoked_at__isnull=False)
        assert set(revoked.values_list("pk", flat=True)) == {round1[1].pk, round1[2].pk, replaced.pk}
        assert TableLink.objects.get(pk=replaced.pk).revoked_at == lost  # an earlier revocation keeps its time
        assert TableLink.objects.get(pk=elsewhere.pk).revoked_at is None
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
