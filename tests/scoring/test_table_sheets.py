"""Tables that keep their own sheet (Event.sheets_by = players): a seated player enters it, the others agree or
dispute, anyone corrects it into a new version, and the chief referee's bulk confirmation takes only agreed
sheets (scoring/services/table_sheets.py, agreement.py; R9: the chief referee confirms)."""

import datetime as dt

import pytest
from django.utils import timezone

from scoring.models import ScoreSheet, SheetAnswer, TableLink
from scoring.services import table_sheets
from scoring.services.agreement import AGREED, DISPUTED, MAJORITY, WAITING, Answer, agreement_of, agreements
from scoring.services.sheets import SheetExists, confirm_clean_sheets, confirm_sheet, correct_sheet
from scoring.services.table_sheets import (
    PERSONAL_PAGE,
    TABLE_CARD,
    answer_sheet,
    correct_entered_sheet,
    enter_sheet,
    game_being_played,
    seated_player,
)
from tests.scoring.helpers import entry_for, key
from tournament.models import AuditEntry, ConductRecord, Event, Registration
from tournament.services import ServiceError, seating
from tournament.services.festivals import locked_fields

pytestmark = pytest.mark.stage_of(players=8, sheets_by=Event.SheetsBy.PLAYERS)

VALUES = (0, 5, 9, 14)


def seats(stage, game=1, table=1):
    return seating.seats(seating.game_draw(stage, game), table=table)


def player_at(stage, position, *, game=1, table=1):
    seat = seats(stage, game, table)[position - 1]
    return seated_player(stage=stage, game=game, table_number=table, via=PERSONAL_PAGE,
                         registration=seat.registration)


def enter(stage, position=1, *, game=1, table=1, values=VALUES, tap=None):
    return enter_sheet(stage=stage, game=game, table_number=table, entry=entry_for(stage, game, table, values),
                       accept_warnings=True, idempotency_key=tap or key(), player=player_at(stage, position, game=game,
                                                                                             table=table))


def answer(sheet, position, *, agree=True, reason="", version=None):
    stage = sheet.stage
    return answer_sheet(sheet=sheet, version=version or sheet.version, player=player_at(stage, position),
                        agree=agree, reason=reason, idempotency_key=key())


def state(sheet, now=None):
    sheet = ScoreSheet.objects.select_related("stage__event").get(pk=sheet.pk)
    return agreements([sheet], sheet.stage.event, now=now)[sheet.pk]


# --- who may act --------------------------------------------------------------------------------------------

def test_a_seated_player_enters_the_sheet_agreeing_to_it_and_the_audit_names_their_number_and_seat(stage):
    sheet = enter(stage, position=2)
    registration = seats(stage)[1].registration
    assert sheet.status == ScoreSheet.Status.SUBMITTED and sheet.entered_by_seat == 2
    assert sheet.submitted_by is None and sheet.submitted_via == f"player {registration.number}, seat 2"
    assert list(sheet.answers.values_list("position", "answer", "via")) == [(2, "agreed", PERSONAL_PAGE)]
    entry = AuditEntry.objects.get(action="sheet.submitted", target_id=sheet.pk)
    assert entry.actor_label == f"player {registration.number}, seat 2"
    assert state(sheet).state == WAITING and state(sheet).agreed == 1


def test_the_same_entry_sent_twice_is_one_sheet_with_one_answer(stage):
    tap = key()
    first = enter(stage, tap=tap)
    assert enter(stage, tap=tap) == first
    assert ScoreSheet.objects.count() == 1 and SheetAnswer.objects.count() == 1


def test_the_rules_engine_refuses_for_players_what_it_refuses_for_referees(stage):
    with pytest.raises(table_sheets.life_cycle.SheetRefused):
        enter(stage, values=(0, -5, 9, 14))
    assert not ScoreSheet.objects.exists()


def test_in_a_referees_event_no_player_enters_or_answers(stage):
    Event.objects.filter(pk=stage.event_id).update(sheets_by=Event.SheetsBy.REFEREES)
    stage.event.refresh_from_db()
    with pytest.raises(ServiceError) as refused:
        player_at(stage, 1)
    assert refused.value.code == "referees"


def test_a_player_of_another_table_is_not_seated_here(stage):
    other = seats(stage, table=2)[0].registration
    with pytest.raises(ServiceError) as refused:
        seated_player(stage=stage, game=1, table_number=1, via=PERSONAL_PAGE, registration=other)
    assert refused.value.code == "not_seated"


def test_a_withdrawn_or_disqualified_player_no_longer_acts(stage):
    first, second = seats(stage)[0].registration, seats(stage)[1].registration
    Registration.objects.filter(pk=first.pk).update(status=Registration.Status.WITHDRAWN)
    ConductRecord.objects.create(event=stage.event, registration=second, kind=ConductRecord.Kind.DISQUALIFIED,
                                 stage=stage, note="test")
    for position, code in ((1, "withdrawn"), (2, "departed")):
        with pytest.raises(ServiceError) as refused:
            player_at(stage, position)
        assert refused.value.code == code


def test_the_table_card_asks_the_seat_code_and_a_wrong_code_is_refused(stage):
    link = TableLink.objects.create(event=stage.event, table_number=1)
    assert len(set(link.seat_codes)) == 4 and all(len(code) == 4 and code.isdigit() for code in link.seat_codes)
    found = seated_player(stage=stage, game=1, table_number=1, via=TABLE_CARD, link=link, code=link.seat_codes[2])
    assert found.position == 3 and found.registration == seats(stage)[2].registration
    wrong = next(f"{n:04d}" for n in range(10_000) if f"{n:04d}" not in link.seat_codes)
    for code in (wrong, "", "12345", "abcd"):
        with pytest.raises(ServiceError) as refused:
            seated_player(stage=stage, game=1, table_number=1, via=TABLE_CARD, link=link, code=code)
        assert refused.value.code == "seat_code"


def test_only_the_game_being_played_is_entered(stage):
    assert game_being_played(stage, 1) == 1
    with pytest.raises(ServiceError) as refused:
        enter(stage, game=2)
    assert refused.value.code == "not_current"
    enter(stage, game=1)
    assert game_being_played(stage, 1) == 2


def test_a_second_player_entering_the_same_game_is_shown_the_sheet_already_there(stage):
    first = enter(stage, position=1)
    with pytest.raises(SheetExists) as exists:
        enter(stage, position=3, values=(0, 7, 7, 30))
    assert exists.value.sheet == first


# --- agreeing and disputing ---------------------------------------------------------------------------------

def test_every_seated_player_agreeing_makes_the_sheet_agreed_by_the_table(stage):
    sheet = enter(stage)
    for position in (2, 3, 4):
        answer(sheet, position)
    assert state(sheet).state == AGREED and state(sheet).label == "agreed by the table"
    assert AuditEntry.objects.filter(action="sheet.agreed", target_id=sheet.pk).count() == 3


def test_a_dispute_needs_a_reason_stands_and_may_follow_an_agreement(stage):
    sheet = enter(stage)
    with pytest.raises(ServiceError) as refused:
        answer(sheet, 2, agree=False, reason="   ")
    assert refused.value.code == "reason"
    answer(sheet, 2)
    answer(sheet, 2, agree=False, reason="Seat 3 had a joker left")
    found = state(sheet)
    assert found.state == DISPUTED and [(a.position, a.reason) for a in found.disputes] == [
        (2, "Seat 3 had a joker left")]
    with pytest.raises(ServiceError) as refused:
        answer(sheet, 2)
    assert refused.value.code == "disputed"
    entry = AuditEntry.objects.get(action="sheet.disputed")
    assert entry.reason == "Seat 3 had a joker left" and entry.after["seat"] == 2


def test_a_player_who_never_answers_does_not_hold_the_table_up_after_the_time(stage):
    sheet = enter(stage)
    answer(sheet, 2)
    answer(sheet, 3)
    later = sheet.submitted_at + dt.timedelta(minutes=stage.event.agreement_minutes)
    assert state(sheet, now=later - dt.timedelta(seconds=1)).state == WAITING
    assert state(sheet, now=later).state == MAJORITY
    assert state(sheet, now=later).label == "agreed by 3 of 4"


@pytest.mark.parametrize(("given", "minutes_later", "expected"), [
    ([], 0, WAITING), ([1, 2, 3, 4], 0, AGREED), ([1, 2], 60, WAITING), ([1, 2, 3], 4, WAITING),
    ([1, 2, 3], 5, MAJORITY), ([1, 2, 3, -4], 60, DISPUTED), ([1, -2, 2], 0, WAITING),
])
def test_where_a_sheet_stands_follows_each_players_latest_answer(given, minutes_later, expected):
    """A negative seat disputes; a seat given twice counts its later answer."""
    start = timezone.now()
    answers = [Answer(abs(p), "agreed" if p > 0 else "disputed", "" if p > 0 else "why") for p in given]
    found = agreement_of(seats=4, answers=answers, submitted_at=start, minutes=5,
                         now=start + dt.timedelta(minutes=minutes_later))
    assert found.state == expected


def test_a_table_of_three_agrees_by_two_after_the_time(stage):
    start = timezone.now()
    found = agreement_of(seats=3, answers=[Answer(1, "agreed"), Answer(2, "agreed")], submitted_at=start,
                         minutes=5, now=start + dt.timedelta(minutes=5))
    assert found.state == MAJORITY and found.label == "agreed by 2 of 3"


# --- corrections ----------------------------------------------------------------------------------------------

def test_a_players_correction_is_a_new_version_everyone_answers_again(stage):
    sheet = enter(stage)
    answer(sheet, 2)
    answer(sheet, 3, agree=False, reason="My rack was 7")
    new = correct_entered_sheet(sheet=sheet, version=sheet.version, entry=entry_for(stage, 1, 1, (0, 5, 7, 14)),
                                accept_warnings=True, idempotency_key=key(), player=player_at(stage, 3))
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.SUPERSEDED and new.corrects == sheet and new.version == 2
    assert new.status == ScoreSheet.Status.SUBMITTED and new.entered_by_seat == 3
    assert state(new).agreed == 1 and state(new).state == WAITING
    assert AuditEntry.objects.filter(action="sheet.corrected_by_table", target_id=new.pk).exists()


def test_an_agreement_to_the_version_before_a_correction_is_refused_and_asked_again(stage):
    sheet = enter(stage)
    correct_entered_sheet(sheet=sheet, version=1, entry=entry_for(stage, 1, 1, (0, 5, 7, 14)), accept_warnings=True,
                          idempotency_key=key(), player=player_at(stage, 2))
    with pytest.raises(ServiceError) as refused:
        answer(sheet, 4, version=1)
    assert refused.value.code == "changed"
    new = ScoreSheet.objects.get(status=ScoreSheet.Status.SUBMITTED)
    with pytest.raises(ServiceError) as refused:
        answer(new, 4, version=1)  # the page of version 1 sends its answer to the new sheet's id: still refused
    assert refused.value.code == "changed"
    answer(new, 4, version=2)


# --- the chief referee ----------------------------------------------------------------------------------------

def test_confirm_every_clean_sheet_takes_agreed_sheets_and_never_a_disputed_or_waiting_one(stage, chief):
    from tournament.services.audit import Actor

    agreed, disputed = enter(stage, table=1), enter(stage, table=2)
    for position in (2, 3, 4):
        answer(agreed, position)
    answer_sheet(sheet=disputed, version=1, agree=False, reason="wrong winner", idempotency_key=key(),
                 player=player_at(stage, 2, table=2))
    tables = confirm_clean_sheets(stage=stage, game=1, actor=Actor(user=chief))
    assert tables["clean"] == [1] and tables["disputed"] == [2]
    disputed.refresh_from_db()
    assert disputed.status == ScoreSheet.Status.SUBMITTED


def test_the_chief_settles_a_dispute_by_correcting_the_submitted_sheet_which_confirms_it(stage, chief):
    from tournament.services.audit import Actor

    sheet = enter(stage)
    answer(sheet, 3, agree=False, reason="My rack was 7")
    new = correct_sheet(sheet=sheet, entry=entry_for(stage, 1, 1, (0, 5, 7, 14)), reason="Seat 3 was right",
                        accept_warnings=True, idempotency_key=key(), actor=Actor(user=chief))
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.SUPERSEDED and new.status == ScoreSheet.Status.CONFIRMED
    assert [s.score for s in new.seats.order_by("position")][2] == -7
    assert not AuditEntry.objects.filter(action="sheet.correction_warning").exists()


def test_the_chief_may_still_confirm_a_disputed_sheet_after_looking(stage, chief):
    from tournament.services.audit import Actor

    sheet = enter(stage)
    answer(sheet, 3, agree=False, reason="not sure")
    assert confirm_sheet(sheet=sheet, actor=Actor(user=chief)).status == ScoreSheet.Status.CONFIRMED
    with pytest.raises(ServiceError) as refused:
        answer(sheet, 4)
    assert refused.value.code == "changed"


def test_who_enters_the_sheets_is_fixed_once_a_stage_is_drawn(stage):
    assert "sheets_by" in locked_fields(stage.event)
    assert "agreement_minutes" not in locked_fields(stage.event)


def test_a_rummikub_word_table_keeps_its_sheet_the_same_way_r10(db):
    import random

    from scoring.simulation.word import plausible_word_sheet
    from tests.factories import released_stage

    stage = released_stage(8, game=Event.Game.WORD, sheets_by=Event.SheetsBy.PLAYERS)
    sheet = enter_sheet(stage=stage, game=1, table_number=1, entry=plausible_word_sheet(random.Random(3), 4),
                        accept_warnings=True, idempotency_key=key(), player=player_at(stage, 1))
    assert sheet.word_turns.exists() and sheet.entered_by_seat == 1
    new = correct_entered_sheet(sheet=sheet, version=1, entry=plausible_word_sheet(random.Random(4), 4),
                                accept_warnings=True, idempotency_key=key(), player=player_at(stage, 2))
    assert new.version == 2 and new.word_turns.exists()
    for position in (1, 3, 4):
        answer(new, position)
    assert state(new).state == AGREED


def test_changing_who_enters_the_sheets_after_the_first_draw_is_refused_with_the_reason(stage):
    from tournament.services.audit import Actor
    from tournament.services.festivals import EVENT_FIELDS, FieldsRefused, update_event

    values = {name: getattr(stage.event, name) for name in EVENT_FIELDS} | {"sheets_by": Event.SheetsBy.REFEREES}
    with pytest.raises(FieldsRefused) as refused:
        update_event(event=stage.event, values=values, actor=Actor(label="test"), past_confirmed=True)
    assert set(refused.value.errors) == {"sheets_by"} and "is drawn" in refused.value.errors["sheets_by"]
    values["sheets_by"], values["agreement_minutes"] = Event.SheetsBy.PLAYERS, 8
    update_event(event=stage.event, values=values, actor=Actor(label="test"), past_confirmed=True)
    stage.event.refresh_from_db()
    assert stage.event.agreement_minutes == 8
