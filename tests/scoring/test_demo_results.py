"""`manage.py load_demo_results`: the demo's games, played once (tests/scoring/test_demo_any_hour.py checks
what every role then finds to do)."""

import datetime as dt
import io
import zoneinfo

import pytest
from django.core.management import CommandError, call_command

from scoring.models import RefereeAssignment, ScoreSheet
from tests.clock import fixed_clock
from tournament.models import AuditEntry, Festival, Stage

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2030, 11, 2, 15, 10, tzinfo=zoneinfo.ZoneInfo("Asia/Seoul"))


def run(command: str) -> str:
    out = io.StringIO()
    call_command(command, "--force", stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.slow
def test_finished_demo_events_load_once():
    run("load_demo_results")
    run("load_demo_results")
    festival = Festival.objects.get(slug="demo-results")
    assert festival.events.count() == 2
    for event in festival.events.all():
        last = event.stages.order_by("number").last()
        assert ScoreSheet.objects.filter(stage=last, status="confirmed").exists()
        assert last.closed_at is not None and event.ranking_points


@pytest.mark.slow
def test_after_load_demo_it_plays_the_past_and_the_live_round_once(monkeypatch):
    fixed_clock(monkeypatch, NOW)
    run("load_demo")
    out = run("load_demo_results")
    assert "/f/busan-2014/rummikub-kids/" in out and "/f/hong-kong-2016/final/" in out
    state = (ScoreSheet.objects.count(), Stage.objects.count(), RefereeAssignment.objects.count(),
             AuditEntry.objects.count())
    fixed_clock(monkeypatch, NOW + dt.timedelta(minutes=20))
    again = run("load_demo_results")
    assert "rummikub-kids" not in again and "hong-kong-2016/final" not in again
    assert (ScoreSheet.objects.count(), Stage.objects.count(), RefereeAssignment.objects.count(),
            AuditEntry.objects.count()) == state


def test_refused_outside_development_without_force(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("load_demo_results")
    assert not Festival.objects.filter(slug="demo-results").exists()


def test_the_club_night_demo_has_player_run_tables_agreed_disputed_and_to_enter(db):
    from scoring.models import ScoreSheet
    from scoring.services.agreement import DISPUTED, WAITING, agreements
    from scoring.simulation.demo import club_night

    event, created = club_night()
    assert created and event.sheets_by == event.SheetsBy.PLAYERS and event.slug == "club-night"
    sheets = list(ScoreSheet.objects.filter(stage__event=event).select_related("stage__event").order_by("table_number"))
    found = agreements(sheets, event)
    assert [(s.table_number, found[s.pk].state, found[s.pk].agreed) for s in sheets] == [
        (1, WAITING, 3), (2, DISPUTED, 2)]
    assert club_night() == (event, False)
