"""The chief referee's decision to keep a player on after a third warning becomes a conduct record (it was read
back from the audit log). The audit entries stay; each one gets its record, at the same moment."""

from django.db import migrations, models

KEPT_ACTION = "conduct.kept"


def audit_to_records(apps, schema_editor):
    AuditEntry = apps.get_model("tournament", "AuditEntry")
    ConductRecord = apps.get_model("tournament", "ConductRecord")
    Registration = apps.get_model("tournament", "Registration")
    for entry in AuditEntry.objects.filter(action=KEPT_ACTION, event__isnull=False).order_by("at", "id"):
        if not Registration.objects.filter(pk=entry.target_id, event_id=entry.event_id).exists():
            continue
        record = ConductRecord.objects.create(event_id=entry.event_id, registration_id=entry.target_id, kind="kept",
                                              note=entry.reason, created_by_id=entry.actor_id)
        ConductRecord.objects.filter(pk=record.pk).update(created_at=entry.at)


def records_to_nothing(apps, schema_editor):
    apps.get_model("tournament", "ConductRecord").objects.filter(kind="kept").delete()


class Migration(migrations.Migration):
    dependencies = [("tournament", "0009_drop_text_settings")]

    operations = [
        migrations.AlterField(
            model_name="conductrecord",
            name="kind",
            field=models.CharField(
                choices=[("warning", "Warning"), ("disqualified", "Disqualified"),
                         ("withdrew", "Withdrew during the event"), ("forfeit", "Forfeit (did not finish)"),
                         ("kept", "Keeps playing after a third warning")],
                max_length=15, verbose_name="kind"),
        ),
        migrations.RunPython(audit_to_records, records_to_nothing),
    ]
