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


def report(plan: dict) -> dict:
    """What the server stored during the run (read after gunicorn has stopped)."""
    from django.db.models import Count

    from scoring.models import ScoreSheet
    from tournament.models import Event

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="Write the plan (JSON) here.")
    parser.add_argument("--report", type=Path, help="Read this plan and print what the database holds.")
    parser.add_argument("--players", type=int, default=PLAYERS)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    if bool(args.out) == bool(args.report):
        parser.error("give exactly one of --out and --report")
    _setup()
    if args.report:
        print(json.dumps(report(json.loads(args.report.read_text()))))
        return 0
    plan = build(args.players, args.seed)
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(plan, out)
    print(f"prepared {len(plan['players'])} players at {len(plan['tables'])} tables: "
          f"/f/{plan['festival']}/{plan['event']}/standings/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
