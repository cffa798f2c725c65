"""Hypothesis posts random and hostile data to every form and POST endpoint: never a server error,
never a partial write, hostile text always escaped, a player's page or a table card writes only at its table
as the player or seat it names; and no POST-accepting URL escapes the fuzz table.

The table is endpoints.py; the values are values.py; the judging is engine.py and checks.py. Each example
runs in a savepoint that is rolled back, so every example starts from the same world (world.py).
"""

import os
from collections import Counter

import pytest
from django.apps import apps
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from public.snapshot import forget_snapshots
from scoring.models import ScoreSheet, SheetAnswer, TableLink
from scoring.services.table_sheets import PERSONAL_PAGE, TABLE_CARD
from tests.fuzz.checks import assert_whole, broken_rules
from tests.fuzz.coverage import event_pages, filled_paths, posting_routes, real_arguments, route_patterns
from tests.fuzz.endpoints import BY_NAME, ENDPOINTS, Endpoint
from tests.fuzz.engine import (
    UNWATCHED_COLUMNS,
    changes,
    check_answer,
    effective_role,
    fingerprint,
    form_data,
    gone,
    path_for,
    refusal,
    request,
    stored_markers,
    table_opened,
    url_arguments,
    wrote,
)
from tests.fuzz.values import SCRIPT
from tests.fuzz.world import PEOPLE, SUPERUSER
from tournament.models import Event, Festival, Player, Stage

pytestmark = pytest.mark.django_db

# Examples per endpoint that may change something (pages that only show get a third); FUZZ_EXAMPLES=500 for a
# long hunt. The defaults keep tests/fuzz under 90 s on SQLite.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
VERBOSE = bool(os.environ.get("FUZZ_VERBOSE"))  # one line per example (with pytest -s)
SWEEPS_PER_ENDPOINT = 2  # walking every page of the event is slow; test_fuzz_escaping does it for every field


def addressed_festival(endpoint: Endpoint, kwargs: dict):
    """The festival the request really reaches (its staff are the ones allowed), or None."""
    if "festival" in kwargs:
        return Festival.objects.filter(slug=kwargs["festival"]).first()
    token = kwargs.get("token")
    if token and endpoint.name.startswith("referee-link"):
        link = TableLink.objects.filter(token=token).select_related("event__festival").first()
        return link.event.festival if link else None
    if token:
        player = Player.objects.filter(token=token).select_related("festival").first()
        return player.festival if player else None
    if "stage_id" in kwargs:
        stage = Stage.objects.filter(pk=kwargs["stage_id"]).select_related("event__festival").first()
        return stage.event.festival if stage else None
    return None


def upload_waiting(client, festival_slug: str) -> str:
    """The key of a real upload waiting in this client's session, when its sender may upload."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.fuzz.values import _csv

    event = Event.objects.filter(festival__slug=festival_slug, name="Later").first()
    content = _csv([(event.slug if event else "x", f"Lee {SCRIPT}", "lee@example.org", "2001", "", "")])
    url = reverse("manage-import", kwargs={"festival": festival_slug})
    response = client.post(url, {"file": SimpleUploadedFile("p.csv", content)})
    location = response.get("Location", "")
    return location.rstrip("/").rsplit("/", 1)[-1] if "/import/" in location else "not-waiting"


def fuzz_once(draw, endpoint: Endpoint, world, base: dict, sweeps: list, outcomes: Counter) -> None:
    """`base` is the world's fingerprint: every example starts from it (its savepoint is rolled back)."""
    cache.clear()  # rate limits and standings snapshots: the rolled-back database reuses ids
    forget_snapshots()
    event = world.event(draw(st.sampled_from(endpoint.events), label="event"))
    kwargs, aim = url_arguments(draw, endpoint, world, event)
    person = draw(st.sampled_from(list(endpoint.who) * 2 + list(PEOPLE)), label="person")
    client = Client()
    if world.user(person) is not None:
        client.force_login(world.user(person))
    if "key" in kwargs:
        kwargs["key"] = upload_waiting(client, kwargs["festival"])
    path = path_for(endpoint.name, kwargs)
    data, files = form_data(draw, endpoint, aim)

    send = request(draw, client, path, data, files)
    with CaptureQueriesContext(connection) as queries:
        response = send()
    after = fingerprint() if wrote(queries) else base
    changed, deleted = changes(base, after), gone(base, after)

    what = f"POST {path} as {person} with {str(data)[:1500]}"
    check_answer(response, what)
    why = refusal(response)
    note(f"{response.status_code}, {'changed ' + ' '.join(sorted(changed)) if changed else 'nothing changed'}"
         f"{', refused: ' + why[:200] if why else ''}")
    if VERBOSE:
        print(f"  {response.status_code} {what[:300]} -> {sorted(changed) or why[:300]}")
    outcomes[f"{response.status_code} {'changed' if changed else 'refused' if why else 'unchanged'}"] += 1
    if not changed:
        return
    festival = addressed_festival(endpoint, kwargs)
    if endpoint.who != PEOPLE:
        role = effective_role(person, festival, world)
        assert role in endpoint.who, f"{what}: {role} changed {sorted(changed)}"
    assert not why, f"{what}: refused ({why}) yet changed {changed}"
    if endpoint.writes:
        beyond = sorted(set(changed) - {*endpoint.writes, "tournament.AuditEntry"})
        assert not beyond, f"{what}: changed {beyond}, which {endpoint.name} never writes"
    elsewhere = not_at_the_table(endpoint, kwargs, data, changed)
    assert not elsewhere, f"{what}: {elsewhere}"
    assert_whole(changed, deleted, what)
    if endpoint.idempotent:
        with CaptureQueriesContext(connection) as queries:
            again = send()
        check_answer(again, f"{what}, sent twice")
        twice = changes(after, fingerprint()) if wrote(queries) else {}
        assert not twice, f"{what}: sent twice, it changed {twice} again"
    if stored_markers(changed) and sweeps[0] < SWEEPS_PER_ENDPOINT and festival is not None:
        sweeps[0] += 1
        sweep(world, changed, touched_events(changed, festival), what)


def not_at_the_table(endpoint: Endpoint, kwargs: dict, data: dict, changed: dict) -> list[str]:
    """A table card or a player's page writes only at the table it opens: its sheets, and answers to them — a
    player's page as that player, a card as the seat whose code was typed (checks.py: a seat on the sheet).
    What was written elsewhere, or by someone else. (A sheet entered or corrected there comes with its
    entering player's answer, so the answers say who entered it too.)"""
    if "token" not in kwargs or not endpoint.name.startswith(("referee-link", "player-sheet")):
        return []
    stage, table, card = table_opened(endpoint.name, kwargs)
    by_page = endpoint.name.startswith("player-sheet")
    typed = data.get("seat_code")
    typed = typed[-1] if isinstance(typed, list) else typed  # a field sent twice: Django reads the last
    wrong = []
    for sheet in ScoreSheet.objects.filter(pk__in=[row[0] for row in changed.get("scoring.ScoreSheet", [])]):
        if stage is None or (sheet.stage_id, sheet.table_number) != (stage.pk, table):
            wrong.append(f"sheet {sheet.pk} of stage {sheet.stage_id} table {sheet.table_number}")
    for answer in SheetAnswer.objects.filter(pk__in=[row[0] for row in changed.get("scoring.SheetAnswer", [])]
                                             ).select_related("sheet", "registration__player"):
        if stage is None or (answer.sheet.stage_id, answer.sheet.table_number) != (stage.pk, table):
            wrong.append(f"answer {answer.pk} to sheet {answer.sheet_id} at another table")
        if answer.via != (PERSONAL_PAGE if by_page else TABLE_CARD):
            wrong.append(f"answer {answer.pk} came by {answer.via!r}")
        if by_page and answer.registration.player.token != kwargs["token"]:
            wrong.append(f"answer {answer.pk} given for registration {answer.registration_id}, not the page's player")
        if not by_page and (card is None or dict(enumerate(card.seat_codes, 1)).get(answer.position) != typed):
            wrong.append(f"answer {answer.pk} given as seat {answer.position}, whose code is not {typed!r}")
    return wrong


def sweep(world, changed: dict, events, what: str) -> None:
    """What the request stored, on every page of the events it touched (as a superuser, who sees all)."""
    client = Client()
    client.force_login(world.user(SUPERUSER))
    new_sheets = [row[0] for row in changed.get("scoring.ScoreSheet", [])]
    new_players = [row[0] for row in changed.get("tournament.Player", [])]
    new_answers = [row[0] for row in changed.get("scoring.SheetAnswer", [])]  # their player's table shows them
    tokens = (list(Player.objects.filter(pk__in=new_players).values_list("token", flat=True)[:1])
              or list(SheetAnswer.objects.filter(pk__in=new_answers)
                      .values_list("registration__player__token", flat=True)[:1]) or None)
    for event in events:
        sheet_ids = list(ScoreSheet.objects.filter(pk__in=new_sheets, stage__event=event)
                         .values_list("pk", flat=True)[:1]) or None
        for page in event_pages(world, event, sheet_ids=sheet_ids, tokens=tokens):
            check_answer(client.get(page), f"GET {page} after {what}")


def touched_events(changed: dict, festival) -> list:
    """The events whose rows the request changed (by the event column of the rows it wrote)."""
    ids = set()
    for label, rows in changed.items():
        model = apps.get_model(label)
        names = [f.attname for f in model._meta.concrete_fields if f.attname not in UNWATCHED_COLUMNS]
        if "event_id" in names:
            ids.update(row[names.index("event_id")] for row in rows if len(row) == len(names))
    return list(festival.events.filter(pk__in=ids)) or list(festival.events.order_by("pk")[:1])


# Slow as a whole (about 100 CPU-seconds over the table): which endpoints take over 2 s varies with the examples.
@pytest.mark.slow
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.name)
def test_hostile_posts_never_break_anything(world, endpoint):
    sweeps, outcomes = [0], Counter()
    base = fingerprint()

    examples = (EXAMPLES if endpoint.who else max(1, EXAMPLES // 3)) * endpoint.weight

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.data())
    def example(data):
        with transaction.atomic():
            try:
                fuzz_once(data.draw, endpoint, world, base, sweeps, outcomes)
            finally:
                transaction.set_rollback(True)

    example()
    assert fingerprint() == base, "an example's savepoint was not rolled back"
    print(f"\n{endpoint.name}: {dict(sorted(outcomes.items()))}, {sweeps[0]} sweep(s)")  # pytest -s shows it


@pytest.mark.slow
def test_every_url_that_takes_a_post_is_in_the_fuzz_table(world):
    accepting = posting_routes(world, world.user(SUPERUSER))
    missing = sorted(accepting - set(BY_NAME))
    assert not missing, f"add these POST-accepting URLs to tests/fuzz/endpoints.py: {missing}"
    unknown = sorted(set(BY_NAME) - set(route_patterns()))
    assert not unknown, f"the fuzz table names URLs that do not exist: {unknown}"
    stale = sorted(set(BY_NAME) - accepting)
    assert not stale, f"these URLs no longer take a POST; drop them from the fuzz table: {stale}"
    assert len(accepting) > 40


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.who], ids=lambda e: e.name)
def test_a_post_without_the_form_token_is_refused_and_changes_nothing(world, endpoint):
    """CSRF: a browser's POST from another site (no token) is refused, signed in or not."""
    event = world.event(endpoint.events[0])
    kwargs = {name: values[0] for name, values in real_arguments(world, event).items()}
    path = filled_paths(endpoint.name, {k: [v] for k, v in kwargs.items()})[0]
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.user(SUPERUSER))
    base = fingerprint()
    response = client.post(path, {"reason": "x", "confirm": "on"})
    assert response.status_code == 403 and fingerprint() == base, (path, response.status_code)


def test_the_world_is_consistent_before_any_fuzzing(world):
    assert not {rule: rows for rule, rows in broken_rules().items() if rows}
