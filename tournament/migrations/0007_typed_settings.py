"""The list settings become JSON lists. The text columns are kept under a new name until 0008 has copied them
(0009 drops them), so the copy can be undone."""

from django.db import migrations

import tournament.models.festival
import tournament.models.fields

TEXT_COLUMNS = [("festival", "languages"), ("event", "stage_games"), ("event", "ranking_points"),
                ("event", "tiebreaks")]


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0006_conduct_request_key'),
    ]

    operations = [
        *[migrations.RenameField(model_name=model, old_name=name, new_name=f"{name}_text")
          for model, name in TEXT_COLUMNS],
        migrations.AddField(
            model_name='event',
            name='ranking_points',
            field=tournament.models.fields.ListField(blank=True, default=list, help_text='Comma-separated points for places 1, 2, 3 …, e.g. 100,70,50,40.', max_length=400, validators=[tournament.models.fields.ListValidator('Write whole numbers from 0 to 100000, comma-separated, e.g. 100,70,50.', high=100000, low=0)], verbose_name='ranking points per place'),
        ),
        migrations.AddField(
            model_name='event',
            name='stage_games',
            field=tournament.models.fields.ListField(default=tournament.models.festival.default_stage_games, help_text='Busan format: games in each preliminary round, comma-separated (e.g. 3,3,3).', max_length=40, validators=[tournament.models.fields.ListValidator('Write the games of each round as whole numbers from 1 to 9, e.g. 3,3,3.', high=9, least=1, low=1)], verbose_name='games per round'),
        ),
        migrations.AddField(
            model_name='event',
            name='tiebreaks',
            field=tournament.models.fields.ListField(blank=True, default=list, help_text='Comma-separated, in order, from: wins, points, average, lot, playoff. Empty: wins, then points as the rules say.', max_length=80, validators=[tournament.models.fields.ListValidator('Use only: wins, points, average, lot, playoff.', choices=tournament.models.festival.tiebreak_criteria)], verbose_name='standings order'),
        ),
        migrations.AddField(
            model_name='festival',
            name='languages',
            field=tournament.models.fields.ListField(default=tournament.models.festival.default_languages, help_text='Comma-separated language codes.', max_length=40, validators=[tournament.models.fields.ListValidator('Use only these language codes: %(codes)s.', choices=tournament.models.festival.language_codes, least=1)], verbose_name='languages'),
        ),
    ]
