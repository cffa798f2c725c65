"""How a player's name and school or club appear on public pages: the one place that decides it.

Every public surface asks here — the event's pages, the draw, "Where do I sit?", the table pages, the
standings, a player's public page, the hall display, the results, certificates and season page, the draw
sheet and table cards printed for the hall, and the public API. Staff pages (desk, organiser, referees, the
chief's board) and the organiser's exports show the name as registered.

- A player shown as withdrawn in the public results (`Player.hidden_in_results`, at their request) is
  "Withdrawn player", without school or club.
- Otherwise the name is masked (tournament/masking.py: 김*준, 王*欣, J. Smith) when the event shows masked
  names (`Event.public_names`) or the player asked for it (`Player.shown_masked`), else shown in full.
- The school or club is shown only where the event shows them (`Event.public_affiliations`).
- At one table, two names that read the same (two masked names alike, 黃*晴 and 黃*晴, or two people of one
  name) each carry the player number, so the table can tell them apart (`told_apart`).

Nothing here queries: the switches are on the event and player rows the pages already hold.
A public name search must not find a player by a name the public does not see (`name_search`).
"""

from collections import Counter
from collections.abc import Sequence

from django.db.models import Q
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from .masking import mask_name
from .models import Event, Player
from .models.registration import name_key

WITHDRAWN_PLAYER = _("Withdrawn player")


def shown_masked(player: Player, event: Event) -> bool:
    return event.public_names == Event.PublicNames.MASKED or player.shown_masked


def public_name(player: Player, event: Event) -> str:
    if player.hidden_in_results:
        return str(WITHDRAWN_PLAYER)
    return mask_name(player.name) if shown_masked(player, event) else player.name


def told_apart(event: Event, registrations: Sequence) -> list[str]:
    """The public names of the players at one table (registrations with their players), in the order given,
    those that would read the same with their player number: "黃*晴 (No. 12)"."""
    names = [public_name(r.player, event) for r in registrations]
    alike = Counter(names)
    return [with_number(name, r.number) if alike[name] > 1 and r.number and not r.player.hidden_in_results
            else name for name, r in zip(names, registrations, strict=True)]


def with_number(name: str, number: int) -> str:
    number_text = gettext("No. %(number)s") % {"number": number}
    return name + pgettext("an aside after a word, in brackets", " (%(aside)s)") % {"aside": number_text}


def public_affiliation(player: Player, event: Event) -> str:
    if player.hidden_in_results or not event.public_affiliations:
        return ""
    return player.affiliation


def name_search(event: Event, query: str, *, player: str = "player__") -> Q | None:
    """The condition finding players of `event` by the name typed, among those whose full name is public;
    None when the event masks every name (then only the player number finds a player). `player` is the
    lookup path to the Player from the model searched."""
    if event.public_names == Event.PublicNames.MASKED:
        return None
    return Q(**{f"{player}name_key__contains": name_key(query), f"{player}shown_masked": False,
                f"{player}hidden_in_results": False})


def number_or_name(event: Event, query: str, *, player: str = "player__", number: str = "number") -> Q | None:
    """A public search: the player number typed (up to six digits), or a name as `name_search` allows."""
    condition = name_search(event, query, player=player)
    if query.isdecimal() and len(query) <= 6:
        by_number = Q(**{number: int(query)})
        condition = by_number if condition is None else condition | by_number
    return condition
