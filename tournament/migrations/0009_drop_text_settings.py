"""The text columns of the list settings, copied by 0008, go."""

from django.db import migrations

TEXT_COLUMNS = [("festival", "languages"), ("event", "stage_games"), ("event", "ranking_points"),
                ("event", "tiebreaks")]


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0008_typed_settings_data'),
    ]

    operations = [
        migrations.RemoveField(model_name=model, name=f"{name}_text") for model, name in TEXT_COLUMNS
    ]
