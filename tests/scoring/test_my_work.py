"""My work: each role's direct links (scoring/my_work.py), and the organiser's next step in the day."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.models import RefereeAssignment
from scoring.my_work import next_step
from tests.factories import (
    make_event,
    make_festival,
    make_registration,
    make_staff,
    open_event,
    released_stage,
)
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
    with django_assert_max_num_queries(13):
        response = client.get(HOME)
    assert response.status_code == 200 and response.content.decode().count("Follow Round 1 and close it") == events
    assert response.content.decode().count("invites you to work there") == events - 1
