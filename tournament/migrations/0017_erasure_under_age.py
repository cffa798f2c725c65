from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0016_personal_data'),
    ]

    operations = [
        migrations.AddField(
            model_name='registration',
            name='under_age',
            field=models.BooleanField(blank=True, editable=False, null=True, verbose_name="under 15 in the event's year"),
        ),
    ]
