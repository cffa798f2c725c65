"""Private table links, who referees each table, referee cards and paper score sheets: the services and the
organiser's pages, with real objects. A link belongs to the event: one card per table, all event long."""

import random

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from scoring.models import RefereeAssignment, ScoreSheet, TableLink
from scoring.services import links, progress
from scoring.services.access import LinkRefusal, TableAccess, table_by_link
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_festival, make_staff, ready_event, released_stage
from tests.scoring.helpers import chief_of, entry_for, key, play_game, text
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


def cards_url(event):
    return reverse("board-link-cards", kwargs={"festival": event.festival.slug, "event": event.slug})


def next_round(stage, *, release=True):
    """Play every game of a Busan round, close it, and draw (and release) the next round."""
    chief = chief_of(stage.event)
    rng = random.Random(stage.number)
    for game in range(1, stage.games + 1):
        play_game(stage, game, chief, rng)
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief)
    following = progress.close_stage(stage=stage, actor=chief)
    if release:
        draw_services.release_draw(draw=draw_services.draft_draw(stage=following, actor=chief, seed=9), actor=chief)
    return following


# --- services -------------------------------------------------------------------------------------------

def test_ensure_links_makes_one_live_link_per_table_and_is_safe_to_repeat(stage):
    made = links.ensure_links(event=stage.event, actor=ACTOR)
    assert [link.table_number for link in made] == [1, 2, 3, 4]
    assert len({link.token for link in made}) == 4 and all(len(link.token) >= 32 for link in made)
    again = links.ensure_links(event=stage.event, actor=ACTOR)
    assert [link.token for link in again] == [link.token for link in made]
    assert TableLink.objects.filter(event=stage.event).count() == 4
    assert AuditEntry.objects.filter(action="link.created").count() == 1  # nothing new the second time


def test_tokens_never_reach_the_audit_log(stage):
    made = links.ensure_links(event=stage.event, actor=ACTOR)
    new = links.revoke_link(link=made[0], actor=ACTOR)
    logged = " ".join(str((e.before, e.after, e.reason)) for e in AuditEntry.objects.all())
    for token in [link.token for link in made] + [new.token]:
        assert token not in logged


def test_hong_kong_links_hold_for_every_game_of_the_stage(stage):
    hk = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    made = links.ensure_links(event=hk.event, actor=ACTOR)
    assert [link.table_number for link in made] == [1, 2]
    access = table_by_link(made[1].token)
    assert access.stage == hk and access.table_number == 2


def test_no_links_before_a_seating_is_released():
    event = ready_event(8)
    stage = draw_services.start_event(event=event, actor=ACTOR)
    draw_services.draft_draw(stage=stage, actor=ACTOR, seed=1)
    with pytest.raises(ServiceError) as refused:
        links.ensure_links(event=stage.event, actor=ACTOR)
    assert refused.value.code == "not_released"
    assert not TableLink.objects.exists()


def test_the_link_printed_in_round_1_opens_the_tables_sheet_in_round_2(client, stage):
    """Busan, 16 players: round 1 has 4 tables, round 2 has 2 (R8.1). The card made once serves both."""
    event = stage.event
    made = {link.table_number: link for link in links.ensure_links(event=event, actor=ACTOR)}
    assert table_by_link(made[2].token).stage == stage
    second = next_round(stage)
    assert seating.stage_table_numbers(second) == [1, 2]
    access = table_by_link(made[2].token)
    assert isinstance(access, TableAccess) and (access.stage, access.table_number) == (second, 2)
    page = client.get(entry_page(made[2].token))
    assert page.status_code == 200 and second.display_name in text(page)
    for seat in seating.seats(seating.game_draw(second, 1), table=2):
        assert seat.registration.player.name in text(page)
    game = client.get(access.game_url(1))
    assert game.status_code == 200 and f"/stage-{second.number}/game/1/" in access.game_url(1)
    # Making the links again adds none: round 1 already had the most tables.
    assert [link.token for link in links.ensure_links(event=event, actor=ACTOR)] == [
        made[n].token for n in (1, 2, 3, 4)]


def test_a_table_beyond_the_current_rounds_tables_gets_a_friendly_page(client, stage):
    made = {link.table_number: link for link in links.ensure_links(event=stage.event, actor=ACTOR)}
    second = next_round(stage)
    refusal = table_by_link(made[4].token)
    assert refusal == LinkRefusal(LinkRefusal.NO_TABLE, link=refusal.link, stage=second, tables=2)
    response = client.get(entry_page(made[4].token))
    assert response.status_code == 200
    assert "Table 4 has no game now: Round 2 has 2 tables." in text(response)
    assert "it works for the whole event" in text(response)
    response = client.get(entry_page(made[4].token), HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert "Table 4 has no game now" not in text(response) and "4" in text(response)


def test_between_rounds_and_after_the_last_a_link_says_no_game_is_played(client, stage):
    made = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    second = next_round(stage, release=False)
    assert table_by_link(made.token).reason == LinkRefusal.NO_GAME
    response = client.get(entry_page(made.token))
    assert response.status_code == 200 and "No game is being played at this table now." in text(response)
    second.closed_at = timezone.now()
    second.save()
    assert table_by_link(made.token).reason == LinkRefusal.FINISHED
    assert "This event is finished" in text(client.get(entry_page(made.token)))


def test_a_form_of_an_earlier_round_saves_nothing_in_the_next(client, stage):
    """A phone left on round 1's game page sends it after round 2 is released: nothing is recorded there."""
    link = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    old_game = table_by_link(link.token).game_url(1)
    second = next_round(stage)
    before = ScoreSheet.objects.count()
    response = client.post(old_game, {"end": "went_out", "idempotency_key": key()})
    assert response.status_code == 302 and response.url == entry_page(link.token)
    assert ScoreSheet.objects.count() == before and not ScoreSheet.objects.filter(stage=second).exists()
    assert "That round is over" in text(client.get(response.url))


def test_making_links_again_adds_the_tables_of_a_larger_later_stage():
    """A link per table number any released seating uses: a stage with more tables adds only the missing ones."""
    stage = released_stage(4)
    event = stage.event
    first = links.ensure_links(event=event, actor=ACTOR)
    assert [link.table_number for link in first] == [1]
    from tournament.models import Draw, Stage
    from tournament.services.seating import write_seating

    players = list(event.registrations.values_list("pk", flat=True))
    later = Stage.objects.create(event=event, number=2, name="Round 2", games=1, advance=Stage.Advance.NONE)
    write_seating(Draw(stage=later, status=Draw.Status.RELEASED, seed=1, algorithm_version="test"),
                  {1: players[:2], 2: players[2:]})
    again = links.ensure_links(event=event, actor=ACTOR)
    assert [link.table_number for link in again] == [1, 2] and again[0].token == first[0].token
    assert AuditEntry.objects.filter(action="link.created").count() == 2


def test_a_revoked_link_stops_working_and_its_replacement_works(client, stage):
    old = links.ensure_links(event=stage.event, actor=ACTOR)[1]
    assert client.get(entry_page(old.token)).status_code == 200
    new = links.revoke_link(link=old, actor=ACTOR)
    assert (new.table_number, new.event) == (2, stage.event) and new.token != old.token
    assert table_by_link(old.token).reason == LinkRefusal.REVOKED
    gone = client.get(entry_page(old.token))
    assert gone.status_code == 410 and "replaced by the organiser" in text(gone)
    assert client.get(entry_page("x" * 32)).status_code == 404
    assert table_by_link(new.token).table_number == 2
    assert client.get(entry_page(new.token)).status_code == 200
    with pytest.raises(ServiceError):
        links.revoke_link(link=old, actor=ACTOR)
    assert TableLink.objects.filter(event=stage.event, table_number=2, revoked_at__isnull=True).count() == 1


def test_a_revoked_link_says_so_in_korean_with_410(client, stage):
    old = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    links.revoke_link(link=old, actor=ACTOR)
    response = client.get(entry_page(old.token), HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 410 and '<html lang="ko">' in text(response)
    assert "운영자가 이 조의 링크를 바꾸었습니다" in text(response)


def test_only_referees_of_the_festival_are_assigned_to_real_tables(stage):
    festival = stage.event.festival
    referee = make_staff(festival, "referee")
    given = links.assign_tables(event=stage.event, first=3, last=3, referee=referee, actor=ACTOR)
    assert given["tables"] == [3] and given["referee"] == referee
    refusals = [
        dict(first=9, last=9, referee=make_staff(festival, "referee")),  # no such table
        dict(first=3, last=1, referee=referee),  # the range the wrong way round
        dict(first=1, last=1, referee=make_staff(festival, "desk")),
        dict(first=1, last=1, referee=make_staff(make_festival(), "referee")),  # another festival's referee
        dict(first=1, last=1, referee=None),
    ]
    for refusal in refusals:
        with pytest.raises(ServiceError):
            links.assign_tables(event=stage.event, actor=ACTOR, **refusal)
    assert RefereeAssignment.objects.count() == 1
    assert links.assign_tables(event=stage.event, first=3, last=3, referee=referee, actor=ACTOR)["tables"] == []
    links.unassign_tables(event=stage.event, first=3, last=3, actor=ACTOR)
    assert not RefereeAssignment.objects.filter(ended_at__isnull=True).exists()
    with pytest.raises(ServiceError):
        links.unassign_tables(event=stage.event, first=3, last=3, actor=ACTOR)
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
    for link in TableLink.objects.filter(event=stage.event):
        assert entry_page(link.token) in html
    assert html.count("<svg") == 4 and url("board-links-make", stage) not in html


def test_revoke_on_the_page_replaces_the_link(client, stage, organiser):
    old = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    client.force_login(organiser)
    client.post(url("board-links-revoke", stage), {"link": old.pk})
    old.refresh_from_db()
    assert old.revoked_at is not None and table_by_link(old.token).reason == LinkRefusal.REVOKED
    html = client.get(url("board-links", stage)).content.decode()
    assert old.token not in html
    assert TableLink.objects.get(event=stage.event, table_number=1, revoked_at__isnull=True).token in html


def test_a_link_of_another_event_cannot_be_revoked_here(client, stage, organiser):
    other = released_stage(8)
    foreign = links.ensure_links(event=other.event, actor=ACTOR)[0]
    client.force_login(organiser)
    assert client.post(url("board-links-revoke", stage), {"link": foreign.pk}).status_code == 404
    foreign.refresh_from_db()
    assert foreign.revoked_at is None


def test_assign_and_unassign_a_referee_on_the_page(client, stage, organiser):
    referee = make_staff(stage.event.festival, "referee", username="ref-kim")
    client.force_login(organiser)
    html = client.get(url("board-links", stage)).content.decode()
    assert f'value="{referee.pk}">ref-kim<' in html
    client.post(reverse("board-referees-assign", kwargs={"festival": stage.event.festival.slug,
                                                         "event": stage.event.slug}),
                {"first": 2, "referee": referee.pk, "stage": stage.number})
    assert RefereeAssignment.objects.filter(event=stage.event, table_number=2, referee=referee).exists()
    html = client.get(url("board-links", stage)).content.decode()
    assert 'data-referee="ref-kim"' in html.split('data-table="2"')[1].split("</section>")[0]
    client.post(reverse("board-referees-unassign", kwargs={"festival": stage.event.festival.slug,
                                                           "event": stage.event.slug}),
                {"first": 2, "referee": referee.pk, "stage": stage.number})
    assert not RefereeAssignment.objects.filter(ended_at__isnull=True).exists()


def test_bad_input_on_the_links_page_changes_nothing_and_never_errors(client, stage, organiser):
    desk = make_staff(stage.event.festival, "desk")
    links.ensure_links(event=stage.event, actor=ACTOR)
    client.force_login(organiser)
    hostile = [{}, {"table": "abc", "referee": "1e309"}, {"first": 99999999999999999999, "referee": desk.pk},
               {"first": 1, "referee": desk.pk}, {"first": 77, "referee": organiser.pk}, {"link": "\x00"},
               {"link": -1}, {"link": 2**70}, {"first": 1, "stage": "../../"}]
    event_kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    paths = [url("board-links-revoke", stage), reverse("board-referees-assign", kwargs=event_kwargs),
             reverse("board-referees-unassign", kwargs=event_kwargs)]
    for data in hostile:
        for path in paths:
            response = client.post(path, data, follow=True)
            assert response.status_code in (200, 404), (path, data)
    assert not RefereeAssignment.objects.exists()
    assert not TableLink.objects.filter(revoked_at__isnull=False).exists()
    response = client.post(paths[1], {"first": 1, "referee": desk.pk}, follow=True)
    assert "Only a referee of this festival" in response.content.decode()


def test_closed_stage_links_page_says_the_links_open_the_round_being_played(client, stage, organiser):
    link = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    make_staff(stage.event.festival, "referee", username="ref-kim")
    stage.closed_at = timezone.now()
    stage.save()
    client.force_login(organiser)
    html = client.get(url("board-links", stage)).content.decode()
    assert link.token in html and "now open the tables of the round being played" in html
    assert 'name="referee"' in html  # referees hold tables for the event: they can be changed in any round
    # The closed round's paper sheets are for the record: no QR code that would open another round.
    assert "<svg" not in client.get(url("board-print", stage)).content.decode()


def links_page_queries(client, django_assert_max_num_queries, stage):
    organiser = make_staff(stage.event.festival, "organiser")
    referee = make_staff(stage.event.festival, "referee")
    links.ensure_links(event=stage.event, actor=ACTOR)
    links.assign_tables(event=stage.event, first=1, last=1, referee=referee, actor=ACTOR)
    client.force_login(organiser)
    for name in ("board-links", "board-print"):
        with django_assert_max_num_queries(12):
            assert client.get(url(name, stage)).status_code == 200
    with django_assert_max_num_queries(8):
        cards = client.get(cards_url(stage.event))
    assert cards.status_code == 200
    assert text(cards).count('class="print-card referee-card"') == len(seating.stage_table_numbers(stage))


def test_links_cards_and_print_pages_query_count_with_4_tables(client, django_assert_max_num_queries):
    links_page_queries(client, django_assert_max_num_queries, released_stage(16))


@pytest.mark.slow
def test_links_cards_and_print_pages_query_count_with_128_tables_is_the_same(client, django_assert_max_num_queries):
    stage = released_stage(512, capacity=512)
    assert seating.game_draw(stage, 1).tables.count() == 128
    links_page_queries(client, django_assert_max_num_queries, stage)


# --- paper score sheets ------------------------------------------------------------------------------------

def test_paper_sheet_has_the_hong_kong_layout_with_names_games_signature_and_entry_qr(client, stage, organiser):
    made = links.ensure_links(event=stage.event, actor=ACTOR)
    referee = make_staff(stage.event.festival, "referee", username="ref-lee")
    links.assign_tables(event=stage.event, first=2, last=2, referee=referee, actor=ACTOR)
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


@pytest.mark.parametrize("fields,order", [
    # R7: Hong Kong ranks by wins, then average points per game; Busan by wins, then total points.
    ({"format": Event.Format.HONG_KONG, "ruleset": Event.Ruleset.HK_2016},
     "most wins → highest average points per game → playoff game → lots"),
    ({}, "most wins → most points in total → playoff game → lots"),
    ({"tiebreaks": ["points", "wins", "lot"]}, "most points in total → most wins → lots"),  # the organiser's own
])
def test_the_paper_sheet_states_the_events_own_ranking(client, fields, order):
    stage = released_stage(8, **fields)
    client.force_login(make_staff(stage.event.festival, "organiser"))
    html = client.get(url("board-print", stage)).content.decode()
    assert "most wins first, then points" not in html
    assert html.count(f"Ranking, in order: {order}.") == html.count('class="score-sheet"') == 2


# --- admin -------------------------------------------------------------------------------------------------

def test_admin_is_read_only_and_never_shows_link_tokens(client, stage):
    link = links.ensure_links(event=stage.event, actor=ACTOR)[0]
    admin = User.objects.create_superuser("root", "root@example.org", "pw-for-tests-only")
    client.force_login(admin)
    listing = client.get(reverse("admin:scoring_tablelink_changelist"))
    assert listing.status_code == 200 and link.token not in listing.content.decode()
    detail = client.get(reverse("admin:scoring_tablelink_change", args=[link.pk]))
    assert detail.status_code == 200 and link.token not in detail.content.decode()
    assert client.get(reverse("admin:scoring_scoresheet_changelist")).status_code == 200
    assert client.get(reverse("admin:scoring_refereeassignment_changelist")).status_code == 200
    assert client.get(reverse("admin:scoring_tablelink_add")).status_code == 403
    assert client.post(reverse("admin:scoring_tablelink_delete", args=[link.pk]), {"post": "yes"}).status_code == 403
    assert TableLink.objects.filter(pk=link.pk).exists()
