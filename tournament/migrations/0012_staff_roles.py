import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


ROLES = ("organiser", "chief referee", "referee", "desk")


def roles_from_groups(apps, schema_editor):
    """A role used to be a site-wide group counted at the festivals whose staff list held the user; it is now
    held per festival. Organisers keep the right to create festivals."""
    Festival = apps.get_model("tournament", "Festival")
    StaffRole = apps.get_model("tournament", "StaffRole")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    rows = []
    organisers = set()
    for festival in Festival.objects.prefetch_related("staff__groups"):
        for user in festival.staff.all():
            for group in user.groups.all():
                if group.name in ROLES:
                    rows.append(StaffRole(festival=festival, user=user, role=group.name))
                    if group.name == "organiser":
                        organisers.add(user)
    StaffRole.objects.bulk_create(rows, ignore_conflicts=True)
    if organisers:
        content_type, _ = ContentType.objects.get_or_create(app_label="tournament", model="festival")
        permission, _ = Permission.objects.get_or_create(
            content_type=content_type, codename="organise_festivals", defaults={"name": "May organise festivals"})
        for user in organisers:
            user.user_permissions.add(permission)


def groups_from_roles(apps, schema_editor):
    StaffRole = apps.get_model("tournament", "StaffRole")
    Group = apps.get_model("auth", "Group")
    for row in StaffRole.objects.select_related("user", "festival"):
        row.festival.staff.add(row.user)
        row.user.groups.add(Group.objects.get_or_create(name=row.role)[0])


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('tournament', '0011_pending_import'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='StaffRole',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('role', models.CharField(choices=[('organiser', 'organiser'), ('chief referee', 'chief referee'), ('referee', 'referee'), ('desk', 'desk')], max_length=20, verbose_name='role')),
                ('added_at', models.DateTimeField(auto_now_add=True)),
                ('festival', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='staff_roles', to='tournament.festival', verbose_name='festival')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='staff_roles', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'staff role',
                'verbose_name_plural': 'staff roles',
                'ordering': ['festival', 'user', 'role'],
                'constraints': [models.UniqueConstraint(fields=('festival', 'user', 'role'), name='staff_role_unique')],
            },
        ),
        migrations.RunPython(roles_from_groups, groups_from_roles),
        migrations.RemoveField(
            model_name='festival',
            name='staff',
        ),
        migrations.AlterModelOptions(
            name='festival',
            options={'ordering': ['-starts_on', 'name'], 'permissions': [('organise_festivals', 'May organise festivals')], 'verbose_name': 'festival', 'verbose_name_plural': 'festivals'},
        ),
    ]
