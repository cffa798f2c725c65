"""Build the event the load test plays on and write its plan for locust.

    DJANGO_SETTINGS_MODULE=config.settings.loadtest DATABASE_URL=… python -m loadtest.prepare --out plan.json
    DJANGO_SETTINGS_MODULE=… DATABASE_URL=… python -m loadtest.prepare --report plan.json

The event: a Busan event of 512 checked-in, numbered players in the middle of round 1 — the draw of
128 tables released, one private link per table (`scoring.services.links.ensure_links`), no score sheet
yet: the referees submit games 1–3 during the run. Everything goes through the same services as the web
pages (`scoring.simulation.prepare_event`, `tournament.services.draws`), never through raw rows.

A chief referee account with a random password signs in during the run and confirms sheets from the
board; the plan (JSON) holds the addresses, the table links, the player numbers and that password, so it
is written with mode 0600 and only to a place the caller names.

`--report` reads the database afterwards: how many sheets were submitted and confirmed, so the run's
figures can be checked against what the server really stored.

`--festival` builds the day of issue 31 instead (`build_festival`): in one festival the Busan main event
(128 players, 32 tables), a Rummikub Word event (64, 16) and a kids' event (64, 16), in another festival a
Hong Kong final (64, 16) — every round 1 started and its draw released, one link per table — plus, in the
first festival, an afternoon event whose 64 registered players have not checked in yet, with check-in open:
the two desks check them in as they arrive during the run. Two chief referee accounts (the first for the
main and the kids' event, the second for the Word event and the Hong Kong final) and two desk accounts, each
with a random password. The Word tables get their sheets made in advance
(`scoring.simulation.word.plausible_word_sheet`, as form fields), since locust's processes have no Django.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path

PLAYERS = 512  # 128 tables of 4 (R8.1, "128강")
SEED = 6
CHIEF = "loadtest-chief"
# The festival of issue 31: (key, festival, format, game, players, name, chief referee).
FESTIVAL = (
    ("main", 1, "busan", "classic", 128, "Busan main event", 0),
    ("word", 1, "busan", "word", 64, "Rummikub Word event", 1),
    ("kids", 1, "busan", "classic", 64, "Kids' event", 0),
    ("final", 2, "hk", "classic", 64, "Hong Kong final", 1),
)
ARRIVALS = 64  # the afternoon event's players, registered, arriving at the two desks during the run
CHIEFS = ("loadtest-chief-1", "loadtest-chief-2")
DESKS = ("loadtest-desk-1", "loadtest-desk-2")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.loadtest")
    import django

    django.setup()


def build(players: int, seed: int) -> dict:
    from django.contrib.auth.models import User
    from django.db import transaction

    from scoring.services.links import ensure_links
    from scoring.simulation import prepare_event, staff_of
    from tournament.models import StaffRole
    from tournament.permissions import CHIEF_REFEREE
    from tournament.services import draws

    with transaction.atomic():
        event, rng = prepare_event("busan", players, seed, name="Load test")
        organiser, _simulated_chief = staff_of(event.festival)
        stage = draws.start_event(event=event, actor=organiser)
        draft = draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(2**31))
        draws.release_draw(draw=draft, actor=organiser)
        links = ensure_links(event=stage.event, actor=organiser)

        password = secrets.token_urlsafe(24)
        chief = User.objects.filter(username=CHIEF).first() or User(username=CHIEF)
        chief.set_password(password)
        chief.save()
        StaffRole.objects.get_or_create(festival=event.festival, user=chief, role=CHIEF_REFEREE)

    numbers = sorted(event.registrations.filter(number__isnull=False).values_list("number", flat=True))
    return {
        "festival": event.festival.slug, "event": event.slug, "stage": stage.number, "games": stage.games,
        "players": numbers, "tables": [{"number": link.table_number, "token": link.token} for link in links],
        "chief": {"username": CHIEF, "password": password},
    }


def _word_sheets(rng, tables: list[dict], games: int, seats: int = 4) -> dict:
    """Per table token and game, a plausible Word sheet as the entry form's fields (turn rows, jokers, end)."""
    from scoring.simulation.word import plausible_word_sheet

    sheets = {}
    for table in tables:
        for game in range(1, games + 1):
            entry = plausible_word_sheet(rng, seats)
            fields = {"rows": str(len(entry.turns)), "end": entry.end}
            for i, turn in enumerate(entry.turns):
                fields[f"t{i}_seat"] = str(turn.seat)
                fields[f"t{i}_words"] = turn.words
                if turn.drew:
                    fields[f"t{i}_drew"] = "on"
                if turn.used_all_tiles:
                    fields[f"t{i}_used_all"] = "on"
            fields.update({f"j{seat}_jokers": str(n) for seat, n in entry.jokers_left.items()})
            sheets[f"{table['token']}/{game}"] = fields
    return sheets


def build_festival(seed: int) -> dict:
    """The day of issue 31 (module docstring); the plan lists every event with its tables and links."""
    import random

    from django.db import transaction
    from django.urls import reverse

    from scoring.services.links import ensure_links
    from scoring.simulation import prepare_event, staff_of
    from tournament.models import Event, Registration
    from tournament.permissions import CHIEF_REFEREE, DESK
    from tournament.services import draws

    rng = random.Random(seed)
    festivals: dict[int, object] = {}
    events, chiefs = [], [{"username": name, "password": secrets.token_urlsafe(24), "events": []} for name in CHIEFS]
    with transaction.atomic():
        for key, number, fmt, game, players, name, chief in FESTIVAL:
            event, event_rng = prepare_event(fmt, players, rng.randrange(2**31), festival=festivals.get(number),
                                             name=name, game=game)
            festivals.setdefault(number, event.festival)
            organiser, _simulated_chief = staff_of(event.festival)
            stage = draws.start_event(event=event, actor=organiser)
            draft = draws.draft_draw(stage=stage, actor=organiser, seed=event_rng.randrange(2**31))
            draws.release_draw(draw=draft, actor=organiser)
            links = ensure_links(event=stage.event, actor=organiser)
            tables = [{"number": link.table_number, "token": link.token} for link in links]
            numbers = sorted(event.registrations.filter(number__isnull=False).values_list("number", flat=True))
            entry = {
                "key": key, "name": name, "festival": event.festival.slug, "event": event.slug, "stage": stage.number,
                "games": stage.games, "game": game, "format": fmt, "players": numbers, "tables": tables,
                # Hong Kong: a game is seated when the previous one is confirmed (R8.2); the referee waits for it
                "seated_by_confirmation": fmt == "hk",
                "board": reverse("board", kwargs={"festival": event.festival.slug, "event": event.slug}),
                "chief": chief,
            }
            if game == "word":
                entry["word_sheets"] = _word_sheets(random.Random(seed + number), tables, stage.games)
            events.append(entry)
            chiefs[chief]["events"].append(key)
        for chief in chiefs:
            for festival in {festivals[number] for key, number, *_rest in FESTIVAL if key in chief["events"]}:
                _grant(chief["username"], chief["password"], festival, CHIEF_REFEREE)
        # The afternoon event: registered, not checked in yet, check-in open; the desks check its players in.
        festival = festivals[1]
        afternoon, _rng = prepare_event("busan", ARRIVALS, rng.randrange(2**31), festival=festival,
                                        name="Afternoon open event")
        Registration.objects.filter(event=afternoon).update(checked_in_at=None, checked_in_by=None, number=None)
        afternoon.checkin_override = Event.CheckinOverride.OPEN
        afternoon.save(update_fields=["checkin_override"])
        desks = [{"username": name, "password": secrets.token_urlsafe(24)} for name in DESKS]
        for desk in desks:
            _grant(desk["username"], desk["password"], festival, DESK)
        arrivals = list(afternoon.registrations.order_by("id").values_list("id", "player__name"))
    kwargs = {"festival": festival.slug, "event": afternoon.slug}
    main = events[0]
    return {
        "festival_mode": True, "events": events, "chiefs": chiefs,
        # the main event's keys at the top, as in the one-event plan (warm-up, freshness probe, report)
        **{key: main[key] for key in ("festival", "event", "stage", "games", "players", "tables")},
        "chief": chiefs[0],
        "desk": {"festival": festival.slug, "event": afternoon.slug, "url": reverse("desk", kwargs=kwargs),
                 "search": reverse("desk-search", kwargs=kwargs), "counts": reverse("desk-counts", kwargs=kwargs),
                 "accounts": desks, "arrivals": [{"id": pk, "name": name} for pk, name in arrivals]},
    }


def _grant(username: str, password: str, festival, role: str) -> None:
    from django.contrib.auth.models import User

    from tournament.models import StaffRole

    user = User.objects.filter(username=username).first() or User(username=username)
    user.set_password(password)
    user.save()
    StaffRole.objects.get_or_create(festival=festival, user=user, role=role)


def report(plan: dict) -> dict:
    """What the server stored during the run (read after gunicorn has stopped)."""
    from django.db.models import Count

    from scoring.models import ScoreSheet
    from tournament.models import Event

    if plan.get("festival_mode"):
        return festival_report(plan)
    event = Event.objects.get(festival__slug=plan["festival"], slug=plan["event"])
    counts = dict(ScoreSheet.objects.filter(stage__event=event).values_list("status").annotate(n=Count("id"))
                  .values_list("status", "n"))
    expected = len(plan["tables"]) * plan["games"]
    # Every sheet stored once: no game of a table holds two sheets (a retried or doubled post would).
    tables = (ScoreSheet.objects.filter(stage__event=event).values("stage", "game", "table_number")
              .annotate(n=Count("id")))
    return {"expected_sheets": expected, "games_with_sheets": tables.count(),
            "stored_twice": tables.filter(n__gt=1).count(),
            **{status: counts.get(status, 0) for status in ScoreSheet.Status.values}}


def festival_report(plan: dict) -> dict:
    """Per event of the festival plan, as `report` for one, plus which games of which tables hold a sheet
    (to compare with what the referees were told was stored) and how many arrivals are checked in."""
    from django.db.models import Count

    from scoring.models import ScoreSheet
    from tournament.models import Event, Registration

    out = {"events": {}, "totals": {}}
    for entry in plan["events"]:
        event = Event.objects.get(festival__slug=entry["festival"], slug=entry["event"])
        sheets = ScoreSheet.objects.filter(stage__event=event)
        counts = dict(sheets.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
        games = sheets.values("stage", "game", "table_number").annotate(n=Count("id"))
        out["events"][entry["key"]] = {
            "games_with_sheets": games.count(), "stored_twice": games.filter(n__gt=1).count(),
            "games": sorted(f"{row['table_number']}/{row['game']}" for row in games),
            **{status: counts.get(status, 0) for status in ScoreSheet.Status.values}}
    for name in ("games_with_sheets", "stored_twice", *ScoreSheet.Status.values):
        out["totals"][name] = sum(event[name] for event in out["events"].values())
    desk = plan["desk"]
    out["checked_in"] = Registration.objects.filter(event__festival__slug=desk["festival"], event__slug=desk["event"],
                                                    checked_in_at__isnull=False).count()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="Write the plan (JSON) here.")
    parser.add_argument("--report", type=Path, help="Read this plan and print what the database holds.")
    parser.add_argument("--players", type=int, default=PLAYERS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--festival", action="store_true", help="the festival of issue 31 instead of one event")
    args = parser.parse_args(argv)
    if bool(args.out) == bool(args.report):
        parser.error("give exactly one of --out and --report")
    _setup()
    if args.report:
        print(json.dumps(report(json.loads(args.report.read_text()))))
        return 0
    plan = build_festival(args.seed) if args.festival else build(args.players, args.seed)
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(plan, out)
    for entry in plan.get("events", [plan]):
        print(f"prepared {len(entry['players'])} players at {len(entry['tables'])} tables, {entry['games']} games: "
              f"/f/{entry['festival']}/{entry['event']}/standings/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
