"""Actions that cannot be undone or touch everyone ask first: what will happen, with counts and names.

A service with such an action offers a `…_preview` (read only) that says what the action would do now
(`Preview`), and takes `expect`: the `Preview.state` the organiser saw and confirmed. Under the event lock the
service builds the preview again and refuses (`Unconfirmed`) when `expect` is missing or the state has changed
since (someone checked in meanwhile, a sheet was confirmed …): the page is shown again with the new figures.
`expect=None` (the simulation, the demo, imports) asks nothing. What blocks the action (`Blocker`) is the same
list the page shows beside the disabled button and the service refuses with.
"""

import hashlib
import json
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .errors import ServiceError


def state_of(facts) -> str:
    """A short fingerprint of plain data: equal facts, equal state."""
    data = json.dumps(facts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(data.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Blocker:
    """Why the action cannot be done now; `code` (with `game`, `table`) tells the page where it is fixed."""

    code: str
    message: str
    game: int | None = None
    table: int | None = None


@dataclass(frozen=True)
class Group:
    """Who is affected, by name: e.g. the registered players who did not check in."""

    heading: str
    names: list[str]


@dataclass
class Preview:
    title: str
    lines: list[str] = field(default_factory=list)  # what will happen, translated, with counts
    groups: list[Group] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)
    facts: object = None  # plain data the action depends on: `state` is made from it
    needed: bool = True  # False: this action changes nothing that needs a confirmation (e.g. reopening)

    @property
    def state(self) -> str:
        return state_of(self.facts)

    @property
    def allowed(self) -> bool:
        return not self.blockers

    def require(self, expect: str | None) -> None:
        """Inside the service, under the event lock: blocked → ServiceError; not confirmed → Unconfirmed."""
        refuse(self.blockers)
        if expect is not None and self.needed and expect != self.state:
            raise Unconfirmed(stale=bool(expect))


def refuse(blockers: list[Blocker]) -> None:
    """The one refusal of a blocked action: every reason, in the order the page lists them."""
    if blockers:
        raise ServiceError(" ".join(str(b.message) for b in blockers), code=blockers[0].code)


class Unconfirmed(Exception):
    """The action was not confirmed, or the confirmation was for a state that has changed since: nothing was
    done, and the page asks again. Not a ServiceError: only views that pass `expect` ever see it."""

    def __init__(self, *, stale: bool):
        self.stale = stale
        self.message = (
            _("Something changed since this page was opened: nothing was done. Check the new figures, then confirm again.")
            if stale else _("Nothing has been done yet: read what will happen, then confirm.")
        )
        super().__init__(str(self.message))
