"""The meld solver side by side with an earlier version of itself, in one process:
``python -m bench.meld_compare [--against REV] [--random N] [--family N] [--seed S]``.

The ``rules/`` package of git revision ``REV`` (default ``HEAD``) is extracted into a temporary
directory and imported under another name, so no old copy is kept in the source tree. Both solvers
then run on the same racks — the worst-case search's families (``bench/meld_search.py``: N random
40-tile racks, N per adversarial family, 60-106-tile racks and long runs with jokers) — alternating
which goes first, each rack once, timed in CPU time (``time.process_time``); equal values are asserted
on every rack. Prints p50 / p99 / worst per family for both, and the whole 106-tile set (best of 3).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import rules
from bench.meld_search import adversarial_racks, random_racks
from rules.tiles import format_tiles, full_set

ROOT = Path(__file__).resolve().parent.parent


def load_rules(rev: str, into: Path):
    """The ``rules`` package as it was at ``rev``, imported as ``rules_<rev>``."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", rev, "rules"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    name = "rules_" + "".join(ch if ch.isalnum() else "_" for ch in rev)
    spec = importlib.util.spec_from_file_location(
        name, into / "rules" / "__init__.py", submodule_search_locations=[str(into / "rules")]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _cpu(fn, rack, repeat: int = 1) -> tuple[float, int]:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        value = fn(rack).value
        best = min(best, time.process_time() - t)
    return best, value


def _pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(q * len(s)))] * 1e3


def compare(old, new, racks, label: str) -> tuple[list[float], list[float], list[str]]:
    told, tnew, slowest = [], [], (0.0, "")
    for i, rack in enumerate(racks):
        text = format_tiles(rack)
        a, b = old.parse_tiles(text), new.parse_tiles(text)
        if i % 2:
            (t1, v1), (t0, v0) = _cpu(new.best_meld, b), _cpu(old.best_meld, a)
        else:
            (t0, v0), (t1, v1) = _cpu(old.best_meld, a), _cpu(new.best_meld, b)
        assert v0 == v1, (text, v0, v1)
        told.append(t0)
        tnew.append(t1)
        slowest = max(slowest, (t1, format_tiles(rack, sort=True)))
    return told, tnew, slowest


def row(label: str, told: list[float], tnew: list[float]) -> None:
    figures = "".join(
        f" {_pct(t, 0.5):>8.2f} {_pct(t, 0.99):>8.2f} {max(t) * 1e3:>8.1f}" for t in (told, tnew)
    )
    print(f"{label:<30} {len(told):>6}{figures}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.meld_compare", description=__doc__.splitlines()[0])
    p.add_argument("--against", default="HEAD", metavar="REV", help="git revision of the old solver")
    p.add_argument("--random", type=int, default=2000, metavar="N", help="random 40-tile racks")
    p.add_argument("--family", type=int, default=200, metavar="N", help="racks per adversarial family")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old = load_rules(args.against, Path(tmp))
        rng = random.Random(args.seed)
        families: dict[str, list] = {}
        for label, rack in [*random_racks(rng, args.random), *adversarial_racks(rng, args.family)]:
            families.setdefault(label, []).append(rack)
        print(f"old = rules/ at {args.against}, new = working tree; CPU ms, each rack once, seed {args.seed}")
        head = "".join(f" {h:>8}" for h in ("p50", "p99", "worst") * 2)
        print(f"{'racks':<30} {'n':>6}{head}\n{'':<37}{'old':-^27}{'new':-^27}")
        all_old, all_new, worst = [], [], (0.0, "")
        for label, racks in families.items():
            told, tnew, slowest = compare(old, rules, racks, label)
            row(label, told, tnew)
            all_old += told
            all_new += tnew
            worst = max(worst, slowest)
        row("all of the above", all_old, all_new)
        (t0, v0), (t1, v1) = _cpu(old.best_meld, old.full_set(), 3), _cpu(rules.best_meld, full_set(), 3)
        assert v0 == v1
        print(f"{'whole 106-tile set, best of 3':<37}{'':>18}{t0 * 1e3:>8.1f}{'':>18}{t1 * 1e3:>8.1f}")
        print(f"slowest rack for the new solver ({worst[0] * 1e3:.1f} ms): {worst[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
