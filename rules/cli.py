"""Command line: ``python -m rules meld "K9 K10 J"``, ``python -m rules score [--ruleset SLUG|FILE] FILE|-``
and ``python -m rules word [--no-dictionary] FILE|-`` (a Rummikub Word sheet, see :mod:`rules.word.cli`).

Output is always one JSON document on standard output. Exit codes:

* 0 — done (``score``: every table scored; warnings may be listed);
* 1 — ``score`` only: at least one table has sheet errors (listed under ``problems``; its seats carry
  ``"penalty": null, "score": null, "win": null``);
* 2 — the input could not be used (bad notation, bad JSON, missing file, unknown ruleset, wrong types,
  bad arguments): ``{"error": {"code": ..., "message": ...}}``. Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from .cli_json import InputError, emit, error, read_json
from .errors import InvalidSheetError, RecordError, RulesError
from .meld import best_meld
from .record import table_from_dict, table_to_dict
from .rulesets import Ruleset, get_ruleset
from .scoring import score_game
from .tiles import parse_tiles
from .word.cli import cmd_word


class _UsageError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage and exit(2) with plain text
        raise _UsageError(message)

    def exit(self, status=0, message=None):  # --help
        if status:
            raise _UsageError(message or "bad arguments")
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m rules", description="Rummikub rules engine: meld solver and game scoring.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    m = sub.add_parser("meld", help="best meld of a rack and whether it can open (R3)")
    m.add_argument("tiles", nargs="+", help='rack in compact notation, e.g. "K9 K10 J"')
    m.add_argument("--threshold", type=int, default=None, help="initial meld threshold (default: 30)")
    s = sub.add_parser("score", help="score a game record (R4-R6)")
    s.add_argument("file", help="game record JSON file, or - for standard input")
    s.add_argument(
        "--ruleset", default="wrc-2014", help="preset slug or a ruleset JSON file (default wrc-2014)"
    )
    w = sub.add_parser("word", help="check and score a Rummikub Word sheet (R10)")
    w.add_argument("file", help="Word sheet JSON file, or - for standard input")
    w.add_argument("--no-dictionary", action="store_true", help="skip the dictionary look-ups")
    return p


def _load_ruleset(value: str) -> Ruleset:
    if value.endswith(".json"):
        try:
            with open(value, encoding="utf-8") as f:
                return Ruleset.from_dict(json.load(f))
        except OSError as e:
            raise RecordError(value, f"cannot read ruleset file: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise RecordError(value, f"not valid JSON: {e}") from None
    return get_ruleset(value)


def _cmd_meld(args, out: TextIO) -> int:
    tiles = parse_tiles(" ".join(args.tiles))
    threshold = 30 if args.threshold is None else args.threshold
    if threshold < 0:
        return error(out, "bad_threshold", "--threshold must not be negative")
    meld = best_meld(tiles)
    emit(
        out,
        {
            "tiles": " ".join(str(t) for t in tiles),
            "value": meld.value,
            "can_open": meld.value >= threshold,
            "threshold": threshold,
            "sets": [s.to_dict() for s in meld.sets],
        },
    )
    return 0


def _score_table(ruleset: Ruleset, data: Any, path: str) -> tuple[dict, bool]:
    table = table_from_dict(data, path)
    out = table_to_dict(table)
    try:
        result = score_game(ruleset, table)
    except InvalidSheetError as e:
        for seat in out["seats"]:
            seat.update(penalty=None, score=None, win=None)
        out.update(ok=False, winners=[], problems=[p.to_dict() for p in e.problems])
        return out, False
    by_seat = {s.seat: s for s in result.seats}
    for seat in out["seats"]:
        r = by_seat[seat["seat"]]
        seat.update(r.to_dict())
        if r.could_open is None:
            seat["could_open"] = seat["could_open"] if not seat["opened"] else None
    out.update(
        ok=True, void=result.void, winners=result.winners, problems=[p.to_dict() for p in result.warnings]
    )
    return out, True


def _cmd_score(args, out: TextIO, stdin: TextIO) -> int:
    ruleset = _load_ruleset(args.ruleset)
    try:
        data = read_json(args.file, stdin)
    except InputError as e:
        return error(out, e.code, e.message)
    if isinstance(data, dict) and "tables" in data:
        tables = data["tables"]
        if not isinstance(tables, list):
            raise RecordError("tables", "expected a list of tables")
        results = [_score_table(ruleset, t, f"tables[{i}]") for i, t in enumerate(tables)]
        emit(out, {"ruleset": ruleset.slug, "tables": [r for r, _ in results]})
        return 0 if all(ok for _, ok in results) else 1
    result, ok = _score_table(ruleset, data, "table")
    emit(out, {"ruleset": ruleset.slug, **result})
    return 0 if ok else 1


def main(argv: list[str] | None = None, *, stdout: TextIO | None = None, stdin: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    try:
        args = _parser().parse_args(argv)
        if args.command == "meld":
            return _cmd_meld(args, out)
        if args.command == "word":
            return cmd_word(args, out, inp)
        return _cmd_score(args, out, inp)
    except _UsageError as e:
        return error(out, "usage", e.message)
    except RulesError as e:
        extra: dict[str, Any] = {}
        if hasattr(e, "token"):
            extra["token"] = e.token
        if hasattr(e, "problems") and isinstance(e.problems, dict):
            extra["fields"] = e.problems
        if hasattr(e, "path"):
            extra["path"] = e.path
        return error(out, e.code, str(e), **extra)
    except RecursionError:
        return error(out, "bad_json", "input nested too deeply")
