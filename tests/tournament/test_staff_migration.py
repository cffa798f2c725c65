"""The move from site-wide role groups to roles per festival keeps every role where it counted."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tournament", "0011_pending_import")]
AFTER = [("tournament", "0012_staff_roles")]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_roles_held_through_groups_become_roles_at_the_festivals_whose_staff_held_them():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User, Group = apps.get_model("auth", "User"), apps.get_model("auth", "Group")
    Festival = apps.get_model("tournament", "Festival")
    day = dt.date(2030, 5, 4)
    mine = Festival.objects.create(slug="mine", name="Mine", starts_on=day, ends_on=day)
    Festival.objects.create(slug="other", name="Other", starts_on=day, ends_on=day)
    boss = User.objects.create(username="boss")
    boss.groups.add(Group.objects.get_or_create(name="organiser")[0], Group.objects.get_or_create(name="desk")[0])
    ref = User.objects.create(username="ref")
    ref.groups.add(Group.objects.get_or_create(name="referee")[0], Group.objects.get_or_create(name="other")[0])
    mine.staff.add(boss, ref)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    StaffRole = apps.get_model("tournament", "StaffRole")
    assert sorted(StaffRole.objects.values_list("festival__slug", "user__username", "role")) == [
        ("mine", "boss", "desk"), ("mine", "boss", "organiser"), ("mine", "ref", "referee")]
    boss = apps.get_model("auth", "User").objects.get(username="boss")
    assert boss.user_permissions.filter(codename="organise_festivals").exists()
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
