"""Importing an event export: export → import → export gives the same document (ids mapped), for
whole Busan, Hong Kong and Word events and for events stopped mid-round; the copy goes on exactly like the
original; a malformed or foreign file is refused with a message and writes nothing."""

import copy
import io
import json
import random
from dataclasses import replace
from decimal import Decimal

import openpyxl
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.exports import event_json
from scoring.games.classic import ruleset_of
from scoring.models import ScoreSheet, SheetSeat
from scoring.services import progress
from scoring.services.conduct import keep_playing, pending_decisions, record_conduct
from scoring.services.event_file import ImportRefused
from scoring.services.import_event import import_event
from scoring.services.sheets import confirm_sheet, submit_sheet
from scoring.simulation import plausible_entry, prepare_event, simulate, simulate_word, staff_of
from scoring.standings import event_standings
from tests.factories import make_registration, make_staff
from tests.scoring.helpers import key
from tournament.models import (
    AuditEntry,
    ConductRecord,
    Draw,
    Event,
    Festival,
    Lot,
    Player,
    Registration,
    Stage,
)
from tournament.permissions import ORGANISER
from tournament.services import draws, seating
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db

IMPORTER = Actor(label="import (test)")

# --- comparing two exports of "the same" event -------------------------------------------------------------


def id_map(original: dict, copied: dict) -> dict[int, int]:
    """The original's player ids → the copy's, matched by position (both lists are in number/registration order)."""
    assert [(p["name"], p["number"]) for p in original["players"]] == [
        (p["name"], p["number"]) for p in copied["players"]]
    return {a["id"]: b["id"] for a, b in zip(original["players"], copied["players"], strict=True)}


def remap(doc: dict, ids: dict[int, int], festival: str | None = None) -> dict:
    """The export with every player id replaced (and, optionally, the festival slug)."""
    doc = copy.deepcopy(doc)
    for player in doc["players"]:
        player["id"] = ids[player["id"]]
    for stage in doc["stages"]:
        stage["players"] = [ids[p] for p in stage["players"]]
        stage["advance"] = [ids[p] for p in stage["advance"]]
        for draw in stage["draws"]:
            for table in draw["tables"]:
                table["seats"] = [ids[p] for p in table["seats"]]
            for violation in draw["violations"]:
                violation["players"] = [ids[p] for p in violation["players"]]
        for game in stage["games"]:
            for table in game["tables"]:
                for seat in table["seats"]:
                    seat["player"] = ids[seat["player"]]
    for line in doc["standings"]:
        line["player"] = ids[line["player"]]
    for lot in doc["lots"]:
        lot["players"] = [ids[p] for p in lot["players"]]
        lot["numbers"] = {str(ids[int(p)]): n for p, n in lot["numbers"].items()}
        lot["winner"] = ids[lot["winner"]]
        lot["order"] = [ids[p] for p in lot["order"]]
    for place in doc.get("places", []):
        place["player"] = ids[place["player"]]
    if festival is not None:
        doc["festival"]["slug"] = doc["event"]["festival"] = festival
    return doc


def assert_same_event(original: dict, copied: dict, festival: str | None = None) -> None:
    expected = remap(original, id_map(original, copied), festival)
    assert copied == expected  # pytest shows the first difference


def strip(doc: dict, names=("submitted_at", "confirmed_at", "created_at", "released_at", "at")) -> dict:
    """Without the moments the services stamp with the clock (sheets entered after the move)."""
    if isinstance(doc, dict):
        return {k: strip(v, names) for k, v in doc.items() if k not in names}
    if isinstance(doc, list):
        return [strip(v, names) for v in doc]
    return doc


def export_of(event: Event) -> dict:
    return json.loads(event_json(Event.objects.select_related("festival").get(pk=event.pk)))


# --- whole events ---------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # committed, so that flush can empty the tables on PostgreSQL too
def test_a_whole_busan_event_survives_an_empty_database(tmp_path):
    """32 players, seed 83: three rounds, a final and a recorded lot at a cut."""
    event = simulate("busan", 32, 83)
    before = export_of(event)
    assert before["lots"] and len(before["stages"]) == 4
    file = tmp_path / "busan.json"
    file.write_text(event_json(event), encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    assert not Festival.objects.exists() and not Registration.objects.exists()

    out = io.StringIO()
    call_command("import_event", str(file), stdout=out)
    assert "32 players" in out.getvalue() and "new festival" in out.getvalue()
    copied = Event.objects.get()
    after = export_of(copied)
    assert_same_event(before, after)
    assert copied.festival.name == before["festival"]["name"]


def test_a_whole_hong_kong_event_round_trips_into_another_festival():
    """64 pupils, seed 3: a tie for moving up settled by a lot; average points."""
    event = simulate("hk", 64, 3)
    before = export_of(event)
    imported = import_event(document=event_json(event), festival_slug="moved-hk", actor=IMPORTER)
    assert imported.festival_created and imported.counts["sheets"] == 16 * 3
    after = export_of(imported.event)
    assert_same_event(before, after, festival="moved-hk")
    assert any(lot["purpose"] == "move" for lot in after["lots"])
    assert after["event"]["ruleset"]["points"] == "average"


def test_a_word_event_round_trips_with_every_turn():
    event = simulate_word(8, 5)
    before = export_of(event)
    assert any(table["turns"] for stage in before["stages"] for game in stage["games"] for table in game["tables"])
    imported = import_event(document=event_json(event), festival_slug="moved-word", actor=IMPORTER)
    assert_same_event(before, export_of(imported.event), festival="moved-word")


def test_registrations_check_in_conduct_and_decisions_round_trip():
    """Waiting list, withdrawals, check-in times, warnings, a decision to keep playing and a disqualification."""
    event = simulate("hk", 16, 2)
    organiser, chief = staff_of(event.festival)
    make_registration(event, status=Registration.Status.WAITLISTED)
    make_registration(event, status=Registration.Status.WITHDRAWN)
    stage = event.stages.get()
    first, second = Registration.objects.filter(event=event, number__in=(1, 2)).order_by("number")
    for game in (1, 2, 3):
        record_conduct(event=event, registration=first, kind=ConductRecord.Kind.WARNING, note=f"talking {game}",
                       actor=chief, stage=stage, game=game)
    keep_playing(event=event, registration=first, note="first time at a tournament", actor=chief)
    record_conduct(event=event, registration=second, kind=ConductRecord.Kind.DISQUALIFIED, note="cheating",
                   actor=chief, stage=stage, game=3)
    before = export_of(event)
    assert before["players"][0]["kept_playing"][0]["warnings"] == 3

    imported = import_event(document=event_json(event), festival_slug="moved-conduct", actor=IMPORTER)
    assert_same_event(before, export_of(imported.event), festival="moved-conduct")
    assert pending_decisions(imported.event) == []  # the chief referee's decision came along
    statuses = sorted(Registration.objects.filter(event=imported.event).values_list("status", flat=True))
    assert statuses.count("waitlisted") == 1 and statuses.count("withdrawn") == 1


def test_a_player_already_in_the_festival_is_the_same_person():
    """Importing into a festival that knows the player (another event, same name and contact) reuses them."""
    event = simulate("hk", 8, 6)
    doc = export_of(event)
    doc["event"]["slug"] = "second-copy"
    imported = import_event(document=doc, actor=IMPORTER)
    assert imported.counts["reused_players"] == 8
    assert Player.objects.filter(festival=event.festival).count() == 8
    assert not imported.festival_created


# --- an event moved in the middle of a round ---------------------------------------------------------------


def release(stage, rng, organiser):
    draft = draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(2**31))
    draws.release_draw(draw=draft, actor=organiser)


def enter(stage, game, table, entry, chief, *, confirm=True, movement_seed=None):
    link = Actor(label=f"table {table} link")
    sheet = submit_sheet(stage=stage, game=game, table_number=table, entry=entry, accept_warnings=True,
                         idempotency_key=key(), actor=link, via=link.label)
    if confirm:
        confirm_sheet(sheet=sheet, actor=chief, movement_seed=movement_seed)
    return sheet


def entries(stage, game, rng):
    """A plausible sheet for every table of the game's released seating, by table number."""
    tables = seating.player_ids(seating.game_draw(stage, game))
    return {n: plausible_entry(rng, ruleset_of(stage.event), players) for n, players in enumerate(tables, 1)}


def mapped(entry, ids):
    return replace(entry, seats=tuple(replace(s, registration_id=ids[s.registration_id]) for s in entry.seats))


def test_busan_moved_in_the_middle_of_round_2_goes_on_the_same():
    event, rng = prepare_event("busan", 24, 8)
    organiser, chief = staff_of(event.festival)
    stage = draws.start_event(event=event, actor=organiser)
    release(stage, rng, organiser)
    for game in range(1, stage.games + 1):
        for table, entry in entries(stage, game, rng).items():
            enter(stage, game, table, entry, chief)
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=organiser, seed=5)
    stage = progress.close_stage(stage=stage, actor=organiser)
    release(stage, rng, organiser)
    round_2 = entries(stage, 1, rng)
    tables = sorted(round_2)
    for table in tables[:-2]:
        enter(stage, 1, table, round_2[table], chief)
    waiting = enter(stage, 1, tables[-2], round_2[tables[-2]], chief, confirm=False)  # submitted, not confirmed
    record_conduct(event=event, registration=waiting.seats.first().registration, kind=ConductRecord.Kind.WARNING,
                   note="slow play", actor=chief, stage=stage, game=1)
    before = export_of(event)
    assert [len(s["draws"]) for s in before["stages"]] == [1, 1]  # round 2's seating is in the file
    assert len(before["stages"][1]["games"][0]["tables"]) == len(tables) - 2

    imported = import_event(document=event_json(event), festival_slug="moved-midday", actor=IMPORTER)
    copied = imported.event
    assert_same_event(before, export_of(copied), festival="moved-midday")
    ids = id_map(before, export_of(copied))
    copy_stage = copied.stages.get(number=2)
    assert not ScoreSheet.objects.filter(stage__event=copied).exclude(status="confirmed").exists()

    # The day goes on in both places with the same sheets: the copy ends round 2 exactly like the original.
    confirm_sheet(sheet=waiting, actor=chief)
    enter(copy_stage, 1, tables[-2], mapped(round_2[tables[-2]], ids), chief)
    for game in range(1, stage.games + 1):
        later = entries(stage, game, random.Random(game)) if game > 1 else {tables[-1]: round_2[tables[-1]]}
        for table, entry in later.items():
            enter(stage, game, table, entry, chief)
            enter(copy_stage, game, table, mapped(entry, ids), chief)
    assert progress.stage_complete(copy_stage)
    original_next = progress.advancement(stage)
    copy_next = progress.advancement(copy_stage)
    assert [ids[p] for p in original_next.advancing] == list(copy_next.advancing)
    assert strip(remap(export_of(event), ids, "moved-midday")) == strip(export_of(copied))


def test_hong_kong_moved_in_the_middle_of_game_2_moves_players_up_the_same():
    event, rng = prepare_event("hk", 16, 9)
    organiser, chief = staff_of(event.festival)
    stage = draws.start_event(event=event, actor=organiser)
    release(stage, rng, organiser)
    for table, entry in entries(stage, 1, rng).items():
        enter(stage, 1, table, entry, chief, movement_seed=11)  # the last one seats game 2
    game_2 = entries(stage, 2, rng)
    for table in (1, 2):
        enter(stage, 2, table, game_2[table], chief)
    before = export_of(event)
    assert [d["game"] for d in before["stages"][0]["draws"]] == [1, 2]

    imported = import_event(document=event_json(event), festival_slug="moved-hk-midday", actor=IMPORTER)
    copied = imported.event
    assert_same_event(before, export_of(copied), festival="moved-hk-midday")
    ids = id_map(before, export_of(copied))
    copy_stage = copied.stages.get()
    for table in (3, 4):  # the last confirmation on each side seats game 3 from the same results
        enter(stage, 2, table, game_2[table], chief, movement_seed=12)
        enter(copy_stage, 2, table, mapped(game_2[table], ids), chief, movement_seed=12)
    assert Draw.objects.filter(stage=copy_stage, game=3, status=Draw.Status.RELEASED).exists()
    assert strip(remap(export_of(event), ids, "moved-hk-midday")) == strip(export_of(copied))


# --- audit and command ----------------------------------------------------------------------------------------


def test_the_import_is_in_the_audit_log():
    event = simulate("hk", 8, 7)
    imported = import_event(document=event_json(event), festival_slug="audited", actor=IMPORTER)
    entry = AuditEntry.objects.get(action="event.imported")
    assert entry.event == imported.event and entry.actor_label == IMPORTER.label
    assert entry.after["players"] == 8 and entry.after["sheets"] == 2 * 3 and entry.after["festival_created"]
    assert AuditEntry.objects.filter(action="festival.imported", festival__slug="audited").exists()


def test_the_command_reads_standard_input_and_refuses_clearly(tmp_path, monkeypatch):
    event = simulate("hk", 8, 8)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(event_json(event).encode("utf-8"))))
    out = io.StringIO()
    call_command("import_event", "-", "--festival", "from-stdin", stdout=out)
    assert "'from-stdin'" in out.getvalue()
    with pytest.raises(CommandError, match="already has an event"):
        call_command("import_event", str(_write(tmp_path, event_json(event))), "--festival", "from-stdin")
    with pytest.raises(CommandError, match="No such file"):
        call_command("import_event", str(tmp_path / "nope.json"))
    with pytest.raises(CommandError, match="not JSON"):
        call_command("import_event", str(_write(tmp_path, "Name,Contact\nKim,010")))


def _write(tmp_path, text: str):
    path = tmp_path / f"file-{random.randrange(10**9)}.json"
    path.write_text(text, encoding="utf-8")
    return path


# --- refusals: nothing written ---------------------------------------------------------------------------------

COUNTED = (Festival, Event, Player, Registration, Stage, Draw, ScoreSheet, SheetSeat, Lot, ConductRecord, AuditEntry)


def counts():
    return [model.objects.count() for model in COUNTED]


@pytest.fixture
def exported():
    event = simulate("hk", 8, 10)
    return export_of(event)


def refused(document, match: str, festival="refused") -> None:
    before = counts()
    with pytest.raises(ImportRefused, match=match):
        import_event(document=document, festival_slug=festival, actor=IMPORTER)
    assert counts() == before


def test_not_json_or_foreign_json_is_refused():
    refused(b"\xff\xfe garbage", "not UTF-8")
    refused("Name,Contact\nKim,010-1234", "not JSON")
    refused('{"schema": "rummikub-event/2", "event": {}}', "not an event export")
    refused("[1, 2, 3]", "not an event export")
    refused(json.dumps({"type": "FeatureCollection", "features": []}), "not an event export")
    refused("[" * 100_000, "not JSON")


@pytest.mark.parametrize("change, where", [
    (lambda d: d["festival"].pop("name"), r"festival\.name: missing"),
    (lambda d: d["players"][3].update(birth_year="2010"), r"players\[3\]\.birth_year: expected a whole number"),
    (lambda d: d["players"][2].update(registration_status="vip"), r"players\[2\]\.registration_status"),
    (lambda d: d["event"].update(format="swiss"), r"event\.format: expected one of"),
    (lambda d: d["event"].update(tiebreaks=["coin"]), r"event\.tiebreaks: Use only: wins, points"),
    (lambda d: d["event"].update(ranking_points=[100, -1]), r"event\.ranking_points: Write whole numbers"),
    (lambda d: d["event"].update(stage_games="3,x"), r"event\.stage_games: Write the games of each round"),
    (lambda d: d["event"].update(stage_games=[3, 3]), r"event\.stage_games: expected text"),
    (lambda d: d["festival"].update(languages="ko,ja"), r"festival\.languages: Use only these language codes: en, ko"),
    (lambda d: d["stages"][0]["games"][1]["tables"][0]["seats"][2].update(score="12"),
     r"stages\[0\]\.games\[1\]\.tables\[0\]\.seats\[2\]\.score: expected a number"),
    (lambda d: d["stages"][0]["games"][0]["tables"][0]["seats"][0].update(player=999999), "999999 is not the id"),
    (lambda d: d["stages"][0]["draws"].pop(), "no released seating"),
    (lambda d: d["lots"].append({**(d["lots"] or [{}])[0], "stage": 7, "players": [], "numbers": {}}),
     "lots|stage"),
    (lambda d: d["players"][0].update(checked_in_at="yesterday"), "UTC offset"),
    (lambda d: d["players"][1].update(name="x" * 101), r"players\[1\]\.name"),
    (lambda d: d["players"][1].update(number=d["players"][0]["number"]), "same player number"),
])
def test_a_wrong_value_is_refused_naming_its_place(exported, change, where):
    doc = copy.deepcopy(exported)
    change(doc)
    refused(doc, where)


def test_list_settings_written_as_typed_in_an_older_file_import_as_lists(exported):
    """The export writes games per round and languages as text; older versions kept what the organiser typed."""
    doc = copy.deepcopy(exported)
    doc["festival"]["languages"], doc["event"]["stage_games"] = "zh-hant, en", " 2, 2 "
    imported = import_event(document=doc, festival_slug="typed-text", actor=IMPORTER)
    assert (imported.event.festival.languages, imported.event.stage_games) == (["zh-hant", "en"], [2, 2])
    again = export_of(imported.event)
    assert (again["festival"]["languages"], again["event"]["stage_games"]) == ("zh-hant,en", "2,2")


def test_swapped_players_at_a_table_are_refused(exported):
    doc = copy.deepcopy(exported)
    seats = doc["stages"][0]["games"][0]["tables"][0]["seats"]
    other = doc["stages"][0]["games"][0]["tables"][1]["seats"]
    seats[0]["player"], other[0]["player"] = other[0]["player"], seats[0]["player"]
    refused(doc, "exactly the players seated")


def test_edited_standings_are_refused_because_they_no_longer_follow(exported):
    doc = copy.deepcopy(exported)
    doc["standings"][0]["wins"] += 1
    refused(doc, "standings in the file do not follow")


def test_places_that_do_not_follow_from_the_sheets_are_refused(exported):
    doc = copy.deepcopy(exported)
    first, second = doc["places"][:2]
    first["player"], second["player"] = second["player"], first["player"]
    refused(doc, "places in the file do not follow")
    doc = copy.deepcopy(exported)
    doc["places"][-1]["decided_by"] = "lot"
    refused(doc, "places in the file do not follow")
    doc = copy.deepcopy(exported)
    doc["places"].pop()
    refused(doc, "places in the file do not follow")


def test_a_file_from_before_the_places_imports_and_gains_them(exported):
    doc = copy.deepcopy(exported)
    del doc["places"]
    imported = import_event(document=doc, festival_slug="older-file", actor=IMPORTER)
    assert_same_event(exported, export_of(imported.event), festival="older-file")


def test_an_event_that_exists_is_not_overwritten(exported):
    refused(exported, "already has an event", festival=exported["festival"]["slug"])


# Hypothesis: any one value of a valid export replaced by nonsense is imported or refused — never a crash, and a
# refusal writes nothing.
NONSENSE = st.sampled_from([None, "", "x" * 300, -1, 0, 2**40, 2**70, 1.5, True, [], {}, "2026-13-45", [None],
                            {"a": 1}, "0001-01-01T00:00:00+14:00", "nul\x00", [2**70]])


def _leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,)
            yield from _leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield path + (i,)
            yield from _leaves(v, path + (i,))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_nonsense_value_is_refused_or_imported_never_a_crash(exported, data):
    paths = sorted(set(_leaves(exported)), key=str)
    path = data.draw(st.sampled_from(paths))
    doc = copy.deepcopy(exported)
    target = doc
    for step in path[:-1]:
        target = target[step]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(NONSENSE)
    before = counts()
    slug = f"fuzz-{random.randrange(10**9)}"
    try:
        imported = import_event(document=doc, festival_slug=slug, actor=IMPORTER)
    except ImportRefused as refusal:
        assert refusal.message and counts() == before
    else:
        assert imported.event.festival.slug == slug
        event_standings(imported.event)  # what was stored is an event the app can rank


def test_exported_numbers_keep_two_decimals_through_the_round_trip():
    event = simulate("hk", 8, 3)
    imported = import_event(document=event_json(event), festival_slug="decimals", actor=IMPORTER)
    original = sorted(SheetSeat.objects.filter(sheet__stage__event=event).values_list("score", flat=True))
    copied = sorted(SheetSeat.objects.filter(sheet__stage__event=imported.event).values_list("score", flat=True))
    assert original == copied and all(isinstance(s, Decimal) for s in copied)


# --- what registration refuses, and sheets the rules do not give ------------------------------------------------

HOSTILE_TEXT = {
    "nul": "Kim\x00Lee",
    "right-to-left override": "\u202eeeL miK",
    "zero-width space": "Kim\u200bLee",
    "zero-width no-break space": "Kim\ufeffLee",
    "lone surrogate": "Kim\ud800Lee",
    "line break": "Kim\nLee",
}


@pytest.mark.parametrize("text", HOSTILE_TEXT.values(), ids=HOSTILE_TEXT.keys())
def test_a_name_the_registration_form_refuses_is_refused_naming_its_place(exported, text):
    doc = copy.deepcopy(exported)
    doc["players"][2]["name"] = text
    refused(doc, r"players\[2\]\.name: .*control character")


@pytest.mark.parametrize(("change", "where"), [
    (lambda d: d["stages"][0].update(name="Round\x00 1"), r"stages\[0\]\.name: .*control character \(U\+0000\)"),
    (lambda d: d["festival"].update(venue="Hall\ud800"), r"festival\.venue: .*control character \(U\+D800\)"),
    (lambda d: d["players"][0]["conduct"].append({"kind": "warning", "stage": 1, "game": 1, "note": "late\x1b",
                                                   "at": d["players"][0]["registered_at"]}),
     r"players\[0\]\.conduct\[0\]\.note: .*control character \(U\+001B\)"),
])
def test_text_no_database_or_spreadsheet_can_hold_is_refused_anywhere(exported, change, where):
    doc = copy.deepcopy(exported)
    change(doc)
    refused(doc, where)


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("affiliation", "Busan\u202e School", "control characters"),
    ("ranking_id", "KR\u200b1", "control characters"),
    ("contact", "call me maybe", "phone number"),
    ("name", "1234 5678", "letters"),
])
def test_other_player_fields_follow_the_registration_form_too(exported, field, value, problem):
    doc = copy.deepcopy(exported)
    doc["players"][5][field] = value
    refused(doc, rf"players\[5\]\.{field}: .*{problem}")


def _seats(doc, game=0, table=0) -> list[dict]:
    return doc["stages"][0]["games"][game]["tables"][table]["seats"]


def _with_tiles(doc) -> int:
    return next(i for i, seat in enumerate(_seats(doc)) if seat["tiles"] and seat["opened"])


TAMPERED = [
    ("score", lambda d: (_seats(d)[0].update(score=_seats(d)[0]["score"] + 100),
                         _seats(d)[1].update(score=_seats(d)[1]["score"] - 100)),
     r"games\[0\]\.tables\[0\]\.seats\[0\]\.score: .*the rules give"),
    ("tiles", lambda d: _seats(d)[_with_tiles(d)].update(tiles="R1"),
     r"games\[0\]\.tables\[0\]\.seats\[\d\]\.penalty: .*the rules give 1\b"),
    ("penalty", lambda d: _seats(d)[_with_tiles(d)].update(penalty=_seats(d)[_with_tiles(d)]["penalty"] + 1),
     r"games\[0\]\.tables\[0\]\.seats\[\d\]\.penalty: .*the rules give"),
    ("win", lambda d: [s.update(win=not s["went_out"]) for s in _seats(d)],
     r"games\[0\]\.tables\[0\]\.seats\[0\]\.win: .*the rules give"),
    ("impossible sheet", lambda d: [s.update(went_out=True, tiles=None) for s in _seats(d)],
     r"games\[0\]\.tables\[0\]: "),
]


@pytest.mark.parametrize(("change", "where"), [(c, w) for _n, c, w in TAMPERED], ids=[n for n, _c, _w in TAMPERED])
def test_a_sheet_whose_recorded_scores_do_not_follow_from_it_is_refused(exported, change, where):
    """Every sheet is judged again by the rules engine: score, win and penalty must be what it gives."""
    doc = copy.deepcopy(exported)
    change(doc)
    refused(doc, where)


@pytest.fixture
def exported_word():
    return export_of(simulate_word(8, 5))


def _word_table(doc) -> dict:
    return doc["stages"][0]["games"][0]["tables"][0]


def test_a_word_sheet_is_judged_again_turn_by_turn(exported_word):
    doc = copy.deepcopy(exported_word)
    _word_table(doc)["turns"][0]["points"] += 5
    refused(doc, r"tables\[0\]\.turns\[0\]\.points: .*the rules give")
    doc = copy.deepcopy(exported_word)
    seat = _word_table(doc)["seats"][1]
    seat["score"] += 5
    refused(doc, r"tables\[0\]\.seats\[1\]\.score: .*the rules give")
    doc = copy.deepcopy(exported_word)
    _word_table(doc)["seats"][0]["jokers"] = 1  # a joker left costs 30 points (R10)
    refused(doc, r"tables\[0\]\.seats\[0\]\.penalty: the file says 0, but the rules give 30")


ODD_BUT_VALID_NAMES = [
    "=1+1 Kim",  # a formula start: the downloads neutralise it
    "👩\u200d💻 Ada",  # a zero-width joiner inside an emoji
    "Zoe\u0308 Mu\u0308ller",  # combining marks (stored composed)
    "محمد علي",  # right-to-left letters, without any override character
    "김\u200c민준",  # a zero-width non-joiner
    "가" * 100,
]


def test_the_downloads_of_an_event_with_odd_but_valid_names_work(client, exported):
    doc = copy.deepcopy(exported)
    for player, name in zip(doc["players"], ODD_BUT_VALID_NAMES, strict=False):
        player["name"] = name
    imported = import_event(document=doc, festival_slug="odd-names", actor=IMPORTER)
    event = imported.event
    client.force_login(make_staff(event.festival, ORGANISER))
    for what in ("standings", "results"):
        for fmt in ("xlsx", "csv"):
            url = reverse(f"event-export-{what}", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                         "fmt": fmt})
            response = client.get(url)
            assert response.status_code == 200, (what, fmt)
    results = reverse("event-export-results", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                     "fmt": "xlsx"})
    book = openpyxl.load_workbook(io.BytesIO(client.get(results).content)).active
    names = {cell for row in book.iter_rows(values_only=True) for cell in row}
    assert {"👩\u200d💻 Ada", "Zoë Müller", "محمد علي", "'=1+1 Kim"} <= names
