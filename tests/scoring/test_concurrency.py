"""Concurrency and faults: two people acting on one table at the same moment, and a failure in the
middle of confirming. The races need PostgreSQL's row locks and run in real threads, each with its own
connection, started together by a barrier; every race is run on several tables so that a missing lock
shows up. What each test was seen to fail without (scoring/services/sheets.py):
- two referees: the stage lock in submit_sheet AND the one-live-sheet constraint (either alone suffices);
- double tap: the idempotency-key check after the stage lock;
- confirm vs return, two corrections: the sheet row lock (`_locked`);
- a take-back of the draw while every table submits: the event lock submit_sheet takes shared (the control
  test removes it and sees sheets recorded on the drafted draw);
- failure while confirming: the transaction around confirm_sheet."""

import threading
import time

import pytest
from django.db import connection

from scoring.models import ScoreSheet
from scoring.services import progress, sheets
from scoring.services.sheets import SheetExists, confirm_sheet, correct_sheet, return_sheet, submit_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import chief_of, entry_for, key
from tournament.models import AuditEntry, Draw, Event
from tournament.services import ServiceError, seating
from tournament.services.audit import Actor
from tournament.services.confirmation import Unconfirmed
from tournament.services.draws import unrelease_draw
from tournament.services.locking import lock_event

TABLES = 6


def race_test(test):
    """Committed transactions in real threads: PostgreSQL only (the `table_game` fixture skips elsewhere)."""
    return pytest.mark.postgres(pytest.mark.django_db(transaction=True)(test))


def race(*calls):
    """Run the calls at the same moment, one thread each; returns ("ok", result) or ("error", exception)."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(timeout=10)
            outcomes[index] = ("ok", call())
        except Exception as error:  # noqa: BLE001 - the test looks at what each side got
            outcomes[index] = ("error", error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert all(outcome is not None for outcome in outcomes), "a thread hung"
    return outcomes


def actions(sheet, action):
    return AuditEntry.objects.filter(target_type="scoresheet", target_id=sheet.pk, action=action).count()


@pytest.fixture
def table_game(on_postgres):
    """A released Busan stage of TABLES tables, its chief referee and organiser, a referee's table link."""
    stage = released_stage(TABLES * 4)
    festival = stage.event.festival
    return {"stage": stage, "chief": Actor(user=make_staff(festival, "chief referee")),
            "organiser": Actor(user=make_staff(festival, "organiser")), "link": Actor(label="table link")}


def submit(ctx, table, *, idempotency_key=None, values=(0, 5, 9, 14), actor=None):
    stage = ctx["stage"]
    return lambda: submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, values),
                                accept_warnings=True, idempotency_key=idempotency_key or key(),
                                actor=actor or ctx["link"], via="table link")


@race_test
def test_two_referees_submitting_one_table_at_once_record_one_sheet_and_the_other_is_shown_it(table_game):
    ctx = table_game
    for table in range(1, TABLES + 1):
        outcomes = race(submit(ctx, table, values=(0, 5, 9, 14)), submit(ctx, table, values=(0, 7, 7, 30)))
        sheets = list(ScoreSheet.objects.filter(stage=ctx["stage"], game=1, table_number=table))
        assert len(sheets) == 1
        won = [result for status, result in outcomes if status == "ok"]
        lost = [result for status, result in outcomes if status == "error"]
        assert won == sheets and len(lost) == 1
        assert isinstance(lost[0], SheetExists) and lost[0].sheet == sheets[0]
        assert actions(sheets[0], "sheet.submitted") == 1


@race_test
def test_a_double_tap_records_one_sheet_and_both_taps_get_it(table_game):
    ctx = table_game
    for table in range(1, TABLES + 1):
        tap = key()
        outcomes = race(submit(ctx, table, idempotency_key=tap), submit(ctx, table, idempotency_key=tap))
        sheets = list(ScoreSheet.objects.filter(stage=ctx["stage"], game=1, table_number=table))
        assert len(sheets) == 1 and sheets[0].idempotency_key == tap
        assert outcomes == [("ok", sheets[0]), ("ok", sheets[0])]
        assert actions(sheets[0], "sheet.submitted") == 1


@race_test
def test_confirming_while_the_organiser_returns_the_sheet_one_of_them_is_refused(table_game):
    ctx = table_game
    for table in range(1, TABLES + 1):
        sheet = submit(ctx, table)()
        outcomes = race(lambda s=sheet: confirm_sheet(sheet=s, actor=ctx["chief"]),
                        lambda s=sheet: return_sheet(sheet=s, actor=ctx["organiser"], reason="Seat 3 miscounted"))
        refused = [result for status, result in outcomes if status == "error"]
        assert len(refused) == 1 and isinstance(refused[0], ServiceError) and refused[0].code == "not_submitted"
        sheet.refresh_from_db()
        confirmed = outcomes[0][0] == "ok"
        assert sheet.status == (ScoreSheet.Status.CONFIRMED if confirmed else ScoreSheet.Status.RETURNED)
        assert sheet.decided_by == (ctx["chief"] if confirmed else ctx["organiser"]).user
        assert (actions(sheet, "sheet.confirmed"), actions(sheet, "sheet.returned")) == (
            (1, 0) if confirmed else (0, 1))


@race_test
def test_two_corrections_of_one_confirmed_sheet_at_once_one_is_refused_and_one_live_sheet_remains(table_game):
    ctx = table_game
    stage = ctx["stage"]
    for table in range(1, TABLES + 1):
        sheet = submit(ctx, table)()
        confirm_sheet(sheet=sheet, actor=ctx["chief"])

        def correct(actor, values, s=sheet, t=table):
            return lambda: correct_sheet(sheet=s, entry=entry_for(stage, 1, t, values), reason="recount",
                                         accept_warnings=True, idempotency_key=key(), actor=actor)

        outcomes = race(correct(ctx["chief"], (0, 6, 9, 14)), correct(ctx["organiser"], (0, 5, 10, 14)))
        refused = [result for status, result in outcomes if status == "error"]
        corrected = [result for status, result in outcomes if status == "ok"]
        assert len(refused) == 1 and isinstance(refused[0], ServiceError) and refused[0].code == "not_confirmed"
        versions = list(ScoreSheet.objects.filter(stage=stage, game=1, table_number=table).order_by("version"))
        assert [(v.version, v.status) for v in versions] == [(1, ScoreSheet.Status.SUPERSEDED),
                                                             (2, ScoreSheet.Status.CONFIRMED)]
        assert versions[1] == corrected[0] and versions[1].corrects_id == sheet.pk
        assert actions(versions[1], "sheet.corrected") == 1
        assert AuditEntry.objects.filter(action="sheet.corrected", target_id__in=[v.pk for v in versions]).count() == 1


@race_test
def test_a_double_tapped_correction_records_one_correction_and_both_taps_get_it(table_game):
    ctx = table_game
    stage = ctx["stage"]
    for table in range(1, TABLES + 1):
        sheet = submit(ctx, table)()
        confirm_sheet(sheet=sheet, actor=ctx["chief"])
        tap, entry = key(), entry_for(stage, 1, table, (0, 6, 9, 14))

        def correct(s=sheet, e=entry, k=tap):
            return correct_sheet(sheet=s, entry=e, reason="recount", accept_warnings=True, idempotency_key=k,
                                 actor=ctx["chief"])

        outcomes = race(correct, correct)
        versions = list(ScoreSheet.objects.filter(stage=stage, game=1, table_number=table).order_by("version"))
        assert [(v.version, v.status) for v in versions] == [(1, ScoreSheet.Status.SUPERSEDED),
                                                             (2, ScoreSheet.Status.CONFIRMED)]
        assert outcomes == [("ok", versions[1]), ("ok", versions[1])]
        assert actions(versions[1], "sheet.corrected") == 1


@pytest.mark.django_db(transaction=True)
def test_a_failure_in_the_middle_of_confirming_leaves_the_sheet_submitted_and_nothing_half_done(monkeypatch):
    """Fault injection: the step after the confirmation's own writes (Hong Kong movement) fails once after it
    has written the next game's seating. Runs on SQLite and PostgreSQL."""
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = chief_of(stage.event)
    link = Actor(label="table link")
    sheets = [submit_sheet(stage=stage, game=1, table_number=t, entry=entry_for(stage, 1, t, (0, 5, 9, 14)),
                           accept_warnings=True, idempotency_key=key(), actor=link, via="table link") for t in (1, 2)]
    confirm_sheet(sheet=sheets[0], actor=chief)
    real = progress.after_confirmation
    failures = []

    def fails_once(**kwargs):
        real(**kwargs)
        if not failures:
            failures.append(kwargs["sheet"].pk)
            raise RuntimeError("the database went away")

    monkeypatch.setattr(progress, "after_confirmation", fails_once)
    with pytest.raises(RuntimeError):
        confirm_sheet(sheet=sheets[1], actor=chief)
    assert failures == [sheets[1].pk]
    sheets[1].refresh_from_db()
    assert sheets[1].status == ScoreSheet.Status.SUBMITTED and sheets[1].decided_by is None
    assert actions(sheets[1], "sheet.confirmed") == 0
    assert seating.game_draw(stage, 2) is None and not stage.draws.filter(game=2).exists()
    assert not AuditEntry.objects.filter(action="draw.moved").exists()

    confirm_sheet(sheet=sheets[1], actor=chief)  # trying again works, and does everything once
    sheets[1].refresh_from_db()
    assert sheets[1].status == ScoreSheet.Status.CONFIRMED and actions(sheets[1], "sheet.confirmed") == 1
    assert seating.game_draw(stage, 2) is not None and AuditEntry.objects.filter(action="draw.moved").count() == 1


# --- a take-back of the draw while every table sends its sheet ---------------------------------------------

HALL = 16  # tables sending their sheets at the moment the organiser takes the draw back
TRIALS = 5
WINDOW = 0.05  # seconds added between a submission's "is the draw released?" and its insert


def take_back_trials(monkeypatch, *, window=0.0):
    """TRIALS times: a fresh released Busan stage of HALL tables; the take-back and every table's sheet
    started at once by one barrier. `window` sleeps between a submission's checks and its insert, so that
    a take-back that does not wait for the submissions would land in between. Returns, per trial, the
    draw (read again), its stage's sheets, and what the take-back and the submissions got."""
    if window:
        judge = sheets.judge_or_refuse

        def slow(*args, **kwargs):
            time.sleep(window)
            return judge(*args, **kwargs)

        monkeypatch.setattr(sheets, "judge_or_refuse", slow)
    return [take_back_trial() for _ in range(TRIALS)]


def take_back_trial():
    stage = released_stage(HALL * 4)
    draw = stage.draws.get()
    organiser = Actor(user=make_staff(stage.event.festival, "organiser"))

    def send(table):
        entry = entry_for(stage, 1, table, (0, 5, 9, 14))
        return lambda: submit_sheet(stage=stage, game=1, table_number=table, entry=entry, accept_warnings=True,
                                    idempotency_key=key(), actor=Actor(label=f"table {table} link"),
                                    via="table link")

    outcomes = race(lambda: unrelease_draw(draw=draw, actor=organiser, reason="a player was missed"),
                    *[send(table) for table in range(1, HALL + 1)])
    draw.refresh_from_db()
    return draw, list(ScoreSheet.objects.filter(stage=stage)), outcomes[0], outcomes[1:]


def without_the_shared_lock(monkeypatch):
    """A submission that takes no lock at all: what `submit_sheet` did before it took the event's lock."""
    def unlocked(event, *, shared=False):
        if shared:
            return Event.objects.select_related("festival").get(pk=event if isinstance(event, int) else event.pk)
        return lock_event(event)

    monkeypatch.setattr(sheets, "lock_event", unlocked)


@race_test
@pytest.mark.parametrize("window", [0.0, WINDOW], ids=["as is", "window widened"])
def test_a_draw_taken_back_while_every_table_sends_its_sheet_keeps_no_sheet(monkeypatch, on_postgres,
                                                                             window):
    """Either the take-back came first (a draft with no sheet, every submission refused) or a sheet did
    (the take-back refused, the draw released, every table's sheet standing) — even when the window between
    a submission's check and its insert is widened."""
    for draw, recorded, take_back, submissions in take_back_trials(monkeypatch, window=window):
        if draw.status == Draw.Status.DRAFT:
            assert take_back[0] == "ok" and recorded == []
            assert all(status == "error" and getattr(result, "code", None) == "not_released"
                       for status, result in submissions)
        else:
            assert draw.status == Draw.Status.RELEASED
            assert take_back[0] == "error" and take_back[1].code == "has_results"
            assert all(status == "ok" for status, _result in submissions)
            assert sorted(sheet.table_number for sheet in recorded) == list(range(1, HALL + 1))
            assert {sheet.draw_id for sheet in recorded} == {draw.pk}


@race_test
def test_control_without_the_shared_lock_sheets_land_on_a_draw_taken_back(monkeypatch, on_postgres):
    """The same race with the submission's lock removed: sheets are recorded on a draw that is a draft
    again. As is, that happened on 4 of 5 trials on a development machine; the window is widened so that it
    shows on every run, not only on most."""
    without_the_shared_lock(monkeypatch)
    stale = [len(recorded) for draw, recorded, _take_back, _submissions
             in take_back_trials(monkeypatch, window=WINDOW) if draw.status == Draw.Status.DRAFT and recorded]
    assert stale, "no trial recorded a sheet on the drafted draw"


@race_test
def test_confirm_every_clean_sheet_tapped_twice_and_a_return_at_once_each_sheet_is_decided_once(table_game):
    """The same confirmed page sent twice while the organiser returns table 1: the event lock lets one through at
    a time; the second bulk confirmation finds nothing clean left (or a changed count) and changes nothing."""
    ctx = table_game
    stage = ctx["stage"]
    submitted = [submit(ctx, table)() for table in range(1, TABLES + 1)]
    state = sheets.clean_sheets_preview(stage=stage, game=1, actor=ctx["chief"]).state
    outcomes = race(lambda: sheets.confirm_clean_sheets(stage=stage, game=1, actor=ctx["chief"], expect=state),
                    lambda: sheets.confirm_clean_sheets(stage=stage, game=1, actor=ctx["chief"], expect=state),
                    lambda: return_sheet(sheet=submitted[0], actor=ctx["organiser"], reason="Seat 2 miscounted"))
    bulk = [outcome for outcome in outcomes[:2] if outcome[0] == "ok"]
    refused = [result for status, result in outcomes[:2] if status == "error"]
    returned = outcomes[2][0] == "ok"
    for sheet in submitted:
        sheet.refresh_from_db()
    if returned:  # the return went first: the count the page showed is gone, nothing is confirmed
        assert not bulk and all(isinstance(error, Unconfirmed) for error in refused)
        assert [sheet.status for sheet in submitted] == [ScoreSheet.Status.RETURNED] + [
            ScoreSheet.Status.SUBMITTED] * (TABLES - 1)
    else:  # one bulk confirmation went first: every sheet confirmed once; the rest find nothing to do
        assert len(bulk) == 1 and refused[0].code == "none" and outcomes[2][1].code == "not_submitted"
        assert all(sheet.status == ScoreSheet.Status.CONFIRMED for sheet in submitted)
        assert all(actions(sheet, "sheet.confirmed") == 1 for sheet in submitted)
    assert AuditEntry.objects.filter(action="sheet.confirmed_clean").count() == len(bulk)
