"""A referee's assignment is to a table of the event and lasts until it is changed, not one stage.

Existing rows take their stage's event and keep that stage (the history of who held the table in which round).
For each table of an event, the assignment of the newest stage that had one stays current; when that stage gave
the table to several referees, the one assigned last keeps it. Every other row is ended (at its stage's close,
or now when the stage is still open), never deleted. Each event whose assignments were converted gets one audit
record naming who holds which table now."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone

REASON = ("Referees' assignments given per round now last the whole event, until changed: each table keeps the "
          "referee of the newest round that had one.")


def to_events(apps, schema_editor):
    Assignment = apps.get_model("scoring", "RefereeAssignment")
    AuditEntry = apps.get_model("tournament", "AuditEntry")
    now = timezone.now()
    current: dict[tuple[int, int], object] = {}
    events = {}
    # Newest stage first, and within it the newest row: the first met for an (event, table) stays current.
    for row in Assignment.objects.select_related("stage__event", "referee").order_by("-stage__number", "-pk"):
        row.event_id = row.stage.event_id
        events[row.event_id] = row.stage.event
        held = (row.event_id, row.table_number)
        if held in current:
            row.ended_at = row.stage.closed_at or now
        else:
            current[held] = row
        row.save(update_fields=["event", "ended_at"])
    for event_id, event in sorted(events.items()):
        tables = {str(number): row.referee.username
                  for (held_event, number), row in sorted(current.items()) if held_event == event_id}
        AuditEntry.objects.create(actor=None, actor_label="migration", action="referee.assigned",
                                  festival_id=event.festival_id, event_id=event_id, target_type="event",
                                  target_id=event_id, after={"tables": tables}, reason=REASON)


def to_stages(apps, schema_editor):
    """Going back: a row keeps the stage it was given for; a row made since goes to its event's newest stage
    (or is dropped when the event has none, which the old table cannot hold), once per stage, table and referee."""
    Assignment = apps.get_model("scoring", "RefereeAssignment")
    Stage = apps.get_model("tournament", "Stage")
    seen = set()
    for row in Assignment.objects.order_by("-pk"):  # the newest row of a stage, table and referee stays
        if row.stage_id is None:
            stage = Stage.objects.filter(event_id=row.event_id).order_by("-number").first()
            if stage is None:
                row.delete()
                continue
            row.stage_id = stage.pk
            row.save(update_fields=["stage"])
        held = (row.stage_id, row.table_number, row.referee_id)
        if held in seen:
            row.delete()
        else:
            seen.add(held)


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0004_table_link_last_contact"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="refereeassignment", name="assignment_unique"),
        migrations.AddField(
            model_name="refereeassignment",
            name="event",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="referee_assignments", to="tournament.event"),
        ),
        migrations.AddField(
            model_name="refereeassignment",
            name="assigned_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="assigned at"),
        ),
        migrations.AddField(
            model_name="refereeassignment",
            name="ended_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="ended at"),
        ),
        migrations.AddField(
            model_name="refereeassignment",
            name="last_contact_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AlterField(
            model_name="refereeassignment",
            name="stage",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="+", to="tournament.stage"),
        ),
        migrations.RunPython(to_events, to_stages),
        migrations.AlterField(
            model_name="refereeassignment",
            name="event",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="referee_assignments",
                                    to="tournament.event"),
        ),
        migrations.AlterModelOptions(name="refereeassignment", options={"ordering": ["event", "table_number", "-pk"]}),
        migrations.AddConstraint(
            model_name="refereeassignment",
            constraint=models.UniqueConstraint(condition=Q(ended_at__isnull=True), fields=("event", "table_number"),
                                               name="one_referee_per_event_table"),
        ),
    ]
