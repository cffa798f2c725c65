"""Referees hold tables of the event by number until someone changes it — every round, stage and game, like the
table card (scoring/services/links.py): the scenario of a real Busan day, the bulk form, unassigning, who may
change it, bad input, the pages' query counts, and the live board hearing from a signed-in referee."""

import random

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import RefereeAssignment
from scoring.services import links
from tests.factories import make_event, make_festival, make_staff, ready_event, released_stage
from tests.scoring.helpers import chief_of, hong_kong, play_game, seated, text
from tests.scoring.test_links import next_round
from tests.scoring.test_referee_views import sheet_data
from tournament.models import AuditEntry, StaffRole
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.draws import draft_draw, release_draw, start_event
from tournament.services.staff import remove_role

pytestmark = [pytest.mark.django_db, pytest.mark.stage_of(players=32)]  # 8 tables in round 1, 3 games
ACTOR = Actor(label="test")


def event_url(name, event, **kwargs):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


def table_url(stage, table):
    return reverse("referee-table", kwargs={"stage_id": stage.pk, "table": table})


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def section(html: str, table: int, tag: str = "section") -> str:
    """The part of a page about one table (`data-table="n"` up to the end of its element)."""
    return html.split(f'data-table="{table}"', 1)[1].split(f"</{tag}>", 1)[0]


def holders(event) -> dict[int, str]:
    return dict(RefereeAssignment.objects.filter(event=event, ended_at__isnull=True)
                .values_list("table_number", "referee__username"))


def state(event):
    """Everything a refused change must leave alone."""
    return (sorted(RefereeAssignment.objects.filter(event=event).values_list("table_number", "referee", "ended_at")),
            AuditEntry.objects.filter(action__startswith="referee.").count())


@pytest.fixture
def kim(stage):
    return make_staff(stage.event.festival, "referee", username="ref-kim")


@pytest.fixture
def lee(stage):
    return make_staff(stage.event.festival, "referee", username="ref-lee")


# --- an assignment lasts until it is changed -------------------------------------------------------------

def test_assigned_in_round_1_a_referee_still_has_their_tables_once_round_2_is_drawn(client, stage, organiser, kim, lee):
    event = stage.event
    links.ensure_links(event=event, actor=ACTOR)
    client.force_login(organiser)
    for first, last, referee in ((1, 2, kim), (3, 4, lee)):
        client.post(event_url("board-referees-assign", event), {"first": first, "last": last, "referee": referee.pk})
    referee = signed_in(kim)
    assert table_url(stage, 1) in text(referee.get("/manage/"))

    second = next_round(stage)
    assert {1, 2, 3, 4} <= set(seating.stage_table_numbers(second))
    work = text(referee.get("/manage/"))
    for table in (1, 2):
        assert table_url(second, table) in work, table  # My work opens round 2's table
        assert referee.get(table_url(second, table)).status_code == 200
    assert table_url(stage, 1) not in work and table_url(second, 3) not in work
    assert referee.get(table_url(second, 3)).status_code == 403  # Lee's
    response = referee.post(f"{table_url(second, 1)}game/1/", sheet_data(second, 1, 1, [0, 5, 6, 7]))
    assert response.status_code == 302

    links_page = text(client.get(event_url("board-links", event, stage=second.number)))
    for table, username in ((1, "ref-kim"), (2, "ref-kim"), (3, "ref-lee"), (4, "ref-lee")):
        assert f'data-referee="{username}"' in section(links_page, table), table
        assert "No referee assigned" not in section(links_page, table), table
    board = text(client.get(event_url("board", event)))
    assert 'data-referee="ref-kim"' in section(board, 1, "li") and 'data-referee="ref-lee"' in section(board, 3, "li")


def test_hong_kong_reseats_every_game_and_the_referee_keeps_the_table_number(db):
    stage = hong_kong(16, games=3)
    referee = make_staff(stage.event.festival, "referee")
    links.assign_tables(event=stage.event, first=2, last=2, referee=referee, actor=ACTOR)
    play_game(stage, 1, chief_of(stage.event), random.Random(5))  # the last confirmation seats game 2 (R8.2)
    client = signed_in(referee)
    page = text(client.get(f"{table_url(stage, 2)}game/2/"))
    for seat in seating.seats(seating.game_draw(stage, 2), table=2):
        assert seat.registration.player.name in page
    assert seated(stage, 2, 2) != seated(stage, 1, 2)  # other players, the same table number
    assert client.get(f"{table_url(stage, 1)}game/2/").status_code == 403


def test_referees_can_be_given_their_tables_before_the_first_draw(client, db):
    event = ready_event(12, capacity=40)  # no stage yet: up to 10 tables of 4
    client.force_login(make_staff(event.festival, "chief referee"))
    referee = make_staff(event.festival, "referee")
    client.post(event_url("board-referees-assign", event), {"first": 1, "last": 3, "referee": referee.pk})
    assert holders(event) == {1: referee.username, 2: referee.username, 3: referee.username}
    response = client.post(event_url("board-referees-assign", event), {"first": 11, "referee": referee.pk},
                           follow=True)
    assert "There is no table 11: this event has 10 tables." in text(response)
    assert "No round is being played now" in text(signed_in(referee).get("/manage/"))
    stage = start_event(event=event, actor=ACTOR)
    assert "No round is being played now" in text(signed_in(referee).get("/manage/"))
    release_draw(draw=draft_draw(stage=stage, actor=ACTOR, seed=1), actor=ACTOR)
    work = text(signed_in(referee).get("/manage/"))
    assert table_url(stage, 1) in work and table_url(stage, 3) in work  # 12 players: tables 1–3


# --- the bulk form and unassigning -------------------------------------------------------------------------

def test_tables_1_to_8_to_kim_then_5_and_6_to_lee_who_takes_them_over(client, stage, chief, kim, lee):
    event = stage.event
    client.force_login(chief)
    response = client.post(event_url("board-referees-assign", event), {"first": 1, "last": 8, "referee": kim.pk},
                           follow=True)
    assert "ref-kim holds tables 1–8 from now on, in every round." in text(response)
    assert holders(event) == {n: "ref-kim" for n in range(1, 9)}
    client.post(event_url("board-referees-assign", event), {"first": 5, "last": 6, "referee": lee.pk})
    assert holders(event) == {**{n: "ref-kim" for n in (1, 2, 3, 4, 7, 8)}, 5: "ref-lee", 6: "ref-lee"}
    # Nothing is deleted: Kim's hold of tables 5 and 6 ended, and the log says who took them from whom.
    ended = RefereeAssignment.objects.filter(event=event, ended_at__isnull=False)
    assert sorted(ended.values_list("table_number", "referee__username")) == [(5, "ref-kim"), (6, "ref-kim")]
    entry = AuditEntry.objects.filter(action="referee.assigned").order_by("-id").first()
    assert entry.actor == chief and entry.event == event
    assert entry.before == {"tables": {"5": "ref-kim", "6": "ref-kim"}}
    assert entry.after == {"tables": [5, 6], "referee": "ref-lee"}

    page = text(client.get(event_url("board-referees", event)))
    assert "<strong>ref-kim</strong>: tables 1–4, 7–8" in page and "<strong>ref-lee</strong>: tables 5–6" in page
    assert 'data-referee="ref-lee"' in section(page, 5, "li")
    # Sent twice (a phone on bad Wi-Fi): nothing changes, nothing is logged again.
    before = state(event)
    client.post(event_url("board-referees-assign", event), {"first": 5, "last": 6, "referee": lee.pk})
    assert state(event) == before


def test_one_table_alone_and_from_the_links_page_back_to_it(client, stage, organiser, kim):
    event = stage.event
    client.force_login(organiser)
    response = client.post(event_url("board-referees-assign", event), {"first": 7, "referee": kim.pk, "stage": 1})
    assert response.url == event_url("board-links", event, stage=1)
    assert holders(event) == {7: "ref-kim"}
    page = text(client.get(response.url))
    assert 'action="' + event_url("board-referees-assign", event) in page and 'name="first"' in page
    assert "<strong>ref-kim</strong>: table 7" in page


def test_unassigning_a_range_and_one_tables_button(client, stage, organiser, kim, lee):
    event = stage.event
    links.assign_tables(event=event, first=1, last=8, referee=kim, actor=ACTOR)
    client.force_login(organiser)
    response = client.post(event_url("board-referees-unassign", event), {"first": 7, "last": 8}, follow=True)
    assert "No referee holds tables 7–8 now." in text(response)
    assert set(holders(event)) == {1, 2, 3, 4, 5, 6}
    assert "No referee: tables 7–8" in text(response)
    entry = AuditEntry.objects.filter(action="referee.unassigned").get()
    assert entry.before == {"tables": {"7": "ref-kim", "8": "ref-kim"}} and entry.actor == organiser
    # A table's own button names the referee it showed: a page left open takes nothing from whoever holds it now.
    before = state(event)
    response = client.post(event_url("board-referees-unassign", event), {"first": 1, "referee": lee.pk}, follow=True)
    assert "No referee holds these tables." in text(response) and state(event) == before
    client.post(event_url("board-referees-unassign", event), {"first": 1, "referee": kim.pk})
    assert set(holders(event)) == {2, 3, 4, 5, 6}
    assert RefereeAssignment.objects.filter(event=event).count() == 8  # ended, never deleted


def test_a_referee_whose_role_is_removed_holds_no_table_of_that_festival_any_more(stage, organiser, kim, lee):
    """The tables end with the role, in every event of the festival (kept, with one audit record per event), and
    can be given to someone else; the same person refereeing at another festival keeps the tables there."""
    event = stage.event
    word = make_event(stage.event.festival)
    elsewhere = make_event(make_festival())
    StaffRole.objects.create(festival=elsewhere.festival, user=kim, role="referee")
    links.assign_tables(event=event, first=1, last=3, referee=kim, actor=ACTOR)
    links.assign_tables(event=event, first=4, last=4, referee=lee, actor=ACTOR)
    links.assign_tables(event=word, first=2, last=2, referee=kim, actor=ACTOR)
    links.assign_tables(event=elsewhere, first=1, last=1, referee=kim, actor=ACTOR)

    remove_role(festival=event.festival, user=kim, role="referee", actor=Actor(user=organiser))

    assert holders(event) == {4: "ref-lee"} and holders(word) == {} and holders(elsewhere) == {1: "ref-kim"}
    assert RefereeAssignment.objects.filter(referee=kim).count() == 5  # ended, never deleted
    ended = {entry.event_id: entry for entry in AuditEntry.objects.filter(action="referee.unassigned")}
    assert set(ended) == {event.pk, word.pk} and {entry.actor for entry in ended.values()} == {organiser}
    assert ended[event.pk].before == {"tables": {"1": "ref-kim", "2": "ref-kim", "3": "ref-kim"}}
    links.assign_tables(event=event, first=1, last=1, referee=lee, actor=ACTOR)  # the table is free again
    assert holders(event) == {1: "ref-lee", 4: "ref-lee"}


def test_tables_stay_with_someone_who_still_referees_after_losing_a_role(stage, organiser, kim):
    """An organiser holds every role: losing the referee role, or the desk role of a referee, takes no table."""
    event = stage.event
    StaffRole.objects.create(festival=event.festival, user=kim, role="desk")
    StaffRole.objects.create(festival=event.festival, user=organiser, role="referee")
    links.assign_tables(event=event, first=1, last=1, referee=kim, actor=ACTOR)
    links.assign_tables(event=event, first=2, last=2, referee=organiser, actor=ACTOR)
    remove_role(festival=event.festival, user=kim, role="desk", actor=ACTOR)
    remove_role(festival=event.festival, user=organiser, role="referee", actor=ACTOR)
    assert holders(event) == {1: "ref-kim", 2: organiser.username}
    assert not AuditEntry.objects.filter(action="referee.unassigned").exists()
    # An organiser who hands the festival over and holds no referee role gives up the tables too.
    make_staff(event.festival, "organiser")
    remove_role(festival=event.festival, user=organiser, role="organiser", actor=ACTOR)
    assert holders(event) == {1: "ref-kim"}


# --- who may ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("who", ["referee", "desk", "other referee", "other chief referee", "other organiser"])
def test_only_the_events_organiser_and_chief_referee_change_who_holds_a_table(client, stage, kim, who):
    event = stage.event
    links.assign_tables(event=event, first=1, last=2, referee=kim, actor=ACTOR)
    festival = make_festival() if who.startswith("other") else event.festival
    client.force_login(make_staff(festival, who.removeprefix("other ")))
    before = state(event)
    assert client.get(event_url("board-referees", event)).status_code == 403
    for name, data in (("board-referees-assign", {"first": 3, "last": 4, "referee": kim.pk}),
                       ("board-referees-unassign", {"first": 1, "last": 2})):
        assert client.post(event_url(name, event), data).status_code == 403, name
    assert state(event) == before


def test_signed_out_visitors_are_sent_to_sign_in(client, stage, kim):
    before = state(stage.event)
    for method, name in (("get", "board-referees"), ("post", "board-referees-assign"),
                         ("post", "board-referees-unassign")):
        response = getattr(client, method)(event_url(name, stage.event), {"first": 1, "referee": kim.pk})
        assert response.status_code == 302 and response.url.startswith(reverse("login")), name
    assert state(stage.event) == before


@pytest.mark.parametrize("who", ["organiser", "chief referee"])
def test_the_organiser_and_the_chief_referee_may(client, stage, kim, who):
    client.force_login(make_staff(stage.event.festival, who))
    assert client.get(event_url("board-referees", stage.event)).status_code == 200
    client.post(event_url("board-referees-assign", stage.event), {"first": 1, "last": 3, "referee": kim.pk})
    client.post(event_url("board-referees-unassign", stage.event), {"first": 3})
    assert holders(stage.event) == {1: "ref-kim", 2: "ref-kim"}


# --- bad input ------------------------------------------------------------------------------------------------

def test_bad_input_is_answered_with_a_message_and_changes_nothing(client, stage, chief, kim):
    event = stage.event
    links.assign_tables(event=event, first=1, last=2, referee=kim, actor=ACTOR)
    stranger = make_staff(make_festival(), "referee", username="ref-elsewhere")
    desk = make_staff(event.festival, "desk")
    client.force_login(chief)
    before = state(event)
    cases = [
        ("board-referees-assign", {"first": 9, "last": 3, "referee": kim.pk},
         "Table 3 comes before table 9: write the smaller number first (3–9)."),
        ("board-referees-assign", {"first": 0, "last": 3, "referee": kim.pk}, "Table numbers start at 1."),
        ("board-referees-assign", {"first": 3, "last": 0, "referee": kim.pk}, "Table numbers start at 1."),
        ("board-referees-assign", {"first": 3, "last": 4, "referee": 987654},
         "Only a referee of this festival can be assigned to a table."),
        ("board-referees-assign", {"first": 3, "last": 4, "referee": stranger.pk},
         "Only a referee of this festival can be assigned to a table."),
        ("board-referees-assign", {"first": 3, "last": 4, "referee": desk.pk},
         "Only a referee of this festival can be assigned to a table."),
        ("board-referees-assign", {"first": 3, "last": 9, "referee": kim.pk},
         "There is no table 9: this event has 8 tables."),
        ("board-referees-assign", {"first": 3, "last": 4}, "Choose a referee."),
        ("board-referees-assign", {"last": 4, "referee": kim.pk}, "Write the table number."),
        ("board-referees-assign", {"first": "abc", "referee": "1e309"}, "Enter a whole number."),
        ("board-referees-assign", {"first": 10**30, "referee": kim.pk}, "There is no table with so high a number."),
        ("board-referees-unassign", {"first": 2, "last": 1},
         "Table 1 comes before table 2: write the smaller number first (1–2)."),
        ("board-referees-unassign", {"first": 0}, "Table numbers start at 1."),
        ("board-referees-unassign", {"first": 5, "last": 8}, "No referee holds these tables."),
    ]
    for name, data, message in cases:
        response = client.post(event_url(name, event), data, follow=True)
        assert response.status_code == 200, data
        assert message in text(response), (data, message)
        assert state(event) == before, data


# --- query counts -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,referees", [(16, 2), pytest.param(160, 8, marks=pytest.mark.slow)])  # 4 tables and 2 referees; 40 and 8
def test_the_referee_pages_and_the_board_cost_the_same_queries_small_or_large(
        client, django_assert_max_num_queries, players, referees):
    stage = released_stage(players, capacity=players)
    event = stage.event
    tables = len(seating.stage_table_numbers(stage))
    people = [make_staff(event.festival, "referee") for _ in range(referees)]
    links.ensure_links(event=event, actor=ACTOR)
    share = tables // referees
    for index, referee in enumerate(people):
        links.assign_tables(event=event, first=index * share + 1, last=(index + 1) * share - 1, referee=referee,
                            actor=ACTOR)
    chief, organiser = make_staff(event.festival, "chief referee"), make_staff(event.festival, "organiser")
    client.force_login(chief)
    with django_assert_max_num_queries(9):
        page = client.get(event_url("board-referees", event))
    assert page.status_code == 200 and text(page).count("data-holder=") == referees
    with django_assert_max_num_queries(15):  # its counts are two SQL aggregates (scoring/views/board.py)
        board = client.get(event_url("board", event))
    assert text(board).count("data-referee=") == tables - referees
    client.force_login(organiser)
    with django_assert_max_num_queries(12):
        assert client.get(event_url("board-links", event, stage=1)).status_code == 200
    client.force_login(people[0])
    with django_assert_max_num_queries(13):
        assert text(client.get("/manage/")).count("data-my-table=") == share - 1


# --- the live board hears from the table's signed-in referee --------------------------------------------------

def board_row(client, event, table: int) -> str:
    return section(text(client.get(event_url("board", event))), table, "li")


@pytest.mark.parametrize("with_links", [True, False])
def test_a_signed_in_referees_pages_and_sheets_count_as_hearing_from_the_table(client, stage, chief, kim, with_links):
    event = stage.event
    if with_links:
        links.ensure_links(event=event, actor=ACTOR)
    links.assign_tables(event=event, first=1, last=2, referee=kim, actor=ACTOR)
    client.force_login(chief)
    assert "not heard from yet" in board_row(client, event, 1)

    referee = signed_in(kim)
    response = referee.post(f"{table_url(stage, 1)}game/1/", sheet_data(stage, 1, 1, [0, 5, 6, 7]))
    assert response.status_code == 302
    row = board_row(client, event, 1)
    assert "heard from" in row and "not heard from yet" not in row
    assert "not heard from yet" in board_row(client, event, 2)
    referee.get(table_url(stage, 2))  # a page is enough
    assert "not heard from yet" not in board_row(client, event, 2)


def test_the_chief_referee_opening_a_table_is_not_the_table_being_heard_from(client, stage, chief, kim):
    links.ensure_links(event=stage.event, actor=ACTOR)
    links.assign_tables(event=stage.event, first=1, last=1, referee=kim, actor=ACTOR)
    client.force_login(chief)
    assert client.get(table_url(stage, 1)).status_code == 200
    assert "not heard from yet" in board_row(client, stage.event, 1)
