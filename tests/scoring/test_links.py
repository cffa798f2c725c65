"""Private table links, referee assignments and paper score sheets: the services and the
organiser's pages, with real objects."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from scoring.models import RefereeAssignment, ScoreSheet, TableLink
from scoring.services import links
from scoring.services.access import table_by_link
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_festival, make_staff, ready_event, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import AuditEntry, Event
from tournament.services import ServiceError, seating
from tournament.services import draws as draw_services
from tournament.services.audit import Actor

pytestmark = [pytest.mark.django_db, pytest.mark.stage_of(players=16)]  # 4 tables
ACTOR = Actor(label="test")


def url(name, stage, **extra):
    return reverse(name, kwargs={"festival": stage.event.festival.slug, "event": stage.event.slug,
                                 "stage": stage.number, **extra})


def entry_page(token):
    return reverse("referee-link-table", kwargs={"token": token})


# --- services -------------------------------------------------------------------------------------------

def test_ensure_links_makes_one_live_link_per_table_and_is_safe_to_repeat(stage):
    made = links.ensure_links(stage=stage, actor=ACTOR)
    assert [link.table_number for link in made] == [1, 2, 3, 4]
    assert len({link.token for link in made}) == 4 and all(len(link.token) >= 32 for link in made)
    again = links.ensure_links(stage=stage, actor=ACTOR)
    assert [link.token for link in again] == [link.token for link in made]
    assert TableLink.objects.filter(stage=stage).count() == 4
    assert AuditEntry.objects.filter(action="link.created").count() == 1  # nothing new the second time


def test_tokens_never_reach_the_audit_log(stage):
    made = links.ensure_links(stage=stage, actor=ACTOR)
    new = links.revoke_link(link=made[0], actor=ACTOR)
    logged = " ".join(str((e.before, e.after, e.reason)) for e in AuditEntry.objects.all())
    for token in [link.token for link in made] + [new.token]:
        assert token not in logged


def test_hong_kong_links_hold_for_every_game_of_the_stage(stage):
    hk = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    made = links.ensure_links(stage=hk, actor=ACTOR)
    assert [link.table_number for link in made] == [1, 2]
    access = table_by_link(made[1].token)
    assert access.stage == hk and access.table_number == 2


def test_no_links_before_the_stage_is_released_or_after_it_is_closed():
    event = ready_event(8)
    stage = draw_services.start_event(event=event, actor=ACTOR)
    draw_services.draft_draw(stage=stage, actor=ACTOR, seed=1)
    with pytest.raises(ServiceError) as refused:
        links.ensure_links(stage=stage, actor=ACTOR)
    assert refused.value.code == "not_released"
    stage.closed_at = timezone.now()
    stage.save()
    with pytest.raises(ServiceError) as refused:
        links.ensure_links(stage=stage, actor=ACTOR)
    assert refused.value.code == "closed"
    assert not TableLink.objects.exists()


def test_a_revoked_link_stops_working_and_its_replacement_works(client, stage):
    old = links.ensure_links(stage=stage, actor=ACTOR)[1]
    assert client.get(entry_page(old.token)).status_code == 200
    new = links.revoke_link(link=old, actor=ACTOR)
    assert (new.table_number, new.stage) == (2, stage) and new.token != old.token
    assert table_by_link(old.token) is None
    assert client.get(entry_page(old.token)).status_code == 404  # same answer as an unknown token
    assert client.get(entry_page("x" * 32)).status_code == 404
    assert table_by_link(new.token).table_number == 2
    assert client.get(entry_page(new.token)).status_code == 200
    with pytest.raises(ServiceError):
        links.revoke_link(link=old, actor=ACTOR)
    assert TableLink.objects.filter(stage=stage, table_number=2, revoked_at__isnull=True).count() == 1


def test_links_are_useless_once_the_stage_is_closed(client, stage):
    link = links.ensure_links(stage=stage, actor=ACTOR)[0]
    stage.closed_at = timezone.now()
    stage.save()
    assert table_by_link(link.token) is None
    assert client.get(entry_page(link.token)).status_code == 404
    with pytest.raises(ServiceError) as refused:
        links.revoke_link(link=link, actor=ACTOR)
    assert refused.value.code == "closed"


def test_only_referees_of_the_festival_are_assigned_to_real_tables(stage):
    festival = stage.event.festival
    referee = make_staff(festival, "referee")
    assignment = links.assign_referee(stage=stage, table_number=3, user=referee, actor=ACTOR)
    assert (assignment.table_number, assignment.referee) == (3, referee)
    refusals = [
        dict(table_number=3, user=referee),  # already assigned
        dict(table_number=9, user=make_staff(festival, "referee")),  # no such table
        dict(table_number=1, user=make_staff(festival, "desk")),
        dict(table_number=1, user=make_staff(make_festival(), "referee")),  # another festival's referee
        dict(table_number=1, user=None),
    ]
    for refusal in refusals:
        with pytest.raises(ServiceError):
            links.assign_referee(stage=stage, actor=ACTOR, **refusal)
    assert RefereeAssignment.objects.count() == 1
    links.unassign_referee(stage=stage, table_number=3, user=referee, actor=ACTOR)
    assert not RefereeAssignment.objects.exists()
    with pytest.raises(ServiceError):
        links.unassign_referee(stage=stage, table_number=3, user=referee, actor=ACTOR)
    assert [e.action for e in AuditEntry.objects.filter(action__startswith="referee.").order_by("id")] == [
        "referee.assigned", "referee.unassigned"]


# --- the organiser's pages ------------------------------------------------------------------------------------

def test_links_page_offers_to_make_the_links_then_shows_each_tables_link_and_qr(client, stage, organiser):
    client.force_login(organiser)
    html = client.get(url("board-links", stage)).content.decode()
    assert url("board-links-make", stage) in html and "<svg" not in html
    response = client.post(url("board-links-make", stage))
    assert response.status_code == 302 and response.url == url("board-links", stage)
    html = client.get(url("board-links", stage)).content.decode()
    for link in TableLink.objects.filter(stage=stage):
        assert entry_page(link.token) in html
    assert html.count("<svg") == 4 and url("board-links-make", stage) not in html


def test_revoke_on_the_page_replaces_the_link(client, stage, organiser):
    old = links.ensure_links(stage=stage, actor=ACTOR)[0]
    client.force_login(organiser)
    client.post(url("board-links-revoke", stage), {"link": old.pk})
    old.refresh_from_db()
    assert old.revoked_at is not None and table_by_link(old.token) is None
    html = client.get(url("board-links", stage)).content.decode()
    assert old.token not in html
    assert TableLink.objects.get(stage=stage, table_number=1, revoked_at__isnull=True).token in html


def test_a_link_of_another_event_cannot_be_revoked_here(client, stage, organiser):
    other = released_stage(8)
    foreign = links.ensure_links(stage=other, actor=ACTOR)[0]
    client.force_login(organiser)
    assert client.post(url("board-links-revoke", stage), {"link": foreign.pk}).status_code == 404
    foreign.refresh_from_db()
    assert foreign.revoked_at is None


def test_assign_and_unassign_a_referee_on_the_page(client, stage, organiser):
    referee = make_staff(stage.event.festival, "referee", username="ref-kim")
    client.force_login(organiser)
    html = client.get(url("board-links", stage)).content.decode()
    assert f'value="{referee.pk}">ref-kim<' in html
    client.post(url("board-links-assign", stage), {"table": 2, "referee": referee.pk})
    assert RefereeAssignment.objects.filter(stage=stage, table_number=2, referee=referee).exists()
    html = client.get(url("board-links", stage)).content.decode()
    assert 'data-referee="ref-kim"' in html
    client.post(url("board-links-unassign", stage), {"table": 2, "referee": referee.pk})
    assert not RefereeAssignment.objects.exists()


def test_bad_input_on_the_links_page_changes_nothing_and_never_errors(client, stage, organiser):
    desk = make_staff(stage.event.festival, "desk")
    links.ensure_links(stage=stage, actor=ACTOR)
    client.force_login(organiser)
    hostile = [{}, {"table": "abc", "referee": "1e309"}, {"table": 99999999999999999999, "referee": desk.pk},
               {"table": 1, "referee": desk.pk}, {"table": 77, "referee": organiser.pk}, {"link": "\x00"},
               {"link": -1}, {"link": 2**70}]
    for data in hostile:
        for name in ("board-links-assign", "board-links-unassign", "board-links-revoke"):
            response = client.post(url(name, stage), data, follow=True)
            assert response.status_code in (200, 404), (name, data)
    assert not RefereeAssignment.objects.exists()
    assert not TableLink.objects.filter(revoked_at__isnull=False).exists()
    response = client.post(url("board-links-assign", stage), {"table": 1, "referee": desk.pk}, follow=True)
    assert "Only a referee of this festival" in response.content.decode()


def test_closed_stage_links_page_shows_no_link(client, stage, organiser):
    link = links.ensure_links(stage=stage, actor=ACTOR)[0]
    stage.closed_at = timezone.now()
    stage.save()
    client.force_login(organiser)
    html = client.get(url("board-links", stage)).content.decode()
    assert link.token not in html and "no longer work" in html
    assert link.token not in client.get(url("board-print", stage)).content.decode()


def links_page_queries(client, django_assert_max_num_queries, stage):
    organiser = make_staff(stage.event.festival, "organiser")
    referee = make_staff(stage.event.festival, "referee")
    links.ensure_links(stage=stage, actor=ACTOR)
    links.assign_referee(stage=stage, table_number=1, user=referee, actor=ACTOR)
    client.force_login(organiser)
    for name in ("board-links", "board-print"):
        with django_assert_max_num_queries(12):
            assert client.get(url(name, stage)).status_code == 200


def test_links_and_print_pages_query_count_with_4_tables(client, django_assert_max_num_queries):
    links_page_queries(client, django_assert_max_num_queries, released_stage(16))


def test_links_and_print_pages_query_count_with_128_tables_is_the_same(client, django_assert_max_num_queries):
    stage = released_stage(512, capacity=512)
    assert seating.game_draw(stage, 1).tables.count() == 128
    links_page_queries(client, django_assert_max_num_queries, stage)


# --- paper score sheets ------------------------------------------------------------------------------------

def test_paper_sheet_has_the_hong_kong_layout_with_names_games_signature_and_entry_qr(client, stage, organiser):
    made = links.ensure_links(stage=stage, actor=ACTOR)
    referee = make_staff(stage.event.festival, "referee", username="ref-lee")
    links.assign_referee(stage=stage, table_number=2, user=referee, actor=ACTOR)
    client.force_login(organiser)
    html = client.get(url("board-print", stage)).content.decode()
    assert html.count('class="score-sheet"') == 4 and "scoresheet.css" in html
    for seat in seating.game_draw(stage, 1).seats.select_related("registration__player"):
        assert seat.registration.player.name in html
    assert "Game 1" in html and "Game 3" in html and "Game 4" not in html
    assert "Chief referee&#x27;s signature" in html or "Chief referee's signature" in html
    assert "ref-lee" in html and html.count("<svg") == 4
    for link in made:
        assert entry_page(link.token) not in html  # the QR code carries the link; its text is not printed
    one = client.get(url("board-print", stage), {"table": 2}).content.decode()
    assert one.count('class="score-sheet"') == 1 and 'data-table="2"' in one
    assert client.get(url("board-print", stage), {"table": "🙂"}).status_code == 200


def test_hong_kong_paper_sheet_fills_in_each_seated_games_names():
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = make_staff(stage.event.festival, "chief referee")
    for table in (1, 2):
        sheet = submit_sheet(stage=stage, game=1, table_number=table,
                             entry=entry_for(stage, 1, table, [0, 3, 9, 12]), accept_warnings=True,
                             idempotency_key=key(), actor=ACTOR, via="link")
        confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    assert seating.game_draw(stage, 2) is not None  # everyone moved
    from django.test import Client

    client = Client()
    client.force_login(make_staff(stage.event.festival, "organiser"))
    html = client.get(url("board-print", stage)).content.decode()
    game2 = {s.registration.player.name for s in seating.game_draw(stage, 2).seats.select_related("registration__player")
             .filter(table__number=1)}
    table1 = html.split('data-table="1"')[1].split('data-table="2"')[0]
    assert all(name in table1 for name in game2)
    assert ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED).count() == 2


# --- admin -------------------------------------------------------------------------------------------------

def test_admin_is_read_only_and_never_shows_link_tokens(client, stage):
    link = links.ensure_links(stage=stage, actor=ACTOR)[0]
    admin = User.objects.create_superuser("root", "root@example.org", "pw-for-tests-only")
    client.force_login(admin)
    listing = client.get(reverse("admin:scoring_tablelink_changelist"))
    assert listing.status_code == 200 and link.token not in listing.content.decode()
    detail = client.get(reverse("admin:scoring_tablelink_change", args=[link.pk]))
    assert detail.status_code == 200 and link.token not in detail.content.decode()
    assert client.get(reverse("admin:scoring_scoresheet_changelist")).status_code == 200
    assert client.get(reverse("admin:scoring_tablelink_add")).status_code == 403
    assert client.post(reverse("admin:scoring_tablelink_delete", args=[link.pk]), {"post": "yes"}).status_code == 403
    assert TableLink.objects.filter(pk=link.pk).exists()
