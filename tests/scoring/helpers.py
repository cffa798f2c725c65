"""Helpers of the scoring tests: score-sheet entries, sheets submitted and confirmed through the services,
the small events several modules play, the chief referee, a page's text, and a Hong Kong and a Busan day with
Chinese and Korean names (the pages in those languages)."""

import random
import uuid

from django.utils import timezone

from scoring.games.classic import Entry, SeatEntry
from scoring.services import conduct
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_registration, make_staff, open_event, released_stage
from tournament.models import ConductRecord, Event, Festival
from tournament.permissions import CHIEF_REFEREE
from tournament.services import seating
from tournament.services.audit import Actor

LINK = Actor(label="table link")  # who submits the sheets below: a table's private link


def entry_for(stage, game, table_number, values, *, end="went_out", winner=0, overrides=None) -> Entry:
    """`values[i]` is seat i's counted rack value (the winner's is ignored)."""
    seats = seating.seats(seating.game_draw(stage, game), table=table_number)
    lines = []
    for index, seat in enumerate(seats):
        out = end == "went_out" and index == winner
        fields = {"position": seat.position, "registration_id": seat.registration_id, "went_out": out,
                  "rack_value": None if out else values[index], "jokers": None if out else 0}
        fields.update((overrides or {}).get(index, {}))
        lines.append(SeatEntry(**fields))
    return Entry(end=end, seats=tuple(lines))


def key() -> str:
    return uuid.uuid4().hex


def text(response) -> str:
    return response.content.decode()


def chief_of(event) -> Actor:
    """A new chief referee of the event's festival, as the services take them."""
    return Actor(user=make_staff(event.festival, CHIEF_REFEREE))


def seated(stage, game=1, table=1) -> list[int]:
    return [seat.registration_id for seat in seating.seats(seating.game_draw(stage, game), table=table)]


def confirm(stage, values, *, chief, game=1, table=1, end="went_out", winner=0):
    """One table's sheet, submitted through the referee's service and confirmed by the chief referee."""
    sheet = submit_sheet(stage=stage, game=game, table_number=table, accept_warnings=True,
                         entry=entry_for(stage, game, table, values, end=end, winner=winner),
                         idempotency_key=key(), actor=LINK, via="link")
    return confirm_sheet(sheet=sheet, actor=chief)


def play_game(stage, game, chief, rng, *, tie=False):
    """Every table of `game`: the first seat goes out; distinct rack values unless `tie` (all losers on 5)."""
    for table in seating.game_draw(stage, game).tables.all():
        seats = table.seats.count()
        values = [0] + ([5] * (seats - 1) if tie else rng.sample(range(1, 60), seats - 1))
        confirm(stage, values, chief=chief, game=game, table=table.number)


def busan_final(**fields):
    """A four-player Busan event: the plan is the final alone (R8.1), drawn and released."""
    stage = released_stage(4, **fields)
    assert stage.is_final and stage.games == 1
    return stage


def played_busan_final(values=(0, 10, 20, 30), *, end="went_out", **fields):
    """Seat 1 goes out; places follow the seat order for distinct values. Returns (stage, seat order)."""
    stage = busan_final(**fields)
    confirm(stage, list(values), chief=chief_of(stage.event), end=end)
    return stage, seated(stage)


def hong_kong(players, games=1):
    return released_stage(players, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016,
                          rotation_games=games)


CHINESE_NAMES = ["歐陽志明", "司徒嘉欣 Szeto Ka Yan", "陳大文", "李小龍", "黃家駒 Wong Ka Kui", "張學友", "梁朝偉", "周潤發"]


def hong_kong_day():
    """A Hong Kong festival with Chinese names: a game played (prize places, a player moved up a table, one
    who forfeited); the first player also holds a place from the waiting list in a later event; and an
    event still taking registrations. Returns (the event, the later event, the first player)."""
    stage = hong_kong(8, games=2)
    event = stage.event
    Festival.objects.filter(pk=event.festival_id).update(name="香港魔力橋大賽")
    Event.objects.filter(pk=event.pk).update(name="公開賽")
    for registration in event.registrations.select_related("player"):
        registration.player.name = CHINESE_NAMES[registration.number - 1]
        registration.player.affiliation = "聖保羅書院"
        registration.player.save()  # its search key too
    chief = chief_of(event)
    play_game(stage, 1, chief, random.Random(3))
    conduct.record_conduct(event=event, registration=event.registrations.get(number=8), note="家中有事",
                           kind=ConductRecord.Kind.FORFEIT, stage=stage, game=1, actor=chief)
    later = open_event(event.festival, name="青少年賽", slug="youth")
    open_event(event.festival, name="親子賽", slug="family", days_ahead=20)
    player = event.registrations.get(number=1).player
    make_registration(later, player, promoted_at=timezone.now())
    return event, later, player


KOREAN_NAMES = ["김민준", "이서연", "박지호", "최수아", "정우진", "강하은", "조현우", "윤지민"]


def busan_day():
    """A Busan festival with Korean names: eight players at two tables, the first game played; the first
    player also entered in an event still taking registrations. Returns (the event, that event, the player)."""
    stage = released_stage(8)
    event = stage.event
    Festival.objects.filter(pk=event.festival_id).update(name="루미큐브 부산 대회")
    Event.objects.filter(pk=event.pk).update(name="루미큐브 오픈")
    for registration in event.registrations.select_related("player"):
        registration.player.name = KOREAN_NAMES[registration.number - 1]
        registration.player.save()  # its search key too
    play_game(stage, 1, chief_of(event), random.Random(3))
    later = open_event(event.festival, name="루미큐브 청소년부", slug="youth")
    player = event.registrations.get(number=1).player
    make_registration(later, player)
    return event, later, player
