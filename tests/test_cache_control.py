"""No browser or cache keeps a copy of a staff page or download (contacts, exports, table links):
everything under the staff addresses answers `Cache-Control: no-store, private`, whatever the status and
whoever asks. Public pages keep their own caching (ETags and revalidation, tested with each page)."""

import pytest
from django.test import Client
from django.urls import resolve

from tests import test_no_server_errors
from tests.test_no_server_errors import fill, routes
from tournament.middleware import STAFF_PATHS

pytestmark = pytest.mark.django_db
world = test_no_server_errors.world  # an event with one registration; "real" and "nonsense" URL arguments

# The public pages' own Cache-Control (None: none), as their views set it.
REVALIDATE = "no-cache, private"
SHARED = "no-cache"  # the polled fragments as an anonymous phone gets them: the same for every such phone
NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private"
PUBLIC = {
    "public-standings": REVALIDATE, "public-standings-live": SHARED, "public-standings-all": REVALIDATE,
    "public-standings-all-live": SHARED, "public-hall": REVALIDATE,
    "public-hall-live": SHARED, "round-clock": REVALIDATE, "api-event": "no-cache", "api-standings": "no-cache",
    "api-draw": "no-cache", "player-page": NEVER_CACHE, "service-worker": "no-cache",
    "player-erase": NEVER_CACHE, "player-data": NEVER_CACHE,
    # A seated player's table sheet (the token is the key to act on it): never kept anywhere.
    **{f"player-sheet-{name}": NEVER_CACHE for name in ("table", "game", "preview", "status", "answer")},
}


def never_stored(response) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


def staff_routes():
    return [pattern for pattern, _entry in routes() if ("/" + pattern).startswith(STAFF_PATHS)]


def test_the_staff_addresses_are_the_apps_own():
    """A renamed staff area would silently lose the header: every prefix must hold routes."""
    found = {prefix for prefix in STAFF_PATHS for pattern in staff_routes() if ("/" + pattern).startswith(prefix)}
    assert found == set(STAFF_PATHS) - {"/admin/"}  # the admin's routes are Django's (checked below)
    assert len(staff_routes()) > 40


@pytest.mark.parametrize("who", ["anonymous", "organiser"])
@pytest.mark.parametrize("values", ["real", "nonsense"])
def test_every_staff_route_answers_no_store(client, world, who, values):
    if who == "organiser":
        client.force_login(world["organiser"])
    for pattern in staff_routes():
        path = fill(pattern, world[values])
        for response in (client.get(path), client.post(path, {})):
            assert never_stored(response), (path, response.status_code, response.get("Cache-Control"))


def test_the_admin_answers_no_store(client, world, admin_user):
    for path in ("/admin/login/", "/admin/"):
        assert never_stored(client.get(path)), path
    client.force_login(admin_user)
    for path in ("/admin/", "/admin/tournament/player/", "/admin/auth/user/"):
        response = client.get(path)
        assert response.status_code == 200 and never_stored(response), path


@pytest.mark.parametrize("path", [
    "/manage/{festival}/export.csv", "/manage/{festival}/export.xlsx", "/manage/{festival}/{event}/export.json",
    "/manage/{festival}/{event}/export/standings.csv", "/manage/{festival}/{event}/export/standings.xlsx",
    "/manage/{festival}/{event}/export/results.csv", "/manage/{festival}/{event}/export/results.xlsx",
])
def test_every_download_with_personal_data_answers_no_store(client, world, path):
    client.force_login(world["organiser"])
    response = client.get(path.format(**world["real"]))
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    assert response["Cache-Control"] == "no-store, private"


def test_public_pages_keep_their_own_caching(client, world):
    checked = 0
    for pattern, _entry in routes():
        if ("/" + pattern).startswith(STAFF_PATHS):
            continue
        path = fill(pattern, world["real"])
        response = Client().get(path)  # a phone that has not been given a session by an earlier page
        if response.status_code == 200:
            assert response.get("Cache-Control") == PUBLIC.get(resolve(path).url_name), path
            checked += 1
    assert checked > 15
