"""The chief referee's board for Rummikub Word sheets (R10; R9 confirmation and corrections): the
sheet page lists the turns and each player's total and jokers left; "Correct" on a confirmed Word sheet is
the turn-by-turn form calling sheets.correct_sheet — a new confirmed version, the old one kept."""

import pytest
from django.urls import reverse

from scoring.games.word import WordEntry, WordTurnEntry
from scoring.models import ScoreSheet
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_festival, make_staff, released_stage
from tests.scoring.helpers import key
from tournament.models import Event
from tournament.services.audit import Actor

pytestmark = [pytest.mark.django_db, pytest.mark.stage_of(game=Event.Game.WORD)]  # two tables of 4
LINK = Actor(label="table 1 link")
S = ScoreSheet.Status
TURNS = [WordTurnEntry(seat=1, words="PLANET"), WordTurnEntry(seat=2, words="GARDEN"),
         WordTurnEntry(seat=3, drew=True), WordTurnEntry(seat=4, words="LAP CHIP EAR"),
         WordTurnEntry(seat=1, words="DISAPPEAR", used_all_tiles=True)]


def url(name, stage, sheet):
    return reverse(name, kwargs={"festival": stage.event.festival.slug, "event": stage.event.slug,
                                 "sheet_id": sheet.pk})


def submit(stage, table=1, turns=TURNS, jokers=None):
    return submit_sheet(stage=stage, game=1, table_number=table,
                        entry=WordEntry(end="went_out", turns=tuple(turns), jokers_left=jokers or {2: 1}),
                        accept_warnings=True, idempotency_key=key(), actor=LINK, via=LINK.label)


@pytest.fixture
def confirmed(stage, chief):
    sheet = submit(stage)
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    return sheet


def correction_post(sheet, **changes):
    """The Word correction form as the page posts it, from the sheet's current turns."""
    turns = list(sheet.word_turns.all())
    data = {"idempotency_key": key(), "rows": str(len(turns) + 2), "end": sheet.end, "reason": "wrong word noted"}
    for i, turn in enumerate(turns):
        data.update({f"t{i}_seat": str(turn.position), f"t{i}_words": turn.words})
        if turn.drew:
            data[f"t{i}_drew"] = "on"
        if turn.used_all_tiles:
            data[f"t{i}_used_all"] = "on"
    for line in sheet.seats.all():
        data[f"j{line.position}_jokers"] = str(line.jokers)
    data.update(changes)
    return data


def totals(sheet):
    return {line.position: (int(line.score), line.jokers, line.win) for line in sheet.seats.all()}


# --- permissions --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("who", ["referee", "desk", "other chief referee"])
def test_only_the_festivals_chief_referee_sees_or_corrects_a_word_sheet(client, stage, confirmed, who):
    festival = make_festival() if who.startswith("other") else stage.event.festival
    client.force_login(make_staff(festival, who.replace("other ", "")))
    for response in (client.get(url("board-sheet", stage, confirmed)),
                     client.get(url("board-correct", stage, confirmed)),
                     client.post(url("board-correct", stage, confirmed), correction_post(confirmed))):
        assert response.status_code == 403, who
    assert not ScoreSheet.objects.filter(corrects=confirmed).exists()


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_is_corrected(client, stage, confirmed):
    response = client.post(url("board-correct", stage, confirmed), correction_post(confirmed))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not ScoreSheet.objects.filter(corrects=confirmed).exists()


# --- the sheet page -----------------------------------------------------------------------------------------

def test_sheet_page_lists_every_turn_with_player_words_drew_all_tiles_and_points(client, stage, chief):
    sheet = submit(stage)
    client.force_login(chief)
    html = client.get(url("board-sheet", stage, sheet)).content.decode()
    assert html.count('data-turn="') == 5
    names = {line.position: line.registration.player.name for line in sheet.seats.select_related(
        "registration__player")}
    assert f"1. {names[1]}" in html and f"4. {names[4]}" in html
    assert "<code>LAP CHIP EAR</code>" in html and "<code>DISAPPEAR</code>" in html
    assert "×2" in html  # DISAPPEAR used every tile: 9 doubled (R10)
    assert '<td class="text-end stat">18</td>' in html and '<td class="text-end stat">4</td>' in html
    # Per player: total and jokers left (seat 2 kept one joker: 6 − 30).
    assert "1 joker left" in html and "0 jokers left" in html
    assert 'data-score>-24<' in html and 'data-score>24<' in html  # seat 1: PLANET 6 + DISAPPEAR ×2 18
    assert 'name="s1_rack_value"' not in html  # nothing of the classic sheet


def test_a_classic_sheet_page_shows_no_turn_table(client):
    from scoring.services.sheets import submit_sheet
    from tests.scoring.helpers import entry_for

    stage = released_stage(8)
    client.force_login(make_staff(stage.event.festival, "chief referee"))
    sheet = submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 10, 20, 30]),
                         accept_warnings=True, idempotency_key=key(), actor=LINK, via="link")
    html = client.get(url("board-sheet", stage, sheet)).content.decode()
    assert "data-word-turns" not in html and "went out" in html


def test_sheet_page_query_count_does_not_grow_with_the_turns(client, stage, chief, django_assert_max_num_queries):
    short = submit(stage, 1, TURNS[:2])
    long_turns = TURNS[:2] + [WordTurnEntry(seat=(i % 4) + 1, drew=True) for i in range(2, 60)]
    long = submit(stage, 2, long_turns)
    client.force_login(chief)
    for sheet in (short, long):
        with django_assert_max_num_queries(16):
            assert client.get(url("board-sheet", stage, sheet)).status_code == 200


# --- corrections --------------------------------------------------------------------------------------------

def test_correct_on_a_confirmed_word_sheet_shows_the_word_form_prefilled(client, stage, confirmed, chief):
    client.force_login(chief)
    html = client.get(url("board-correct", stage, confirmed)).content.decode()
    assert 'name="t3_words"' in html and 'value="LAP CHIP EAR"' in html
    assert 'name="j2_jokers"' in html and 'name="reason"' in html and 'name="idempotency_key"' in html
    assert 'name="s1_rack_value"' not in html and 'name="went_out"' not in html


def test_a_correction_makes_a_new_confirmed_version_with_new_turns_and_keeps_the_old(client, stage, confirmed,
                                                                                     chief):
    client.force_login(chief)
    data = correction_post(confirmed, t3_words="LAP CHIP HEART", j2_jokers="0")
    response = client.post(url("board-correct", stage, confirmed), data)
    assert response.status_code == 302
    confirmed.refresh_from_db()
    new = ScoreSheet.objects.get(corrects=confirmed)
    assert response.url == url("board-sheet", stage, new)
    assert confirmed.status == S.SUPERSEDED and new.status == S.CONFIRMED and new.version == 2
    assert new.reason == "wrong word noted"
    assert new.word_turns.get(index=4).points == 5  # HEART is now the longest word
    assert totals(new)[4] == (5, 0, False) and totals(new)[2] == (6, 0, False)
    assert confirmed.word_turns.get(index=4).points == 4 and totals(confirmed)[2] == (-24, 1, False)  # kept
    # A double tap records one correction.
    client.post(url("board-correct", stage, confirmed), data)
    assert ScoreSheet.objects.filter(stage=stage, table_number=1).count() == 2
    html = client.get(url("board-sheet", stage, new)).content.decode()
    assert "version 1" in html and "version 2" in html and "LAP CHIP HEART" in html


def test_a_word_correction_needs_a_reason_and_accepted_warnings_and_errors_block_it(client, stage, confirmed,
                                                                                    chief):
    client.force_login(chief)
    target = url("board-correct", stage, confirmed)
    response = client.post(target, correction_post(confirmed, reason=""))
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    response = client.post(target, correction_post(confirmed, t3_words="BLORPTAN"))
    assert response.status_code == 400 and "BLORPTAN" in response.content.decode()
    response = client.post(target, correction_post(confirmed, t3_words="QQQQ", accept_warnings="on"))
    assert response.status_code == 400
    assert not ScoreSheet.objects.filter(corrects=confirmed).exists()
    response = client.post(target, correction_post(confirmed, t3_words="BLORPTAN", accept_warnings="on"))
    assert response.status_code == 302
    assert ScoreSheet.objects.get(corrects=confirmed).warnings


def test_check_and_more_rows_save_nothing(client, stage, confirmed, chief):
    client.force_login(chief)
    target = url("board-correct", stage, confirmed)
    response = client.post(target, correction_post(confirmed, action="check"))
    assert response.status_code == 200 and "Running totals" in response.content.decode()
    response = client.post(target, correction_post(confirmed, action="more"))
    assert response.status_code == 200 and 'name="t14_words"' in response.content.decode()
    assert not ScoreSheet.objects.filter(corrects=confirmed).exists()


def test_only_a_confirmed_word_sheet_can_be_corrected(client, stage, chief):
    sheet = submit(stage)
    client.force_login(chief)
    response = client.post(url("board-correct", stage, sheet), correction_post(sheet), follow=True)
    assert "Only a confirmed sheet can be corrected." in response.content.decode()
    assert ScoreSheet.objects.filter(stage=stage).count() == 1


@pytest.mark.slow
def test_hostile_input_to_the_word_correction_changes_nothing_and_never_errors(client, stage, confirmed, chief):
    client.force_login(chief)
    target = url("board-correct", stage, confirmed)
    hostile = [
        {"reason": "\x00", "end": "🙂", "rows": "1e309", "idempotency_key": "../../etc", "t0_seat": "99999999999999",
         "t0_words": "<script>" * 100, "j1_jokers": "-5", "j2_jokers": "NaN", "action": "save"},
        correction_post(confirmed, rows="999999999999999999999", action="more"),
        correction_post(confirmed, t0_seat="9"),  # a seat not at this table
        correction_post(confirmed, t0_words="A" * 5000),
        correction_post(confirmed, t0_words="CAFÉ", t0_drew="on"),
        correction_post(confirmed, j3_jokers="99999999999999999999"),
        correction_post(confirmed, idempotency_key="x" * 65),
        correction_post(confirmed, idempotency_key=confirmed.idempotency_key),  # another sheet's key: no takeover
    ]
    for data in hostile:
        response = client.post(target, data)
        assert response.status_code < 500, data
        confirmed.refresh_from_db()
        assert confirmed.status == S.CONFIRMED, data
    assert not ScoreSheet.objects.filter(corrects=confirmed).exists()
    assert ScoreSheet.objects.filter(stage=stage).count() == 1
