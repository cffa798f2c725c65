"""What the public sees follows the organiser's three switches (draw, standings, scores) on every public page,
API answer and the hall display — one rule, tournament/visibility.py: a matrix of switches × pages, and the
pages' query counts stay bounded, whatever the switches and the number of players."""

import itertools
import random

import pytest
from django.urls import reverse

from scoring.results.event import event_results, event_year
from scoring.simulation import simulate
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import chief_of, play_game, text

pytestmark = pytest.mark.django_db

SWITCHES = list(itertools.product((False, True), repeat=3))  # (draw, standings, scores)


def switch(event, draw, standings, scores):
    # Saved as the event's settings form saves them, which drops the public pages' cached event row.
    event.refresh_from_db()
    event.public_draw, event.public_standings, event.public_scores = draw, standings, scores
    event.save(update_fields=["public_draw", "public_standings", "public_scores"])


def urls(event, number: int) -> dict[str, str]:
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    page = {name: reverse(name, kwargs=kwargs) for name in (
        "event", "public-draw", "public-seat", "public-standings", "public-standings-live", "public-standings-all",
        "public-standings-all-live", "public-hall",
        "public-hall-live", "public-find-player", "results", "results-print", "api-event", "api-standings",
        "api-draw")}
    page.update({
        "public-table": reverse("public-table", kwargs={**kwargs, "number": 1}),
        "public-standings-stage": reverse("public-standings-stage", kwargs={**kwargs, "stage": 1}),
        "public-standings-stage-live": reverse("public-standings-stage-live", kwargs={**kwargs, "stage": 1}),
        "public-player": reverse("public-player", kwargs={**kwargs, "number": number}),
        "public-player-live": reverse("public-player-live", kwargs={**kwargs, "number": number}),
        "api-player": reverse("api-player", kwargs={**kwargs, "number": number}),
        "season": reverse("season") + f"?year={event_year(event)}",
    })
    page["public-seat"] += f"?q={number}"
    page["public-find-player"] += f"?q={number}"
    return page


@pytest.fixture
def finished():
    """A finished Busan event of 16 (two per-table rounds and a final) with ranking points; one player
    placed outside the podium is under 15."""
    event = simulate("busan", 16, 3)
    event.ranking_points = [100, 70, 50, 40]
    event.save()
    rows = event_results(event).rows
    young = rows[5].registration.player
    young.birth_year = event_year(event) - 12
    young.save()
    return event, rows[0].registration, rows[1].registration  # the winner and a tablemate in the final


@pytest.mark.slow
def test_every_public_page_and_api_answer_shows_exactly_what_the_switches_open(client, finished):
    event, winner, mate = finished
    for switches in SWITCHES:
        switch(event, *switches)
        check_pages(client, event, winner, mate, *switches)


def check_pages(client, event, winner, mate, draw: bool, standings: bool, scores: bool) -> None:
    name, mate_name = winner.player.name, mate.player.name
    where = f"draw={draw} standings={standings} scores={scores}"
    url = urls(event, winner.number)
    pages = {key: text(client.get(address)) for key, address in url.items() if not key.startswith("api-")}

    def shows(page: str, marker: str, expected: bool) -> None:
        found = marker in pages[page]
        assert found == expected, f"{where}: {page} {'shows' if found else 'lacks'} {marker!r}"

    # the seating: who sits where now, and who sat with whom
    for page in ("public-draw", "public-seat", "public-table"):
        shows(page, name, draw)
    for page in ("public-hall", "public-hall-live"):
        shows(page, 'data-kind="draw"', draw)
        shows(page, 'data-kind="standings"', standings)
    for page in ("public-player", "public-player-live"):
        shows(page, mate_name, draw)  # the tablemate of each game played
        shows(page, "Score</th>", scores)
        shows(page, "Rank in the event after this game", standings)
        shows(page, "Wins</dt>", standings)
    shows("event", url["public-seat"].split("?")[0], draw)
    # the standings: who is ahead; each game's score only with the scores. The event is finished: its
    # standings page leads with the final places, every game's table one tap away.
    for page in ("public-standings", "public-standings-live"):
        shows(page, name, standings)
        shows(page, "Final places", standings)
        shows(page, url["public-standings-all"], standings)
    for page in ("public-standings-all", "public-standings-all-live", "public-standings-stage",
                 "public-standings-stage-live"):
        shows(page, name, standings)
        shows(page, "★", standings and scores)
    for page in ("public-standings-stage", "public-standings-stage-live"):
        shows(page, 'title="Table">T<', standings and draw)  # per-table ranking: a past seating
    shows("event", url["public-standings"] + '"', standings)
    # the results are the end of the standings: places, podium, certificates, the season
    shows("event", url["results"] + '"', standings)
    for marker in (name, "Podium", "no ranking points", "Final places"):
        shows("results", marker, standings)
    shows("results-print", name, standings)
    shows("results-print", 'class="certificate ', standings)
    shows("season", event.name, standings)
    shows("public-find-player", name, True)  # the list of entered players is not behind a switch

    api = client.get(url["api-event"]).json()
    assert api["event"]["public"] == {"draw": draw, "standings": standings, "scores": scores}, where
    assert (api["links"]["draw"] is not None, api["links"]["standings"] is not None) == (draw, standings), where
    answer = client.get(url["api-draw"])
    assert answer.status_code == (200 if draw else 403), where
    assert (name in answer.content.decode()) == draw, where
    answer = client.get(url["api-standings"])
    assert answer.status_code == (200 if standings else 403), where
    if standings:
        assert ("scores" in answer.json()["standings"][0]) == scores, where
    answer = client.get(url["api-player"])
    assert answer.status_code == (200 if draw or standings or scores else 403), where
    if answer.status_code == 200:
        data = answer.json()
        assert ("next" in data, "rank" in data) == (draw, standings), where
        for game in data["games"]:
            assert ("table" in game, "tablemates" in game) == (draw, draw), where
            assert ("score" in game, "win" in game) == (scores, scores), where
            assert ("rank_after" in game) == standings, where
        assert (mate_name in answer.content.decode()) == draw, where


def test_staff_print_the_certificates_while_the_results_are_not_public(client, finished):
    event, winner, _mate = finished
    switch(event, draw=True, standings=False, scores=True)
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    url = reverse("manage-results-print", kwargs=kwargs)
    assert client.get(url).status_code == 302  # signing in first
    client.force_login(make_staff(event.festival, "referee"))
    assert client.get(url).status_code == 403
    client.force_login(make_staff(event.festival, "chief referee"))
    printed = text(client.get(url))
    assert printed.count('class="certificate ') == 3 and winner.player.name in printed
    manage = text(client.get(reverse("manage-results", kwargs=kwargs)))
    assert "The public does not see these results" in manage and url in manage and winner.player.name in manage
    assert winner.player.name not in text(client.get(reverse("results", kwargs=kwargs)))  # signed in or not


# Bounds of the pages with every switch on (tests/scoring/test_public_pages.py, test_api.py, test_results.py,
# tests/tournament/test_draws.py): a switch turned off never costs more. The whole-event standings, the API and a
# player's page also ask whether the results are final (3 queries; the places themselves only once they are).
BOUNDS = {
    "event": 9, "public-draw": 6, "public-seat": 7, "public-table": 6, "public-standings": 19,
    "public-standings-live": 19, "public-standings-all": 19, "public-standings-all-live": 19,
    "public-standings-stage": 18, "public-standings-stage-live": 18,
    "public-player": 10, "public-player-live": 10, "public-hall": 18, "public-hall-live": 18,
    "public-find-player": 3, "results": 10, "results-print": 10, "season": 10, "api-event": 10,
    "api-standings": 16, "api-draw": 10, "api-player": 16,
}


@pytest.mark.parametrize("players", [4, pytest.param(64, marks=pytest.mark.slow)])
def test_public_pages_read_a_bounded_number_of_queries_whatever_the_switches(client, players,
                                                                             django_assert_max_num_queries):
    stage = released_stage(players)
    play_game(stage, 1, chief_of(stage.event), random.Random(players))
    event = stage.event
    for draw, standings, scores in SWITCHES:
        switch(event, draw, standings, scores)
        for page, address in urls(event, 1).items():
            with django_assert_max_num_queries(BOUNDS[page]):
                response = client.get(address)
            assert response.status_code in (200, 403), (page, draw, standings, scores)
