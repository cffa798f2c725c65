"""Who may open a table's score sheets: the private link, or a signed-in referee."""

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from scoring.models import RefereeAssignment, TableLink
from scoring.services.access import (
    LinkRefusal,
    TableAccess,
    may_referee,
    table_by_link,
    table_for_user,
    table_stage,
)
from tests.factories import make_festival, make_staff

pytestmark = pytest.mark.django_db


def test_a_live_link_opens_its_own_table_and_acts_as_the_link(stage):
    link = TableLink.objects.create(event=stage.event, table_number=2)
    access = table_by_link(link.token)
    assert (access.stage, access.table_number) == (stage, 2)
    assert access.actor.user is None
    assert access.via == str(access.actor) == "table 2 link"
    assert access.table_url().endswith(f"/t/{link.token}/")


def test_a_signed_in_person_using_a_link_is_recorded_as_themselves(stage):
    link = TableLink.objects.create(event=stage.event, table_number=1)
    chief = make_staff(stage.event.festival, "chief referee")
    access = table_by_link(link.token, chief)
    assert access.actor.user == chief
    assert access.via == "table 1 link"


@pytest.mark.parametrize("token", ["", "short", "x" * 65, "abc$defghijklmnopq", "a b c d e f g h i j", "\x00" * 20,
                                   "../../../../etc/passwd", "' OR 1=1 --aaaaaaaa"])
def test_malformed_tokens_open_nothing(stage, token):
    TableLink.objects.create(event=stage.event, table_number=1)
    assert table_by_link(token) == LinkRefusal(LinkRefusal.UNKNOWN)  # no more than an unknown token


def test_unknown_revoked_and_closed_stage_links_open_nothing(stage):
    revoked = TableLink.objects.create(event=stage.event, table_number=1, revoked_at=timezone.now())
    live = TableLink.objects.create(event=stage.event, table_number=2)
    assert table_by_link("A" * 32) == LinkRefusal(LinkRefusal.UNKNOWN)
    assert table_by_link(revoked.token).reason == LinkRefusal.REVOKED
    assert isinstance(table_by_link(live.token), TableAccess)
    stage.closed_at = timezone.now()
    stage.save()
    assert table_by_link(live.token).reason == LinkRefusal.FINISHED  # the only stage is closed
    assert table_by_link(revoked.token).reason == LinkRefusal.REVOKED


def test_a_link_before_any_release_has_no_game_yet(stage):
    from tournament.models import Draw

    link = TableLink.objects.create(event=stage.event, table_number=1)
    Draw.objects.filter(stage=stage).update(status=Draw.Status.DRAFT)
    assert table_by_link(link.token).reason == LinkRefusal.NO_GAME


def test_assigned_referee_may_open_only_their_table(stage):
    referee = make_staff(stage.event.festival, "referee")
    RefereeAssignment.objects.create(event=stage.event, table_number=1, referee=referee)
    assert may_referee(referee, stage, 1)
    assert not may_referee(referee, stage, 2)
    access = table_for_user(referee, stage, 1)
    assert access.actor.user == referee and access.via == referee.username
    assert access.table_url() == f"/referee/{stage.pk}/1/"


def test_chief_referee_and_organiser_of_the_festival_may_open_any_table(stage):
    for role in ("chief referee", "organiser"):
        assert may_referee(make_staff(stage.event.festival, role), stage, 2)


def test_staff_of_another_festival_and_unassigned_referees_may_not(stage):
    assert not may_referee(make_staff(make_festival(), "organiser"), stage, 1)
    assert not may_referee(make_staff(make_festival(), "chief referee"), stage, 1)
    assert not may_referee(make_staff(stage.event.festival, "referee"), stage, 1)
    assert not may_referee(make_staff(stage.event.festival, "desk"), stage, 1)
    assert not may_referee(User.objects.create_user("nobody"), stage, 1)
    assert table_for_user(User.objects.create_user("other"), stage, 1) is None


def test_stage_lookup_refuses_nonsense_numbers(stage):
    assert table_stage(stage.pk, 1) == stage
    assert table_stage(stage.pk, 0) is None
    assert table_stage(stage.pk, 10**6) is None
    assert table_stage(2**40, 1) is None
    assert table_stage(stage.pk + 1000, 1) is None
