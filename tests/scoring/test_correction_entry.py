"""The chief referee's correction is the referee's own entry (the same fields, tile pad and live check) plus a
reason (R9: every change after submission keeps who, when, before, after and why); sheets.correct_sheet
stays the one path that records it."""

import re

import pytest
from django.urls import reverse

from scoring.models import ScoreSheet
from scoring.services.sheets import confirm_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import text
from tests.scoring.test_board import correction_post, submit
from tests.scoring.test_board_word import correction_post as word_correction_post
from tests.scoring.test_board_word import submit as word_submit
from tournament.models import AuditEntry, Event
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
S = ScoreSheet.Status


def url(name, stage, sheet):
    return reverse(name, kwargs={"festival": stage.event.festival.slug, "event": stage.event.slug,
                                 "sheet_id": sheet.pk})


def seat_check(html: str, position: int) -> str:
    """What the page shows at one seat's card: its result, its field errors and its problems."""
    match = re.search(rf'<div id="seat-{position}-check"[^>]*>(.*?)</div>', html, re.S)
    return match.group(1) if match else ""


@pytest.fixture
def confirmed(stage, chief, client):
    sheet = submit(stage, 1, [0, 11, 22, 33])
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    return sheet


def test_the_correction_page_is_the_referees_entry_with_the_tile_pad_and_the_live_check(client, stage, confirmed):
    html = text(client.get(url("board-correct", stage, confirmed)))
    assert 'class="card mb-3 sheet-seat" data-seat="2"' in html  # the referee's seat cards
    assert 'data-tile="R5"' in html and 'id="tile-pad"' in html
    assert f'hx-post="{url("board-correct-check", stage, confirmed)}"' in html and 'id="sheet-check"' in html
    assert 'name="s2_rack_value"' in html and 'value="11"' in html and 'name="reason"' in html
    assert "js/sheet.js" in html and "data-draft-scope" not in html  # no draft kept on the chief's phone


def test_a_correction_through_the_entry_records_before_after_and_the_reason(client, stage, confirmed):
    response = client.post(url("board-correct", stage, confirmed),
                           correction_post(confirmed, s2_rack_value="15", reason="seat 2 recounted: 15"))
    new = ScoreSheet.objects.get(corrects=confirmed)
    assert response.status_code == 302 and response.url == url("board-sheet", stage, new)
    confirmed.refresh_from_db()
    assert confirmed.status == S.SUPERSEDED and new.status == S.CONFIRMED and new.reason == "seat 2 recounted: 15"
    entry = AuditEntry.objects.get(action="sheet.corrected")
    assert entry.reason == "seat 2 recounted: 15" and entry.target_id == new.pk
    before = {seat["position"]: seat["score"] for seat in entry.before["seats"]}
    after = {seat["seat"]: seat["score"] for seat in entry.after["seats"]}
    assert before[2] == "-11.00" and after[2] == "-15.00" and before[1] != after[1]


def test_an_invalid_correction_shows_the_problems_at_the_fields_and_changes_nothing(client, stage, confirmed):
    response = client.post(url("board-correct", stage, confirmed), correction_post(confirmed, s3_jokers="-5"))
    html = text(response)
    assert response.status_code == 400 and "Please correct the marked fields." in html
    assert "Jokers: Ensure this value is greater than or equal to 0." in seat_check(html, 3)
    assert seat_check(html, 2).strip() == ""
    response = client.post(url("board-correct", stage, confirmed), correction_post(confirmed, s2_tiles="Q99"))
    html = text(response)
    assert response.status_code == 400 and "These tiles cannot be read" in seat_check(html, 2)
    response = client.post(url("board-correct", stage, confirmed), correction_post(confirmed, reason=""))
    assert response.status_code == 400 and 'id="reason-errors"' in text(response)
    confirmed.refresh_from_db()
    assert confirmed.status == S.CONFIRMED and not ScoreSheet.objects.filter(corrects=confirmed).exists()
    assert not AuditEntry.objects.filter(action="sheet.corrected").exists()


def test_the_live_check_judges_the_entry_without_the_reason_and_saves_nothing(client, stage, confirmed):
    data = correction_post(confirmed, s2_rack_value="15")
    del data["reason"]
    html = text(client.post(url("board-correct-check", stage, confirmed), data))
    assert 'class="sheet-check"' in html and "No problems found." in html and "sheet-total" in html
    assert 'id="seat-2-check"' in html and 'hx-swap-oob="true"' in html
    assert "-15" in seat_check(html, 2)
    html = text(client.post(url("board-correct-check", stage, confirmed), {**data, "s2_tiles": "Q99"}))
    assert "These tiles cannot be read" in seat_check(html, 2)
    assert ScoreSheet.objects.filter(stage=stage).count() == 1


@pytest.mark.parametrize("who", [None, "referee", "desk"])
def test_the_live_check_of_a_correction_is_for_the_chief_referee_only(client, stage, confirmed, who):
    client.logout()
    if who:
        client.force_login(make_staff(stage.event.festival, who))
    response = client.post(url("board-correct-check", stage, confirmed), correction_post(confirmed))
    assert response.status_code == (302 if who is None else 403)
    assert "sheet-check" not in text(response)


def test_a_word_correction_gets_the_live_check_too(client):
    stage = released_stage(8, game=Event.Game.WORD)
    chief = make_staff(stage.event.festival, "chief referee")
    sheet = word_submit(stage)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    client.force_login(chief)
    html = text(client.get(url("board-correct", stage, sheet)))
    assert f'hx-post="{url("board-correct-check", stage, sheet)}"' in html and 'id="word-check"' in html
    check = text(client.post(url("board-correct-check", stage, sheet), word_correction_post(sheet)))
    assert "word-check" in check and "No problems found." in check
