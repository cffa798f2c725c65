"""The list settings (games per round, ranking points, standings order, languages): JSON lists checked in one
place, typed as comma text in forms, and copied from the old text columns by migration 0008 (and back)."""

import importlib

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.forms import modelform_factory

from scoring.results.actions import set_ranking_points
from tests.factories import make_event, make_festival
from tournament.models import Event, Festival
from tournament.services.audit import Actor
from tournament.services.errors import ServiceError

GAMES = "Write the games of each round as whole numbers from 1 to 9, e.g. 3,3,3."
POINTS = "Write whole numbers from 0 to 100000, comma-separated, e.g. 100,70,50."
ORDER = "Use only: wins, points, average, lot, playoff."
LANGUAGES = "Use only these language codes: en, ko, zh-hant."

data_migration = importlib.import_module("tournament.migrations.0008_typed_settings_data")


def clean_errors(obj) -> dict:
    try:
        obj.full_clean()
    except ValidationError as error:
        return error.message_dict
    return {}


# --- one rule per field, with the field's message ---------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("name, bad, message", [
    ("stage_games", [0], GAMES), ("stage_games", [10], GAMES), ("stage_games", [3, "3"], GAMES),
    ("stage_games", [3.0], GAMES), ("stage_games", [True], GAMES), ("stage_games", "3,3,3", GAMES),
    ("ranking_points", [-1], POINTS), ("ranking_points", [100_001], POINTS), ("ranking_points", ["100"], POINTS),
    ("tiebreaks", ["coin"], ORDER), ("tiebreaks", ["wins", 1], ORDER), ("tiebreaks", ["Wins"], ORDER),
])
def test_a_bad_event_list_is_refused_with_the_fields_message(name, bad, message):
    event = make_event()
    setattr(event, name, bad)
    assert clean_errors(event) == {name: [message]}


@pytest.mark.django_db
@pytest.mark.parametrize("bad", [["ja"], ["KO"], ["ko", ""], "ko,en"])
def test_a_language_the_site_does_not_offer_is_refused_naming_those_it_does(bad):
    festival = make_festival()
    festival.languages = bad
    assert clean_errors(festival) == {"languages": [LANGUAGES]}


@pytest.mark.django_db
def test_good_lists_pass_and_empty_ones_are_allowed_only_where_they_mean_the_default():
    event = make_event(stage_games=[2, 9, 1], ranking_points=[100_000, 0], tiebreaks=["average", "lot"])
    assert clean_errors(event) == {}
    event.ranking_points, event.tiebreaks = [], []  # no points; wins, then points as the rules say
    assert clean_errors(event) == {}
    event.stage_games = []
    assert "stage_games" in clean_errors(event)
    assert (Event().stage_games, Event().ranking_points, Event().tiebreaks) == ([3, 3, 3], [], [])
    assert Festival().languages == ["ko", "en"]


@pytest.mark.django_db
def test_a_list_longer_than_its_old_text_column_is_refused():
    event = make_event(ranking_points=[100_000] * 57)  # 398 characters as text: fits in 400
    assert clean_errors(event) == {}
    event.ranking_points = [100_000] * 58
    assert "at most 400 characters" in clean_errors(event)["ranking_points"][0]


@pytest.mark.django_db
def test_the_ranking_points_service_refuses_what_the_field_refuses():
    event = make_event(ranking_points=[10])
    with pytest.raises(ServiceError, match="Write whole numbers from 0 to 100000"):
        set_ranking_points(event=event, points=[100, -5], actor=Actor(label="test"))
    event.refresh_from_db()
    assert event.ranking_points == [10]


# --- forms: comma text in, comma text shown -----------------------------------------------------------------

EventForm = modelform_factory(Event, fields=["stage_games", "ranking_points", "tiebreaks"])
FestivalForm = modelform_factory(Festival, fields=["languages"])


@pytest.mark.django_db
def test_a_form_reads_comma_text_as_the_list_and_shows_the_list_as_text():
    event = make_event()
    form = EventForm({"stage_games": "3, 2", "ranking_points": "１００，70", "tiebreaks": " average ,lot"},
                     instance=event)
    assert form.is_valid(), form.errors
    form.save()
    event.refresh_from_db()
    assert (event.stage_games, event.ranking_points, event.tiebreaks) == ([3, 2], [100, 70], ["average", "lot"])
    shown = EventForm(instance=event)
    assert [shown[name].value() for name in ("stage_games", "ranking_points", "tiebreaks")] == [
        "3,2", "100,70", "average,lot"]
    assert 'maxlength="40"' in str(shown["stage_games"])


@pytest.mark.django_db
@pytest.mark.parametrize("name, text, message", [
    ("stage_games", "3,x", GAMES), ("stage_games", "3,,3", GAMES), ("stage_games", "3,10", GAMES),
    ("stage_games", "", "This field is required."), ("stage_games", "3" * 41, GAMES),
    ("ranking_points", "100,-1", POINTS), ("tiebreaks", "wins,coin", ORDER), ("tiebreaks", "wins,", ORDER),
])
def test_a_form_refuses_bad_text_with_the_fields_message(name, text, message):
    data = {"stage_games": "3,3,3", "ranking_points": "", "tiebreaks": "", name: text}
    form = EventForm(data, instance=make_event())
    assert not form.is_valid()
    assert form.errors == {name: [message]}


@pytest.mark.django_db
def test_the_festival_form_reads_and_refuses_language_codes():
    festival = make_festival()
    assert FestivalForm(instance=festival)["languages"].value() == "ko,en"
    form = FestivalForm({"languages": "zh-hant, en"}, instance=festival)
    assert form.is_valid() and form.save().languages == ["zh-hant", "en"]
    assert FestivalForm({"languages": "ko,ja"}, instance=festival).errors == {"languages": [LANGUAGES]}


# --- migration 0008: the old text columns ------------------------------------------------------------------

@pytest.mark.parametrize("text, games", [
    ("3,3,3", [3, 3, 3]), (" 2, 4 ,", [2, 4]), ("5", [5]),
    ("", [3, 3, 3]), ("3,x", [3, 3, 3]), ("3,12", [3, 3, 3]),  # refused before: the timetable's fallback
])
def test_games_per_round_convert_as_the_old_method_read_them(text, games):
    assert data_migration.stage_games(text) == games


@pytest.mark.parametrize("text, points", [("100,70,50", [100, 70, 50]), ("", []), ("100,abc", []), ("-1", [])])
def test_ranking_points_convert_and_an_unreadable_table_gives_none(text, points):
    assert data_migration.ranking_points(text) == points


@pytest.mark.parametrize("text, order", [("average, lot", ["average", "lot"]), ("", []), ("wins,coin", [])])
def test_standings_order_converts_and_an_unknown_name_gives_the_default(text, order):
    assert data_migration.tiebreaks(text) == order


@pytest.mark.parametrize("text, codes", [("ko,en", ["ko", "en"]), ("zh-Hant, EN", ["zh-hant", "en"]),
                                         ("ja,en", ["en"]), ("", ["ko", "en"]), ("xx", ["ko", "en"])])
def test_languages_convert_keeping_the_codes_the_site_offers(text, codes):
    assert data_migration.languages(text) == codes


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migrations_copy_old_rows_to_lists_and_back():
    before, after = [("tournament", "0007_typed_settings")], [("tournament", "0009_drop_text_settings")]
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        festival = old.get_model("tournament", "Festival").objects.create(
            slug="old", name="Old", starts_on="2030-11-02", ends_on="2030-11-02", languages_text="zh-hant, en")
        moment = "2030-11-02T02:00:00Z"
        old.get_model("tournament", "Event").objects.create(
            festival_id=festival.pk, slug="old", name="Old", starts_at=moment, ends_at=moment,
            registration_opens_at=moment, registration_closes_at=moment, withdrawal_deadline=moment,
            checkin_opens_at=moment, checkin_closes_at=moment,
            stage_games_text="2,2", ranking_points_text="100,70,50", tiebreaks_text="average,lot")

        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps
        event = new.get_model("tournament", "Event").objects.get(slug="old")
        assert (event.stage_games, event.ranking_points, event.tiebreaks) == ([2, 2], [100, 70, 50],
                                                                              ["average", "lot"])
        assert new.get_model("tournament", "Festival").objects.get(slug="old").languages == ["zh-hant", "en"]

        executor = MigrationExecutor(connection)
        executor.migrate(before)
        back = old.get_model("tournament", "Event").objects.get(slug="old")
        assert (back.stage_games_text, back.ranking_points_text, back.tiebreaks_text) == (
            "2,2", "100,70,50", "average,lot")
        assert old.get_model("tournament", "Festival").objects.get(slug="old").languages_text == "zh-hant,en"
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
