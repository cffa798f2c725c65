"""The read-only public JSON API (docs/export.md): no login, only what the event's public_* switches
show, open to other sites (CORS), cheap when unchanged (ETag → 304), constant queries, never a 500."""

import pytest
from django.urls import reverse

from scoring.services import conduct
from scoring.simulation import simulate
from tests.factories import make_event, released_stage
from tests.scoring.helpers import chief_of
from tournament.models import ConductRecord, Registration

pytestmark = pytest.mark.django_db


def api(event, name="api-event", **kwargs):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


@pytest.fixture
def hk_event():
    """A finished Hong Kong event of 16 players."""
    return simulate("hk", 16, 21)


def switch(event, **values):
    # Saved as the event's settings form saves them, which drops the public side's cached event row.
    event.refresh_from_db()
    for field, value in values.items():
        setattr(event, field, value)
    event.save(update_fields=list(values))


def test_event_answer_links_the_public_parts_and_allows_any_origin(client, hk_event):
    response = client.get(api(hk_event))
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    data = response.json()
    assert data["event"]["slug"] == hk_event.slug and data["event"]["format"] == "hk"
    assert data["event"]["current"]["stage"] == 1
    assert data["links"]["standings"].endswith(api(hk_event, "api-standings"))
    assert data["links"]["player"].endswith("/players/{number}/")


def test_an_unchanged_answer_is_a_bodyless_304(client, hk_event):
    first = client.get(api(hk_event, "api-standings"))
    etag = first["ETag"]
    again = client.get(api(hk_event, "api-standings"), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["Access-Control-Allow-Origin"] == "*"
    assert client.get(api(hk_event, "api-standings"), HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_standings_list_everyone_with_numbers_not_strings(client, hk_event):
    data = client.get(api(hk_event, "api-standings")).json()
    assert data["points"] == "average" and len(data["standings"]) == 16
    first = data["standings"][0]
    assert first["rank"] == 1 and isinstance(first["points"], int | float)
    assert len(first["scores"]) == len(data["columns"]) == 3


def test_switches_hide_standings_draw_and_scores(client):
    event = simulate("hk", 8, 22)
    switch(event, public_standings=False, public_draw=False, public_scores=True)
    for name in ("api-standings", "api-draw"):
        response = client.get(api(event, name))
        assert response.status_code == 403 and response.json()["error"] == "not_public"
        assert "standings" not in response.json() and "draw" not in response.json()
    player = client.get(api(event, "api-player", number=1)).json()
    assert "rank" not in player and "next" not in player and "score" in player["games"][0]
    links = client.get(api(event)).json()["links"]
    assert links["standings"] is None and links["draw"] is None
    switch(event, public_standings=True, public_scores=False)
    standings = client.get(api(event, "api-standings")).json()
    assert "scores" not in standings["standings"][0]
    player = client.get(api(event, "api-player", number=1)).json()
    assert "score" not in player["games"][0] and "table" not in player["games"][0] and "rank" in player
    switch(event, public_standings=False, public_draw=False, public_scores=False)
    assert client.get(api(event, "api-player", number=1)).status_code == 403


def test_draw_shows_the_current_released_seating(client):
    stage = released_stage(8)
    data = client.get(api(stage.event, "api-draw")).json()["draw"]
    assert data["stage"] == 1 and [len(t["seats"]) for t in data["tables"]] == [4, 4]
    assert {s["seat"] for s in data["tables"][0]["seats"]} == {1, 2, 3, 4}
    before = client.get(api(make_event(), "api-draw")).json()
    assert before["draw"] is None


def test_player_answer_has_every_game_with_tablemates_score_and_running_rank(client, hk_event):
    data = client.get(api(hk_event, "api-player", number=5)).json()
    assert data["player"]["number"] == 5
    assert [g["game"] for g in data["games"]] == [1, 2, 3]
    for game in data["games"]:
        assert len(game["tablemates"]) == 3 and 5 not in [m["number"] for m in game["tablemates"]]
        assert isinstance(game["score"], int | float) and isinstance(game["rank_after"], int)
    assert data["games_played"] == 3 and data["rank"] >= 1
    assert data["games"][-1]["rank_after"] == data["rank"] or data["tied"]
    assert data["next"] is None  # the event is over


def test_player_answer_gives_the_next_table_during_the_event(client):
    stage = released_stage(8)
    data = client.get(api(stage.event, "api-player", number=3)).json()
    assert data["games"] == [] and data["next"]["game"] == 1 and len(data["next"]["tablemates"]) == 3


def test_a_disqualified_player_is_marked(client):
    stage = released_stage(8)
    event = stage.event
    player = Registration.objects.get(event=event, number=2)
    conduct.record_conduct(event=event, registration=player, kind=ConductRecord.Kind.DISQUALIFIED, note="x",
                           actor=chief_of(event))
    assert client.get(api(event, "api-player", number=2)).json()["player"]["status"] == "disqualified"
    seats = [s for t in client.get(api(event, "api-draw")).json()["draw"]["tables"] for s in t["seats"]]
    assert next(s for s in seats if s["number"] == 2)["status"] == "disqualified"


@pytest.mark.parametrize("path", [
    "/api/events/nope/nope/", "/api/events/nope/nope/standings/", "/api/events/nope/nope/players/1/",
])
def test_unknown_events_are_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert response["Access-Control-Allow-Origin"] == "*"


def test_hostile_requests_are_never_a_server_error(client, hk_event):
    for number in (0, 99999, 10**12):
        assert client.get(api(hk_event, "api-player", number=number)).status_code == 404
    assert client.post(api(hk_event, "api-standings")).status_code == 405
    assert client.get(api(hk_event), {"q": "\x00"}, HTTP_IF_NONE_MATCH="\x00,,W/").status_code == 200


@pytest.mark.parametrize("players", [8, 40])
def test_answers_read_a_constant_number_of_queries(client, players, django_assert_max_num_queries):
    event = simulate("busan", players, 23)
    for name, kwargs in (("api-event", {}), ("api-standings", {}), ("api-draw", {}),
                         ("api-player", {"number": 1})):
        # The event is finished: the standings and a player's answer also read the final places (3 queries to
        # know the results are final, 8 to read them as the results page does).
        with django_assert_max_num_queries(16):
            response = client.get(api(event, name, **kwargs))
        assert response.status_code == 200, name
