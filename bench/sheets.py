"""Score-sheet benchmark: server time of submitting and confirming a sheet with 128 tables in the
game, and the database queries each takes with 16 and with 128 tables.

    python -m bench.sheets                                   # a throwaway SQLite file
    DATABASE_URL=postgres://user@host:5432/name python -m bench.sheets
                                                             # a throwaway database test_<name> there, dropped after
    python -m bench.sheets --quick                           # 32 sheets instead of 128

Development settings. "Server time" is the service call (scoring.services.sheets.submit_sheet /
confirm_sheet, each one transaction, committed), without HTTP or page rendering. Sheets are the
simulation's (plausible racks from rules/, half of them as tiles). Busan: a first round of 512 players;
Hong Kong: 512 players, where the confirmation that completes a game also seats the next (R8.2).
Target: median under 50 ms at 128 tables; the query counts must not grow with the tables (the tests
assert that: tests/scoring/test_simulation.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

TARGET_MS = 50


def _setup_django() -> tuple[str | None, str | None]:
    """Django with the development settings on a throwaway database. Returns (temp dir, PostgreSQL name)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.development"
    tmp = None
    if not os.environ.get("DATABASE_URL"):
        tmp = tempfile.mkdtemp(prefix="bench-sheets-")
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    settings.DEBUG = False  # as in production: no query log (CaptureQueriesContext still counts)

    if connection.vendor == "sqlite":
        call_command("migrate", verbosity=0)
        return tmp, None
    original = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    return tmp, original


def _stage(fmt: str, tables: int, seed: int):
    from scoring.simulation import prepare_event, staff_of
    from tournament.services import draws

    event, rng = prepare_event(fmt, tables * 4, seed)
    organiser, chief = staff_of(event.festival)
    stage = draws.start_event(event=event, actor=organiser)
    draws.release_draw(draw=draws.draft_draw(stage=stage, actor=organiser, seed=seed), actor=organiser)
    return stage, rng, chief


def _entries(stage, game: int, rng):
    from scoring.games.classic import ruleset_of
    from scoring.simulation import plausible_entry
    from tournament.services import seating

    ruleset = ruleset_of(stage.event)
    return [plausible_entry(rng, ruleset, players) for players in seating.player_ids(seating.game_draw(stage, game))]


def _submit(stage, game: int, table: int, entry):
    from scoring.services.sheets import submit_sheet
    from tournament.services.audit import Actor

    link = Actor(label=f"table {table} link")
    return submit_sheet(stage=stage, game=game, table_number=table, entry=entry, accept_warnings=True,
                        idempotency_key=f"bench-{stage.pk}-{game}-{table}", actor=link, via=link.label)


def _timed(call, cpu: list[float]) -> tuple[float, object]:
    """Wall-clock ms of the call; its CPU ms in this process (Python + SQLite, not PostgreSQL's) go to `cpu`."""
    start, start_cpu = time.perf_counter(), time.process_time()
    result = call()
    cpu.append((time.process_time() - start_cpu) * 1000)
    return (time.perf_counter() - start) * 1000, result


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def time_game(fmt: str, sheets: int, seed: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Submit then confirm `sheets` tables of game 1 in a 128-table stage (Hong Kong: the whole game, so the
    last confirmation seats game 2; it is timed apart)."""
    from scoring.services.sheets import confirm_sheet

    stage, rng, chief = _stage(fmt, 128, seed)
    entries = _entries(stage, 1, rng)
    count = len(entries) if fmt == "hk" else sheets
    times: dict[str, list[float]] = {"submit": [], "confirm": [], "confirm + movement": []}
    cpu: dict[str, list[float]] = {"submit": [], "confirm": [], "confirm + movement": []}
    submitted = []
    for table, entry in enumerate(entries[:count], start=1):
        ms, sheet = _timed(lambda table=table, entry=entry: _submit(stage, 1, table, entry), cpu["submit"])
        times["submit"].append(ms)
        submitted.append(sheet)
    for index, sheet in enumerate(submitted):
        call = "confirm + movement" if fmt == "hk" and index == len(submitted) - 1 else "confirm"
        ms, _ = _timed(lambda sheet=sheet: confirm_sheet(sheet=sheet, actor=chief), cpu[call])
        times[call].append(ms)
    if fmt == "hk":
        for measured in (times, cpu):
            measured["submit"], measured["confirm"] = measured["submit"][:sheets], measured["confirm"][:sheets]
    return times, cpu


def count_queries(fmt: str, tables: int, seed: int) -> dict[str, int]:
    """Queries of one submit and one confirm (the first table), and of the confirmation completing game 1."""
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    from scoring.services.sheets import confirm_sheet

    stage, rng, chief = _stage(fmt, tables, seed)
    counts = {}
    for table, entry in enumerate(_entries(stage, 1, rng), start=1):
        reset_queries()  # the log keeps 9,000 queries; the counts need it from empty
        with CaptureQueriesContext(connection) as submitted:
            sheet = _submit(stage, 1, table, entry)
        with CaptureQueriesContext(connection) as confirmed:
            confirm_sheet(sheet=sheet, actor=chief)
        if table == 1:
            counts["submit"], counts["confirm"] = len(submitted), len(confirmed)
    counts["completing confirm"] = len(confirmed)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="32 sheets instead of 128")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    tmp, postgres_name = _setup_django()
    from django.db import connection

    sheets = 32 if args.quick else 128
    try:
        vendor = connection.vendor
        print(f"score-sheet benchmark on {vendor}: 128 tables (512 players), {sheets} submits + {sheets} confirms")
        print(f"{'format':<10} {'call':<20} {'n':>4} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'target':>7} "
              f"{'CPU median ms':>14}")
        ok = True
        for fmt in ("busan", "hk"):
            times, cpu = time_game(fmt, sheets, args.seed)
            for call, values in times.items():
                if not values:
                    continue
                median = statistics.median(values)
                target = TARGET_MS if call in ("submit", "confirm") else None
                ok &= target is None or median < target
                print(f"{fmt:<10} {call:<20} {len(values):>4} {median:>10.1f} {_p95(values):>8.1f} "
                      f"{max(values):>8.1f} {target or '-':>7} {statistics.median(cpu[call]):>14.1f}")
        print(f"\nqueries per call ({vendor}; SQLite splits a bulk insert of more than 999 values into batches)")
        print(f"{'format':<10} {'call':<20} {'16 tables':>10} {'128 tables':>11}")
        for fmt in ("busan", "hk"):
            small, large = count_queries(fmt, 16, args.seed), count_queries(fmt, 128, args.seed)
            for call in small:
                print(f"{fmt:<10} {call:<20} {small[call]:>10} {large[call]:>11}")
        return 0 if ok else 1
    finally:
        if postgres_name is not None:
            connection.creation.destroy_test_db(postgres_name, verbosity=0)
        if tmp is not None:
            connection.close()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
