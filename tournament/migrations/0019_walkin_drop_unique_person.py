from django.db import migrations


class Migration(migrations.Migration):
    """Two people may share a name and a contact (or both have none): a walk-in the desk records as a new person."""

    dependencies = [
        ("tournament", "0018_staff_invitation"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="player", name="player_unique_person"),
    ]
