"""Invented demo players, the same ones on every run: everything comes from a seeded random.Random."""

import random
from dataclasses import dataclass

from . import names


@dataclass(frozen=True)
class Person:
    name: str
    contact: str
    # Age in the festival's year. The birth year follows the festival's date, so the share of under-15
    # players (R9: no ranking points) stays the same whichever day the demo festival is held on.
    age: int
    affiliation: str = ""
    ranking_id: str = ""

    def birth_year(self, festival_year: int) -> int:
        return festival_year - self.age


def guardian_name(person: Person) -> str:
    """A parent's name for a child of the demo: the child's surname, an adult's given name (the same each run)."""
    rng = random.Random(person.name + person.contact)
    if "\uac00" <= person.name[:1] <= "\ud7a3":  # Hangul
        return person.name[:1] + _korean_given_name(rng, 40)
    return person.name[:1] + rng.choice(names.CHINESE_GIVEN_ADULTS)


def _surname(rng: random.Random, weighted: list[tuple[str, int]]) -> str:
    surnames, weights = zip(*weighted, strict=True)
    return rng.choices(surnames, weights=weights)[0]


def _korean_given_name(rng: random.Random, age: int) -> str:
    if age <= 18:
        return rng.choice(names.KOREAN_GIVEN_CHILDREN)
    if age <= 34:
        return rng.choice(names.KOREAN_GIVEN_YOUNG_ADULTS)
    return rng.choice(names.KOREAN_GIVEN_ADULTS)


def _korean_phone(rng: random.Random) -> str:
    return f"010-{rng.randint(2000, 9999)}-{rng.randint(0, 9999):04d}"


def _busan_affiliation(rng: random.Random, age: int) -> str:
    if age <= 12:
        return rng.choice(names.BUSAN_ELEMENTARY)
    if age <= 15:
        return rng.choice(names.BUSAN_MIDDLE)
    if age <= 18:
        return rng.choice(names.BUSAN_HIGH)
    if age <= 25:
        return rng.choice(names.BUSAN_UNIVERSITIES + names.BUSAN_CLUBS)
    return rng.choice(names.BUSAN_CLUBS)


def _busan_age(rng: random.Random) -> int:
    """Ages as at the 2014 festival (born 1965–2008): many school pupils, students and club players."""
    band = rng.random()
    if band < 0.38:
        return rng.randint(7, 14)
    if band < 0.52:
        return rng.randint(15, 18)
    if band < 0.65:
        return rng.randint(19, 25)
    return rng.randint(26, 49)


class _Roster:
    """Collects people, keeping (name, contact) unique as the Player model requires per festival."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.people: list[Person] = []
        self.seen: set[tuple[str, str]] = set()
        self.ranking_ids: set[str] = set()

    def add(self, person: Person) -> bool:
        key = (person.name, person.contact)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.people.append(person)
        return True

    def ranking_id(self) -> str:
        while True:
            candidate = f"KR-{self.rng.randint(1000, 9999)}"
            if candidate not in self.ranking_ids:
                self.ranking_ids.add(candidate)
                return candidate


def _busan_family(roster: _Roster) -> list[Person]:
    """A parent and one or two children, registered together under the parent's phone."""
    rng = roster.rng
    surname = _surname(rng, names.KOREAN_SURNAMES)
    parent_age = rng.randint(36, 49)
    parent = surname + _korean_given_name(rng, parent_age)
    phone = _korean_phone(rng)
    label = f"{parent} 가족"
    members = [Person(parent, phone, parent_age, label)]
    for _ in range(rng.randint(1, 2)):
        child_age = rng.randint(7, 13)
        members.append(Person(surname + _korean_given_name(rng, child_age), phone, child_age, label))
    return [member for member in members if roster.add(member)]


def _busan_individual(roster: _Roster) -> list[Person]:
    rng = roster.rng
    age = _busan_age(rng)
    name = _surname(rng, names.KOREAN_SURNAMES) + _korean_given_name(rng, age)
    affiliation = _busan_affiliation(rng, age)
    contact = _korean_phone(rng)
    if age >= 19 and rng.random() < 0.1:
        contact = f"rummi{rng.randint(100, 999)}@example.com"
    # Regular club players hold a national ranking id; under-15s earn no ranking points (R9).
    ranking_id = roster.ranking_id() if age >= 15 and "동호회" in affiliation and rng.random() < 0.5 else ""
    person = Person(name, contact, age, affiliation, ranking_id)
    return [person] if roster.add(person) else []


def busan_people(rng: random.Random, count: int, *, families: int = 8) -> list[Person]:
    """`count` people in registration order; families register one after another."""
    roster = _Roster(rng)
    groups = [_busan_family(roster) for _ in range(families)]
    while sum(len(group) for group in groups) < count:
        groups.append(_busan_individual(roster))
    rng.shuffle(groups)
    return [person for group in groups for person in group][:count]


def busan_word_players(rng: random.Random, count: int, *, taken: list[Person]) -> list[Person]:
    """Teenagers and adults who came for Rummikub Word only."""
    roster = _Roster(rng)
    for person in taken:
        roster.seen.add((person.name, person.contact))
    people: list[Person] = []
    while len(people) < count:
        age = rng.randint(15, 45)
        person = Person(
            _surname(rng, names.KOREAN_SURNAMES) + _korean_given_name(rng, age),
            _korean_phone(rng),
            age,
            _busan_affiliation(rng, age),
        )
        if roster.add(person):
            people.append(person)
    return people


def hong_kong_pupils(rng: random.Random, count: int) -> list[Person]:
    """School pupils for the 2016 final: mostly primary (born 2004–2009), a few secondary entrants."""
    roster = _Roster(rng)
    while len(roster.people) < count:
        if rng.random() < 0.85:
            age, school = rng.randint(7, 12), rng.choice(names.HONG_KONG_PRIMARY)
        else:
            age, school = rng.randint(13, 16), rng.choice(names.HONG_KONG_SECONDARY)
        name = _surname(rng, names.CHINESE_SURNAMES) + rng.choice(names.CHINESE_GIVEN_CHILDREN)
        phone = f"{rng.choice('569')}{rng.randint(0, 999):03d} {rng.randint(0, 9999):04d}"
        roster.add(Person(name, phone, age, school))
    return roster.people
