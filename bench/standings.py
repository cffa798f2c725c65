"""Standings benchmark: the pure `compute` and the database-backed standings and pages.

    python -m bench.standings              # compute: 1,024 players × 10 games, 50 runs; database: 128 players
    python -m bench.standings --quick      # fewer runs
    python -m bench.standings --no-db      # compute only

`compute` gets 10,240 results: each game seats the 1,024 players at random tables of 4, one goes out and
scores the others' penalties (zero-sum, R6). Target on the 2-core reference machine: median and worst
under 100 ms.

The database part plays a whole 128-player Busan event through the services (`scoring.simulation`) in a
fresh SQLite file (or `--database-url`, e.g. a PostgreSQL database of your own — it adds one festival) and
times `event_standings` for the whole event and for round 1, then the public pages through Django's test
client: a full standings page, the polled fragment (rendered after a change, then served to the other
phones from the cache) and the 304 answer to an unchanged page, with the number of queries each one makes.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from decimal import Decimal

TARGET_MS = 100


def synthetic_results(players: int, games: int, seed: int):
    from scoring.standings import Result

    rng = random.Random(seed)
    ids = list(range(1, players + 1))
    results = []
    for game in range(1, games + 1):
        rng.shuffle(ids)
        for table, start in enumerate(range(0, players, 4), start=1):
            seated = ids[start:start + 4]
            penalties = [rng.randint(1, 60) for _ in seated[1:]]
            results.append(Result(seated[0], 1, game, table, Decimal(sum(penalties)), True))
            results.extend(Result(p, 1, game, table, Decimal(-v), False) for p, v in zip(seated[1:], penalties, strict=True))
    return results


def timed(function, runs: int) -> list[float]:
    """Wall-clock ms per call; like `timeit`, the garbage collector waits until the call is done."""
    times = []
    function()  # warm up: imports, template loading, the database's cache
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            function()
            times.append((time.perf_counter() - start) * 1000)
        finally:
            gc.enable()
    return times


def report(label: str, times: list[float], target: float | None = None, extra: str = "") -> bool:
    median, worst = statistics.median(times), max(times)
    ok = target is None or (median < target and worst < target)
    mark = "" if target is None else (" ✔" if ok else " ✘")
    print(f"{label:<58} {len(times):>5} {median:>10.1f} {worst:>9.1f} {'' if target is None else target:>7}{mark} {extra}")
    return ok


def bench_compute(runs: int) -> bool:
    from scoring.standings import compute

    players, games = 1024, 10
    results = synthetic_results(players, games, seed=2024)
    ids = range(1, players + 1)
    ok = report(f"compute, {players} players × {games} games, total",
                timed(lambda: compute(ids, results, ("wins", "points", "playoff", "lot"), "total"), runs), TARGET_MS)
    ok &= report(f"compute, {players} players × {games} games, average",
                 timed(lambda: compute(ids, results, ("wins", "average", "playoff", "lot"), "average"), runs),
                 TARGET_MS)
    return ok


def setup_django(database_url: str | None, migrate: bool = True) -> str:
    """`scoring.standings` imports the models, so Django is set up even for the pure part."""
    if database_url is None:
        path = os.path.join(tempfile.mkdtemp(prefix="bench-standings-"), "db.sqlite3")
        database_url = f"sqlite:///{path}"
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django
    from django.core.management import call_command

    django.setup()
    if migrate:
        call_command("migrate", verbosity=0)
    return database_url


def bench_database(runs: int, players: int, url: str) -> None:
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from scoring.simulation import simulate
    from scoring.standings import event_standings

    print(f"\ndatabase: {url.split('@')[-1]}")
    start = time.perf_counter()
    event = simulate("busan", players, seed=7)
    print(f"simulated a {players}-player Busan event in {time.perf_counter() - start:.1f} s")
    stage = event.stages.get(number=1)

    def queries(function) -> int:
        with CaptureQueriesContext(connection) as captured:
            function()
        return len(captured)

    print(f"{'what':<58} {'runs':>5} {'median ms':>10} {'worst ms':>9}")
    whole = lambda: event_standings(event)  # noqa: E731
    first = lambda: event_standings(event, stage=stage)  # noqa: E731
    report(f"event_standings, whole event ({players} players)", timed(whole, runs), extra=f"{queries(whole)} queries")
    report("event_standings, round 1", timed(first, runs), extra=f"{queries(first)} queries")
    client = Client()
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    for name, label in (("public-standings", "standings page (full)"),
                        ("public-standings-live", "standings fragment (htmx poll)"),
                        ("public-hall-live", "hall display fragment")):
        url = reverse(name, kwargs=kwargs)
        get = lambda url=url: client.get(url)  # noqa: E731
        etag = client.get(url)["ETag"]
        if name.endswith("-live"):  # first the rendering after a change, then the other phones' requests
            fresh = lambda url=url: (cache.clear(), client.get(url))  # noqa: E731
            report(f"GET {label}, after a change", timed(fresh, runs), extra=f"{queries(fresh)} queries")
            report(f"GET {label}, already rendered", timed(get, runs), extra=f"{queries(get)} queries")
        else:
            report(f"GET {label}", timed(get, runs), extra=f"{queries(get)} queries")
        unchanged = lambda url=url, etag=etag: client.get(url, HTTP_IF_NONE_MATCH=etag)  # noqa: E731
        assert unchanged().status_code == 304
        report(f"GET {label}, unchanged → 304", timed(unchanged, runs), extra=f"{queries(unchanged)} queries")
    player = reverse("public-player", kwargs={**kwargs, "number": 1})
    get = lambda: client.get(player)  # noqa: E731
    report("GET player page", timed(get, runs), extra=f"{queries(get)} queries")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    parser.add_argument("--no-db", action="store_true", help="only the pure computation")
    parser.add_argument("--players", type=int, default=128, help="players in the simulated event (database part)")
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    args = parser.parse_args(argv)
    runs = 10 if args.quick else 50
    url = setup_django(args.database_url, migrate=not args.no_db)
    print(f"{'what':<58} {'runs':>5} {'median ms':>10} {'worst ms':>9} {'target':>7}")
    ok = bench_compute(runs)
    if not args.no_db:
        bench_database(runs, args.players, url)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
