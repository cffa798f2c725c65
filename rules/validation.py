"""Score-sheet validation: what cannot be right (errors) and what deserves a second look (warnings).

:func:`validate` never raises for a bad sheet; it returns every :class:`Problem` it finds. ``code`` is
stable (the web app translates by code and ``params``), ``seat`` is the seat *number* from the record
(``None`` for a table-wide problem), ``seats`` names the seats a table-wide problem comes from (the seats
holding the jokers of "too many jokers"), ``message`` is plain English.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .meld import can_open
from .record import ENDS, SeatRecord, TableRecord
from .rulesets import Ruleset
from .tiles import COPIES, JOKERS_IN_SET, MAX_RACK_VALUE

ERROR = "error"
WARNING = "warning"

HIGH_RACK_VALUE = 100  # warning above this many points of numbers on one rack
DEALT_TILES = 14  # a player who never opened never laid a tile, so holds at least this many


@dataclass(frozen=True)
class Problem:
    code: str
    seat: int | None
    message: str
    severity: str = ERROR
    seats: tuple[int, ...] = ()  # where a table-wide problem is, so a sheet can mark each of those seats
    params: dict = field(default_factory=dict, hash=False)  # the numbers and tiles the message names

    def to_dict(self) -> dict:
        out = {"code": self.code, "seat": self.seat, "message": self.message, "severity": self.severity}
        if self.seats:
            out["seats"] = list(self.seats)
        if self.params:
            out["params"] = dict(self.params)
        return out

    def concerns(self, seat: int) -> bool:
        return self.seat == seat or seat in self.seats


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == ERROR]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == WARNING]


def could_open_certainly_not(seat: SeatRecord, threshold: int) -> bool:
    """Without tiles, a counted rack whose numbers plus 13 per joker stay under the threshold cannot
    open (R3), whatever the referee says."""
    return seat.rack_value is not None and seat.rack_value + 13 * (seat.jokers or 0) < threshold


def validate(ruleset: Ruleset, table: TableRecord) -> list[Problem]:
    """Every problem of one game's sheet (R1, R3-R6). Errors first, then warnings, each in seat order."""
    out: list[Problem] = []

    def add(code, seat, message, severity=ERROR, *, seats=(), **params):
        out.append(Problem(code, seat, message, severity, tuple(seats), params))

    seats = sorted(table.seats, key=lambda s: s.seat)  # problems come out in seat order
    if table.end not in ENDS:
        add("bad_end", None, f"The game must end by one of: {', '.join(ENDS)}.")
    if len(seats) < 2:
        add("too_few_players", None, "A game needs at least 2 players.")
    if len(seats) > 4:
        add("too_many_players", None, "A game has at most 4 players.")
    for number, n in sorted(Counter(s.seat for s in seats).items()):
        if n > 1:
            add("duplicate_seat", number, f"Seat {number} appears {n} times.", count=n)
    for name, n in sorted(Counter(s.player for s in seats if s.player).items()):
        if n > 1:
            add("duplicate_player", None, f"Player {name} appears {n} times.", count=n,
                seats=[s.seat for s in seats if s.player == name])
    for s in seats:
        if not 1 <= s.seat <= 4:
            add("bad_seat_number", s.seat, "Seat numbers are 1 to 4.")

    went_out = [s for s in seats if s.went_out]
    if table.end == "went_out":
        if not went_out:
            add(
                "no_one_went_out",
                None,
                "The game ended with a player going out, but no one is marked as out.",
            )
        elif len(went_out) > 1:
            for s in went_out:
                add("several_went_out", s.seat, "Only one player can go out; more than one is marked.")
    else:
        for s in went_out:
            add(
                "went_out_in_blocked_game",
                s.seat,
                "A player is marked as out, but the game did not end that way.",
            )

    # Table-wide tile counts (R1): more copies or jokers than the set holds.
    counts = Counter(t for s in seats if s.tiles is not None for t in s.tiles if not t.is_joker)
    for tile, n in sorted(counts.items(), key=lambda kv: kv[0].sort_key):
        if n > COPIES:
            add(
                "too_many_copies",
                None,
                f"{tile} appears {n} times across the racks; a set has only {COPIES}.",
                seats=[s.seat for s in seats if s.tiles and tile in s.tiles], tile=str(tile), count=n,
            )
    jokers_total = sum(s.joker_total for s in seats if s.jokers is None or 0 <= s.jokers <= JOKERS_IN_SET)
    if jokers_total > JOKERS_IN_SET:
        add(
            "too_many_jokers",
            None,
            f"{jokers_total} jokers across the racks; a set has only {JOKERS_IN_SET}.",
            # R1: every seat holding a joker is where one of them must be wrong.
            seats=[s.seat for s in seats if s.joker_total and (s.jokers is None or 0 <= s.jokers <= JOKERS_IN_SET)],
            count=jokers_total,
        )
    table_counts_ok = all(n <= COPIES for n in counts.values())

    for s in seats:
        _validate_seat(ruleset, table, s, add, table_counts_ok)

    if table.end == "time" and not ruleset.time_called_scores_as_blocked:
        add(
            "time_game_void",
            None,
            "This ruleset does not score a game stopped by time: it counts as void (no points, no win).",
            WARNING,
        )
    return errors(out) + warnings(out)


def _validate_seat(ruleset: Ruleset, table: TableRecord, s: SeatRecord, add, counts_ok: bool) -> None:
    n = s.seat
    if s.rack_value is not None:
        if s.rack_value < 0:
            add("rack_value_negative", n, "A rack value cannot be negative.")
        elif s.rack_value > MAX_RACK_VALUE:
            add("rack_value_too_high", n, f"No rack can hold more than {MAX_RACK_VALUE} points.",
                limit=MAX_RACK_VALUE)
    if s.jokers is not None and not 0 <= s.jokers <= JOKERS_IN_SET:
        add("jokers_out_of_range", n, f"A rack holds 0 to {JOKERS_IN_SET} jokers.")
    if s.tiles is not None:
        if s.rack_value is not None and s.rack_value != s.numbers:
            add(
                "rack_value_mismatch",
                n,
                f"The rack value {s.rack_value} does not match the tiles ({s.numbers}).",
                entered=s.rack_value, counted=s.numbers,
            )
        if s.jokers is not None and s.jokers != s.joker_total:
            add(
                "jokers_mismatch",
                n,
                f"The joker count {s.jokers} does not match the tiles ({s.joker_total}).",
                entered=s.jokers, counted=s.joker_total,
            )

    knocked_rule = ruleset.knocked_rack_penalty is not None
    if s.conduct_penalty and not knocked_rule:
        add("no_knocked_rack_rule", n, "These rules have no knocked-over-rack penalty (R5.3).")

    has_rack = s.tiles is not None or s.rack_value is not None
    empty_rack = (s.tiles is not None and len(s.tiles) == 0) or (
        s.tiles is None and s.rack_value == 0 and not s.jokers
    )
    if s.went_out:
        if s.tiles or (s.rack_value or 0) > 0 or (s.jokers or 0) > 0:
            add("winner_holds_tiles", n, "A player who went out holds no tiles.")
        if not s.opened:
            add("winner_not_opened", n, "A player who went out must have made the initial meld.", WARNING)
        if s.conduct_penalty and knocked_rule and table.end == "went_out":
            add(
                "conduct_penalty_on_winner",
                n,
                "A conduct penalty on the player who went out is ignored.",
                WARNING,
            )
        return

    if s.conduct_penalty:
        return  # R5.3: the fixed penalty applies whatever the rack held
    if not s.opened:
        if s.tiles is not None:
            if counts_ok and all(c <= COPIES for c in _counts(s)) and s.joker_total <= JOKERS_IN_SET:
                able = can_open(s.tiles, ruleset.initial_meld_threshold)
                if s.could_open is False and able:
                    add(
                        "marked_could_not_open_but_can",
                        n,
                        "Marked as unable to open, but these tiles can make the initial meld.",
                    )
                elif s.could_open is True and not able:
                    add(
                        "marked_could_open_but_cannot",
                        n,
                        "Marked as able to open, but these tiles cannot make the initial meld.",
                    )
            if len(s.tiles) < DEALT_TILES:
                add(
                    "never_opened_small_rack",
                    n,
                    f"A player who never opened still holds all {DEALT_TILES} dealt tiles; only {len(s.tiles)} entered.",
                    WARNING, count=len(s.tiles),
                )
        elif could_open_certainly_not(s, ruleset.initial_meld_threshold):
            if s.could_open is True:
                add(
                    "marked_could_open_but_cannot",
                    n,
                    "Marked as able to open, but a rack worth this little cannot make the initial meld.",
                )
        elif s.could_open is None:
            add("could_open_missing", n, "Say whether this player, who never opened, could have opened.")
        return

    if not has_rack:
        add("rack_missing", n, "Enter this player's tiles or rack value.")
        return
    if (s.numbers or 0) > HIGH_RACK_VALUE:
        add(
            "high_rack_value", n, f"A rack value over {HIGH_RACK_VALUE} is unusual; please check it.", WARNING
        )
    if empty_rack:
        if table.end == "went_out":
            add("loser_empty_rack", n, "This player has an empty rack but did not go out.", WARNING)
        else:
            add(
                "empty_rack_in_blocked_game",
                n,
                "An empty rack in a blocked game: did this player go out?",
                WARNING,
            )


def _counts(s: SeatRecord):
    return Counter(t for t in s.tiles if not t.is_joker).values() if s.tiles else []
