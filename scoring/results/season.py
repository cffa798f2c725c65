"""The season (R9): ranking points added up per person across every festival's events of one year — the
events whose results are public (tournament/visibility.py): the season page is a public page, and an event's
ranking points would tell its places."""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from tournament.masking import mask_name
from tournament.models import (
    Event,
)
from tournament.public_names import WITHDRAWN_PLAYER, public_affiliation, shown_masked
from tournament.visibility import visibility

from .event import event_year, results_for_events


def ranking_id_key(value: str) -> str:
    return "".join(unicodedata.normalize("NFKC", value or "").split()).casefold()


@dataclass
class Contribution:
    event: Event
    place: int
    shared: int
    points: Decimal


@dataclass
class Person:
    """One person as the public season page shows them: the public name and school or club of their latest
    event (tournament/public_names.py) — masked, or "Withdrawn player", if any of their events shows them so
    — and their ranking id only with their full name. Never a birth year or a contact."""

    key: tuple
    name: str
    ranking_id: str
    affiliation: str
    total: Decimal = Decimal(0)
    rank: int = 0
    contributions: list[Contribution] = field(default_factory=list)
    private: str = ""  # the most private name shown of any of their events: "masked" or "hidden"


@dataclass
class Season:
    year: int
    years: list[int]
    people: list[Person]
    events: list[Event]  # events with final results, in date order


def person_keys(players: Iterable) -> dict[int, tuple]:
    """One person across festivals (players are per festival):

    1. players with a national ranking id are one person per id (compared without spaces, case-folded);
    2. players without one are one person per normalised name (`name_key`) and birth year — and join the
       person with a ranking id of that same name and birth year when there is exactly one such person;
    3. players whose birth year was erased, without a ranking id, are their festival's player only.
    """
    players = list(players)
    by_name: dict[tuple, set[str]] = {}
    for p in players:
        rid = ranking_id_key(p.ranking_id)
        if rid and p.birth_year is not None:
            by_name.setdefault((p.name_key, p.birth_year), set()).add(rid)
    keys = {}
    for p in players:
        rid = ranking_id_key(p.ranking_id)
        if not rid and p.birth_year is None:
            # Birth year erased: only the festival's own player is known to be this person.
            keys[p.id] = ("player", p.id)
            continue
        if not rid:
            ids = by_name.get((p.name_key, p.birth_year), set())
            rid = next(iter(ids)) if len(ids) == 1 else ""
        keys[p.id] = ("id", rid) if rid else ("name", p.name_key, p.birth_year)
    return keys


def _year_bounds(year: int) -> tuple[dt.datetime, dt.datetime]:
    # A day of margin either side: the exact local year of each event is checked afterwards.
    return (dt.datetime(year, 1, 1, tzinfo=dt.UTC) - dt.timedelta(days=1),
            dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=1))


def season_years() -> list[int]:
    return sorted({d.year for d in Event.objects.dates("starts_at", "year")}, reverse=True)


def season_standings(year: int, years: list[int] | None = None) -> Season:
    """Ranking points added up per person over the year's events with final, public results (constant
    queries)."""
    start, end = _year_bounds(year)
    events = [e for e in Event.objects.filter(starts_at__gte=start, starts_at__lt=end)
              .select_related("festival").order_by("starts_at", "id")
              if event_year(e) == year and visibility(e).results]
    results = results_for_events(events)
    counted = [e for e in events if results[e.id].final and results[e.id].points_table]
    rows = [(e, row) for e in counted for row in results[e.id].rows]
    keys = person_keys(row.registration.player for _e, row in rows)
    people: dict[tuple, Person] = {}
    for event, row in rows:
        player = row.registration.player
        key = keys[player.id]
        person = people.get(key)
        if person is None:
            person = people[key] = Person(key, "", player.ranking_id, "")
        person.name = player.name  # the latest; made public below
        person.affiliation = public_affiliation(player, event) or person.affiliation
        if player.hidden_in_results:
            person.private = "hidden"
        elif shown_masked(player, event) and person.private != "hidden":
            person.private = "masked"
        person.ranking_id = person.ranking_id or player.ranking_id
        if row.ranking_points > 0:
            person.total += row.ranking_points
            person.contributions.append(Contribution(event, row.place, row.shared, row.ranking_points))
    for person in people.values():
        if person.private == "hidden":
            person.name, person.affiliation = str(WITHDRAWN_PLAYER), ""
        elif person.private == "masked":
            person.name = mask_name(person.name)
        if person.private:
            person.ranking_id = ""  # with a masked name it would tell who they are
    ranked = sorted((p for p in people.values() if p.total > 0), key=lambda p: (-p.total, p.name, p.key))
    for index, person in enumerate(ranked):
        previous = ranked[index - 1] if index else None
        person.rank = previous.rank if previous and previous.total == person.total else index + 1
    return Season(year=year, years=years if years is not None else season_years(), people=ranked,
                  events=counted)
