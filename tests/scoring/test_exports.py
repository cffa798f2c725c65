"""The event export (docs/export.md): the "rummikub-event/1" shape for whole Busan and Hong Kong events,
only confirmed sheets, numbers with at most two decimals, the command equals the download, constant queries; and
the standings / game-results spreadsheets with headers in the reader's language."""

import io
import json
from decimal import Decimal

import openpyxl
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import translation

from scoring.exports import dumps, event_export, event_json, number, table_file
from scoring.models import ScoreSheet, SheetSeat
from scoring.results.actions import draw_place_lot
from scoring.results.event import event_results
from scoring.services.playoff import create_playoff
from scoring.services.sheets import confirm_sheet, submit_sheet
from scoring.simulation import simulate
from tests.factories import make_event, make_festival, make_staff, released_stage
from tests.scoring.helpers import chief_of, confirm, entry_for, hong_kong, key, played_busan_final, seated
from tournament.models import Event, Player, StageEntry
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db

# --- a small schema check of the documented shape -------------------------------------------------------

INT, STR, BOOL, NUM, LIST, DICT = int, str, bool, "number", list, dict
NULL = type(None)

EVENT_KEYS = {"slug": STR, "name": STR, "format": STR, "ruleset": DICT}
RULESET_KEYS = {"slug": STR, "name": STR, "joker_penalty": INT, "initial_meld_threshold": INT,
                "never_opened_could_not_penalty": INT, "never_opened_could_penalty": INT,
                "knocked_rack_penalty": (INT, NULL), "points": STR, "time_called_scores_as_blocked": BOOL,
                "turn_seconds": INT}
PLAYER_KEYS = {"id": INT, "number": (INT, NULL), "name": STR, "affiliation": STR, "birth_year": INT, "status": STR}
STAGE_KEYS = {"index": INT, "name": STR, "advance": LIST, "games": LIST}
GAME_KEYS = {"index": INT, "tables": LIST}
TABLE_KEYS = {"number": INT, "end": STR, "seats": LIST}
SEAT_KEYS = {"seat": INT, "player": INT, "went_out": BOOL, "tiles": (STR, NULL), "rack_value": (INT, NULL),
             "jokers": INT, "opened": BOOL, "could_open": (BOOL, NULL), "conduct_penalty": BOOL,
             "penalty": NUM, "score": NUM, "win": BOOL}
STANDING_KEYS = {"rank": INT, "player": INT, "games": INT, "wins": INT, "points": NUM}
LOT_KEYS = {"stage": INT, "game": (INT, NULL), "players": LIST, "numbers": DICT, "winner": INT}
PLACE_KEYS = {"place": INT, "player": INT, "ranking_points": NUM, "decided_by": STR}


def is_number(value) -> bool:
    """A JSON number (parsed with Decimal floats) with at most two decimals — never a string or a bool."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, Decimal) and value.as_tuple().exponent >= -2


def check(obj, keys: dict, where: str) -> None:
    assert isinstance(obj, dict), where
    for name, kind in keys.items():
        assert name in obj, f"{where}: missing {name}"
        value = obj[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if NUM in kinds:
            assert is_number(value), f"{where}.{name} = {value!r} is not a number with at most 2 decimals"
            continue
        if isinstance(value, bool):
            assert BOOL in kinds, f"{where}.{name} = {value!r}"
        else:
            assert isinstance(value, tuple(k for k in kinds if k is not BOOL)), f"{where}.{name} = {value!r}"


def check_export(text: str) -> dict:
    data = json.loads(text, parse_float=Decimal)
    assert data["schema"] == "rummikub-event/1"
    check(data["event"], EVENT_KEYS, "event")
    assert data["event"]["format"] in ("busan", "hk")
    check(data["event"]["ruleset"], RULESET_KEYS, "event.ruleset")
    ids = set()
    for player in data["players"]:
        check(player, PLAYER_KEYS, "player")
        ids.add(player["id"])
    assert data["stages"], "a played event has stages"
    for stage in data["stages"]:
        check(stage, STAGE_KEYS, "stage")
        assert set(stage["advance"]) <= ids
        for game in stage["games"]:
            check(game, GAME_KEYS, "game")
            for table in game["tables"]:
                check(table, TABLE_KEYS, "table")
                assert table["end"] in ("went_out", "blocked", "time")
                for seat in table["seats"]:
                    check(seat, SEAT_KEYS, "seat")
                    assert seat["player"] in ids
                assert sum(seat["score"] for seat in table["seats"]) == 0  # R6: zero-sum
    for line in data["standings"]:
        check(line, STANDING_KEYS, "standings")
        assert line["player"] in ids
    for lot in data["lots"]:
        check(lot, LOT_KEYS, "lot")
        assert lot["winner"] in lot["players"]
    for place in data["places"]:
        check(place, PLACE_KEYS, "places")
        assert place["player"] in ids and place["decided_by"] in ("final", "stage", "lot", "playoff")
    return data


# --- whole events ----------------------------------------------------------------------------------------

def test_whole_busan_event_matches_the_documented_shape():
    event = simulate("busan", 16, 3)
    data = check_export(event_json(event))
    stages = list(event.stages.order_by("number"))
    assert [s["index"] for s in data["stages"]] == [s.number for s in stages]
    # advance = who entered the next stage; the final advances nobody
    for exported, following in zip(data["stages"], stages[1:], strict=False):
        assert set(exported["advance"]) == set(
            StageEntry.objects.filter(stage=following).values_list("registration_id", flat=True))
    assert data["stages"][-1]["advance"] == []
    played = sum(len(g["tables"]) for s in data["stages"] for g in s["games"])
    assert played == ScoreSheet.objects.filter(stage__event=event, status=ScoreSheet.Status.CONFIRMED).count()
    assert len(data["standings"]) == 16


def test_whole_hong_kong_event_matches_the_documented_shape_with_average_points():
    event = simulate("hk", 16, 4)
    data = check_export(event_json(event))
    assert data["event"]["format"] == "hk" and data["event"]["ruleset"]["points"] == "average"
    assert [len(g["tables"]) for g in data["stages"][0]["games"]] == [4, 4, 4]
    assert any(not isinstance(line["points"], int) for line in data["standings"])  # averages like 33.33


def test_the_export_says_who_won_as_the_results_page_places_them(client):
    """The standings run over every confirmed game: here the final's winner ranks 5th in them (seed 1)."""
    event = simulate("busan", 16, 1)
    event.ranking_points = [100, 70, 50, 40]
    event.save()
    data = check_export(event_json(event))
    places = data["places"]
    rows = event_results(event).rows
    assert [(p["place"], p["player"], p["ranking_points"]) for p in places] == [
        (row.place, row.registration.pk, row.ranking_points) for row in rows]
    assert len(places) == 16 and places[0]["ranking_points"] == 100 and places[4]["ranking_points"] == 0
    assert [p["decided_by"] for p in places] == ["final"] * 4 + ["stage"] * 12  # out in rounds 1 and 2
    assert data["standings"][0]["player"] != places[0]["player"]
    winner = next(p["name"] for p in data["players"] if p["id"] == places[0]["player"])
    page = client.get(reverse("results", kwargs={"festival": event.festival.slug, "event": event.slug}))
    assert page.context["results"].podium[0].player.name == winner


def test_places_say_when_a_lot_or_a_playoff_decided_them_and_are_empty_until_the_final_is_played():
    assert event_export(released_stage(4).event)["places"] == []  # the final is drawn, not played
    stage, seats = played_busan_final((5, 5, 10, 20), end="blocked")  # seats 1 and 2 share place 1
    draw_place_lot(event=stage.event, place=1, actor=chief_of(stage.event), seed=1)
    places = event_export(stage.event)["places"]
    assert [(p["place"], p["decided_by"]) for p in places] == [(1, "lot"), (2, "lot"), (3, "final"), (4, "final")]
    tied = hong_kong(4)
    chief = chief_of(tied.event)
    confirm(tied, [5, 5, 10, 20], chief=chief, end="blocked")
    confirm(create_playoff(event=tied.event, place=1, actor=chief, seed=11), [0, 25], chief=chief)
    places = event_export(tied.event)["places"]
    assert [(p["place"], p["decided_by"]) for p in places] == [
        (1, "playoff"), (2, "playoff"), (3, "final"), (4, "final")]
    assert {p["player"] for p in places[:2]} == set(seated(tied)[:2])


def test_scores_are_json_numbers_whole_ones_without_decimals():
    assert number(Decimal("-7.00")) == -7 and isinstance(number(Decimal("-7.00")), int)
    assert number(Decimal("33.33")) == 33.33
    assert number(Decimal(100) / Decimal(3)) == 33.33
    text = dumps({"a": Decimal("-7.00"), "b": Decimal("33.33"), "c": Decimal("0.5")})
    assert json.loads(text) == {"a": -7, "b": 33.33, "c": 0.5}
    assert '"a": -7,' in text and '"b": 33.33' in text


def test_only_confirmed_sheets_are_exported():
    stage = released_stage(8)
    chief = chief_of(stage.event)
    referee = Actor(label="table link")
    sheets = [submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, [0, 10, 20, 30]),
                           accept_warnings=True, idempotency_key=key(), actor=referee, via="link")
              for table in (1, 2)]
    confirm_sheet(sheet=sheets[0], actor=chief)
    data = event_export(stage.event)
    tables = data["stages"][0]["games"][0]["tables"]
    assert [t["number"] for t in tables] == [1]  # table 2's sheet is only submitted
    assert all(not g["tables"] for g in data["stages"][0]["games"][1:])


def test_export_event_command_writes_the_same_text_as_the_download(client):
    event = simulate("busan", 8, 5)
    out = io.StringIO()
    call_command("export_event", event.slug, stdout=out)
    client.force_login(make_staff(event.festival, "organiser"))
    response = client.get(reverse("event-export-json", kwargs={"festival": event.festival.slug, "event": event.slug}))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    assert response.content.decode("utf-8") == out.getvalue()
    check_export(out.getvalue())


def test_export_event_command_refuses_unknown_and_ambiguous_slugs():
    first = make_event(slug="open")
    make_event(slug="open")
    with pytest.raises(CommandError, match="No event"):
        call_command("export_event", "nope", stdout=io.StringIO())
    with pytest.raises(CommandError, match="--festival"):
        call_command("export_event", "open", stdout=io.StringIO())
    with pytest.raises(CommandError, match="No event"):
        call_command("export_event", "open", "--festival", "nope", stdout=io.StringIO())
    out = io.StringIO()
    call_command("export_event", "open", "--festival", first.festival.slug, stdout=out)
    assert json.loads(out.getvalue())["event"]["festival"] == first.festival.slug


@pytest.mark.parametrize("players", [8, 40])
def test_export_reads_a_constant_number_of_queries(players, django_assert_max_num_queries):
    event = Event.objects.select_related("festival").get(pk=simulate("busan", players, 6).pk)
    # 10th: every released seating, for the re-import; 8 more: the places, read as the results page reads them
    with django_assert_max_num_queries(18):
        event_export(event)
    # The standings add the final places, read as the results page reads them (8 queries).
    for what, queries in (("standings", 13), ("results", 5)):
        with django_assert_max_num_queries(queries):
            table_file(event, what, "xlsx")


# --- spreadsheets ---------------------------------------------------------------------------------------

def _url(event, what, fmt):
    return reverse(f"event-export-{what}", kwargs={"festival": event.festival.slug, "event": event.slug, "fmt": fmt})


def test_csv_headers_are_in_the_readers_language(client):
    event = simulate("busan", 8, 7)
    client.force_login(make_staff(event.festival, "organiser"))
    with translation.override("ko"):
        name, school = translation.gettext("Name"), translation.gettext("School or club")
    assert any("\uac00" <= ch <= "\ud7a3" for ch in name + school)  # really Korean
    response = client.get(_url(event, "standings", "csv"), HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    header = response.content.decode("utf-8-sig").splitlines()[0].split(",")
    assert name in header and school in header
    results = client.get(_url(event, "results", "csv"), HTTP_ACCEPT_LANGUAGE="ko").content.decode("utf-8-sig")
    assert name in results.splitlines()[0]
    english = client.get(_url(event, "results", "csv"), HTTP_ACCEPT_LANGUAGE="en").content.decode("utf-8-sig")
    assert english.splitlines()[0].split(",")[:3] == ["Round", "Game", "Table"]


def test_results_workbook_has_one_row_per_player_per_game_with_numeric_scores(client):
    event = simulate("hk", 8, 8)
    client.force_login(make_staff(event.festival, "organiser"))
    response = client.get(_url(event, "results", "xlsx"))
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert len(rows) - 1 == 8 * 3  # 8 players, 3 games
    score = rows[0].index("Score")
    assert all(isinstance(row[score], int | float) for row in rows[1:])
    standings = openpyxl.load_workbook(io.BytesIO(client.get(_url(event, "standings", "xlsx")).content)).active
    assert len(list(standings.iter_rows())) == 1 + 8


def test_spreadsheet_cells_cannot_run_formulas(client):
    event = simulate("busan", 8, 9)
    Player.objects.filter(registrations__event=event, registrations__number=1).update(name="=HYPERLINK(\"x\")")
    client.force_login(make_staff(event.festival, "organiser"))
    text = client.get(_url(event, "standings", "csv")).content.decode("utf-8-sig")
    assert "'=HYPERLINK" in text


@pytest.mark.parametrize("role", [None, "desk", "referee", "chief referee"])
def test_downloads_are_for_organisers_only(client, role):
    event = simulate("busan", 8, 10)
    if role:
        client.force_login(make_staff(event.festival, role))
    for url in (reverse("event-export-json", kwargs={"festival": event.festival.slug, "event": event.slug}),
                _url(event, "standings", "csv"), _url(event, "results", "xlsx")):
        response = client.get(url)
        assert response.status_code == (302 if role is None else 403), url


def test_an_organiser_of_another_festival_is_refused(client):
    event = simulate("busan", 8, 11)
    client.force_login(make_staff(make_festival(), "organiser"))
    assert client.get(_url(event, "standings", "csv")).status_code == 403


def test_unknown_formats_and_events_are_not_found_and_never_a_server_error(client):
    event = simulate("busan", 8, 12)
    client.force_login(make_staff(event.festival, "organiser"))
    assert client.get(_url(event, "standings", "exe")).status_code == 404
    assert client.get(reverse("event-export-json", kwargs={"festival": event.festival.slug,
                                                           "event": "nope"})).status_code == 404
    assert client.post(_url(event, "results", "csv")).status_code == 405


def test_every_exported_seat_is_the_confirmed_sheet_line():
    event = simulate("busan", 16, 13)
    data = event_export(event)
    exported = {(st["index"], g["index"], t["number"], s["seat"]): s
                for st in data["stages"] for g in st["games"] for t in g["tables"] for s in t["seats"]}
    lines = SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
    assert len(exported) == lines.count()
    for line in lines.select_related("sheet__stage"):
        seat = exported[(line.sheet.stage.number, line.sheet.game, line.sheet.table_number, line.position)]
        assert seat["player"] == line.registration_id and seat["went_out"] == line.went_out
        assert Decimal(str(seat["score"])) == line.score and Decimal(str(seat["penalty"])) == line.penalty
        assert seat["tiles"] == (line.tiles or None) and seat["win"] == line.win
