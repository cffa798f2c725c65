"""Rummikub rules engine (pure Python, no Django): tiles (R1), sets (R2), the exact meld solver (R3),
rulesets, game scoring (R4-R6) and score-sheet validation. See ``rules/README.md``."""

from .errors import (
    InvalidSheetError,
    NotationError,
    RecordError,
    RulesError,
    RulesetError,
    UnknownRulesetError,
)
from .meld import Meld, best_meld, can_open
from .record import SeatRecord, TableRecord, table_from_dict, table_to_dict
from .rulesets import PRESETS, Ruleset, get_ruleset
from .scoring import GameScore, SeatScore, score_game, seat_penalty, split_blocked
from .sets import PlacedSet, analyse_set, is_valid_set, set_value
from .tiles import JOKER, Tile, format_tiles, full_set, parse_tiles
from .validation import Problem, validate

__all__ = [
    "GameScore",
    "InvalidSheetError",
    "JOKER",
    "Meld",
    "NotationError",
    "PRESETS",
    "PlacedSet",
    "Problem",
    "RecordError",
    "RulesError",
    "Ruleset",
    "RulesetError",
    "SeatRecord",
    "SeatScore",
    "TableRecord",
    "Tile",
    "UnknownRulesetError",
    "analyse_set",
    "best_meld",
    "can_open",
    "format_tiles",
    "full_set",
    "get_ruleset",
    "is_valid_set",
    "parse_tiles",
    "score_game",
    "seat_penalty",
    "set_value",
    "split_blocked",
    "table_from_dict",
    "table_to_dict",
    "validate",
]
