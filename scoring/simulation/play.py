"""Play a whole event through the services the web pages use: draw, release, submit, confirm,
move up (Hong Kong, automatic) or advance (Busan: lots at the cut, close the round, draw the next one).

Reproducible: everything random comes from one `random.Random(seed)` — the people, every draw's seed, the
Hong Kong movement seeds, the lots and the score sheets — and every query the simulation reads in a loop
is ordered. Same seed ⇒ same draws, same sheets, same final order, in any festival.
"""

from __future__ import annotations

import datetime as dt
import random
import zoneinfo

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from tournament.demo.people import Person, busan_people, hong_kong_pupils
from tournament.formats import format_of
from tournament.models import Event, Festival, Player, Registration, StaffRole, Stage
from tournament.models.registration import contact_key, name_key
from tournament.permissions import CHIEF_REFEREE, ORGANISER
from tournament.services import draws, seating
from tournament.services.audit import Actor
from tournament.services.checkin import assign_numbers

from ..games.classic import ruleset_of
from ..services import progress
from ..services.sheets import SheetRefused, confirm_sheet, submit_sheet
from .racks import plausible_entry
from .word import plausible_word_sheet

FORMATS = {"busan": Event.Format.BUSAN, "hk": Event.Format.HONG_KONG}
RULESETS = {Event.Format.BUSAN: Event.Ruleset.WRC_2014, Event.Format.HONG_KONG: Event.Ruleset.HK_2016}
TIME_ZONES = {Event.Format.BUSAN: "Asia/Seoul", Event.Format.HONG_KONG: "Asia/Hong_Kong"}
MAX_PLAYERS = 4096
ORGANISER_USERNAME = "simulation-organiser"
CHIEF_USERNAME = "simulation-chief-referee"
GAMES = {"classic": Event.Game.CLASSIC, "word": Event.Game.WORD}
SEEDS = 2**31  # draw, movement and lot seeds are drawn below this, like tournament.formats.draw.new_seed


class SimulationError(ValueError):
    """Bad arguments (the command shows the message)."""


def _staff(festival: Festival, username: str, role: str) -> Actor:
    """A staff account without a password (nobody signs in as it) that the audit log names."""
    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username)
        user.set_unusable_password()
        user.save()
    StaffRole.objects.get_or_create(festival=festival, user=user, role=role)
    return Actor(user=user)


def _unique_slug(queryset, base: str) -> str:
    slug, n = base, 1
    while queryset.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


# A simulated event runs from START for four hours, and is over when simulate() returns: it is played on the
# last day whose event has ended by now in the festival's own zone (before 14:30 there, that is yesterday).
START = dt.time(10, 30)
OVER_BY = dt.time(14, 30)


def _festival(fmt: str, players: int, seed: int) -> Festival:
    here = timezone.localtime(timezone=zoneinfo.ZoneInfo(TIME_ZONES[fmt]))
    today = here.date() if here.time() >= OVER_BY else here.date() - dt.timedelta(days=1)
    base = slugify(f"simulation-{fmt}-{players}-seed-{seed}")[:50]
    return Festival.objects.create(
        slug=_unique_slug(Festival.objects.all(), base), name=f"Simulation ({fmt}, {players} players, seed {seed})",
        venue="Simulation", starts_on=today, ends_on=today, timezone=TIME_ZONES[fmt], languages=["ko", "en"],
    )


def _event(festival: Festival, fmt: str, players: int, seed: int, name: str | None,
           game: str = Event.Game.CLASSIC) -> Event:
    # After the festival's other events, so a player reused from one of them is never in two at once (R9).
    tz = festival.tzinfo
    start = dt.datetime.combine(festival.starts_on, START, tzinfo=tz)
    latest = festival.events.order_by("-ends_at").values_list("ends_at", flat=True).first()
    if latest is not None and latest > start:
        start = latest
    label = "Busan" if fmt == Event.Format.BUSAN else "Hong Kong"
    if game == Event.Game.WORD:
        label = f"Rummikub Word {label}"
    prefix = "word-" if game == Event.Game.WORD else ""
    return Event.objects.create(
        festival=festival, slug=_unique_slug(festival.events.all(), f"{prefix}{fmt}-{players}-seed-{seed}"),
        name=name or f"Simulated {label} event ({players} players, seed {seed})", format=fmt, game=game,
        ruleset=RULESETS[fmt], capacity=players, starts_at=start, ends_at=start + dt.timedelta(hours=4),
        registration_opens_at=start - dt.timedelta(days=30), registration_closes_at=start - dt.timedelta(hours=1),
        withdrawal_deadline=start - dt.timedelta(days=2), checkin_opens_at=start - dt.timedelta(minutes=30),
        checkin_closes_at=start, checkin_override=Event.CheckinOverride.CLOSED,
    )


def _register(event: Event, people: list[Person], organiser: Actor) -> None:
    """Everyone registered and checked in, then numbered in registration order (R8.2)."""
    festival = event.festival
    year = festival.starts_on.year
    known = {(p.name_key, p.contact_key): p for p in Player.objects.filter(festival=festival)}
    keyed = [((name_key(p.name), contact_key(p.contact, festival.phone_region)), p) for p in people]
    new = [
        Player(festival=festival, name=p.name, name_key=key[0], contact=p.contact, contact_key=key[1],
               birth_year=p.birth_year(year), affiliation=p.affiliation, ranking_id=p.ranking_id)
        for key, p in dict(keyed).items() if key not in known
    ]
    Player.objects.bulk_create(new)  # bulk_create skips save(), so the identity keys are set above
    known.update({(p.name_key, p.contact_key): p for p in Player.objects.filter(festival=festival)})
    now = timezone.now()
    seen = set()
    registrations = []
    for key, _person in keyed:
        if key in seen:
            continue
        seen.add(key)
        registrations.append(Registration(event=event, player=known[key], queued_at=now, checked_in_at=now))
    Registration.objects.bulk_create(registrations)
    assign_numbers(event=event, actor=organiser)


def _people(rng: random.Random, fmt: str, players: int) -> list[Person]:
    return busan_people(rng, players) if fmt == Event.Format.BUSAN else hong_kong_pupils(rng, players)


def _play_game(stage: Stage, game: int, rng: random.Random, chief: Actor) -> None:
    """Every table of one game: the table's link submits a plausible sheet, the chief referee confirms it."""
    ruleset = ruleset_of(stage.event)
    tables = seating.player_ids(seating.game_draw(stage, game))
    movement_seed = rng.randrange(SEEDS)  # used by the confirmation that completes a Hong Kong game
    word = stage.event.game == Event.Game.WORD
    for number, registrations in enumerate(tables, start=1):
        # Rummikub Word (R10) goes the same submit-then-confirm path, with a turn-by-turn sheet.
        entry = (plausible_word_sheet(rng, len(registrations)) if word
                 else plausible_entry(rng, ruleset, registrations))
        link = Actor(label=f"table {number} link")
        try:
            sheet = submit_sheet(stage=stage, game=game, table_number=number, entry=entry, accept_warnings=True,
                                 idempotency_key=f"simulation-{stage.pk}-{game}-{number}", actor=link,
                                 via=link.label)
        except SheetRefused as refused:  # a bug in racks.py or word.py, not bad luck: say what rules/ found
            raise RuntimeError(f"simulated sheet refused: {refused.judgement.problems} for {entry}") from refused
        confirm_sheet(sheet=sheet, actor=chief, movement_seed=movement_seed)


def _release(stage: Stage, rng: random.Random, organiser: Actor) -> None:
    draft = draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(SEEDS))
    draws.release_draw(draw=draft, actor=organiser)


def _play_busan(event: Event, rng: random.Random, organiser: Actor, chief: Actor) -> None:
    stage = draws.start_event(event=event, actor=organiser)
    while True:
        _release(stage, rng, organiser)
        for game in range(1, stage.games + 1):
            _play_game(stage, game, rng, chief)
        if stage.is_final:
            return
        lot_seed = rng.randrange(SEEDS)
        if not progress.advancement(stage).resolved:
            progress.draw_lots_at_cut(stage=stage, actor=organiser, seed=lot_seed)
        stage = progress.close_stage(stage=stage, actor=organiser)


def _play_hong_kong(event: Event, rng: random.Random, organiser: Actor, chief: Actor) -> None:
    stage = draws.start_event(event=event, actor=organiser)
    _release(stage, rng, organiser)
    for game in range(1, stage.games + 1):
        _play_game(stage, game, rng, chief)  # the last confirmation of a game seats the next (R8.2)


def _check(fmt: str, players: int, game: str = "classic") -> str:
    if game not in GAMES:
        raise SimulationError(f"Unknown game {game!r}: use one of {', '.join(GAMES)}.")
    if fmt not in FORMATS:
        raise SimulationError(f"Unknown format {fmt!r}: use one of {', '.join(FORMATS)}.")
    if not 2 <= players <= MAX_PLAYERS:
        raise SimulationError(f"An event needs 2 to {MAX_PLAYERS} players, not {players}.")
    return FORMATS[fmt]


def prepare_event(fmt: str, players: int, seed: int, festival: Festival | None = None,
                  name: str | None = None, game: str = "classic") -> tuple[Event, random.Random]:
    """An event of `players` checked-in, numbered players, not started; and the random source to go on with."""
    event_format = _check(fmt, players, game)
    rng = random.Random(seed)
    people_rng = random.Random(rng.randrange(SEEDS))
    with transaction.atomic():
        festival = festival or _festival(event_format, players, seed)
        organiser = _staff(festival, ORGANISER_USERNAME, ORGANISER)
        _staff(festival, CHIEF_USERNAME, CHIEF_REFEREE)
        event = _event(festival, event_format, players, seed, name, GAMES[game])
        _register(event, _people(people_rng, event_format, players), organiser)
    event.refresh_from_db()
    return event, rng


def staff_of(festival: Festival) -> tuple[Actor, Actor]:
    """The simulation's organiser and chief referee (accounts nobody can sign in with)."""
    return (_staff(festival, ORGANISER_USERNAME, ORGANISER), _staff(festival, CHIEF_USERNAME, CHIEF_REFEREE))


def simulate(fmt: str, players: int, seed: int, festival: Festival | None = None, name: str | None = None,
             game: str = "classic") -> Event:
    """Create an event of `players` checked-in players in `festival` (a new one by default) and play it to
    the end: the Busan final or the last Hong Kong game confirmed. `fmt` is "busan" or "hk"; `game` is
    "classic" or "word" (Rummikub Word, R10: turn-by-turn sheets through the same services)."""
    _check(fmt, players, game)
    with transaction.atomic():  # all or nothing: a failure leaves no half-played event behind
        event, rng = prepare_event(fmt, players, seed, festival, name, game)
        _play(event, rng)
    return event


def play(event: Event, seed: int) -> Event:
    """Play an event whose players are checked in and numbered (made elsewhere, e.g. the demo) to the end."""
    with transaction.atomic():
        _play(event, random.Random(seed))
    return event


def _play(event: Event, rng: random.Random) -> None:
    organiser, chief = staff_of(event.festival)
    if format_of(event).eliminates:  # rounds, each closed and the next drawn (R8.1)
        _play_busan(event, rng, organiser, chief)
    else:
        _play_hong_kong(event, rng, organiser, chief)


def simulate_word(players: int, seed: int, fmt: str = "busan", festival: Festival | None = None,
                  name: str | None = None) -> Event:
    """A Rummikub Word event of `players` played to the end (R10)."""
    return simulate(fmt, players, seed, festival=festival, name=name, game="word")
