import pytest
from django.core.management import CommandError, call_command

from scoring.models import ScoreSheet
from tournament.models import Festival

pytestmark = pytest.mark.django_db


def test_finished_demo_events_load_once():
    call_command("load_demo_results", "--force")
    call_command("load_demo_results", "--force")
    festival = Festival.objects.get(slug="demo-results")
    assert festival.events.count() == 2
    for event in festival.events.all():
        last = event.stages.order_by("number").last()
        assert ScoreSheet.objects.filter(stage=last, status="confirmed").exists()


def test_refused_outside_development_without_force(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("load_demo_results")
    assert not Festival.objects.filter(slug="demo-results").exists()
