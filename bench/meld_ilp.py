"""The meld solver side by side with an integer linear programme, in one process:
``python -m bench.meld_ilp [--small N] [--big N] [--seed S]``.

The ILP is the PyPI package ``rummikub-solver`` (Den Hertog & Hulshof's model, solved through cvxpy;
MIT). It is **not** a dependency of this project: install it into a separate virtual environment and
run this module with that environment's Python from the project's root, e.g.
``python3 -m venv /tmp/ilp-venv && /tmp/ilp-venv/bin/pip install rummikub-solver`` then
``/tmp/ilp-venv/bin/python -m bench.meld_ilp``. Without it this module says so and exits 0.

For ``best_meld`` the ILP maximises the value of the sets placed (``RuleSet.set_values``: a joker is
worth what it stands for, its most valuable reading) under the package's own constraints, the same
question as ``best_meld``; for ``can_open`` it is the package's public ``RuleSet.solve`` in
``SolverMode.INITIAL`` (an answer means the rack can open with 30). Answers are compared on every
rack. Times are CPU time (``time.process_time``) per call, each rack once, both solvers alternating,
after a warm-up of both (this solver's step tables, cvxpy's compiled problem).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from rules.meld import best_meld, can_open
from rules.tiles import JOKER, full_set


def _pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(q * len(s)))] * 1e3


def _racks(rng: random.Random, count: int, low: int, high: int):
    for _ in range(count):
        deck = full_set()
        rng.shuffle(deck)
        yield deck[: rng.randint(low, high)]


class Ilp:
    def __init__(self):
        import cvxpy as cp
        import numpy as np
        from rummikub_solver import RuleSet, SolverMode

        self.cp, self.np, self.mode = cp, np, SolverMode
        self.ruleset = RuleSet()  # 13 numbers, 4 colours, 2 copies, 2 jokers, sets of 3+, opening 30
        solver = self.ruleset._solver  # the package builds its cvxpy model once; reuse its constraints
        self.solver = solver
        values = np.array(self.ruleset.set_values, dtype=float)
        constraints = solver._problems[SolverMode.TOTAL_VALUE].constraints
        self.value_problem = cp.Problem(cp.Maximize(solver.sets @ values), constraints)
        self.backend = solver.backend

    def state(self, rack):
        game = self.ruleset.new_game()
        game.add_rack(*(53 if t == JOKER else "RBYK".index(t.colour) * 13 + t.number for t in rack))
        return game

    def best_value(self, game) -> int:
        self.solver.rack.value = game.rack_array
        self.solver.table.value = self.np.zeros_like(game.table_array)
        value = self.value_problem.solve(solver=self.backend)
        return 0 if value is None or not self.np.isfinite(value) else round(value)

    def can_open(self, game) -> bool:
        return self.ruleset.solve(game, self.mode.INITIAL) is not None


def _side_by_side(label, racks, ours, theirs, prepare) -> None:
    t_ours, t_ilp, differ = [], [], 0
    for i, rack in enumerate(racks):
        game = prepare(rack)
        order = ((ours, rack), (theirs, game))
        results = {}
        for fn, arg in order if i % 2 else order[::-1]:
            t = time.process_time()
            results[fn] = fn(arg)
            (t_ours if fn is ours else t_ilp).append(time.process_time() - t)
        differ += results[ours] != results[theirs]
    ratio = statistics.median(t_ilp) / statistics.median(t_ours)
    print(
        f"{label:<28} {len(racks):>5} {_pct(t_ours, 0.5):>8.2f} {_pct(t_ours, 0.99):>8.2f} {max(t_ours) * 1e3:>8.1f}"
        f" {_pct(t_ilp, 0.5):>8.2f} {_pct(t_ilp, 0.99):>8.2f} {max(t_ilp) * 1e3:>8.1f} {ratio:>7.0f}x"
        f"  answers differ: {differ}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.meld_ilp", description=__doc__.splitlines()[0])
    p.add_argument("--small", type=int, default=300, metavar="N", help="racks of 1-20 tiles (default 300)")
    p.add_argument("--big", type=int, default=100, metavar="N", help="racks of 40 tiles (default 100)")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args(argv)
    try:
        ilp = Ilp()
    except ImportError as exc:
        print(f"skipped: the ILP package is not installed here ({exc}); see this module's docstring")
        return 0
    print(f"ILP: rummikub-solver with cvxpy backend {ilp.backend}; CPU ms per call, seed {args.seed}")
    head = "".join(f" {h:>8}" for h in ("p50", "p99", "worst") * 2)
    print(f"{'':<28} {'racks':>5}{head}  ILP/ours (p50)\n{'':<34}{'ours':-^27}{'ILP':-^27}")
    rng = random.Random(args.seed)
    small = list(_racks(rng, args.small, 1, 20))
    big = list(_racks(rng, args.big, 40, 40))
    for rack in list(_racks(random.Random(0), 20, 10, 40)):  # warm up: step tables, cvxpy's compiled problem
        best_meld(rack), ilp.best_value(ilp.state(rack)), ilp.can_open(ilp.state(rack))
    for size, racks in (("1-20 tiles", small), ("40 tiles", big)):
        _side_by_side(f"best_meld, {size}", racks, lambda r: best_meld(r).value, ilp.best_value, ilp.state)
        _side_by_side(f"can_open, {size}", racks, can_open, ilp.can_open, ilp.state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
