"""Benchmark of the meld solver: ``python -m bench.meld [--racks N] [--quick] [--seed S] [--search N]``.

Racks are dealt at random (seeded) from a shuffled 106-tile set. Prints, per rack size, the median and
worst time of ``best_meld``, of a plain exhaustive search where it finishes (fewer racks, a per-rack
time budget; unfinished racks are counted and reported), and of ``can_open`` up to the whole set.
Then the worst-case search of ``bench/meld_search.py`` (``--search 0`` skips it, ``--search-only`` runs
only it): N random 40-tile racks plus adversarial ones, p50 / p99 / worst, the slowest rack, and the
whole 106-tile set.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time

from bench.meld_search import search
from rules.meld import best_meld, can_open
from rules.sets import analyse_set
from rules.tiles import full_set


class _OutOfTime(Exception):
    pass


def exhaustive_value(rack, budget: float) -> int:
    """Plain exhaustive search: every sub-collection that is a valid set, then the best disjoint
    packing by depth-first search over tiles. Raises _OutOfTime past ``budget`` seconds."""
    deadline = time.perf_counter() + budget
    n = len(rack)
    candidates: dict[int, list[tuple[int, int]]] = {i: [] for i in range(n)}
    for size in range(3, n + 1):
        for idx in itertools.combinations(range(n), size):
            if time.perf_counter() > deadline:
                raise _OutOfTime
            placed = analyse_set(rack[i] for i in idx)
            if placed is not None:
                mask = sum(1 << i for i in idx)
                candidates[idx[0]].append((mask, placed.value))
    memo: dict[int, int] = {}

    def go(free: int) -> int:
        if free == 0:
            return 0
        if free in memo:
            return memo[free]
        if time.perf_counter() > deadline:
            raise _OutOfTime
        low = (free & -free).bit_length() - 1
        best = go(free & ~(1 << low))
        for mask, value in candidates[low]:
            if mask & free == mask:
                best = max(best, value + go(free & ~mask))
        memo[free] = best
        return best

    return go((1 << n) - 1)


def _racks(rng: random.Random, size: int, count: int):
    for _ in range(count):
        deck = full_set()
        rng.shuffle(deck)
        yield deck[:size]


def _timed(fn, rack) -> float:
    t = time.perf_counter()
    fn(rack)
    return time.perf_counter() - t


def _row(label: str, times: list[float], extra: str = "") -> str:
    med, worst = statistics.median(times) * 1e3, max(times) * 1e3
    return f"{label:<34} {len(times):>6} {med:>10.3f} {worst:>10.3f}  {extra}"


def _print_row(label: str, count: int, median: float, worst: float, extra: str = "") -> None:
    print(f"{label:<34} {count:>6} {median * 1e3:>10.3f} {worst * 1e3:>10.3f}  {extra}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.meld", description=__doc__.splitlines()[0])
    p.add_argument("--racks", type=int, default=1000, help="racks per size for best_meld (default 1000)")
    p.add_argument("--quick", action="store_true", help="smoke run: 20 racks per size, short budgets")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument(
        "--search",
        type=int,
        default=10000,
        metavar="N",
        help="random 40-tile racks in the "
        "worst-case search (default 10000; --quick: 200; 0 skips the search)",
    )
    p.add_argument(
        "--climb", type=int, default=50, metavar="K", help="swaps in the local search (default 50)"
    )
    p.add_argument("--search-only", action="store_true", help="run only the worst-case search")
    args = p.parse_args(argv)
    racks = 20 if args.quick else max(1, args.racks)
    exhaustive_racks = 5 if args.quick else 50
    budget = 0.5 if args.quick else 5.0
    can_open_racks = 10 if args.quick else 200
    rng = random.Random(args.seed)

    print(f"Meld solver benchmark  python {sys.version.split()[0]}  seed {args.seed}")
    print(f"{'what':<34} {'racks':>6} {'median ms':>10} {'worst ms':>10}")
    if not args.search_only:
        _tables(args, rng, racks, exhaustive_racks, budget, can_open_racks)
    count = min(args.search, 200) if args.quick else args.search
    if count > 0:
        search(args.seed, count, max(1, count // 20), 10 if args.quick else args.climb, _print_row)
    return 0


def _tables(args, rng, racks, exhaustive_racks, budget, can_open_racks) -> None:
    for size in (14, 20, 30, 40):
        times = [_timed(best_meld, r) for r in _racks(rng, size, racks)]
        print(_row(f"best_meld, {size} tiles", times), flush=True)
    for size in (14, 20):
        count = exhaustive_racks if size == 14 else max(1, exhaustive_racks // 10)
        times, unfinished = [], 0
        for rack in _racks(rng, size, count):
            t = time.perf_counter()
            try:
                value = exhaustive_value(rack, budget)
            except _OutOfTime:
                unfinished += 1
                continue
            times.append(time.perf_counter() - t)
            assert value == best_meld(rack).value, rack
        label = f"exhaustive, {size} tiles"
        note = f"budget {budget:g} s/rack; {unfinished} of {count} unfinished"
        print(
            _row(label, times, note) if times else f"{label:<34} {0:>6} {'-':>10} {'-':>10}  {note}",
            flush=True,
        )
    for size in (14, 30, 40, 60, 80, 106):
        times = [_timed(can_open, r) for r in _racks(rng, size, can_open_racks)]
        print(_row(f"can_open, {size} tiles", times), flush=True)
    # Hard cases for can_open: racks dealt from the low numbers (plus jokers and a few stray tiles),
    # where the cheap bounds do not settle the answer and the solver has to run.
    times = []
    for _ in range(can_open_racks * 5):
        top = rng.randint(2, 10)
        pool = [t for t in full_set() if t.is_joker or t.number <= top or rng.random() < 0.05]
        rng.shuffle(pool)
        times.append(_timed(can_open, pool[: rng.randint(5, len(pool))]))
    print(_row("can_open, low-number racks 5-106", times), flush=True)
    for size in (60, 80, 106):
        n = 3 if args.quick else 20
        times = [_timed(best_meld, r) for r in _racks(rng, size, n)]
        print(_row(f"best_meld, {size} tiles (no target)", times), flush=True)


if __name__ == "__main__":
    sys.exit(main())
