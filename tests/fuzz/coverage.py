"""The app's routes: their arguments, which of them take a POST, and the pages that show an event."""

import re
from functools import cache

from django.test import Client
from django.urls import reverse

from scoring.models import ScoreSheet, TableLink
from tests.test_no_server_errors import routes
from tournament.models import Draw, Registration

ARGUMENT = re.compile(r"<(?:\w+:)?(\w+)>")


@cache
def route_patterns() -> dict[str, list[str]]:
    """URL name → the names of its arguments (admin excluded, as in test_no_server_errors)."""
    return {entry.name: ARGUMENT.findall(pattern) for pattern, entry in routes() if entry.name}


def real_arguments(world, event, sheet_ids=None, tokens=None) -> dict[str, list]:
    """For each URL argument name, real values of `event` to fill routes with."""
    stage = event.stages.order_by("number").first()
    registration = Registration.objects.filter(event=event).order_by("pk").first()
    draw = Draw.objects.filter(stage__event=event).order_by("-pk").first()
    link = TableLink.objects.filter(event=event, revoked_at__isnull=True).order_by("pk").first()
    sheets = sheet_ids or list(ScoreSheet.objects.filter(stage__event=event).order_by("-pk")
                               .values_list("pk", flat=True)[:2])
    # A player-run event's pages are the table's: a player who answered a sheet (a dispute first) shows one.
    players = tokens or world.answering_tokens(event)[:1] or list(
        Registration.objects.filter(event=event).order_by("pk").values_list("player__token", flat=True)[:1])
    return {
        "festival": [event.festival.slug], "event": [event.slug], "stage": [1], "game": [1], "table": [1],
        "number": [1], "stage_id": [stage.pk if stage else 1], "registration": [registration.pk if registration else 1],
        "registration_id": [registration.pk if registration else 1], "draw": [draw.pk if draw else 1],
        "sheet_id": sheets or [1], "token": players or ["x" * 20], "link_token": [link.token if link else "x" * 20],
        "fmt": ["csv", "xlsx"], "key": ["not-waiting"], "uidb64": ["MQ"],
    }


def filled_paths(name: str, values: dict[str, list]) -> list[str]:
    """Every path of route `name` with each combination of the given values (tokens by the route's kind)."""
    combos = [{}]
    for argument in route_patterns()[name]:
        key = "link_token" if argument == "token" and name.startswith("referee-link") else argument
        combos = [{**c, argument: v} for c in combos for v in values[key]]
    return [reverse(name, kwargs=c) for c in combos]


def posting_routes(world, superuser) -> set[str]:
    """The named routes that do not answer a POST with 405, tried as a superuser with real arguments."""
    values = real_arguments(world, world.event("classic"))
    found = set()
    for name in route_patterns():
        client = Client()
        client.force_login(superuser)
        if any(client.post(path).status_code != 405 for path in filled_paths(name, values)[:1]):
            found.add(name)
    return found


def event_pages(world, event, *, sheet_ids=None, tokens=None) -> list[str]:
    """Every page about `event` (and the festival's), filled with its real ids: where stored text shows."""
    values = real_arguments(world, event, sheet_ids, tokens)
    paths = []
    for name in route_patterns():
        if name in ("logout", "set_language", "manage-import-preview"):
            continue
        paths += filled_paths(name, values)[:1]
    return paths
