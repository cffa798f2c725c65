"""Who may enter a table's score sheets: the table's private link, a signed-in referee, or — in an event whose
players keep their own sheets — a seated player's personal page.

Both resolve to a `TableAccess` — the stage, the table number, who acts (for the audit log and
`submitted_via`) and how the pages of that table are addressed. A link opens the table of its number in the
event's current stage (`seating.stage_in_play`); when it cannot, `table_by_link` says why with a
`LinkRefusal`. Everything that could be used to probe the links answers the same way: an unknown and a
malformed token look alike (UNKNOWN), so links are neither guessable nor enumerable. A revoked link may say
so, and a live link may say that its table has no game now: whoever holds it had it legitimately.
"""

import re
from dataclasses import dataclass

from django.urls import reverse

from tournament.models import Player, Registration, Stage
from tournament.permissions import CHIEF_REFEREE, REFEREE, has_role
from tournament.services import seating
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
    assignment: RefereeAssignment | None = None  # the signed-in referee's hold on the table
    player: Registration | None = None  # the seated player whose personal page this is
    player_token: str = ""

    @property
    def players_keep_sheets(self) -> bool:
        return self.stage.event.sheets_by == self.stage.event.SheetsBy.PLAYERS

    @property
    def asks_seat_code(self) -> bool:
        """The table card of a player-run table: whoever holds the phone says which seat they are."""
        return self.link is not None and self.players_keep_sheets

    def _route(self, name: str, **kwargs) -> str:
        if self.player is not None:
            return reverse(f"player-sheet-{name}", kwargs={"token": self.player_token,
                                                           "event": self.stage.event.slug, **kwargs})
        if self.link is not None:
            return reverse(f"referee-link-{name}", kwargs={"token": self.link.token, **kwargs})
        return reverse(f"referee-{name}", kwargs={"stage_id": self.stage.pk, "table": self.table_number, **kwargs})

    def table_url(self) -> str:
        return self._route("table")

    def _game_route(self, name: str, game: int) -> str:
        # Through a link, a game page names its stage: a form opened in one round is never sent into the next.
        stage = {"stage": self.stage.number} if self.link is not None or self.player is not None else {}
        return self._route(name, game=game, **stage)

    def game_url(self, game: int) -> str:
        return self._game_route("game", game)

    def preview_url(self, game: int) -> str:
        return self._game_route("preview", game)

    def status_url(self, game: int) -> str:
        return self._game_route("status", game)

    def answer_url(self, game: int) -> str | None:
        """Where a seated player agrees to or disputes the game's sheet (a player-run table only)."""
        if not self.players_keep_sheets or (self.player is None and self.link is None):
            return None
        return self._game_route("answer", game)

    def manifest_url(self) -> str | None:
        """The table link's web app manifest (a signed-in referee's pages are not an app of their own)."""
        if self.link is None:
            return None
        return reverse("referee-link-manifest", kwargs={"token": self.link.token})

    @property
    def draft_scope(self) -> str:
        """Names the browser's saved drafts: the table, not the link (no secret in localStorage)."""
        return f"s{self.stage.pk}t{self.table_number}"


@dataclass(frozen=True)
class LinkRefusal:
    """Why a link opens no table now: UNKNOWN (also malformed: 404), REVOKED (410), or a live link whose
    table has no game now: NO_TABLE (the current stage has fewer tables), NO_GAME (no stage in play),
    FINISHED (every stage is closed)."""

    UNKNOWN, REVOKED, NO_TABLE, NO_GAME, FINISHED = "unknown", "revoked", "no_table", "no_game", "finished"

    reason: str
    link: TableLink | None = None
    stage: Stage | None = None
    tables: int = 0

    @property
    def status(self) -> int:
        return {self.UNKNOWN: 404, self.REVOKED: 410}.get(self.reason, 200)


def table_by_link(token: str, user=None) -> TableAccess | LinkRefusal:
    """The table a private link opens now, or why it opens none."""
    if not TOKEN_SHAPE.fullmatch(token or ""):
        return LinkRefusal(LinkRefusal.UNKNOWN)
    link = TableLink.objects.select_related("event__festival").filter(token=token).first()
    if link is None:
        return LinkRefusal(LinkRefusal.UNKNOWN)
    if link.revoked_at is not None:
        return LinkRefusal(LinkRefusal.REVOKED, link=link)
    stage = seating.stage_in_play(link.event, table=link.table_number)
    if stage is None:
        finished = link.event.stages.exists() and not link.event.stages.filter(closed_at__isnull=True).exists()
        return LinkRefusal(LinkRefusal.FINISHED if finished else LinkRefusal.NO_GAME, link=link)
    if not stage.has_table:
        return LinkRefusal(LinkRefusal.NO_TABLE, link=link, stage=stage, tables=stage.table_count)
    signed_in = user if user is not None and user.is_authenticated else None
    # A signed-in person using a link is still that person (they cannot then confirm their own sheet);
    # the label names the link either way.
    return TableAccess(stage=stage, table_number=link.table_number,
                       actor=Actor(user=signed_in, label=link.label), via=link.label, link=link)


def held_table(user, stage: Stage, table_number: int) -> RefereeAssignment | None:
    """The user's assignment to the table of the stage's event, if they hold it now (whatever the round)."""
    if not user.is_authenticated:
        return None
    return RefereeAssignment.objects.filter(event_id=stage.event_id, table_number=table_number, referee=user,
                                            ended_at__isnull=True).first()


def may_referee(user, stage: Stage, table_number: int, *, assignment: RefereeAssignment | None = None) -> bool:
    """A referee of the festival holding the table (its number, in every round of the event), or the festival's
    chief referee / organiser (who hold every role). An assignment outlives the role it was given for; access
    does not. `assignment` is the user's `held_table`, when already read."""
    if not user.is_authenticated:
        return False
    festival = stage.event.festival
    if has_role(user, festival, CHIEF_REFEREE):
        return True
    if assignment is None:
        assignment = held_table(user, stage, table_number)
    return assignment is not None and has_role(user, festival, REFEREE)


def table_stage(stage_id: int, table_number: int) -> Stage | None:
    if not (0 < stage_id < 2**31 and 0 < table_number <= MAX_TABLE):
        return None
    return Stage.objects.select_related("event__festival").filter(pk=stage_id).first()


def table_for_user(user, stage: Stage, table_number: int) -> TableAccess | None:
    """A signed-in referee's way in; None when they may not referee this table. The access carries the user's
    assignment when they hold the table (their pages then count as the table being heard from)."""
    assignment = held_table(user, stage, table_number)
    if not may_referee(user, stage, table_number, assignment=assignment):
        return None
    return TableAccess(stage=stage, table_number=table_number, actor=Actor(user=user),
                       via=user.get_username(), assignment=assignment)


def table_for_player(token: str, event_slug: str) -> TableAccess | Player | None:
    """A player's way to their table's sheets from their personal page, in an event whose players keep them:
    the table they sit at in the newest released seating of the stage in play. None for an unknown token or
    event (404); the Player when they have no table there now (withdrawn, out, between rounds, not seated)."""
    if not TOKEN_SHAPE.fullmatch(token or ""):
        return None
    player = Player.objects.select_related("festival").filter(token=token).first()
    if player is None:
        return None
    registration = (Registration.objects.select_related("event__festival")
                    .filter(player=player, event__slug=event_slug[:60]).first())
    if registration is None:
        return None
    event = registration.event
    stage = seating.stage_in_play(event)
    if (stage is None or event.sheets_by != event.SheetsBy.PLAYERS
            or registration.status != Registration.Status.REGISTERED):
        return player
    seat = seating.newest_seat_in_stage(registration, stage)
    if seat is None:
        return player
    label = f"player {registration.number or registration.pk}, seat {seat.position}"
    return TableAccess(stage=stage, table_number=seat.table.number, actor=Actor(label=label), via=label,
                       player=registration, player_token=token)
