"""Score sheets through the services: R4–R6 scoring, validation, states, versions, audit."""

from decimal import Decimal

import pytest

from scoring.games.classic import SeatEntry
from scoring.models import ScoreSheet
from scoring.services.sheets import (
    SheetExists,
    SheetRefused,
    confirm_sheet,
    correct_sheet,
    return_sheet,
    submit_sheet,
)
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, entry_for, key
from tournament.models import AuditEntry, Event
from tournament.services import ServiceError
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
REFEREE = Actor(label="table 1 link")


def submit(stage, entry, *, game=1, table=1, accept=False, idem=None, actor=REFEREE):
    return submit_sheet(stage=stage, game=game, table_number=table, entry=entry, accept_warnings=accept,
                        idempotency_key=idem or key(), actor=actor, via=str(actor))


def scores(sheet):
    return [seat.score for seat in sheet.seats.order_by("position")]


def test_golden_hong_kong_sheet_r6():
    """Seed 003, table 3 game 1: 甲 −7, 乙 +118 (win), 丙 −61, 丁 −50 (a joker, 30 in HK rules)."""
    stage = released_stage(4, ruleset=Event.Ruleset.HK_2016)
    entry = entry_for(stage, 1, 1, [7, 0, 61, 20], winner=1, overrides={3: {"jokers": 1}})
    sheet = submit(stage, entry)
    assert scores(sheet) == [Decimal("-7"), Decimal("118"), Decimal("-61"), Decimal("-50")]
    assert [s.win for s in sheet.seats.order_by("position")] == [False, True, False, False]


def test_blocked_game_shares_the_win_r6_example_2():
    stage = released_stage(4)
    sheet = submit(stage, entry_for(stage, 1, 1, [1, 1, 10, 6], end="blocked"))
    assert scores(sheet) == [Decimal("7"), Decimal("7"), Decimal("-9"), Decimal("-5")]
    assert sum(scores(sheet)) == 0


def test_never_opened_player_whose_tiles_could_open_gets_200_r5():
    stage = released_stage(4)
    entry = entry_for(stage, 1, 1, [5, 0, 5, 5], winner=1)
    seats = list(entry.seats)
    seats[0] = SeatEntry(position=seats[0].position, registration_id=seats[0].registration_id,
                         tiles="R10 B10 K10 R1 R3 B5 B7 Y2 Y4 Y6 Y8 K2 K4 K12", opened=False)
    sheet = submit(stage, type(entry)(end=entry.end, seats=tuple(seats)), accept=True)
    first = sheet.seats.get(position=seats[0].position)
    assert (first.penalty, first.could_open) == (200, True)


def test_errors_block_and_nothing_is_saved():
    stage = released_stage(4)
    entry = entry_for(stage, 1, 1, [5, 5, 5, 5], end="went_out", winner=0)
    bad = type(entry)(end="went_out", seats=tuple(
        SeatEntry(position=s.position, registration_id=s.registration_id, went_out=False, rack_value=5, jokers=0)
        for s in entry.seats))
    with pytest.raises(SheetRefused) as refused:
        submit(stage, bad)
    assert [p["code"] for p in refused.value.judgement.errors] == ["no_one_went_out"]
    assert not ScoreSheet.objects.exists()


@pytest.mark.parametrize("held", [{"tiles": "R7 R8"}, {"rack_value": 15}, {"jokers": 1}])
def test_the_player_who_went_out_holding_tiles_is_refused_and_nothing_is_saved(held):
    stage = released_stage(4)
    entry = entry_for(stage, 1, 1, [0, 5, 5, 5], winner=0, overrides={0: held})
    with pytest.raises(SheetRefused) as refused:
        submit(stage, entry, accept=True)
    assert [(p["code"], p["seat"]) for p in refused.value.judgement.errors] == [("winner_holds_tiles", 1)]
    assert not ScoreSheet.objects.exists()


def test_a_knocked_over_rack_is_refused_under_rules_without_that_penalty_r5():
    stage = released_stage(4)  # wrc-2014: the Busan rules have no knocked-over-rack penalty
    entry = entry_for(stage, 1, 1, [0, 5, 5, 5], overrides={2: {"conduct_penalty": True}})
    with pytest.raises(SheetRefused) as refused:
        submit(stage, entry, accept=True)
    assert [(p["code"], p["seat"]) for p in refused.value.judgement.errors] == [("no_knocked_rack_rule", 3)]
    assert "no knocked-over-rack penalty" in refused.value.judgement.errors[0]["message"]
    assert not ScoreSheet.objects.exists()


def test_warnings_need_the_referees_yes():
    stage = released_stage(4)
    entry = entry_for(stage, 1, 1, [0, 150, 5, 5], winner=0)
    with pytest.raises(SheetRefused) as refused:
        submit(stage, entry)
    assert refused.value.code == "warnings"
    sheet = submit(stage, entry, accept=True)
    assert [w["code"] for w in sheet.warnings] == ["high_rack_value"]


def test_the_same_draft_submitted_twice_records_one_sheet():
    stage = released_stage(4)
    entry = entry_for(stage, 1, 1, [0, 5, 5, 5])
    idem = key()
    first = submit(stage, entry, idem=idem)
    again = submit(stage, entry, idem=idem)
    assert first.pk == again.pk and ScoreSheet.objects.count() == 1


def test_a_second_sheet_for_the_same_table_is_refused_and_points_to_the_first():
    stage = released_stage(4)
    first = submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]))
    with pytest.raises(SheetExists) as exists:
        submit(stage, entry_for(stage, 1, 1, [0, 6, 6, 6]))
    assert exists.value.sheet.pk == first.pk


def test_sheet_must_name_exactly_the_seated_players():
    stage = released_stage(8)
    other_table = entry_for(stage, 1, 2, [0, 5, 5, 5])
    with pytest.raises(ServiceError) as refused:
        submit(stage, other_table, table=1)
    assert refused.value.code == "wrong_players"


@pytest.mark.parametrize("game", [0, 4, 99])
def test_games_outside_the_stage_are_refused(game):
    stage = released_stage(4)
    with pytest.raises(ServiceError) as refused:
        submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]), game=game)
    assert refused.value.code == "not_released"


def test_unreleased_draw_refuses_sheets():
    from tournament.services import draws

    stage = released_stage(4)
    draw = stage.draws.get()
    entry = entry_for(stage, 1, 1, [0, 5, 5, 5])
    draws.unrelease_draw(draw=draw, actor=REFEREE)
    with pytest.raises(ServiceError) as refused:
        submit(stage, entry)
    assert refused.value.code == "not_released"


def test_unrelease_is_refused_once_results_exist():
    from tournament.services import draws

    stage = released_stage(4)
    submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]))
    with pytest.raises(ServiceError):
        draws.unrelease_draw(draw=stage.draws.get(), actor=REFEREE)


def test_confirm_return_resubmit_and_audit():
    stage = released_stage(4)
    chief = chief_of(stage.event)
    sheet = submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]))
    return_sheet(sheet=sheet, actor=chief, reason="seat 3 counted twice")
    second = submit(stage, entry_for(stage, 1, 1, [0, 5, 4, 5]))
    assert second.version == 2
    confirm_sheet(sheet=second, actor=chief)
    sheet.refresh_from_db()
    second.refresh_from_db()
    assert (sheet.status, second.status) == ("returned", "confirmed")
    actions = list(AuditEntry.objects.order_by("id").values_list("action", flat=True))
    assert actions[-4:] == ["sheet.submitted", "sheet.returned", "sheet.submitted", "sheet.confirmed"]


def test_nobody_confirms_their_own_sheet():
    stage = released_stage(4)
    chief = chief_of(stage.event)
    sheet = submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]), actor=chief)
    with pytest.raises(ServiceError) as refused:
        confirm_sheet(sheet=sheet, actor=chief)
    assert refused.value.code == "own_sheet"


def test_return_needs_a_reason_and_a_submitted_sheet():
    stage = released_stage(4)
    chief = chief_of(stage.event)
    sheet = submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]))
    with pytest.raises(ServiceError):
        return_sheet(sheet=sheet, actor=chief, reason="  ")
    confirm_sheet(sheet=sheet, actor=chief)
    with pytest.raises(ServiceError):
        return_sheet(sheet=sheet, actor=chief, reason="late")


def test_correction_is_a_new_version_and_keeps_the_old():
    stage = released_stage(4)
    chief = chief_of(stage.event)
    sheet = submit(stage, entry_for(stage, 1, 1, [0, 5, 5, 5]))
    confirm_sheet(sheet=sheet, actor=chief)
    fixed = correct_sheet(sheet=sheet, entry=entry_for(stage, 1, 1, [0, 9, 5, 5]), reason="recount",
                          accept_warnings=False, idempotency_key=key(), actor=chief)
    sheet.refresh_from_db()
    assert sheet.status == "superseded" and fixed.status == "confirmed" and fixed.corrects_id == sheet.pk
    assert scores(fixed)[0] == Decimal("19") and scores(sheet)[0] == Decimal("15")
    entry = AuditEntry.objects.get(action="sheet.corrected")
    assert entry.reason == "recount" and entry.before["sheet"] == sheet.pk
    with pytest.raises(ServiceError):
        correct_sheet(sheet=fixed, entry=entry_for(stage, 1, 1, [0, 1, 1, 1]), reason=" ",
                      accept_warnings=False, idempotency_key=key(), actor=chief)
