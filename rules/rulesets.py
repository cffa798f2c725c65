"""Rulesets: the settings where the sources disagree (R3, R4, R5, R7), as immutable, self-validating data."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from .errors import RulesetError, UnknownRulesetError

POINTS_CHOICES = ("total", "average")  # R7: Busan total points, Hong Kong average per game
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,49}$")
_MAX_PENALTY = 10_000


@dataclass(frozen=True)
class Ruleset:
    slug: str
    name: str
    joker_penalty: int  # R5.2: per joker held by a player who had opened
    initial_meld_threshold: int = 30  # R3
    never_opened_could_not_penalty: int = 100  # R5.1 ("WRC5")
    never_opened_could_penalty: int = 200  # R5.1 (could have opened, did not)
    # R5.3, Hong Kong's conduct rule 14 (seed 003); None: the rules have no knocked-over-rack penalty.
    knocked_rack_penalty: int | None = None
    points: str = "total"  # R7
    time_called_scores_as_blocked: bool = True  # R4
    turn_seconds: int = 60  # R9

    def __post_init__(self):
        problems = _check(self)
        if problems:
            raise RulesetError(problems)

    def with_changes(self, **changes: Any) -> Ruleset:
        """A copy with some fields changed; validated like any ruleset (unknown names are errors)."""
        unknown = sorted(set(changes) - _FIELD_NAMES)
        if unknown:
            raise RulesetError({name: "unknown setting" for name in unknown})
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Ruleset:
        """Build from a mapping (e.g. JSON). ``slug`` and ``joker_penalty`` are required; ``name``
        defaults to the slug; other fields default as in the dataclass. Every problem is reported at
        once in :class:`RulesetError`."""
        if not isinstance(data, dict):
            raise RulesetError({"ruleset": "must be an object"})
        problems = {name: "unknown setting" for name in sorted(set(data) - _FIELD_NAMES)}
        for required in ("slug", "joker_penalty"):
            if required not in data:
                problems[required] = "required"
        if problems:
            raise RulesetError(problems)
        values = dict(data)
        values.setdefault("name", values["slug"])
        return cls(**values)


_FIELD_NAMES = {f.name for f in dataclasses.fields(Ruleset)}
_OPTIONAL = {"knocked_rack_penalty"}  # a rule some sources do not have at all


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check(r: Ruleset) -> dict[str, str]:
    problems: dict[str, str] = {}
    if not isinstance(r.slug, str) or not _SLUG.match(r.slug):
        problems["slug"] = "lower-case letters, digits and hyphens, 1-50 characters"
    if not isinstance(r.name, str) or not r.name.strip():
        problems["name"] = "must be a non-empty text"
    for field in (
        "joker_penalty",
        "initial_meld_threshold",
        "never_opened_could_not_penalty",
        "never_opened_could_penalty",
        "knocked_rack_penalty",
    ):
        v = getattr(r, field)
        if v is None and field in _OPTIONAL:
            continue
        if not _is_int(v):
            problems[field] = "must be a whole number"
        elif v < 0:
            problems[field] = "must not be negative"
        elif v > _MAX_PENALTY:
            problems[field] = f"must be at most {_MAX_PENALTY}"
    if r.points not in POINTS_CHOICES:
        problems["points"] = "must be 'total' or 'average'"
    if not isinstance(r.time_called_scores_as_blocked, bool):
        problems["time_called_scores_as_blocked"] = "must be true or false"
    if not _is_int(r.turn_seconds) or not 0 < r.turn_seconds <= 3600:
        problems["turn_seconds"] = "must be a whole number of seconds, 1 to 3600"
    return problems


PRESETS: dict[str, Ruleset] = {
    r.slug: r
    for r in (
        # Presets hold only what their source says; an event's rules can still add a setting (with_changes).
        # Busan 2014 / official world rules (seeds 000, 001, 004): joker 50, total points, no knocked-rack rule.
        Ruleset(slug="wrc-2014", name="World Rummikub Championship rules (Busan 2014)", joker_penalty=50),
        # Hong Kong 2016 school competition (seed 003): joker 30, knocked rack 200 (rule 14), average points.
        Ruleset(
            slug="hk-2016",
            name="Hong Kong 2016 school competition",
            joker_penalty=30,
            knocked_rack_penalty=200,
            points="average",
        ),
        # Casual play (seed 004): joker 30, no knocked-rack rule.
        Ruleset(slug="casual", name="Casual play", joker_penalty=30),
    )
}


def get_ruleset(slug: str) -> Ruleset:
    try:
        return PRESETS[slug]
    except (KeyError, TypeError):
        raise UnknownRulesetError(str(slug), sorted(PRESETS)) from None
