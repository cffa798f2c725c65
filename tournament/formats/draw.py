"""The computer table draw: random, constrained, reproducible from a stored seed (R8).

Input: entrants (:class:`Entrant`), table sizes (default :func:`.tables.table_sizes`), the pairs who
already met at a table in this event, which constraints are on (:class:`Constraints`) and an integer
seed. Output (:class:`DrawOutcome`): the tables, each a tuple of player ids in **seat order** (seat 1 = the
first player: R8.2 draws the seat order / first player at every game, so the draw does too), the seed,
:data:`ALGORITHM_VERSION` and the constraint violations it could not avoid (which constraint, which
table, which players).

Reproducibility: the entrants are sorted canonically by id before anything random happens and all
randomness comes from ``random.Random(seed)``; the search is bounded by counts, never by the clock.
Hence same seed + same players (+ same met pairs, sizes, switches) + same version ⇒ identical draw,
whatever order the players are passed in. Change :data:`ALGORITHM_VERSION` whenever a change to this
module can change a draw for the same input.

Constraints, in priority order (each switchable):

1. ``same_affiliation`` – never two players of the same affiliation (school, club, family) at a table
   when it can be avoided. Affiliations compare case-insensitively, whitespace-normalised; empty or
   ``None`` means "no affiliation".
2. ``repeat_opponents`` – avoid seating together players who already met at a table in this event.
3. ``spread_seeds`` – seeded players (``seed_rank``, lower = stronger) are split into pots of as many
   players as there are tables (the strongest T, the next T, …); two players of one pot at a table is
   a violation. So the top T seeds sit at T different tables, and so on.

The draw minimises, lexicographically, (same-affiliation pairs, repeat pairs, same-pot pairs) over all
tables. Method: a "dealing" start (seeded players by pot, then affiliation groups kept together and
dealt round-robin over the tables, so a group never lands twice at a table while it has at most one
member per table) followed by a seeded local search of swaps between tables. For small draws
(N ≤ :data:`EXACT_MAX`) that still have a violation an exact branch-and-bound search follows (budget
:data:`EXACT_NODE_LIMIT` nodes), so up to 12 players the result is the proven optimum: the constraints
are met whenever that is possible at all. Above that it is a strong heuristic, not a proof. Finally the tables of equal size are put in a
random order and every table's seat order is drawn.

One module on purpose: the dealing start, the local search and the exact search share the cost function and
the table state; split apart, each would be half an algorithm.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from .ranking import id_key
from .tables import table_sizes as default_table_sizes

ALGORITHM_VERSION = "draw-1"

SAME_AFFILIATION = "same_affiliation"
REPEAT_OPPONENTS = "repeat_opponents"
SPREAD_SEEDS = "spread_seeds"
CONSTRAINTS = (SAME_AFFILIATION, REPEAT_OPPONENTS, SPREAD_SEEDS)  # priority order

#: exact search for draws up to this many players when the local search leaves a violation
EXACT_MAX = 16
EXACT_NODE_LIMIT = 20_000  # nodes; enough to prove the optimum up to ~12 players
#: local search scans every swap partner up to this many players, samples above it
FULL_SCAN_MAX = 256
SAMPLE_CANDIDATES = 96


@dataclass(frozen=True)
class Entrant:
    id: Hashable
    number: int | None = None  # player number, if any
    affiliation: str | None = None  # school, club, family…
    seed_rank: int | None = None  # national ranking etc.; lower = stronger; None = unseeded


@dataclass(frozen=True)
class Constraints:
    same_affiliation: bool = True
    repeat_opponents: bool = True
    spread_seeds: bool = True


@dataclass(frozen=True)
class Violation:
    constraint: str  # one of CONSTRAINTS
    table: int  # 1-based table number
    players: tuple[Hashable, ...]  # the players concerned (canonical order)
    detail: str = ""  # affiliation name, "met before", "seed pot 1"


@dataclass(frozen=True)
class DrawOutcome:
    tables: tuple[tuple[Hashable, ...], ...]  # table 1 first; each in seat order, seat 1 first
    seed: int
    algorithm_version: str
    violations: tuple[Violation, ...]
    #: constraint → number of offending pairs (0 when met or switched off)
    unmet: dict[str, int] = field(hash=False)
    constraints: Constraints = Constraints()

    def seat_of(self, player_id: Hashable) -> tuple[int, int]:
        """(table number, seat number), both 1-based."""
        for t, players in enumerate(self.tables, 1):
            if player_id in players:
                return t, players.index(player_id) + 1
        raise KeyError(player_id)

    @property
    def first_players(self) -> tuple[Hashable, ...]:
        return tuple(t[0] for t in self.tables)


@dataclass(frozen=True)
class SwapResult:
    tables: tuple[tuple[Hashable, ...], ...]
    violations: tuple[Violation, ...]
    unmet: dict[str, int] = field(hash=False)


def new_seed() -> int:
    """A fresh seed for a draw (store it with the draw and show it on the draw page)."""
    return secrets.randbelow(2**31)


def met_pairs_from_tables(rounds: Iterable[Sequence[Sequence[Hashable]]]) -> set[frozenset]:
    """All pairs who sat at one table, from earlier games' tables (each a list of tables)."""
    pairs: set[frozenset] = set()
    for tables in rounds:
        for table in tables:
            ps = list(table)
            for i, a in enumerate(ps):
                for b in ps[i + 1 :]:
                    pairs.add(frozenset((a, b)))
    return pairs


def _norm_affiliation(a: str | None) -> str | None:
    if a is None:
        return None
    a = " ".join(str(a).split()).casefold()
    return a or None


def _canonical(entrants: Iterable[Entrant | Hashable]) -> list[Entrant]:
    es = [e if isinstance(e, Entrant) else Entrant(e) for e in entrants]
    es.sort(key=lambda e: id_key(e.id))
    for a, b in zip(es, es[1:], strict=False):
        if a.id == b.id:
            raise ValueError(f"player {a.id!r} entered twice")
    return es


class _Problem:
    """Entrants as small integers, with the pair cost used by every search."""

    def __init__(self, entrants: list[Entrant], met_pairs, constraints: Constraints, sizes: Sequence[int]):
        n_tables = len(sizes)
        self.entrants = entrants
        n = self.n = len(entrants)
        index = {e.id: i for i, e in enumerate(entrants)}
        self.index = index
        self.aff = [-1] * n
        self.aff_name: dict[int, str] = {}
        if constraints.same_affiliation:
            codes: dict[str, int] = {}
            for i, e in enumerate(entrants):
                a = _norm_affiliation(e.affiliation)
                if a is not None:
                    code = codes.setdefault(a, len(codes))
                    self.aff[i] = code
                    self.aff_name.setdefault(code, " ".join(str(e.affiliation).split()))
        self.met: list[set[int]] = [set() for _ in range(n)]
        if constraints.repeat_opponents:
            for pair in met_pairs:
                ab = [index.get(x) for x in pair]
                if len(ab) == 2 and None not in ab and ab[0] != ab[1]:
                    self.met[ab[0]].add(ab[1])
                    self.met[ab[1]].add(ab[0])
        self.pot = [-1] * n
        self.seeded: list[int] = []
        if constraints.spread_seeds and n_tables > 0:
            self.seeded = sorted(
                (i for i, e in enumerate(entrants) if e.seed_rank is not None),
                key=lambda i: (entrants[i].seed_rank, i),
            )
            for k, i in enumerate(self.seeded):
                self.pot[i] = k // n_tables
        # lexicographic weights: one pair of a higher-priority constraint outweighs all lower ones
        max_pairs = sum(s * (s - 1) // 2 for s in sizes)
        self.w_seed = 1
        self.w_rep = max_pairs + 1
        self.w_aff = self.w_rep * (max_pairs + 1)

    def pair_cost(self):
        aff, met, pot = self.aff, self.met, self.pot
        w_aff, w_rep = self.w_aff, self.w_rep

        def pc(a: int, b: int) -> int:
            c = 0
            x = aff[a]
            if x >= 0 and x == aff[b]:
                c += w_aff
            if b in met[a]:
                c += w_rep
            y = pot[a]
            if y >= 0 and y == pot[b]:
                c += 1
            return c

        return pc

    def lower_bound(self, sizes: list[int]) -> int:
        """Same-affiliation pairs that no draw can avoid (members spread evenly), weighted."""
        t = len(sizes)
        counts: dict[int, int] = {}
        for a in self.aff:
            if a >= 0:
                counts[a] = counts.get(a, 0) + 1
        pairs = 0
        for g in counts.values():
            q, r = divmod(g, t)
            pairs += r * (q + 1) * q // 2 + (t - r) * q * (q - 1) // 2
        return pairs * self.w_aff


def _deal(problem: _Problem, sizes: list[int], rng: random.Random) -> list[list[int]]:
    """Start: seeded players by strength, then affiliation groups kept together, dealt round-robin."""
    n = problem.n
    seeded = list(problem.seeded)
    in_seeded = set(seeded)
    groups: dict[int, list[int]] = {}
    singles: list[list[int]] = []
    for i in range(n):
        if i in in_seeded:
            continue
        a = problem.aff[i]
        if a >= 0:
            groups.setdefault(a, []).append(i)
        else:
            singles.append([i])
    units = [groups[a] for a in sorted(groups)] + singles
    rng.shuffle(units)
    order = list(seeded)
    for u in units:
        rng.shuffle(u)
        order.extend(u)
    slots = [t for r in range(max(sizes, default=0)) for t in range(len(sizes)) if sizes[t] > r]
    tables: list[list[int]] = [[] for _ in sizes]
    for p, t in zip(order, slots, strict=True):
        tables[t].append(p)
    return tables


def _table_cost(tables: list[list[int]], pc) -> int:
    total = 0
    for tb in tables:
        for i, a in enumerate(tb):
            for b in tb[i + 1 :]:
                total += pc(a, b)
    return total


def _local_search(tables: list[list[int]], pc, rng: random.Random, lower: int) -> int:
    """Improve by swaps between tables; returns the final total cost. Bounded by counts only."""
    n = sum(len(t) for t in tables)
    where = [0] * n
    for t, tb in enumerate(tables):
        for p in tb:
            where[p] = t

    def cost_at(p: int, t: int, skip: int) -> int:
        c = 0
        for m in tables[t]:
            if m != p and m != skip:
                c += pc(p, m)
        return c

    total = _table_cost(tables, pc)
    if total <= lower or len(tables) < 2:
        return total
    full_scan = n <= FULL_SCAN_MAX
    kicks = 20 if n <= EXACT_MAX else 400 if n <= 64 else 60 if n <= FULL_SCAN_MAX else 8
    max_passes = 4 * kicks + 100
    best_total = total
    best_tables = [list(tb) for tb in tables]
    for _ in range(max_passes):
        bad = [p for p in range(n) if cost_at(p, where[p], -1) > 0]
        if not bad:
            break
        rng.shuffle(bad)
        improved = False
        for p in bad:
            tp = where[p]
            own = cost_at(p, tp, -1)
            if own == 0:
                continue
            if full_scan:
                start = rng.randrange(n)
                candidates: Iterable[int] = (range(start, n), range(0, start))
            else:
                candidates = ([rng.randrange(n) for _ in range(SAMPLE_CANDIDATES)],)
            done = False
            for block in candidates:
                for q in block:
                    tq = where[q]
                    if tq == tp:
                        continue
                    delta = (cost_at(p, tq, q) + cost_at(q, tp, p)) - (own + cost_at(q, tq, -1))
                    if delta < 0:
                        tables[tp][tables[tp].index(p)] = q
                        tables[tq][tables[tq].index(q)] = p
                        where[p], where[q] = tq, tp
                        total += delta
                        improved = done = True
                        break
                if done:
                    break
        if total < best_total:
            best_total = total
            best_tables = [list(tb) for tb in tables]
        if total <= lower:
            break
        if not improved:
            if kicks == 0:
                break
            kicks -= 1
            # kick: swap a random offending player with a random player of another table
            p = rng.choice(bad)
            q = rng.randrange(n)
            if where[q] != where[p]:
                tp, tq = where[p], where[q]
                delta = (cost_at(p, tq, q) + cost_at(q, tp, p)) - (cost_at(p, tp, -1) + cost_at(q, tq, -1))
                tables[tp][tables[tp].index(p)] = q
                tables[tq][tables[tq].index(q)] = p
                where[p], where[q] = tq, tp
                total += delta
    if best_total < total:
        tables[:] = best_tables
        total = best_total
    return total


def _exact(tables: list[list[int]], sizes: list[int], pc, rng: random.Random, best: int, lower: int) -> int:
    """Branch and bound over all partitions into ``sizes``; improves ``tables`` in place if it can.

    Bound: cost so far + for every player still to seat, the least it would add at a table with room
    (given who sits there already). Players are seated most-constrained first; empty tables of equal
    size are interchangeable, so only the first is tried.
    """
    n = sum(sizes)
    nt = len(sizes)
    cost = [[pc(p, q) if p != q else 0 for q in range(n)] for p in range(n)]
    degree = [sum(1 for c in row if c) for row in cost]
    order = list(range(n))
    rng.shuffle(order)
    order.sort(key=lambda p: -degree[p])
    members: list[list[int]] = [[] for _ in sizes]
    add = [[0] * nt for _ in range(n)]  # add[p][t]: what p would add at table t now
    state = {"best": best, "found": None, "nodes": 0}

    def bound(i: int) -> int:
        open_tables = [t for t in range(nt) if len(members[t]) < sizes[t]]
        b = 0
        for r in order[i:]:
            row = add[r]
            b += min(row[t] for t in open_tables)
        return b

    def rec(i: int, so_far: int) -> None:
        if i == n:
            state["best"] = so_far
            state["found"] = [list(m) for m in members]
            return
        state["nodes"] += 1
        if state["nodes"] > EXACT_NODE_LIMIT or so_far + bound(i) >= state["best"]:
            return
        p = order[i]
        empty_sizes_tried = set()
        for t, size in enumerate(sizes):
            m = members[t]
            if len(m) >= size:
                continue
            if not m:
                if size in empty_sizes_tried:
                    continue  # symmetric to an empty table already tried
                empty_sizes_tried.add(size)
            extra = add[p][t]
            if so_far + extra < state["best"]:
                m.append(p)
                cp = cost[p]
                for r in range(n):
                    add[r][t] += cp[r]
                rec(i + 1, so_far + extra)
                for r in range(n):
                    add[r][t] -= cp[r]
                m.pop()
                if state["best"] <= lower or state["nodes"] > EXACT_NODE_LIMIT:
                    return

    rec(0, 0)
    if state["found"] is not None:
        tables[:] = state["found"]
    return state["best"]


def _to_ids(tables: list[list[int]], entrants: list[Entrant]) -> tuple[tuple[Hashable, ...], ...]:
    return tuple(tuple(entrants[p].id for p in tb) for tb in tables)


def _violations(problem: _Problem, tables: list[list[int]]) -> tuple[list[Violation], dict[str, int]]:
    es = problem.entrants
    out: list[Violation] = []
    unmet = dict.fromkeys(CONSTRAINTS, 0)
    for t, tb in enumerate(tables, 1):
        tb = sorted(tb)  # canonical order
        by_aff: dict[int, list[int]] = {}
        by_pot: dict[int, list[int]] = {}
        for p in tb:
            if problem.aff[p] >= 0:
                by_aff.setdefault(problem.aff[p], []).append(p)
            if problem.pot[p] >= 0:
                by_pot.setdefault(problem.pot[p], []).append(p)
        for a, ps in sorted(by_aff.items()):
            if len(ps) > 1:
                unmet[SAME_AFFILIATION] += len(ps) * (len(ps) - 1) // 2
                out.append(Violation(SAME_AFFILIATION, t, tuple(es[p].id for p in ps), problem.aff_name[a]))
        for i, a in enumerate(tb):
            for b in tb[i + 1 :]:
                if b in problem.met[a]:
                    unmet[REPEAT_OPPONENTS] += 1
                    out.append(Violation(REPEAT_OPPONENTS, t, (es[a].id, es[b].id), "met before"))
        for pot, ps in sorted(by_pot.items()):
            if len(ps) > 1:
                unmet[SPREAD_SEEDS] += len(ps) * (len(ps) - 1) // 2
                out.append(Violation(SPREAD_SEEDS, t, tuple(es[p].id for p in ps), f"seed pot {pot + 1}"))
    out.sort(key=lambda v: (CONSTRAINTS.index(v.constraint), v.table))
    return out, unmet


def draw_tables(
    entrants: Iterable[Entrant | Hashable],
    table_sizes: Sequence[int] | None = None,
    met_pairs: Iterable[Iterable[Hashable]] = (),
    constraints: Constraints = Constraints(),
    *,
    seed: int,
) -> DrawOutcome:
    """Draw the tables and each table's seat order. See the module docstring for the method."""
    es = _canonical(entrants)
    n = len(es)
    sizes = list(default_table_sizes(n) if table_sizes is None else table_sizes)
    if sum(sizes) != n or any(s < 1 for s in sizes):
        raise ValueError(f"table sizes {sizes} do not seat {n} players")
    rng = random.Random(seed)
    problem = _Problem(es, met_pairs, constraints, sizes)
    pc = problem.pair_cost()
    lower = problem.lower_bound(sizes) if sizes else 0
    tables = _deal(problem, sizes, rng)
    total = _local_search(tables, pc, rng, lower)
    if total > lower and n <= EXACT_MAX:
        _exact(tables, sizes, pc, rng, total, lower)
    # random table numbers among tables of equal size, then the seat order of every table (R8.2)
    for size in sorted(set(sizes)):
        positions = [t for t, s in enumerate(sizes) if s == size]
        groups = [tables[t] for t in positions]
        rng.shuffle(groups)
        for t, g in zip(positions, groups, strict=True):
            tables[t] = g
    for tb in tables:
        tb.sort()
        rng.shuffle(tb)
    violations, unmet = _violations(problem, tables)
    return DrawOutcome(_to_ids(tables, es), seed, ALGORITHM_VERSION, tuple(violations), unmet, constraints)


def evaluate(
    tables: Sequence[Sequence[Hashable]],
    entrants: Iterable[Entrant | Hashable],
    met_pairs: Iterable[Iterable[Hashable]] = (),
    constraints: Constraints = Constraints(),
) -> tuple[list[Violation], dict[str, int]]:
    """Violations of any seating (e.g. one edited by hand), counted as :func:`draw_tables` does."""
    es = _canonical(entrants)
    problem = _Problem(es, met_pairs, constraints, [len(tb) for tb in tables])
    try:
        idx = [[problem.index[p] for p in tb] for tb in tables]
    except KeyError as exc:
        raise ValueError(f"player {exc.args[0]!r} is not an entrant") from None
    return _violations(problem, idx)


def draw_seat_orders(
    tables: Sequence[Sequence[Hashable]], seed: int | str
) -> tuple[tuple[Hashable, ...], ...]:
    """Draw each table's seat order again (R8.2: at every game); seat 1 starts, play goes clockwise."""
    rng = random.Random(seed)
    out = []
    for tb in tables:
        ps = sorted(tb, key=id_key)
        rng.shuffle(ps)
        out.append(tuple(ps))
    return tuple(out)


def swap_players(
    tables: DrawOutcome | Sequence[Sequence[Hashable]],
    a: Hashable,
    b: Hashable,
    entrants: Iterable[Entrant | Hashable],
    met_pairs: Iterable[Iterable[Hashable]] = (),
    constraints: Constraints | None = None,
) -> SwapResult:
    """The organiser's manual swap: ``a`` takes ``b``'s seat and vice versa; violations re-checked."""
    if isinstance(tables, DrawOutcome):
        constraints = constraints or tables.constraints
        tables = tables.tables
    constraints = constraints or Constraints()
    new = [list(tb) for tb in tables]
    pos = {}
    for t, tb in enumerate(new):
        for s, p in enumerate(tb):
            pos[p] = (t, s)
    for p in (a, b):
        if p not in pos:
            raise ValueError(f"player {p!r} is not in the draw")
    (ta, sa), (tb_, sb) = pos[a], pos[b]
    new[ta][sa], new[tb_][sb] = b, a
    result = tuple(tuple(tb) for tb in new)
    violations, unmet = evaluate(result, entrants, met_pairs, constraints)
    return SwapResult(result, tuple(violations), unmet)
