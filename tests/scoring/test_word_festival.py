"""At the service level: one festival runs a classic event and a Rummikub Word event at
different times (no clash, R9 / seed 000: a player may enter several events), both through registration,
check-in, numbering (R8.2), the draws, sheets (classic: submit_sheet; Word: the same submit_sheet with a turn-by-turn entry, R10),
confirmation, standings and the JSON export — the same services for both games, no parallel path."""

import datetime as dt
import json
import random

import pytest

from scoring.exports import event_export, event_json
from scoring.games.classic import ruleset_of
from scoring.models import ScoreSheet, WordTurn
from scoring.services import progress
from scoring.services.sheets import confirm_sheet, submit_sheet
from scoring.simulation.racks import plausible_entry
from scoring.simulation.word import plausible_word_sheet
from scoring.standings import event_standings
from tests.factories import EVENT_DAY, make_event, make_festival, make_staff
from tournament.models import Event, Player, Registration
from tournament.services import draws, seating
from tournament.services.audit import Actor
from tournament.services.checkin import assign_numbers, check_in
from tournament.services.consent import Consent
from tournament.services.registration import PlayerDetails, find_clash, register, register_existing_player

pytestmark = pytest.mark.django_db
PLAYERS = 8  # per event: a Busan round 1 of two tables, then the final of four (R8.1)


def person(n: int) -> PlayerDetails:
    return PlayerDetails(name=f"Festival Player {n}", contact=f"fp{n}@example.org", birth_year=1980 + n)


def enter_and_check_in(event: Event, people: list[PlayerDetails], desk: Actor,
                       returning: tuple[Player, ...] = ()) -> list[Registration]:
    """Registration while it is open (`returning`: players of the festival entering from their personal
    page), check-in in its window, numbers once it has closed (R8.2)."""
    now = event.registration_opens_at + dt.timedelta(hours=1)
    registrations = [register_existing_player(event=event, player=player, actor=Actor(label="player link"), now=now,
                                              consent=Consent(by="player", how="online")) for player in returning]
    registrations += [register(event=event, details=d, actor=Actor(label="web form"), now=now) for d in people]
    for registration in registrations:
        check_in(registration=registration, actor=desk, now=event.checkin_opens_at + dt.timedelta(minutes=5))
    assign_numbers(event=event, actor=desk, now=event.checkin_closes_at + dt.timedelta(minutes=1))
    return registrations


def play_game(stage, game: int, rng: random.Random, chief: Actor) -> None:
    """Every table: its link submits a sheet (the game's own kind), the chief referee confirms it."""
    for number, seated in enumerate(seating.player_ids(seating.game_draw(stage, game)), start=1):
        link = Actor(label=f"table {number} link")
        key = f"festival-{stage.pk}-{game}-{number}"
        if stage.event.game == Event.Game.WORD:
            sheet = submit_sheet(stage=stage, game=game, table_number=number,
                                 entry=plausible_word_sheet(rng, len(seated)), accept_warnings=True,
                                 idempotency_key=key, actor=link, via=link.label)
        else:
            sheet = submit_sheet(stage=stage, game=game, table_number=number,
                                 entry=plausible_entry(rng, ruleset_of(stage.event), seated),
                                 accept_warnings=True, idempotency_key=key, actor=link, via=link.label)
        assert sheet.status == ScoreSheet.Status.SUBMITTED
        confirm_sheet(sheet=sheet, actor=chief)


def run_event(event: Event, organiser: Actor, chief: Actor, seed: int) -> list:
    """start_event, then per stage: draft, release, every game played and confirmed, the cut, close."""
    rng = random.Random(seed)
    stage = draws.start_event(event=event, actor=organiser)
    stages = []
    while True:
        draft = draws.draft_draw(stage=stage, actor=organiser, seed=rng.randrange(10**6))
        draws.release_draw(draw=draft, actor=organiser)
        for game in range(1, stage.games + 1):
            play_game(stage, game, rng, chief)
        stages.append(stage)
        if stage.is_final:
            return stages
        if not progress.advancement(stage).resolved:
            progress.draw_lots_at_cut(stage=stage, actor=organiser, seed=rng.randrange(10**6))
        stage = progress.close_stage(stage=stage, actor=organiser)


def tables_of(export: dict) -> list[dict]:
    return [table for stage in export["stages"] for game in stage["games"] for table in game["tables"]]


def test_a_festival_runs_a_classic_and_a_word_event_through_every_step_with_one_player_in_both():
    festival = make_festival()
    classic = make_event(festival, start=EVENT_DAY.replace(hour=10), hours=4)  # 10:00–14:00
    word = make_event(festival, start=EVENT_DAY.replace(hour=15), hours=3, game=Event.Game.WORD)  # 15:00–18:00
    assert not classic.overlaps(word)
    organiser = Actor(user=make_staff(festival, "organiser"))
    chief = Actor(user=make_staff(festival, "chief referee"))
    desk = Actor(user=make_staff(festival, "desk"))

    # Registration: player 0 enters both events (allowed: they do not clash), the others one each.
    classic_regs = enter_and_check_in(classic, [person(n) for n in range(PLAYERS)], desk)
    both = classic_regs[0].player
    assert find_clash(player=both, event=word) is None
    word_regs = enter_and_check_in(word, [person(n) for n in range(100, 100 + PLAYERS - 1)], desk, returning=(both,))
    assert word_regs[0].player == both
    assert Player.objects.filter(festival=festival).count() == 2 * PLAYERS - 1
    for event in (classic, word):
        numbers = sorted(Registration.objects.filter(event=event).values_list("number", flat=True))
        assert numbers == list(range(1, PLAYERS + 1))

    # Both events played to their final through the same draws, sheets and confirmation.
    classic_stages = run_event(classic, organiser, chief, seed=11)
    word_stages = run_event(word, organiser, chief, seed=22)
    for stages in (classic_stages, word_stages):
        assert [s.number for s in stages] == [1, 2] and stages[-1].is_final
    sheets = {event: ScoreSheet.objects.filter(stage__event=event) for event in (classic, word)}
    for event, stage_list in ((classic, classic_stages), (word, word_stages)):
        expected = sum(s.games * len(seating.player_ids(seating.game_draw(s, 1))) for s in stage_list)
        assert sheets[event].count() == sheets[event].filter(status=ScoreSheet.Status.CONFIRMED).count() == expected
    assert not WordTurn.objects.filter(sheet__stage__event=classic).exists()
    assert all(sheet.word_turns.exists() for sheet in sheets[word])

    # Standings (R7; Word: wins, then points, R10) rank everyone who played, each event on its own.
    for event, regs in ((classic, classic_regs), (word, word_regs)):
        lines = event_standings(event).lines
        assert {line.player for line in lines} == {r.pk for r in regs}
        assert [line.rank for line in lines] == sorted(line.rank for line in lines) and lines[0].rank == 1
        assert sum(line.wins for line in lines) >= sheets[event].count()  # every table has a winner (ties share)
    word_lines = event_standings(word).lines
    for better, worse in zip(word_lines, word_lines[1:], strict=False):
        assert (better.wins, better.points) >= (worse.wins, worse.points)
    assert classic_regs[0].pk != word_regs[0].pk  # the shared player holds two registrations, two standings

    # The JSON export: same schema; only the Word event carries the per-turn record.
    classic_export, word_export = event_export(classic), event_export(word)
    assert (classic_export["event"]["game"], word_export["event"]["game"]) == ("classic", "word")
    assert all("turns" not in table for table in tables_of(classic_export))
    word_tables = tables_of(word_export)
    assert word_tables and all(table["turns"] for table in word_tables)
    first = word_tables[0]["turns"][0]
    assert set(first) == {"seat", "words", "drew", "used_all_tiles", "points"} and first["words"]
    turn_count = sum(len(table["turns"]) for table in word_tables)
    assert turn_count == WordTurn.objects.filter(sheet__stage__event=word).count()
    parsed = json.loads(event_json(word))
    assert parsed["event"]["slug"] == word.slug and tables_of(parsed)[0]["turns"] == word_tables[0]["turns"]
