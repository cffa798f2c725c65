"""Rummikub Word events (R10) through the same sheets, confirmation, standings, exports and referee
pages as classic events: the R10 examples scored by the service, jokers left, the referee's overrule of a
dictionary miss, impossible letters refused, the turn-by-turn referee page and the simulated event."""

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from scoring.exports import event_export
from scoring.games.word import WordEntry, WordTurnEntry
from scoring.models import ScoreSheet, TableLink, WordTurn
from scoring.services.sheets import SheetExists, SheetRefused, confirm_sheet, correct_sheet, submit_sheet
from scoring.simulation import simulate_word
from scoring.standings import event_standings
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, key
from tournament.models import AuditEntry, Event, Festival
from tournament.services import seating
from tournament.services.audit import Actor

pytestmark = [pytest.mark.django_db, pytest.mark.stage_of(game=Event.Game.WORD)]

REFEREE = Actor(label="table 1 link")

# Seat 1's first placement (6+ letters, R10), seat 2's, then the turn under test.
OPENING = [WordTurnEntry(seat=1, words="PLANET"), WordTurnEntry(seat=2, words="GARDEN")]


def seats_of(stage, table=1, game=1):
    return seating.seats(seating.game_draw(stage, game), table=table)


def submit(stage, turns, jokers=None, *, table=1, game=1, accept=False, idem=None, end="went_out"):
    return submit_sheet(stage=stage, game=game, table_number=table,
                        entry=WordEntry(end=end, turns=tuple(turns), jokers_left=jokers or {}),
                        accept_warnings=accept, idempotency_key=idem or key(), actor=REFEREE, via=REFEREE.label)


def scores(sheet) -> dict[int, tuple[int, bool]]:
    return {line.position: (int(line.score), line.win) for line in sheet.seats.all()}


# --- the R10 examples through the service ----------------------------------------------------------------

def test_dis_plus_appear_scores_disappear_9_points_r10(stage):
    sheet = submit(stage, [*OPENING, WordTurnEntry(seat=3, words="DISAPPEAR")], accept=True)
    turns = list(sheet.word_turns.all())
    assert [(t.position, t.words, t.points) for t in turns] == [(1, "PLANET", 6), (2, "GARDEN", 6),
                                                              (3, "DISAPPEAR", 9)]
    assert scores(sheet)[3] == (9, True)
    assert scores(sheet)[1] == (6, False)


def test_disappear_using_all_tiles_scores_double_18_r10(stage):
    turns = [*OPENING, WordTurnEntry(seat=3, words="BRIDGE"), WordTurnEntry(seat=4, words="CASTLE"),
             WordTurnEntry(seat=1, words="DISAPPEAR", used_all_tiles=True)]
    sheet = submit(stage, turns, accept=True)
    assert sheet.word_turns.get(index=5).points == 18
    assert scores(sheet)[1] == (6 + 18, True)
    line = sheet.seats.get(position=1)
    assert line.went_out and not sheet.seats.filter(went_out=True).exclude(position=1).exists()


def test_lap_chip_ear_scores_the_longest_word_4_r10(stage):
    sheet = submit(stage, [*OPENING, WordTurnEntry(seat=3, words="SILVER"),
                           WordTurnEntry(seat=4, words="MARKET"), WordTurnEntry(seat=1, words="LAP CHIP EAR")],
                   accept=True)
    turn = sheet.word_turns.get(index=5)
    assert (turn.words, turn.points) == ("LAP CHIP EAR", 4)
    assert scores(sheet)[1] == (10, True) and scores(sheet)[2] == (6, False)


def test_each_joker_left_costs_30_and_is_the_penalty(stage):
    sheet = submit(stage, [*OPENING, WordTurnEntry(seat=3, words="DISAPPEAR")], {2: 1, 4: 1}, accept=True)
    line = sheet.seats.get(position=2)
    assert (int(line.score), line.jokers, int(line.penalty)) == (6 - 30, 1, 30)
    assert int(sheet.seats.get(position=4).score) == -30
    assert int(sheet.seats.get(position=1).penalty) == 0


def test_a_dictionary_miss_is_a_warning_the_referee_must_accept(stage):
    turns = [*OPENING, WordTurnEntry(seat=3, words="BLORPTAN")]
    with pytest.raises(SheetRefused) as refused:
        submit(stage, turns)
    assert refused.value.code == "warnings"
    codes = {p["code"] for p in refused.value.judgement.warnings}
    assert "not_in_dictionary" in codes
    assert not ScoreSheet.objects.exists()
    sheet = submit(stage, turns, accept=True)
    assert any(w["code"] == "not_in_dictionary" and w["word"] == "BLORPTAN" for w in sheet.warnings)
    assert sheet.word_turns.get(index=3).points == 8


def test_impossible_letters_are_refused_even_when_warnings_are_accepted(stage):
    with pytest.raises(SheetRefused) as refused:
        submit(stage, [*OPENING, WordTurnEntry(seat=3, words="QQQQ")], accept=True)
    assert refused.value.code == "errors"
    assert "impossible_letters" in {p["code"] for p in refused.value.judgement.errors}
    assert not ScoreSheet.objects.exists() and not WordTurn.objects.exists()


def test_a_short_first_placement_and_unreadable_words_are_errors(stage):
    with pytest.raises(SheetRefused) as short:
        submit(stage, [WordTurnEntry(seat=1, words="CAT")], accept=True)
    assert "first_placement_too_short" in {p["code"] for p in short.value.judgement.errors}
    with pytest.raises(SheetRefused) as bad:
        submit(stage, [WordTurnEntry(seat=1, words="CAFÉ<script>")], accept=True)
    assert [p["code"] for p in bad.value.judgement.errors] == ["bad_word"]


def test_a_turn_for_a_seat_not_at_the_table_is_refused(stage):
    from tournament.services.errors import ServiceError

    with pytest.raises(ServiceError):
        submit(stage, [WordTurnEntry(seat=7, words="PLANET")], accept=True)
    assert not ScoreSheet.objects.exists()


def test_the_same_key_records_one_sheet_and_a_second_sheet_for_the_table_is_refused(stage):
    idem = key()
    first = submit(stage, [*OPENING], idem=idem, accept=True)
    assert submit(stage, [*OPENING], idem=idem, accept=True) == first
    with pytest.raises(SheetExists):
        submit(stage, [*OPENING], accept=True)
    assert AuditEntry.objects.filter(action="sheet.submitted").count() == 1


def test_confirmation_and_correction_work_on_word_sheets(stage):
    sheet = submit(stage, [*OPENING, WordTurnEntry(seat=3, words="DISAPPEAR")], accept=True)
    confirm_sheet(sheet=sheet, actor=chief_of(stage.event))
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.CONFIRMED
    new = correct_sheet(sheet=sheet, entry=WordEntry(end="went_out", turns=(*OPENING, WordTurnEntry(seat=3, words="APPEAR"))),
                        reason="misheard", accept_warnings=True, idempotency_key=key(), actor=chief_of(stage.event))
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.SUPERSEDED and new.status == ScoreSheet.Status.CONFIRMED
    assert new.version == 2 and scores(new)[3] == (6, True)
    assert list(new.word_turns.values_list("points", flat=True)) == [6, 6, 6]


# --- standings and exports read Word sheets unchanged -----------------------------------------------------

def test_standings_rank_word_players_by_wins_then_points(stage):
    chief = chief_of(stage.event)
    # Game 1: seat 3 wins with 9; game 2: seat 3 wins again with 7; seat 1 has the most points overall.
    game1 = submit(stage, [WordTurnEntry(seat=1, words="PLANET"), WordTurnEntry(seat=2, words="GARDEN"),
                           WordTurnEntry(seat=3, words="DISAPPEAR")], accept=True)
    game2 = submit(stage, [WordTurnEntry(seat=1, words="SILVER"), WordTurnEntry(seat=2, words="MARKET"),
                           WordTurnEntry(seat=3, words="ORANGES")], game=2, accept=True)
    for sheet in (game1, game2):
        confirm_sheet(sheet=sheet, actor=chief)
    seats = {s.position: s.registration_id for s in seats_of(stage)}
    order = [line.player for line in event_standings(stage.event).lines if line.player in seats.values()]
    # Seat 3: 2 wins; seats 1, 2: 0 wins and 12 points; seat 4: 0 wins and 0 points.
    assert order[0] == seats[3]
    assert order[-1] == seats[4]
    lines = {line.player: line for line in event_standings(stage.event).lines}
    assert (lines[seats[3]].wins, int(lines[seats[3]].total)) == (2, 16)
    assert (lines[seats[1]].wins, int(lines[seats[1]].total)) == (0, 12)


def test_the_json_export_gives_the_turns_of_a_confirmed_word_sheet(stage):
    sheet = submit(stage, [*OPENING, WordTurnEntry(seat=3, drew=True),
                           WordTurnEntry(seat=4, words="LAP CHIP EAR")], {1: 1}, accept=True)
    confirm_sheet(sheet=sheet, actor=chief_of(stage.event))
    data = json.loads(json.dumps(event_export(stage.event), default=str))
    table = data["stages"][0]["games"][0]["tables"][0]
    assert table["turns"] == [
        {"seat": 1, "words": ["PLANET"], "drew": False, "used_all_tiles": False, "points": 6},
        {"seat": 2, "words": ["GARDEN"], "drew": False, "used_all_tiles": False, "points": 6},
        {"seat": 3, "words": [], "drew": True, "used_all_tiles": False, "points": 0},
        {"seat": 4, "words": ["LAP", "CHIP", "EAR"], "drew": False, "used_all_tiles": False, "points": 4},
    ]
    seat1 = table["seats"][0]
    assert (seat1["jokers"], seat1["score"], seat1["win"]) == (1, -24, False)


def test_a_classic_export_has_no_turns():
    stage = released_stage(4)
    data = event_export(stage.event)
    assert all("turns" not in t for s in data["stages"] for g in s["games"] for t in g["tables"])


# --- the referee's pages ---------------------------------------------------------------------------------

def game_url(link, game=1, preview=False):
    return f"/t/{link.token}/stage-1/game/{game}/" + ("preview/" if preview else "")


def word_post(turns, *, rows=12, jokers=None, action="submit", accept=False, idem=None, end="went_out"):
    """The POST the Word form sends: `turns` are (seat, words, drew, used_all) for the first rows."""
    data = {"idempotency_key": idem or key(), "rows": str(rows), "end": end, "action": action}
    for i in range(rows):
        seat, words, drew, used_all = turns[i] if i < len(turns) else (1, "", False, False)
        data[f"t{i}_seat"] = str(seat)
        data[f"t{i}_words"] = words
        if drew:
            data[f"t{i}_drew"] = "on"
        if used_all:
            data[f"t{i}_used_all"] = "on"
    for position in range(1, 5):
        data[f"j{position}_jokers"] = str((jokers or {}).get(position, 0))
    if accept:
        data["accept_warnings"] = "on"
    return data


def test_the_word_game_page_shows_turn_rows_with_the_next_player_by_default(client, stage, link):
    response = client.get(game_url(link))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Rummikub Word" in page and 'name="t11_words"' in page and 'name="t12_words"' not in page
    assert "word-sheet.js" in page and 'name="j4_jokers"' in page
    # Row 6 (index 5) defaults to seat 2: seat order repeats.
    row = page[page.index('name="t5_seat"'):page.index('name="t5_words"')]
    assert 'value="2" selected' in row
    assert "Tiles left on the rack" not in page  # not the classic form


def test_more_rows_without_javascript_re_renders_with_more_rows_and_keeps_what_was_typed(client, stage, link):
    response = client.post(game_url(link), word_post([(1, "PLANET", False, False)], action="more"))
    page = response.content.decode()
    assert response.status_code == 200
    assert 'name="t19_words"' in page and 'value="PLANET"' in page
    assert not ScoreSheet.objects.exists()


def test_the_live_check_shows_running_totals(client, stage, link):
    data = word_post([(1, "PLANET", False, False), (2, "GARDEN", False, False), (3, "DISAPPEAR", False, False),
                      (4, "", True, False), (1, "LAP CHIP EAR", False, False)])
    response = client.post(game_url(link, preview=True), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Running totals" in page and "DISAPPEAR" in page
    assert 'data-seat="1">10<' in page and 'data-seat="3">9<' in page


def test_the_referee_submits_a_word_sheet_from_the_page(client, stage, link):
    data = word_post([(1, "PLANET", False, False), (2, "GARDEN", False, False),
                      (3, "DISAPPEAR", False, True)], rows=12)
    response = client.post(game_url(link), data)
    assert response.status_code == 200  # the 3-letter first placement "used all tiles" is an error
    assert not ScoreSheet.objects.exists()
    data = word_post([(1, "PLANET", False, False), (2, "GARDEN", False, False), (3, "DISAPPEAR", False, False),
                      (4, "CASTLE", False, False), (1, "LAP CHIP EAR", False, True)], jokers={2: 1})
    response = client.post(game_url(link), data)
    assert response.status_code == 302
    sheet = ScoreSheet.objects.get()
    assert scores(sheet) == {1: (14, True), 2: (-24, False), 3: (9, False), 4: (6, False)}
    assert sheet.word_turns.count() == 5
    page = client.get(game_url(link)).content.decode()
    assert "LAP CHIP EAR" in page and "waiting for the chief referee" in page


def test_the_page_asks_to_accept_a_dictionary_miss_then_sends(client, stage, link):
    turns = [(1, "PLANET", False, False), (2, "GARDENZZQ", False, False)]
    response = client.post(game_url(link), word_post(turns))
    assert response.status_code == 200 and "Not in the dictionary" in response.content.decode()
    assert not ScoreSheet.objects.exists()
    assert client.post(game_url(link), word_post(turns, accept=True)).status_code == 302
    assert ScoreSheet.objects.count() == 1


@pytest.mark.parametrize("change", [
    {"rows": "999999999"}, {"rows": "-5"}, {"rows": "abc"}, {"t0_seat": "9"}, {"t0_seat": "x"},
    {"t0_words": "A" * 5000}, {"t0_words": "<b>DROP TABLE</b>"}, {"j1_jokers": "99999999999999"},
    {"j1_jokers": "-1"}, {"end": "nobody"}, {"idempotency_key": "not-a-key"}, {"t0_drew": "on"},
    {"action": "more", "rows": "100000"}, {"t0_words": "\x00\x01"},
])
def test_hostile_input_never_breaks_the_word_page(client, stage, link, change):
    data = word_post([(1, "PLANET", False, False), (2, "GARDEN", False, False)], accept=True)
    data.update(change)
    for url in (game_url(link), game_url(link, preview=True)):
        response = client.post(url, data)
        assert response.status_code in (200, 302)
    if ScoreSheet.objects.exists():  # only harmless changes may be accepted
        assert set(WordTurn.objects.values_list("position", flat=True)) <= {1, 2, 3, 4}


def test_the_classic_page_is_unchanged_for_a_classic_event(client):
    classic = released_stage(8)
    link = TableLink.objects.create(event=classic.event, table_number=1)
    page = client.get(game_url(link)).content.decode()
    assert "Tiles left on the rack" in page and "t0_words" not in page


# --- simulate_event --game word --------------------------------------------------------------------------

def test_a_simulated_12_player_word_event_has_one_confirmed_sheet_per_table_per_game():
    call_command("simulate_event", "--format", "busan", "--game", "word", "--players", "12", "--seed", "4",
                 stdout=StringIO())
    event = Event.objects.get(game=Event.Game.WORD)
    assert event.registrations.count() == 12
    stages = list(event.stages.order_by("number"))
    assert stages and all(stage.closed_at for stage in stages[:-1])
    for stage in stages:
        for game in range(1, stage.games + 1):
            draw = seating.game_draw(stage, game)
            tables = draw.tables.count()
            assert 2 <= min(Counter(draw.seats.values_list("table__number", flat=True)).values())
            per_table = Counter(ScoreSheet.objects.filter(stage=stage, game=game, status=ScoreSheet.Status.CONFIRMED)
                                .values_list("table_number", flat=True))
            assert sorted(per_table) == list(range(1, tables + 1)) and set(per_table.values()) == {1}
    assert WordTurn.objects.filter(sheet__stage__event=event).exists()
    assert not ScoreSheet.objects.filter(stage__event=event).exclude(status=ScoreSheet.Status.CONFIRMED).exists()
    # Every sheet's seats hold the totals of its turns (minus 30 per joker left).
    for sheet in ScoreSheet.objects.filter(stage__event=event).prefetch_related("seats", "word_turns"):
        for line in sheet.seats.all():
            points = sum(t.points for t in sheet.word_turns.all() if t.position == line.position)
            assert int(line.score) == points - 30 * line.jokers


def test_simulate_word_is_reproducible():
    first, second = simulate_word(12, 7), simulate_word(12, 7)

    def turns(event):
        return list(WordTurn.objects.filter(sheet__stage__event=event).order_by(
            "sheet__stage__number", "sheet__game", "sheet__table_number", "index").values_list("position", "words"))

    assert turns(first) == turns(second) and turns(first)
    assert Festival.objects.count() == 2


def test_a_word_sheet_cannot_be_submitted_or_corrected_as_a_classic_sheet(stage):
    from scoring.services.sheets import correct_sheet, submit_sheet
    from tests.scoring.helpers import entry_for
    from tournament.services.errors import ServiceError

    with pytest.raises(ServiceError) as submitted:
        submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 5, 5, 5]),
                     accept_warnings=True, idempotency_key=key(), actor=REFEREE, via=REFEREE.label)
    assert submitted.value.code == "word_event"
    sheet = submit(stage, [*OPENING], accept=True)
    confirm_sheet(sheet=sheet, actor=chief_of(stage.event))
    with pytest.raises(ServiceError) as corrected:
        correct_sheet(sheet=sheet, entry=entry_for(stage, 1, 1, [0, 5, 5, 5]), reason="x", accept_warnings=True,
                      idempotency_key=key(), actor=chief_of(stage.event))
    assert corrected.value.code == "word_event"
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.CONFIRMED
