"""The desk's look-ups (R9): find a player by what the volunteer typed or scanned, count and list who is
missing. Read only: no transaction, no audit; each is one query, whatever the number of players."""

import functools
import operator
import re
import unicodedata
from dataclasses import dataclass

from django.db.models import Case, Count, Q, Value, When

from ..models import Event, Player, Registration
from ..models.registration import name_key
from .identity import flag_possible_duplicates

SEARCH_LIMIT = 30
_PERSONAL_LINK = re.compile(r"(?:^|/)p/([A-Za-z0-9_-]{16,64})/?(?:[?#].*)?$")
_BARE_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
_PLAYER_NUMBER = re.compile(r"#?([0-9]{1,9})")


@dataclass(frozen=True)
class DeskQuery:
    """What the volunteer typed or scanned, read three ways: a personal link/token, a player number, a name."""

    token: str = ""
    number: int | None = None
    name: str = ""
    is_link: bool = False

    @classmethod
    def parse(cls, text: str) -> "DeskQuery":
        raw = text.strip()
        link = _PERSONAL_LINK.search(raw)
        if link:
            # A scanned or pasted personal page: only the token counts (tokens are case-sensitive).
            return cls(token=link.group(1), is_link=True)
        folded = unicodedata.normalize("NFKC", raw).strip()  # full-width digits typed on a CJK keyboard
        number = _PLAYER_NUMBER.fullmatch(folded)
        if number:
            # "17", "#17", "１７": the player numbered 17, and names containing 17 ("Team 17").
            return cls(number=int(number.group(1)), name=number.group(1))
        return cls(token=raw if _BARE_TOKEN.fullmatch(raw) else "", name=name_key(raw))

    @property
    def is_empty(self) -> bool:
        return not (self.token or self.name or self.number is not None)

    def condition(self) -> Q:
        parts = []
        if self.token:
            parts.append(Q(player__token=self.token))
        if self.number is not None:
            parts.append(Q(number=self.number))
        if self.name:
            parts.append(Q(player__name_key__icontains=self.name))
        return functools.reduce(operator.or_, parts) if parts else Q(pk__in=[])


def search_registrations(*, event: Event, query: DeskQuery, limit: int = SEARCH_LIMIT) -> list[Registration]:
    """Every registration of `event` (any status, so the desk can explain a waiting-list or withdrawn player)
    matching the query; exact matches by token or number first, then by name. At most `limit + 1` rows, so
    the caller can tell there are more."""
    if query.is_empty:
        return []
    exact = [Q(player__token=query.token)] if query.token else []
    if query.number is not None:
        exact.append(Q(number=query.number))
    rank = Case(*(When(condition, then=Value(0)) for condition in exact), default=Value(1))
    return list(
        flag_possible_duplicates(Registration.objects.filter(query.condition(), event=event))
        .select_related("player")
        .annotate(rank=rank)
        .order_by("rank", "player__name_key", "id")[: limit + 1]
    )


def search_festival(*, event: Event, query: DeskQuery, limit: int = SEARCH_LIMIT) -> list[Registration]:
    """Registrations in the festival's other events whose player's name matches (the desk of one event
    finds a player who came to the wrong desk). By name only: numbers and links belong to one event."""
    if not query.name or query.is_link:
        return []
    return list(
        flag_possible_duplicates(Registration.objects.filter(event__festival_id=event.festival_id,
                                                             player__name_key__icontains=query.name))
        .exclude(event=event)
        .select_related("player", "event")
        .order_by("player__name_key", "event__starts_at", "id")[: limit + 1]
    )


def player_by_token(*, event: Event, token: str) -> Player | None:
    """A scanned player of the same festival who is not entered in this event (wrong desk)."""
    return Player.objects.filter(festival_id=event.festival_id, token=token).first() if token else None


def desk_counts(*, event: Event) -> dict[str, int]:
    counts = Registration.objects.filter(event=event).aggregate(
        registered=Count("id", filter=Q(status=Registration.Status.REGISTERED)),
        waitlisted=Count("id", filter=Q(status=Registration.Status.WAITLISTED)),
        checked_in=Count("id", filter=Q(status=Registration.Status.REGISTERED, checked_in_at__isnull=False)),
        # Children with a place whose guardian signs the paper form at the desk before they check in.
        guardian_waiting=Count("id", filter=Q(status=Registration.Status.REGISTERED,
                                              guardian_check=Registration.GuardianCheck.WAITING)),
    )
    counts["missing"] = counts["registered"] - counts["checked_in"]
    return counts


def missing_registrations(*, event: Event) -> list[Registration]:
    """Who has a place but has not arrived, by name."""
    return list(
        Registration.objects.filter(event=event, status=Registration.Status.REGISTERED, checked_in_at__isnull=True)
        .select_related("player")
        .order_by("player__name_key", "id")
    )
