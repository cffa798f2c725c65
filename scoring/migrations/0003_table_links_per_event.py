"""Table links belong to the event, not to a stage: one card per table for the whole event.

Existing links take their stage's event. Where several stages had a live link for the same table number, the
newest one stays live and the older ones are marked revoked (never deleted: whoever holds an old card is told
it was replaced)."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


def links_to_events(apps, schema_editor):
    TableLink = apps.get_model("scoring", "TableLink")
    now = timezone.now()
    kept = set()
    # Newest first: the first live link met for an (event, table) stays live.
    for link in TableLink.objects.select_related("stage").order_by("-created_at", "-pk").iterator():
        link.event_id = link.stage.event_id
        fields = ["event"]
        if link.revoked_at is None:
            if (link.event_id, link.table_number) in kept:
                link.revoked_at = now
                fields.append("revoked_at")
            else:
                kept.add((link.event_id, link.table_number))
        link.save(update_fields=fields)


def events_to_links(apps, schema_editor):
    """Going back: each link returns to its event's first stage (the stage a link was made for is gone)."""
    TableLink = apps.get_model("scoring", "TableLink")
    Stage = apps.get_model("tournament", "Stage")
    for link in TableLink.objects.iterator():
        link.stage = Stage.objects.filter(event_id=link.event_id).order_by("number").first()
        link.save(update_fields=["stage"])


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0002_word_turns"),
        ("tournament", "0011_pending_import"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="tablelink", name="one_live_link_per_table"),
        migrations.AddField(
            model_name="tablelink",
            name="event",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="table_links", to="tournament.event"),
        ),
        migrations.AlterField(
            model_name="tablelink",
            name="stage",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="table_links", to="tournament.stage"),
        ),
        migrations.RunPython(links_to_events, events_to_links),
        migrations.AlterModelOptions(name="tablelink", options={"ordering": ["event", "table_number"]}),
        migrations.RemoveField(model_name="tablelink", name="stage"),
        migrations.AlterField(
            model_name="tablelink",
            name="event",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="table_links",
                                    to="tournament.event"),
        ),
        migrations.AddConstraint(
            model_name="tablelink",
            constraint=models.UniqueConstraint(condition=Q(revoked_at__isnull=True), fields=("event", "table_number"),
                                               name="one_live_link_per_event_table"),
        ),
    ]
