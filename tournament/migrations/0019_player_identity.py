"""A person is no longer one row by name and contact: the public form always makes a new player (so it answers
alike whether or not someone with those details exists), and the organiser and the desk see possible duplicates.
Contact keys are recomputed with the phone-number rules (phonenumbers, the festival's country)."""

from django.db import migrations, models

# The rules as they are now: this migration exists to apply them to keys stored under the older ones.
from tournament.models.festival import PHONE_REGIONS
from tournament.models.registration import contact_key


def recompute_contact_keys(apps, schema_editor):
    Player = apps.get_model("tournament", "Player")
    changed = []
    # An erased player (no contact) keeps the key that is derived from nothing personal.
    players = Player.objects.exclude(contact="").select_related("festival").only(
        "pk", "contact", "contact_key", "festival__timezone")
    for player in players.iterator(chunk_size=1000):
        key = contact_key(player.contact, PHONE_REGIONS.get(player.festival.timezone))
        if key != player.contact_key:
            player.contact_key = key
            changed.append(player)
    Player.objects.bulk_update(changed, ["contact_key"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0018_staff_invitation'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='player',
            name='player_unique_person',
        ),
        migrations.AddIndex(
            model_name='player',
            index=models.Index(fields=['festival', 'name_key', 'contact_key'], name='player_same_person'),
        ),
        migrations.RunPython(recompute_contact_keys, migrations.RunPython.noop),
    ]
