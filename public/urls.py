"""Every address of the public side, in one list per kind.

`LIVE` is the one list of the live public pages: what hundreds of phones poll. Their views are marked for the
public lane (public/live.py, public/views/api.py), which skips most of the stack for an anonymous poll
(public/lane.py); tests/test_live_urls.py holds the service worker's rules (static/js/sw.js) and nginx's
micro-cache (deploy/nginx.conf) to this list. The rest are public pages that are not polled, and the
personal page (`p/<token>/`), which is never shared or stored.
"""

from django.urls import path

from .views import (
    api,
    event,
    festival,
    hall,
    personal,
    personal_data,
    personal_erasure,
    personal_name,
    player,
    seating,
    standings,
)

EVENT = "f/<slug:festival>/<slug:event>/"
API = "api/events/<slug:festival>/<slug:event>/"

LIVE = [
    path(EVENT + "standings/", standings.standings_page, name="public-standings"),
    path(EVENT + "standings/live/", standings.standings_live, name="public-standings-live"),
    path(EVENT + "standings/all/", standings.standings_page, {"every_game": True}, name="public-standings-all"),
    path(EVENT + "standings/all/live/", standings.standings_live, {"every_game": True},
         name="public-standings-all-live"),
    path(EVENT + "standings/<int:stage>/", standings.standings_page, name="public-standings-stage"),
    path(EVENT + "standings/<int:stage>/live/", standings.standings_live, name="public-standings-stage-live"),
    path(EVENT + "player/<int:number>/", player.player_page, name="public-player"),
    path(EVENT + "player/<int:number>/live/", player.player_live, name="public-player-live"),
    path(EVENT + "hall/", hall.hall, name="public-hall"),
    path(EVENT + "hall/live/", hall.hall_live, name="public-hall-live"),
    path(API, api.api_event, name="api-event"),
    path(API + "standings/", api.api_standings, name="api-standings"),
    path(API + "draw/", api.api_draw, name="api-draw"),
    path(API + "players/<int:number>/", api.api_player, name="api-player"),
]

# The live pages a phone keeps a copy of for a dropped Wi-Fi (static/js/sw.js, "public"): the standings and a
# player's page, not their fragments (the page brings them), the hall or the API.
KEPT_OFFLINE = {"public-standings", "public-standings-all", "public-standings-stage", "public-player"}

urlpatterns = [
    path("", festival.home, name="home"),
    path("f/<slug:festival>/", festival.festival_page, name="festival"),
    path(EVENT, event.event_page, name="event"),
    *LIVE,
    path(EVENT + "player/", player.find_player, name="public-find-player"),
    path(EVENT + "draw/", seating.public_draw, name="public-draw"),
    path(EVENT + "seat/", seating.find_seat, name="public-seat"),
    path(EVENT + "table/<int:number>/", seating.public_table, name="public-table"),
    path("p/<str:token>/", personal.player_page, name="player-page"),
    path("p/<str:token>/withdraw/<int:registration_id>/", personal.player_withdraw, name="player-withdraw"),
    path("p/<str:token>/enter/<slug:event>/", personal.player_enter, name="player-enter"),
    path("p/<str:token>/my-data.json", personal_data.player_data, name="player-data"),
    path("p/<str:token>/erase/", personal_erasure.player_erase, name="player-erase"),
    path("p/<str:token>/name/", personal_name.public_name, name="player-public-name"),
    path("p/<str:token>/ranking/", personal_name.results_to_ranking, name="player-results-to-ranking"),
]
