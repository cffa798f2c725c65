"""`manage.py load_demo_results`: the games of the demo, played through the services the pages use.

`load_demo` lays the demo festivals out around now; this plays what is already over by then and stops the live
event in the middle of a round, so every role has something to do whatever the hour:

- finished events with final results, certificates and ranking points: the children's event of the Busan
  festival and a festival of two events played a week ago (`demo-results`);
- the Hong Kong final live: game 1 confirmed, game 2 half done (sheets confirmed, sheets waiting for the
  chief referee, tables not entered yet, some of them the demo referee's);
- a club night whose players keep their own sheets (`demo-club-night`): one table agreed by three of four,
  one disputed, two still to enter from the players' personal pages.

Each part runs once: what is already played is left as it is (the newcomer may have changed it).
"""

from __future__ import annotations

import datetime as dt
import random

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from tournament.demo.accounts import join_staff
from tournament.models import Event, Festival, Stage
from tournament.services import draws, seating
from tournament.services.audit import Actor

from ..games.classic import ruleset_of
from ..results.actions import set_ranking_points
from ..services.links import assign_tables
from ..services.progress import close_stage, current_stage
from ..services.sheets import confirm_sheet, submit_sheet
from ..services.table_sheets import PERSONAL_PAGE, answer_sheet, enter_sheet, seated_player
from .play import SEEDS, play, prepare_event, simulate
from .racks import plausible_entry

RESULTS_SLUG = "demo-results"
CLUB_SLUG = "demo-club-night"
BUSAN_SLUG, KIDS_SLUG = "busan-2014", "rummikub-kids"
HONG_KONG_SLUG, LIVE_SLUG = "hong-kong-2016", "final"
# The organiser's ranking-points table for places 1, 2, 3 … (R9): what a regional ranking might give.
RANKING_POINTS = [100, 80, 65, 55, 45, 40, 35, 30, 25, 20, 15, 10]
# Game 2 of the live round, by table: the first confirmed, the next waiting for the chief, the rest not
# entered; the demo referee holds the last tables.
CONFIRMED, SUBMITTED, REFEREE_TABLES = 6, 5, 4
MINUTE, SECOND = dt.timedelta(minutes=1), dt.timedelta(seconds=1)


def _demo_user(username: str) -> User | None:
    return User.objects.filter(username=username).first()


def _actor(username: str, label: str) -> Actor:
    user = _demo_user(username)
    return Actor(user=user) if user is not None else Actor(label=label)


def _finish(event: Event) -> None:
    """What the organiser does after the last game: close the deciding stage, set the ranking points."""
    organiser = Actor(label="demo")
    last = current_stage(event)
    if last is not None and last.closed_at is None:
        close_stage(stage=last, actor=organiser)
    if not event.ranking_points:
        set_ranking_points(event=event, points=RANKING_POINTS, actor=organiser)


def finished_festival() -> tuple[Festival, bool]:
    """The festival of two events played to the end a week ago, with ranking points granted."""
    festival = Festival.objects.filter(slug=RESULTS_SLUG).first()
    created = festival is None
    if created:
        week_ago = timezone.localdate() - dt.timedelta(days=7)
        with transaction.atomic():
            festival = Festival.objects.create(
                slug=RESULTS_SLUG, name="Finished events (simulated demo)", venue="Demo hall",
                starts_on=week_ago, ends_on=week_ago,
            )
            simulate("busan", 48, 2014, festival=festival, name="Busan-style elimination, 48 players")
            school = simulate("hk", 32, 2016, festival=festival, name="Hong Kong-style rotation, 32 players")
            # A school final of pupils: its organiser gives them ranking points (R9 lets an event do so).
            Event.objects.filter(pk=school.pk).update(under_15_no_points=False)
    users = {name: user for name in ("organiser", "chief", "referee", "desk") if (user := _demo_user(name))}
    if len(users) == 4:  # load_demo made the accounts: they see these results from My work too
        join_staff(users, [festival])
    for event in festival.events.all():
        _finish(event)
    return festival, created


def _event(festival: str, slug: str) -> Event | None:
    return Event.objects.select_related("festival").filter(festival__slug=festival, slug=slug).first()


def play_kids_event(now: dt.datetime) -> Event | None:
    """The Busan festival's children's event, over by now: played to the end once."""
    event = _event(BUSAN_SLUG, KIDS_SLUG)
    if event is None or event.numbers_assigned_at is None or event.stages.exists() or event.ends_at > now:
        return None
    play(event, seed=2005)
    _finish(event)  # R9: children under 15 earn none; the results page says why
    return event


def _submit(stage: Stage, game: int, number: int, seats: list[int], rng: random.Random, at: dt.datetime):
    link = Actor(label=f"table {number} link")
    return submit_sheet(stage=stage, game=game, table_number=number, accept_warnings=True,
                        entry=plausible_entry(rng, ruleset_of(stage.event), seats), now=at,
                        idempotency_key=f"demo-{stage.pk}-{game}-{number}", actor=link, via=link.label)


def make_live(now: dt.datetime) -> Event | None:
    """The Hong Kong final in the middle of its round (R8.2: each game's last confirmation seats the next)."""
    event = _event(HONG_KONG_SLUG, LIVE_SLUG)
    if event is None or event.numbers_assigned_at is None or event.stages.exists() or event.starts_at > now:
        return None
    rng = random.Random(2016)
    organiser, chief = _actor("organiser", "demo organiser"), _actor("chief", "demo chief referee")
    # The round began at the event's start (the round clock counts from the release): game 1 took about
    # 25 minutes, game 2 has been played for about 10; every time before now.
    start = min(event.starts_at, now - 40 * MINUTE)

    def at(minutes: int, table: int) -> dt.datetime:
        return start + minutes * MINUTE + table * 15 * SECOND

    with transaction.atomic():
        stage = draws.start_event(event=event, actor=organiser)
        draws.release_draw(draw=draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(SEEDS)),
                           actor=organiser, now=start)
        movement_seed = rng.randrange(SEEDS)
        for number, seats in enumerate(seating.player_ids(seating.game_draw(stage, 1)), start=1):
            confirm_sheet(sheet=_submit(stage, 1, number, seats, rng, at(22, number)), actor=chief,
                          movement_seed=movement_seed, now=at(27, number))
        tables = seating.player_ids(seating.game_draw(stage, 2))
        for number, seats in enumerate(tables[:CONFIRMED + SUBMITTED], start=1):
            sheet = _submit(stage, 2, number, seats, rng, at(33, number))
            if number <= CONFIRMED:
                confirm_sheet(sheet=sheet, actor=chief, movement_seed=movement_seed, now=at(36, number))
        referee = _demo_user("referee")
        if referee is not None:
            assign_tables(event=event, first=len(tables) - REFEREE_TABLES + 1, last=len(tables), referee=referee,
                          actor=organiser)
    return event


def club_night() -> tuple[Event, bool]:
    """A club night whose players keep their own sheets (Event.sheets_by), in game 1 of a Hong Kong-style
    round of 16: table 1 entered and agreed by three of its four players (seat 4 has yet to answer), table 2
    disputed, tables 3 and 4 still to enter."""
    festival = Festival.objects.filter(slug=CLUB_SLUG).first()
    if festival is not None:
        return festival.events.get(), False
    with transaction.atomic():  # all or nothing: run again, it is made whole
        event, rng = prepare_event("hk", 16, 2030, name="Club night: the players keep the sheets")
        festival = event.festival
        Festival.objects.filter(pk=festival.pk).update(slug=CLUB_SLUG, name="Club night (players keep the sheets)")
        Event.objects.filter(pk=event.pk).update(sheets_by=Event.SheetsBy.PLAYERS, rotation_games=3, slug="club-night")
        event.refresh_from_db()
        organiser = Actor(label="demo organiser")
        stage = draws.start_event(event=event, actor=organiser)
        draws.release_draw(draw=draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(SEEDS)),
                           actor=organiser)

        def player(table: int, position: int):
            seat = seating.seats(seating.game_draw(stage, 1), table=table)[position - 1]
            return seated_player(stage=stage, game=1, table_number=table, via=PERSONAL_PAGE,
                                 registration=seat.registration)

        for table in (1, 2):
            ids = seating.player_ids(seating.game_draw(stage, 1))[table - 1]
            sheet = enter_sheet(stage=stage, game=1, table_number=table, accept_warnings=True,
                                entry=plausible_entry(rng, ruleset_of(event), ids),
                                idempotency_key=f"demo-club-{table}", player=player(table, 1))
            for position in (2, 3):
                disputes = table == 2 and position == 3
                answer_sheet(sheet=sheet, version=1, player=player(table, position), agree=not disputes,
                             reason="Seat 2 still had a joker" if disputes else "",
                             idempotency_key=f"demo-club-{table}-{position}")
        users = {name: user for name in ("organiser", "chief", "referee", "desk") if (user := _demo_user(name))}
        if len(users) == 4:  # load_demo made the accounts: the organiser and the chief find it on My work
            join_staff(users, [festival])
    return event, True


def _club_lines(event: Event) -> list[str]:
    stage = event.stages.get(number=1)
    lines = [f"{event.name}: /f/{event.festival.slug}/{event.slug}/ — the chief's board shows agreed and disputed "
             "tables; personal pages of players at its tables:"]
    for table, position, what in ((1, 4, "has yet to agree"), (3, 1, "enters game 1"), (3, 2, "then agrees")):
        seat = seating.seats(seating.game_draw(stage, 1), table=table)[position - 1]
        lines.append(f"  table {table}, seat {position} ({what}): {seat.registration.player.get_absolute_url()}")
    return lines


def load_demo_results(now: dt.datetime | None = None) -> list[str]:
    """Play what the demo needs played; returns what was done, one line each, for the command's output."""
    now = now or timezone.now()
    festival, created = finished_festival()
    lines = [f"Finished demo events{'' if created else ' (already loaded)'}: /f/{festival.slug}/ "
             "(standings, results, podium, certificates, ranking points, exports)"]
    for event, what in ((play_kids_event(now), "finished"), (make_live(now), "live, in the middle of game 2")):
        if event is not None:
            lines.append(f"{event.name}: {what} — /f/{event.festival.slug}/{event.slug}/")
    club, _created = club_night()
    return lines + _club_lines(club)
