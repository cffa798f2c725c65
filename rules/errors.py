"""Exceptions raised by the rules engine.

Every error the package raises on purpose is a :class:`RulesError` (a ``ValueError``), so a caller
can catch one class and show ``str(error)``; the subclasses carry structured details.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every deliberate error in :mod:`rules`."""

    code = "rules_error"


class NotationError(RulesError):
    """A tile token cannot be read, or a tile list holds more tiles than exist (R1).

    ``token`` is the offending token exactly as written (or the tile in canonical notation when the
    problem is a count, e.g. a third ``R5``).
    """

    code = "bad_notation"

    def __init__(self, token: str, reason: str):
        self.token = token
        self.reason = reason
        super().__init__(f"{token!r}: {reason}")


class RulesetError(RulesError):
    """A ruleset is invalid. ``problems`` maps every bad field to a message."""

    code = "bad_ruleset"

    def __init__(self, problems: dict[str, str]):
        self.problems = dict(problems)
        detail = "; ".join(f"{field}: {msg}" for field, msg in self.problems.items())
        super().__init__(f"invalid ruleset: {detail}")


class UnknownRulesetError(RulesError):
    code = "unknown_ruleset"

    def __init__(self, slug: str, known: list[str]):
        self.slug = slug
        self.known = known
        super().__init__(f"unknown ruleset {slug!r}; known: {', '.join(known)}")


class RecordError(RulesError):
    """A game record (JSON) has the wrong shape or types. ``path`` locates the bad value."""

    code = "bad_record"

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}" if path else reason)


class InvalidSheetError(RulesError):
    """``score_game`` refuses a sheet that has validation errors; ``problems`` lists them all."""

    code = "invalid_sheet"

    def __init__(self, problems):
        self.problems = list(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        super().__init__("score sheet has errors: " + "; ".join(p.code for p in errors))
