"""The computer draw (R8): constraints, seeds, seat order, swaps."""

import os
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournament.formats.draw import (
    ALGORITHM_VERSION,
    REPEAT_OPPONENTS,
    SAME_AFFILIATION,
    SPREAD_SEEDS,
    Constraints,
    Entrant,
    draw_seat_orders,
    draw_tables,
    evaluate,
    met_pairs_from_tables,
    swap_players,
)
from tournament.formats.tables import table_sizes

ROOT = Path(__file__).resolve().parents[2]


def realistic(n, seed=1, seeded_share=0.1):
    """Schools/clubs of 2–8 players (some players unaffiliated), some seeded players."""
    rng = random.Random(seed)
    out, school = [], 0
    while len(out) < n:
        school += 1
        for _ in range(rng.randint(2, 8)):
            if len(out) == n:
                break
            i = len(out) + 1
            aff = f"School {school}" if rng.random() < 0.85 else None
            seed_rank = i if rng.random() < seeded_share else None
            out.append(Entrant(f"p{i:04d}", i, aff, seed_rank))
    return out


def previous_round(entrants, seed=99):
    prev = draw_tables(entrants, constraints=Constraints(False, False, False), seed=seed)
    return met_pairs_from_tables([prev.tables])


def check_seating(draw, entrants, sizes=None):
    ids = sorted(e.id for e in entrants)
    assert sorted(p for t in draw.tables for p in t) == ids
    assert [len(t) for t in draw.tables] == (sizes or table_sizes(len(entrants)))


# --- reproducibility ---------------------------------------------------------------------------


def test_r8_same_seed_same_tables_and_version():
    es = realistic(128)
    met = previous_round(es)
    a = draw_tables(es, met_pairs=met, seed=2024)
    b = draw_tables(es, met_pairs=met, seed=2024)
    assert a == b
    assert a.seed == 2024 and a.algorithm_version == ALGORITHM_VERSION
    check_seating(a, es)


def test_r8_input_order_does_not_matter():
    es = realistic(117)
    met = previous_round(es)
    shuffled = list(es)
    random.Random(5).shuffle(shuffled)
    met_shuffled = [tuple(reversed(sorted(p))) for p in met]
    random.Random(6).shuffle(met_shuffled)
    assert (
        draw_tables(es, met_pairs=met, seed=7).tables
        == draw_tables(shuffled, met_pairs=met_shuffled, seed=7).tables
    )


def test_r8_different_seeds_give_different_draws():
    es = realistic(64)
    assert len({draw_tables(es, seed=s).tables for s in range(10)}) == 10


PINNED = """
import hashlib, random, sys
sys.path.insert(0, sys.argv[1])
from tournament.formats.draw import Entrant, draw_tables
rng = random.Random(3)
es = [Entrant(f"p{i}", i, f"club {rng.randint(1, 9)}", i if i % 7 == 0 else None) for i in range(1, 41)]
met = [(f"p{i}", f"p{i + 1}") for i in range(1, 40, 2)]
d = draw_tables(es, met_pairs=met, seed=424242)
print(hashlib.sha256(repr(d.tables).encode()).hexdigest()[:16])
"""

# The draw for a fixed input must not change silently: a stored seed must reproduce the published
# draw. If this fails after a deliberate change to the algorithm, bump ALGORITHM_VERSION and update.
PINNED_HASH = {"draw-1": "047788e07bbba99e"}


def test_r8_pinned_draw_reproduces_across_processes_and_hash_seeds():
    outs = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", PINNED, str(ROOT)], env=env, capture_output=True, text=True, check=True
            ).stdout.strip()
        )
    assert len(outs) == 1, "the draw depends on string hashing"
    assert outs == {PINNED_HASH[ALGORITHM_VERSION]}, "draw changed: bump ALGORITHM_VERSION"


# --- seat order ------------------------------------------------------------------------------


def test_r8_2_seat_order_is_drawn_too():
    es = [Entrant(i) for i in range(1, 5)]
    firsts = {draw_tables(es, seed=s).first_players[0] for s in range(40)}
    assert firsts == {1, 2, 3, 4}
    d = draw_tables(es, seed=3)
    assert d.seat_of(d.tables[0][0]) == (1, 1)


def test_r8_2_draw_seat_orders_reproducible():
    tables = [[1, 2, 3, 4], [5, 6, 7]]
    a = draw_seat_orders(tables, 11)
    assert a == draw_seat_orders([[4, 3, 2, 1], [7, 6, 5]], 11)
    assert [sorted(t) for t in a] == [[1, 2, 3, 4], [5, 6, 7]]


# --- constraints -------------------------------------------------------------------------------


def test_constraints_met_on_realistic_128():
    es = realistic(128, seed=4)
    met = previous_round(es)
    d = draw_tables(es, met_pairs=met, seed=1)
    assert d.violations == () and set(d.unmet.values()) == {0}
    tables_of = {p: t for t, tb in enumerate(d.tables) for p in tb}
    for a, b in met:
        assert tables_of[a] != tables_of[b]


def test_constraints_met_on_tight_medium_case_without_exact_search():
    # 48 players, 12 schools of exactly 4, 12 tables: each school must be spread one per table,
    # while avoiding the previous round's tablemates. Solved by the local search (N > EXACT_MAX).
    es = [Entrant(i, None, f"S{i % 12}") for i in range(48)]
    for s in range(5):
        met = previous_round(es, seed=100 + s)
        d = draw_tables(es, met_pairs=met, seed=s)
        assert d.unmet == {SAME_AFFILIATION: 0, REPEAT_OPPONENTS: 0, SPREAD_SEEDS: 0}, s


def test_spread_seeds_top_seeds_at_different_tables():
    es = [Entrant(i, seed_rank=i if i <= 40 else None) for i in range(1, 129)]
    d = draw_tables(es, seed=8)
    table_of = {p: t for t, tb in enumerate(d.tables) for p in tb}
    assert len({table_of[i] for i in range(1, 33)}) == 32  # pot 1: top 32 seeds, one per table
    assert len({table_of[i] for i in range(33, 41)}) == 8
    assert d.unmet[SPREAD_SEEDS] == 0


def test_unavoidable_violations_are_reported_with_table_and_players():
    # 5 of one family and 1 other at 2 tables of 3: at least 3 + 1 = 4 same-affiliation pairs.
    es = [Entrant(i, affiliation="Kim family") for i in range(5)] + [Entrant(9)]
    d = draw_tables(es, seed=1)
    assert [len(t) for t in d.tables] == [3, 3]
    assert d.unmet[SAME_AFFILIATION] == 4  # the five split 3 + 2: 3 + 1 pairs
    assert {v.constraint for v in d.violations} == {SAME_AFFILIATION}
    for v in d.violations:
        assert set(v.players) <= set(d.tables[v.table - 1]) and v.detail == "Kim family"


def test_affiliation_compare_is_case_and_space_insensitive():
    es = [Entrant(1, affiliation="Pui Kiu"), Entrant(2, affiliation=" pui  kiu "), Entrant(3), Entrant(4)]
    violations, unmet = evaluate([[1, 2, 3, 4]], es)
    assert unmet[SAME_AFFILIATION] == 1
    assert draw_tables(es + [Entrant(5), Entrant(6)], seed=1).unmet[SAME_AFFILIATION] == 0


def test_switches_turn_constraints_off():
    es = [Entrant(i, affiliation="same") for i in range(8)]
    d = draw_tables(es, constraints=Constraints(same_affiliation=False), seed=1)
    assert d.violations == () and d.unmet[SAME_AFFILIATION] == 0


def test_explicit_table_sizes_and_bad_sizes():
    es = [Entrant(i) for i in range(10)]
    d = draw_tables(es, [4, 4, 2], seed=1)
    assert [len(t) for t in d.tables] == [4, 4, 2]
    with pytest.raises(ValueError):
        draw_tables(es, [4, 4], seed=1)
    with pytest.raises(ValueError):
        draw_tables([Entrant(1), Entrant(1)], seed=1)


def test_manual_swap_highlights_violations():
    es = [
        Entrant(1, affiliation="A"),
        Entrant(2, affiliation="A"),
        Entrant(3),
        Entrant(4),
        Entrant(5),
        Entrant(6),
        Entrant(7),
        Entrant(8),
    ]
    met = [(3, 5)]
    d = draw_tables(es, met_pairs=met, seed=3)
    assert d.violations == ()
    t1, t2 = d.seat_of(1)[0], d.seat_of(2)[0]
    other = next(p for p in d.tables[t2 - 1] if p != 2)
    r = swap_players(d, 1, other, es, met)
    seats = {p: (t, s) for t, tb in enumerate(r.tables, 1) for s, p in enumerate(tb, 1)}
    assert seats[1] == d.seat_of(other) and seats[other] == d.seat_of(1)
    assert r.unmet[SAME_AFFILIATION] == 1
    assert any(v.constraint == SAME_AFFILIATION and set(v.players) == {1, 2} for v in r.violations)
    assert t1 != t2
    with pytest.raises(ValueError):
        swap_players(d, 1, 99, es, met)


# --- property test: constraints met whenever a solution exists --------------------------------


def partitions(players, sizes):
    """Every partition of ``players`` into tables of ``sizes`` (each exactly once)."""
    tables = [[] for _ in sizes]

    def rec(i):
        if i == len(players):
            yield [list(t) for t in tables]
            return
        empty_tried = set()
        for t, size in enumerate(sizes):
            if len(tables[t]) == size:
                continue
            if not tables[t]:
                if size in empty_tried:
                    continue
                empty_tried.add(size)
            tables[t].append(players[i])
            yield from rec(i + 1)
            tables[t].pop()

    yield from rec(0)


def brute_costs(tables, aff, met, pot):
    a = r = s = 0
    for tb in tables:
        for x, y in combinations(tb, 2):
            a += aff[x] is not None and aff[x] == aff[y]
            r += frozenset((x, y)) in met
            s += pot[x] is not None and pot[x] == pot[y]
    return (a, r, s)


@st.composite
def small_cases(draw):
    n = draw(st.integers(2, 10))
    aff = draw(st.lists(st.sampled_from([None, "a", "b", "c"]), min_size=n, max_size=n))
    seeds = draw(st.lists(st.one_of(st.none(), st.integers(1, 4)), min_size=n, max_size=n))
    all_pairs = list(combinations(range(n), 2))
    met = draw(st.lists(st.sampled_from(all_pairs), max_size=10, unique=True))
    seed = draw(st.integers(0, 2**31 - 1))
    return n, aff, seeds, met, seed


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_cases())
def test_r8_constraints_met_whenever_a_solution_exists(case):
    n, aff, seeds, met, seed = case
    es = [Entrant(i, None, aff[i], seeds[i]) for i in range(n)]
    sizes = table_sizes(n)
    met_set = {frozenset(p) for p in met}
    seeded = sorted((i for i in range(n) if seeds[i] is not None), key=lambda i: (seeds[i], i))
    pot = dict.fromkeys(range(n))
    for k, i in enumerate(seeded):
        pot[i] = k // len(sizes)
    best = min(brute_costs(p, dict(enumerate(aff)), met_set, pot) for p in partitions(list(range(n)), sizes))
    d = draw_tables(es, met_pairs=met, seed=seed)
    check_seating(d, es)
    got = (d.unmet[SAME_AFFILIATION], d.unmet[REPEAT_OPPONENTS], d.unmet[SPREAD_SEEDS])
    assert got == brute_costs(d.tables, dict(enumerate(aff)), met_set, pot)
    # lexicographic optimum: affiliation first, then repeat opponents, then seeds
    assert got == best

