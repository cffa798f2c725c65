"""Draw benchmark: median and worst draw time with all constraints on.

    python -m bench.draws            # 128, 1,024 and 4,096 players
    python -m bench.draws --quick    # fewer repetitions

Field: schools/clubs of 2–8 players (about 15 % of players unaffiliated), about 10 % seeded players,
and the tables of a previous round as "already met" pairs (3 per player). Targets on the 2-core
reference machine: median < 50 ms (128), < 200 ms (1,024), < 1 s (4,096).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from tournament.formats.draw import (
    ALGORITHM_VERSION,
    Constraints,
    Entrant,
    draw_tables,
    met_pairs_from_tables,
)

TARGET_MS = {128: 50, 1024: 200, 4096: 1000}


def field(n: int, seed: int) -> list[Entrant]:
    rng = random.Random(seed)
    out: list[Entrant] = []
    school = 0
    while len(out) < n:
        school += 1
        for _ in range(rng.randint(2, 8)):
            if len(out) == n:
                break
            i = len(out) + 1
            affiliation = f"School {school}" if rng.random() < 0.85 else None
            seed_rank = i if rng.random() < 0.10 else None
            out.append(Entrant(f"P{i:05d}", i, affiliation, seed_rank))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(TARGET_MS))
    args = parser.parse_args(argv)
    runs = {128: 41, 1024: 15, 4096: 7} if not args.quick else {128: 9, 1024: 5, 4096: 3}
    print(f"draw benchmark, algorithm {ALGORITHM_VERSION}, all constraints on")
    print(f"{'players':>8} {'runs':>5} {'median ms':>10} {'worst ms':>9} {'target':>7} {'unmet pairs':>12}")
    ok = True
    for n in args.sizes:
        entrants = field(n, seed=n)
        previous = draw_tables(entrants, constraints=Constraints(False, False, False), seed=1)
        met = met_pairs_from_tables([previous.tables])
        times, unmet = [], 0
        for r in range(runs.get(n, 5)):
            t0 = time.perf_counter()
            d = draw_tables(entrants, met_pairs=met, seed=1000 + r)
            times.append((time.perf_counter() - t0) * 1000)
            unmet = max(unmet, sum(d.unmet.values()))
        median, worst = statistics.median(times), max(times)
        target = TARGET_MS.get(n)
        ok &= target is None or median < target
        print(f"{n:>8} {len(times):>5} {median:>10.1f} {worst:>9.1f} {target or '-':>7} {unmet:>12}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
