"""A player's standing on tournament's own pages (the personal page, "Where do I sit?").

Scoring computes standings and places, and tournament never imports scoring (rules ← tournament ← scoring):
so scoring registers the function that answers when its app is ready (scoring/apps.py). Without it (a
tournament-only test, say) the pages simply show no standing.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from .models import Registration, Stage


@dataclass(frozen=True)
class PlayerStanding:
    place: int  # the place as the results stand now (final once the deciding stage is complete)
    tied: bool
    wins: int  # in the stage reached, the ones the places use (R7)
    games: int
    points: Decimal  # total or average, as the event's rules rank
    stage: Stage | None  # the stage the player reached
    out: bool  # no longer playing: a later stage started without them, or they left the event (R9)
    left: str = ""  # how they left the event (a conduct record), if they did
    final: bool = False

    @property
    def rank(self) -> str:
        return f"{self.place}=" if self.tied else str(self.place)


Provider = Callable[[list[Registration]], dict[int, PlayerStanding]]
_provider: Provider | None = None


def register(provider: Provider) -> None:
    global _provider
    _provider = provider


def standings(registrations: Iterable[Registration]) -> dict[int, PlayerStanding]:
    """Registration id → standing, for those that have one; a constant number of queries."""
    registrations = [r for r in registrations if r.number is not None]
    if _provider is None or not registrations:
        return {}
    return _provider(registrations)
