"""Who may enter a table's score sheets: the table's private link, or a signed-in referee.

Both resolve to a `TableAccess` — the stage, the table number, who acts (for the audit log and
`submitted_via`) and how the pages of that table are addressed. Everything that could be used to
probe the links answers the same way (None → the normal 404 page): an unknown, revoked or malformed
token and a token of a closed stage look alike, so links are neither guessable nor enumerable.
"""

import re
from dataclasses import dataclass

from django.urls import reverse

from tournament.models import Stage
from tournament.permissions import CHIEF_REFEREE, REFEREE, has_role
from tournament.services.audit import Actor

from ..models import RefereeAssignment, TableLink

# models.new_link_token makes 32 characters of URL-safe base64; accept a little more room, and check the
# shape before querying (PostgreSQL refuses e.g. NUL characters in a query).
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")
MAX_TABLE = 10_000


@dataclass(frozen=True)
class TableAccess:
    stage: Stage
    table_number: int
    actor: Actor
    via: str
    link: TableLink | None = None

    def _route(self, name: str, **kwargs) -> str:
        if self.link is not None:
            return reverse(f"referee-link-{name}", kwargs={"token": self.link.token, **kwargs})
        return reverse(f"referee-{name}", kwargs={"stage_id": self.stage.pk, "table": self.table_number, **kwargs})

    def table_url(self) -> str:
        return self._route("table")

    def game_url(self, game: int) -> str:
        return self._route("game", game=game)

    def preview_url(self, game: int) -> str:
        return self._route("preview", game=game)

    @property
    def draft_scope(self) -> str:
        """Names the browser's saved drafts: the table, not the link (no secret in localStorage)."""
        return f"s{self.stage.pk}t{self.table_number}"


def table_by_link(token: str, user=None) -> TableAccess | None:
    """The table a private link opens, or None for every kind of bad link (same answer for all)."""
    if not TOKEN_SHAPE.fullmatch(token or ""):
        return None
    link = (
        TableLink.objects.select_related("stage__event__festival")
        .filter(token=token, revoked_at__isnull=True, stage__closed_at__isnull=True)
        .first()
    )
    if link is None:
        return None
    signed_in = user if user is not None and user.is_authenticated else None
    # A signed-in person using a link is still that person (they cannot then confirm their own sheet);
    # the label names the link either way.
    return TableAccess(stage=link.stage, table_number=link.table_number,
                       actor=Actor(user=signed_in, label=link.label), via=link.label, link=link)


def may_referee(user, stage: Stage, table_number: int) -> bool:
    """A referee of the festival assigned to the table for the stage, or the festival's chief referee /
    organiser (who hold every role). An assignment outlives the role it was given for; access does not."""
    if not user.is_authenticated:
        return False
    festival = stage.event.festival
    if has_role(user, festival, CHIEF_REFEREE):
        return True
    return (has_role(user, festival, REFEREE)
            and RefereeAssignment.objects.filter(stage=stage, table_number=table_number, referee=user).exists())


def table_stage(stage_id: int, table_number: int) -> Stage | None:
    if not (0 < stage_id < 2**31 and 0 < table_number <= MAX_TABLE):
        return None
    return Stage.objects.select_related("event__festival").filter(pk=stage_id).first()


def table_for_user(user, stage: Stage, table_number: int) -> TableAccess | None:
    """A signed-in referee's way in; None when they may not referee this table."""
    if not may_referee(user, stage, table_number):
        return None
    return TableAccess(stage=stage, table_number=table_number, actor=Actor(user=user),
                       via=user.get_username())
