"""The demo tells the truth at any hour: `load_demo` then `load_demo_results` (as `make run` does), at three
times of day with the clock fixed, leave every role something to do right now.

The hour decides the demo's state (its events are laid out around it, across midnight at night), so each hour
loads the demo once and every check below reads that load, each inside a savepoint rolled back after it: the
checks that register or check someone in leave the next one the demo as loaded. One load per hour rather than
one per check and hour: loading is nearly all of the time, and the checks cannot tell the difference."""

import datetime as dt
import io
import traceback
import zoneinfo

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation

from public import rendered
from public.snapshot import forget_snapshots
from scoring.models import RefereeAssignment, ScoreSheet
from scoring.my_work import my_work
from scoring.results.event import event_results
from tests.clock import fixed_clock
from tournament.models import Event, Registration
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.checkin import check_in
from tournament.services.registration import PlayerDetails, register, register_existing_player

pytestmark = pytest.mark.django_db

SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")
HOURS = [dt.time(3, 0), dt.time(12, 30), dt.time(22, 0)]
DAY = dt.date(2030, 11, 2)
TESTER = Actor(label="test")


def load_demo_at(hour: dt.time, monkeypatch) -> dt.datetime:
    """The demo loaded at this time of day in Seoul; returns a few minutes later, when every page is read."""
    loaded = dt.datetime.combine(DAY, hour, tzinfo=SEOUL)
    fixed_clock(monkeypatch, loaded)
    for command in ("load_demo", "load_demo_results"):
        call_command(command, "--force", stdout=io.StringIO(), stderr=io.StringIO())
    later = loaded + dt.timedelta(minutes=5)
    fixed_clock(monkeypatch, later)
    return later


def event(festival: str, slug: str) -> Event:
    return Event.objects.select_related("festival").get(festival__slug=festival, slug=slug)


def url(name: str, evt: Event, **kwargs) -> str:
    return reverse(name, kwargs={"festival": evt.festival.slug, "event": evt.slug, **kwargs})


def signed_in(client, username: str):
    client.force_login(User.objects.get(username=username))
    return client


def a_newcomer_can_register_for_the_word_event_but_a_main_event_player_clashes(now, client):
    """R9: the open event overlaps the main event, so its players are refused with a reason."""
    word, main = event("busan-2014", "rummikub-word"), event("busan-2014", "rummikub")
    assert word.registration_is_open(now) and now < word.starts_at
    assert client.get(url("event-register", word)).status_code == 200
    details = PlayerDetails(name="새 참가자", contact="010-1234-5678", birth_year=1990)
    registration = register(event=word, details=details, actor=TESTER)
    assert registration.status == Registration.Status.REGISTERED
    player = main.registrations.filter(status=Registration.Status.REGISTERED).first().player
    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=word, player=player, actor=TESTER)
    assert refused.value.code == "clash"


def the_desk_has_check_in_to_do_and_can_do_it(now, client):
    main = event("busan-2014", "rummikub")
    assert main.checkin_opens_at <= now < main.checkin_closes_at and main.checkin_is_open(now)
    waiting = main.registrations.filter(status=Registration.Status.REGISTERED, checked_in_at__isnull=True)
    here = main.registrations.filter(checked_in_at__isnull=False)
    assert waiting.count() > 40 and here.count() > 40
    assert all(r.checked_in_at <= now for r in here)
    assert url("desk", main) in signed_in(client, "desk").get("/manage/").content.decode()
    assert client.get(url("desk", main)).status_code == 200
    assert check_in(registration=waiting.first(), actor=TESTER).checked_in_at == now


def the_live_round_has_sheets_for_the_chief_and_tables_for_the_referee(now, client):
    """R8.2: game 1 is confirmed and game 2 seated; some of its sheets confirmed, some waiting, some not in."""
    final = event("hong-kong-2016", "final")
    assert final.starts_at <= now < final.ends_at
    stage = final.stages.get()
    assert stage.closed_at is None
    # The round clock counts from the release: the round began when the event did, not when the demo loaded.
    assert stage.draws.get(game=1).released_at == final.starts_at
    sheets = ScoreSheet.objects.filter(stage=stage, game=2)
    assert sheets.filter(status=ScoreSheet.Status.CONFIRMED).count() == 6
    waiting = sheets.filter(status=ScoreSheet.Status.SUBMITTED)
    assert waiting.count() == 5
    board = signed_in(client, "chief").get(url("board", final)).content.decode()
    assert url("board", final) in client.get("/manage/").content.decode()
    assert all(url("board-sheet", final, sheet_id=s.pk) in board for s in waiting)

    referee = User.objects.get(username="referee")
    tables = set(RefereeAssignment.objects.filter(referee=referee, event=final, ended_at__isnull=True)
                 .values_list("table_number", flat=True))
    assert tables and not sheets.filter(table_number__in=tables).exists()
    text = signed_in(client, "referee").get("/manage/").content.decode()
    for table in tables:
        card = reverse("referee-table", kwargs={"stage_id": stage.pk, "table": table})
        assert card in text
        assert client.get(card).status_code == 200


def the_organiser_has_a_next_step_in_every_event(now, client):
    work, _assignments = my_work(User.objects.get(username="organiser"))
    steps = {(w.event.festival.slug, w.event.slug): w.next_step.label for f in work for w in f.events}
    assert steps[("busan-2014", "rummikub")] == "Close check-in"
    assert steps[("busan-2014", "rummikub-word")] == "Registrations"
    assert steps[("busan-2014", "rummikub-kids")] == "Results"
    assert steps[("hong-kong-2016", "final")].startswith("Follow ")
    assert {s for (festival, _e), s in steps.items() if festival == "demo-results"} == {"Results"}


def finished_events_show_final_results_with_ranking_points_and_certificates(now, client):
    """R7, R9: final places, the podium's certificates, ranking points (none for under-15s where R9 holds)."""
    finished = [event("busan-2014", "rummikub-kids"), *Event.objects.filter(festival__slug="demo-results")]
    assert len(finished) == 3
    for evt in finished:
        assert evt.ends_at <= now and not evt.registration_is_open(now)
        results = event_results(evt)
        assert results.final and results.settled and results.event.ranking_points
        page = client.get(url("results", evt)).content.decode()
        assert "not final" not in page
        assert results.rows[0].registration.player.name in client.get(url("results-print", evt)).content.decode()
    for evt in finished[1:]:
        granted = [row.ranking_points for row in event_results(evt).rows if row.ranking_points > 0]
        assert len(granted) >= 5
    kids = event_results(finished[0])
    assert all(row.under_age and row.ranking_points == 0 for row in kids.rows)


CHECKS = [
    a_newcomer_can_register_for_the_word_event_but_a_main_event_player_clashes,
    the_desk_has_check_in_to_do_and_can_do_it,
    the_live_round_has_sheets_for_the_chief_and_tables_for_the_referee,
    the_organiser_has_a_next_step_in_every_event,
    finished_events_show_final_results_with_ranking_points_and_certificates,
]


@pytest.mark.slow
@pytest.mark.parametrize("hour", HOURS, ids=lambda t: t.strftime("%H%M"))
def test_every_role_has_something_to_do_now(hour, monkeypatch):
    now = load_demo_at(hour, monkeypatch)
    failed = []
    for check in CHECKS:
        try:
            with transaction.atomic():
                check(now, Client())
                transaction.set_rollback(True)
        except (Exception, pytest.fail.Exception):  # every check runs; the report names each that failed
            failed.append(f"{check.__name__}:\n{traceback.format_exc()}")
        finally:
            # What the autouse fixtures of tests/conftest.py do between tests: rolled-back ids come back,
            # and ids make cache keys; a page read in Korean leaves Korean active.
            cache.clear()
            forget_snapshots()
            rendered.forget()
            translation.deactivate()
    if failed:
        pytest.fail(f"{len(failed)} of {len(CHECKS)} checks failed at {hour:%H:%M}:\n\n" + "\n".join(failed),
                    pytrace=False)
