"""What differs between the tournament formats (R8), in one place: `format_of(event)` picks it.

Like `scoring.games.game_of` for the games, a small strategy per format answers every question whose answer
depends on the format, so the services, forms and pages ask it instead of comparing `Event.format`:

- *Busan 2014 elimination* (R8.1): a computer draw seats a stage's players once for all its games; the top
  players advance to a new draw; the final decides the places. Timetable: a slot per round, then the final (R9).
- *Hong Kong 2016 move up a table* (R8.2): one stage; every game is seated anew, the games after the first from
  the game before (the top two of each table move up a table); its wins and average points decide the places.
  Timetable: briefing, play, scoring (R9).

Pure Python, like the rest of `tournament.formats`: plain data in and out. An "event" here is anything with
the attributes read (`format`, `stage_games`, `final_games`, `rotation_games`, the times); a "stage" anything
with `advance`. Texts are message ids, translated by the page that shows them.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from . import busan, hongkong
from .ranking import Ranked, SeatResult


def gettext_noop(message: str) -> str:
    """Marks `message` for the catalogues (makemessages reads this name); it is translated when shown."""
    return message


# Event.Format values.
BUSAN_KEY, HONG_KONG_KEY = "busan", "hk"
# Stage.Advance values the formats read (the others are busan.PER_TABLE, busan.PER_STAGE, busan.FINAL).
NO_ADVANCE, PLAYOFF = "none", "playoff"
# Event.FirstSeating.BY_NUMBER.
BY_NUMBER = "number"

# The kinds of timetable slot (tournament.schedule) and of stage on the round clock (scoring.clock).
CHECKIN, BRIEFING, ROUND, FINAL, PLAY, SCORING, OTHER = (
    "checkin", "briefing", "round", "final", "play", "scoring", "other")

# R9: Busan — each round 70 minutes for 3 games, 10 minutes per draw, the final about 30 minutes;
# Hong Kong — play 10:20–11:50 for 3 games (30 minutes a game), scoring until 15 minutes after.
BUSAN_MINUTES_PER_GAME = 70 / 3
BUSAN_DRAW_MINUTES = 10
BUSAN_FINAL_MINUTES_PER_GAME = 30
HK_MINUTES_PER_GAME = 30
HK_SCORING_MINUTES = 15
PLAYOFF_MINUTES_PER_GAME = 30  # a one-game playoff (R7) is played like a Hong Kong game, in either format

MINUTE = dt.timedelta(minutes=1)

S = TypeVar("S")


@dataclass(frozen=True)
class PlannedSlot:
    """A slot of the generated timetable, before it is named in the reader's language."""

    kind: str
    starts: dt.datetime
    ends: dt.datetime
    number: int = 0  # the round's number (kind ROUND); 0 otherwise


class EventFormat(ABC):
    """How one format seats, ranks and times an event; `format_of(event)` picks it."""

    key: str  # the Event.Format value
    preset: str  # the tournament.presets preset a new event of this format starts from
    # Every game of a stage has its own seating, each after the first following from the game before
    # (R8.2), or one seating holds all the games of a stage (R8.1).
    each_game_anew: bool
    # Players leave at each stage's cut (R8.1): standings are per stage, a player's place says the stage reached.
    eliminates: bool
    movement_note: str  # what players are told about moving tables between games (a message id; "" for none)
    checkin_label: str  # the check-in slot of the timetable (a message id)

    # --- seating ------------------------------------------------------------------------------------------

    @abstractmethod
    def draw_game(self, game: int) -> int:
        """The game whose draw seats `game` (Draw.game of its seating)."""

    @abstractmethod
    def games_of_draw(self, draw_game: int, games: int) -> list[int]:
        """The games of a stage of `games` games that the seating of game `draw_game` is used for."""

    def seats_by_number(self, *, stage_number: int, first_seating: str) -> bool:
        """Whether the stage's first draw seats players by number rather than by computer draw."""
        return False

    # --- stages and places -----------------------------------------------------------------------------

    @abstractmethod
    def first_stage(self, event, players: int) -> busan.PlannedStage:
        """The stage an event of `players` checked-in players starts with."""

    @abstractmethod
    def deciding_stage(self, stages: Sequence[S]) -> S | None:
        """Of an event's stages (in number order), the one whose results decide the places."""

    @abstractmethod
    def final_ranked(self, players: Sequence[Hashable], results: Iterable[SeatResult], points: str
                     ) -> tuple[Ranked, ...]:
        """The places from the deciding stage's results (ties shared, R7)."""

    # --- timetable and clock (R9) ---------------------------------------------------------------------------

    @abstractmethod
    def planned_slots(self, event) -> list[PlannedSlot]:
        """The timetable after check-in, planned from the event's start time and its plan."""

    @abstractmethod
    def has_slot(self, kind: str, number: int, stage_games: Sequence[int]) -> bool:
        """Whether the generated timetable has a slot of this kind (and round number)."""

    def stage_minutes(self, kind: str, games: int) -> int:
        """The planned length of a stage of `games` games; `kind` is ROUND, FINAL or PLAYOFF."""
        games = max(games, 1)
        if kind == PLAYOFF:
            return PLAYOFF_MINUTES_PER_GAME * games
        return self._play_minutes(kind, games)

    @abstractmethod
    def _play_minutes(self, kind: str, games: int) -> int: ...

    def timetable_slot(self, kind: str, number: int) -> tuple[str, int] | None:
        """The (kind, number) of the slot where a stage's play begins in the timetable, for the round clock; a
        playoff has none (R7: it is played when the tie is known)."""
        if kind == PLAYOFF:
            return None
        return self._play_slot(kind, number)

    @abstractmethod
    def _play_slot(self, kind: str, number: int) -> tuple[str, int]: ...


class Busan(EventFormat):
    key = BUSAN_KEY
    preset = "busan"
    each_game_anew = False
    eliminates = True
    movement_note = ""  # a new draw before each round; nobody moves between the games of a round
    checkin_label = gettext_noop("Check-in")

    def draw_game(self, game: int) -> int:
        return 1

    def games_of_draw(self, draw_game: int, games: int) -> list[int]:
        return list(range(draw_game, games + 1))

    @staticmethod
    def settings(stage_games: Sequence[int], final_games: int) -> busan.BusanSettings:
        """The event's rounds: the top two of each table advance, from the last round the top 4 go to the final
        (R8.1)."""
        rules = [busan.StageRule(g, busan.PER_TABLE, 2) for g in stage_games[:-1]]
        rules.append(busan.StageRule(stage_games[-1], busan.PER_STAGE, 4))
        return busan.BusanSettings(stages=tuple(rules), final_games=final_games)

    def first_stage(self, event, players: int) -> busan.PlannedStage:
        return busan.plan(players, self.settings(event.stage_games, event.final_games))[0]

    def deciding_stage(self, stages: Sequence[S]) -> S | None:
        return next((s for s in stages if s.advance == busan.FINAL), None)

    def final_ranked(self, players, results, points) -> tuple[Ranked, ...]:
        return busan.final_places(players, results, points=points).ranked

    def planned_slots(self, event) -> list[PlannedSlot]:
        slots = []
        at = event.starts_at
        for number, games in enumerate(event.stage_games, start=1):
            at += BUSAN_DRAW_MINUTES * MINUTE  # the draw for the round
            ends = at + round(BUSAN_MINUTES_PER_GAME * games) * MINUTE
            slots.append(PlannedSlot(ROUND, at, ends, number))
            at = ends
        at += BUSAN_DRAW_MINUTES * MINUTE
        slots.append(PlannedSlot(FINAL, at, at + BUSAN_FINAL_MINUTES_PER_GAME * event.final_games * MINUTE))
        return slots

    def has_slot(self, kind: str, number: int, stage_games: Sequence[int]) -> bool:
        return kind == FINAL or (kind == ROUND and 1 <= number <= len(stage_games))

    def _play_minutes(self, kind: str, games: int) -> int:
        if kind == FINAL:
            return BUSAN_FINAL_MINUTES_PER_GAME * games
        return round(BUSAN_MINUTES_PER_GAME * games)

    def _play_slot(self, kind: str, number: int) -> tuple[str, int]:
        return (FINAL, 0) if kind == FINAL else (ROUND, number)


class HongKong(EventFormat):
    key = HONG_KONG_KEY
    preset = "hk"
    each_game_anew = True
    eliminates = False
    # R8.2: table k's top two go to k + 1, the last table's to table 1: the one move players ask about.
    movement_note = gettext_noop("The top two of the last table move up to table 1.")
    checkin_label = gettext_noop("Arrival and check-in")  # R9: arrival 09:50, then the briefing

    def draw_game(self, game: int) -> int:
        return game

    def games_of_draw(self, draw_game: int, games: int) -> list[int]:
        return [draw_game]

    def seats_by_number(self, *, stage_number: int, first_seating: str) -> bool:
        # R8.2: game 1 seats players 1–4 at table 1, 5–8 at table 2 … unless the organiser chose a random draw.
        return stage_number == 1 and first_seating == BY_NUMBER

    def first_stage(self, event, players: int) -> busan.PlannedStage:
        # One stage, no advancement: its games decide the places (a playoff may follow, R7).
        return busan.PlannedStage(number=1, name="Round 1", players=players, table_sizes=(),
                                  games=event.rotation_games, advance=NO_ADVANCE, k=0, advancing=0)

    def deciding_stage(self, stages: Sequence[S]) -> S | None:
        played = [s for s in stages if s.advance != PLAYOFF]
        return played[-1] if played else None

    def final_ranked(self, players, results, points) -> tuple[Ranked, ...]:
        return hongkong.event_ranking(results, players, points=points).ranked

    def planned_slots(self, event) -> list[PlannedSlot]:
        play_ends = event.starts_at + HK_MINUTES_PER_GAME * event.rotation_games * MINUTE
        return [
            PlannedSlot(BRIEFING, event.checkin_closes_at, event.starts_at),
            PlannedSlot(PLAY, event.starts_at, play_ends),
            PlannedSlot(SCORING, play_ends, play_ends + HK_SCORING_MINUTES * MINUTE),
        ]

    def has_slot(self, kind: str, number: int, stage_games: Sequence[int]) -> bool:
        return kind in (BRIEFING, PLAY, SCORING)

    def _play_minutes(self, kind: str, games: int) -> int:
        return HK_MINUTES_PER_GAME * games

    def _play_slot(self, kind: str, number: int) -> tuple[str, int]:
        return (PLAY, 0)


BUSAN, HONG_KONG = Busan(), HongKong()
FORMATS = {BUSAN.key: BUSAN, HONG_KONG.key: HONG_KONG}


def format_named(key: str | None) -> EventFormat:
    """The format of an Event.Format value; Busan (the model's default) for none or an unknown one, as a form
    not yet filled in."""
    return FORMATS.get(key, BUSAN)


def format_of(event) -> EventFormat:
    return format_named(event.format)


__all__ = [
    "BUSAN", "FORMATS", "HONG_KONG", "Busan", "EventFormat", "HongKong", "PlannedSlot", "format_named",
    "format_of",
]
