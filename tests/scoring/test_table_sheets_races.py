"""Races at a table whose players keep its sheet, in real threads on PostgreSQL (tests/scoring/test_concurrency.py
has the harness): two players entering at once, a dispute and an agreement at the same moment, an agreement
arriving while another player corrects the sheet. Run on several tables so that a missing lock shows up."""

import pytest

from scoring.models import ScoreSheet, SheetAnswer
from scoring.services.agreement import DISPUTED, WAITING, agreements
from scoring.services.sheets import SheetExists
from scoring.services.table_sheets import (
    PERSONAL_PAGE,
    answer_sheet,
    correct_entered_sheet,
    enter_sheet,
    seated_player,
)
from tests.factories import released_stage
from tests.scoring.helpers import entry_for, key
from tests.scoring.test_concurrency import race, race_test
from tournament.models import Event
from tournament.services import ServiceError, seating

TABLES = 4


@pytest.fixture
def player_tables(on_postgres):
    return released_stage(TABLES * 4, sheets_by=Event.SheetsBy.PLAYERS)


def at(stage, table, position):
    seat = seating.seats(seating.game_draw(stage, 1), table=table)[position - 1]
    return seated_player(stage=stage, game=1, table_number=table, via=PERSONAL_PAGE, registration=seat.registration)


def entering(stage, table, position, values):
    return lambda: enter_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, values),
                               accept_warnings=True, idempotency_key=key(), player=at(stage, table, position))


def answering(sheet, table, position, *, agree, version=1):
    return lambda: answer_sheet(sheet=sheet, version=version, player=at(sheet.stage, table, position), agree=agree,
                                reason="" if agree else "wrong winner", idempotency_key=key())


def state(sheet):
    sheet = ScoreSheet.objects.select_related("stage__event").get(pk=sheet.pk)
    return agreements([sheet], sheet.stage.event)[sheet.pk]


@race_test
def test_two_players_entering_at_once_record_one_sheet_and_the_other_sees_it(player_tables):
    stage = player_tables
    for table in range(1, TABLES + 1):
        outcomes = race(entering(stage, table, 1, (0, 5, 9, 14)), entering(stage, table, 2, (0, 7, 7, 30)))
        sheets = list(ScoreSheet.objects.filter(stage=stage, table_number=table))
        assert len(sheets) == 1
        lost = [result for status, result in outcomes if status == "error"]
        assert len(lost) == 1 and isinstance(lost[0], SheetExists) and lost[0].sheet == sheets[0]
        assert SheetAnswer.objects.filter(sheet=sheets[0]).count() == 1  # the winner's own agreement only


@race_test
def test_a_dispute_and_an_agreement_at_the_same_moment_are_both_kept_and_the_sheet_is_disputed(player_tables):
    stage = player_tables
    for table in range(1, TABLES + 1):
        sheet = entering(stage, table, 1, (0, 5, 9, 14))()
        outcomes = race(answering(sheet, table, 2, agree=True), answering(sheet, table, 3, agree=False))
        assert [status for status, _ in outcomes] == ["ok", "ok"]
        found = state(sheet)
        assert found.state == DISPUTED and found.agreed == 2


@race_test
def test_an_agreement_arriving_with_a_correction_never_counts_for_the_new_version(player_tables):
    stage = player_tables
    for table in range(1, TABLES + 1):
        sheet = entering(stage, table, 1, (0, 5, 9, 14))()
        correcting = lambda s=sheet, t=table: correct_entered_sheet(  # noqa: E731
            sheet=s, version=1, entry=entry_for(stage, 1, t, (0, 5, 7, 14)), accept_warnings=True,
            idempotency_key=key(), player=at(stage, t, 3))
        outcomes = race(answering(sheet, table, 4, agree=True), correcting)
        assert outcomes[1][0] == "ok"
        new = outcomes[1][1]
        if outcomes[0][0] == "error":  # after the correction: refused, the player is asked again
            assert isinstance(outcomes[0][1], ServiceError) and outcomes[0][1].code == "changed"
        assert not new.answers.filter(position=4).exists()
        assert state(new).state == WAITING and state(new).agreed == 1
