"""My work: each role's direct links (scoring/my_work.py), and the organiser's next step in the day."""

import datetime as dt
import random

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from scoring.models import RefereeAssignment
from scoring.my_work import next_step
from scoring.services.sheets import submit_sheet
from tests.factories import (
    make_event,
    make_festival,
    make_registration,
    make_staff,
    open_event,
    released_stage,
)
from tests.scoring.helpers import LINK, chief_of, entry_for, key, play_game
from tournament.models import Event, Registration, StaffRole, Stage
from tournament.services.audit import Actor
from tournament.services.invitations import invite

HOME = "/manage/"


def page(client, user) -> str:
    client.force_login(user)
    response = client.get(HOME)
    assert response.status_code == 200
    return response.content.decode()


def event_url(name, event, **kwargs):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


def test_a_referee_sees_the_tables_they_hold_and_nothing_of_an_event_that_is_over(client, stage):
    referee = make_staff(stage.event.festival, "referee")
    RefereeAssignment.objects.create(event=stage.event, table_number=2, referee=referee)
    text = page(client, referee)
    table = reverse("referee-table", kwargs={"stage_id": stage.pk, "table": 2})
    assert table in text and "Table 2 · Round 1" in text
    assert event_url("board", stage.event) not in text and event_url("manage-event", stage.event) not in text
    Stage.objects.filter(pk=stage.pk).update(closed_at=timezone.now())
    assert table not in page(client, referee)


def test_the_chief_referee_gets_the_live_board_and_the_desk_the_desk(client, stage):
    chief, desk = make_staff(stage.event.festival, "chief referee"), make_staff(stage.event.festival, "desk")
    chief_text = page(client, chief)
    assert event_url("board", stage.event) in chief_text and event_url("desk", stage.event) not in chief_text
    desk_text = page(client, desk)
    assert event_url("desk", stage.event) in desk_text and event_url("board", stage.event) not in desk_text


def test_the_organiser_follows_the_day_step_by_step(db):
    now = timezone.now()
    later = open_event()
    assert next_step(later, [], now).label == "Registrations"
    checking_in = make_event(checkin_opens_at=now - dt.timedelta(minutes=5), checkin_closes_at=now + dt.timedelta(hours=1))
    assert next_step(checking_in, [], now).label == "Close check-in"
    closed = make_event(checkin_override=Event.CheckinOverride.CLOSED)
    assert next_step(closed, [], now).label == "Assign player numbers"
    # R9: a place left empty after check-in and a player waiting: late places first, then at the desk.
    waiting = make_event(checkin_override=Event.CheckinOverride.CLOSED, capacity=2)
    make_registration(waiting, checked_in_at=now)
    make_registration(waiting, status=Registration.Status.WAITLISTED)
    assert next_step(waiting, [], now).label == "Open late places"
    assert next_step(waiting, [], now).url == event_url("manage-event", waiting) + "#late-places"
    Event.objects.filter(pk=waiting.pk).update(late_places_opened_at=now)
    waiting.refresh_from_db()
    assert next_step(waiting, [], now).url == event_url("desk-late-places", waiting)
    Event.objects.filter(pk=waiting.pk).update(numbers_assigned_at=now)
    waiting.refresh_from_db()
    assert next_step(waiting, [], now).label == "Make the first draw"

    stage = released_stage(8)
    event = stage.event
    Event.objects.filter(pk=event.pk).update(numbers_assigned_at=now)

    def step():
        stages = list(event.stages.order_by("number"))
        for s in stages:
            s.first_games = list(s.draws.filter(game=1))
        return next_step(event, stages, now)

    assert step().label == "Follow Round 1 and close it"
    assert step().url == event_url("board-stage", event, stage=1)
    Stage.objects.filter(pk=stage.pk).update(closed_at=now)
    assert step().label == "Make the draw of the next round"
    final = Stage.objects.create(event=event, number=2, name="Final", games=1, advance=Stage.Advance.FINAL)
    assert step().label == "Make the draw of Final"
    draft = final.draws.create(game=1, status="draft", seed=1, algorithm_version="test")
    assert step().label == "Release the draw of Final"
    draft.delete()
    Stage.objects.filter(pk=final.pk).update(closed_at=now)
    final.draws.create(game=1, status="released", seed=1, algorithm_version="test")
    assert step().label == "Results" and step().url == event_url("manage-results", event)


@pytest.mark.parametrize("language,next_step_word,pager_word", [("zh-hant", "下一步", "下一頁"), ("ko", "다음 단계", "다음")])
def test_the_next_step_is_not_called_the_next_page(client, db, language, next_step_word, pager_word):
    """"Next" before the organiser's step is the next step (下一步), not the registrations pager's next page."""
    event = open_event()
    organiser = make_staff(event.festival, "organiser")
    client.cookies["django_language"] = language
    text = page(client, organiser)
    colon = "：" if language == "zh-hant" else ":"  # the language's own (tests/tournament/test_punctuation.py)
    assert f"{next_step_word}{colon}" in text and f"{pager_word}{colon}" not in text


@pytest.mark.parametrize("events", [1, 12])
def test_my_work_costs_the_same_queries_for_one_event_or_many(client, db, events, django_assert_max_num_queries):
    festival = released_stage(8).event.festival
    person = make_staff(festival, "organiser")
    StaffRole.objects.create(festival=festival, user=person, role="referee")
    for _ in range(events - 1):
        stage = released_stage(8)
        Event.objects.filter(pk=stage.event.pk).update(festival=festival)
        RefereeAssignment.objects.create(event=stage.event, table_number=1, referee=person)
        inviting = make_festival()  # invitations waiting for this account's answer, each from its own festival
        invite(festival=inviting, identifier=person.username, role="desk",
               actor=Actor(user=make_staff(inviting, "organiser")))
    client.force_login(person)
    with django_assert_max_num_queries(15):  # the organiser sees the chief referee's sheets too: two of them
        response = client.get(HOME)
    assert response.status_code == 200 and response.content.decode().count("Follow Round 1 and close it") == events
    assert response.content.decode().count("invites you to work there") == events - 1


# --- what needs each role now ---------------------------------------------------------------------------------

def event_item(text: str, event) -> str:
    """The part of My work about one event (its list item)."""
    start = text.index(f'data-event-work="{event.pk}"')
    end = text.find("data-event-work=", start + 1)
    return text[start:end if end != -1 else len(text)]


def checkin_event(festival, *, opens_in: dt.timedelta, lasts=dt.timedelta(hours=1), registered=0, arrived=0,
                  **fields) -> Event:
    """An event of `festival` whose check-in opens `opens_in` from now (negative: it has opened)."""
    now = timezone.now().replace(microsecond=0)
    opens = now + opens_in
    event = make_event(festival, start=opens + lasts, checkin_opens_at=opens, checkin_closes_at=opens + lasts,
                       **fields)
    for index in range(registered):
        make_registration(event, checked_in_at=now if index < arrived else None)
    return event


def test_the_desk_sees_per_event_whether_check_in_is_open_and_how_many_are_missing(client, db):
    festival = make_festival()
    tomorrow = checkin_event(festival, opens_in=dt.timedelta(hours=20), registered=3)
    later = checkin_event(festival, opens_in=dt.timedelta(hours=3), registered=2)
    closed = checkin_event(festival, opens_in=-dt.timedelta(hours=2), registered=4, arrived=3)
    now_open = checkin_event(festival, opens_in=-dt.timedelta(minutes=30), registered=5, arrived=2)
    desk = make_staff(festival, "desk")
    text = page(client, desk)

    item = event_item(text, now_open)
    assert 'data-desk-state="open"' in item and "Check-in open now" in item and "3 missing" in item
    closes = timezone.localtime(now_open.checkin_closes_at, festival.tzinfo).strftime("%H:%M")
    assert f"until {closes}" in item
    item = event_item(text, later)
    opens = timezone.localtime(later.checkin_opens_at, festival.tzinfo).strftime("%H:%M")
    assert 'data-desk-state="later"' in item and f"Check-in opens at {opens}" in item and "2 registered" in item
    item = event_item(text, closed)
    assert 'data-desk-state="closed"' in item and "Check-in closed" in item and "1 missing" in item
    assert 'data-desk-state="later"' in event_item(text, tomorrow)
    # The event checking in now comes first, though it starts last; those that need nothing now follow in order.
    order = [text.index(f'data-event-work="{event.pk}"') for event in (now_open, closed, later, tomorrow)]
    assert order.index(min(order)) == 0 and order[1:] == sorted(order[1:])
    # Its desk button stands out; the others' do not.
    assert f'class="btn btn-primary btn-tap" href="{event_url("desk", now_open)}"' in text
    assert f'class="btn btn-outline-secondary btn-tap" href="{event_url("desk", later)}"' in text


def test_the_desk_is_told_when_late_places_wait_for_it(client, db):
    festival = make_festival()
    event = checkin_event(festival, opens_in=-dt.timedelta(hours=2), registered=2, arrived=1, capacity=2)
    make_registration(event, status=Registration.Status.WAITLISTED)
    Event.objects.filter(pk=event.pk).update(late_places_opened_at=timezone.now())
    item = event_item(page(client, make_staff(festival, "desk")), event)
    assert 'data-desk-state="closed"' in item and 'data-needs-now="1"' in item
    assert event_url("desk-late-places", event) in item


def submit(stage, table, values, *, game=1):
    return submit_sheet(stage=stage, game=game, table_number=table, accept_warnings=True,
                        entry=entry_for(stage, game, table, values), idempotency_key=key(), actor=LINK,
                        via="link")


def test_the_chief_referee_sees_sheets_waiting_problems_and_the_round_in_play(client, stage):
    festival = stage.event.festival
    quiet = make_event(festival, start=stage.event.starts_at - dt.timedelta(hours=3))  # earlier, nothing to do
    submit(stage, 1, [0, 10, 20, 30])
    submit(stage, 2, [0, 120, 20, 30])  # a rack over 100: a warning the referee accepted
    chief = make_staff(festival, "chief referee")
    text = page(client, chief)
    item = event_item(text, stage.event)
    assert "2 sheets waiting for confirmation" in item and "1 with warnings" in item
    assert "Round 1" in item and "game 1 of 3" in item and 'data-waiting="2"' in item
    assert f'class="btn btn-primary btn-tap" href="{event_url("board", stage.event)}"' in item
    assert "No round is being played" in event_item(text, quiet)
    assert text.index(f'data-event-work="{stage.event.pk}"') < text.index(f'data-event-work="{quiet.pk}"')


def test_the_chief_referee_follows_the_game_being_played(client, stage):
    play_game(stage, 1, chief_of(stage.event), random.Random(1))
    item = event_item(page(client, make_staff(stage.event.festival, "chief referee")), stage.event)
    assert "game 2 of 3" in item and "No sheet waiting" in item and 'data-waiting="0"' in item


def test_a_referee_before_the_first_draw_is_told_tables_appear_after_it(client, db):
    event = open_event()
    referee = make_staff(event.festival, "referee")
    item = event_item(page(client, referee), event)
    assert "Your tables appear here once the draw is released" in item


def test_a_referee_without_a_table_after_the_draw_is_told_where_to_find_one(client, stage):
    referee = make_staff(stage.event.festival, "referee")
    item = event_item(page(client, referee), stage.event)
    assert "Your tables appear here once the draw is released" not in item
    assert "No table of this event is given to you" in item
    RefereeAssignment.objects.create(event=stage.event, table_number=2, referee=referee)
    assert "No table of this event is given to you" not in event_item(page(client, referee), stage.event)


@pytest.mark.parametrize("events", [1, 6])
def test_the_desk_and_chief_referee_see_every_event_in_the_same_queries(client, db, events,
                                                                        django_assert_max_num_queries):
    festival = make_festival()
    person = make_staff(festival, "desk")
    for role in ("chief referee", "referee"):
        StaffRole.objects.create(festival=festival, user=person, role=role)
    for index in range(events):
        stage = released_stage(8)
        Event.objects.filter(pk=stage.event.pk).update(festival=festival)
        submit(stage, 1, [0, 10, 20, 30 + index])
        make_registration(stage.event)
        checkin_event(festival, opens_in=-dt.timedelta(minutes=10), registered=2, arrived=1)
    client.force_login(person)
    with django_assert_max_num_queries(13):
        response = client.get(HOME)
    text = response.content.decode()
    assert text.count("1 sheet waiting for confirmation") == events
    assert text.count('data-desk-state="open"') == events


def test_the_first_organiser_is_told_how_to_start_not_to_ask_an_organiser(client, db):
    founder = User.objects.create_user("founder", password="pw-for-tests-only")
    founder.user_permissions.add(Permission.objects.get(codename="organise_festivals"))
    text = page(client, founder)
    assert "Ask the organiser" not in text
    assert "Start with <strong>New festival</strong>" in text and reverse("manage-festival-new") in text
    newcomer = User.objects.create_user("newcomer", password="pw-for-tests-only")
    assert "Ask the organiser to add you" in page(client, newcomer)
