"""The live board's counts (scoring/services/board_counts.py, one statement written in SQL) against the sheets
counted one by one in Python: every state a table's sheets can be in, two games, three people looking. CI runs
it on SQLite and on PostgreSQL."""

import pytest

from scoring.models import ScoreSheet
from scoring.services.board_counts import GameCounts, game_counts
from scoring.services.sheets import confirm_sheet, correct_sheet, return_sheet, submit_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.services import seating
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db
S = ScoreSheet.Status
LINK = Actor(label="table link")


def submit(stage, table, values=(0, 10, 20, 30), *, game=1, actor=LINK):
    return submit_sheet(stage=stage, game=game, table_number=table, entry=entry_for(stage, game, table, list(values)),
                        accept_warnings=True, idempotency_key=key(), actor=actor, via=actor.label or "account")


def counted_in_python(stage, game, draw, user_id) -> GameCounts:
    sheets = list(ScoreSheet.objects.filter(stage=stage, game=game, draw=draw))
    live = [s for s in sheets if s.status in ScoreSheet.LIVE]
    return GameCounts(
        tables=len(seating.table_numbers(draw)),
        confirmed=len({s.table_number for s in sheets if s.status == S.CONFIRMED}),
        submitted=len({s.table_number for s in sheets if s.status == S.SUBMITTED}),
        touched=len({s.table_number for s in sheets if s.status in (*ScoreSheet.LIVE, S.RETURNED)}),
        with_warnings=sum(1 for s in live if s.warnings),
        one_tap=sum(1 for s in sheets if s.status == S.SUBMITTED and not s.warnings
                    and s.submitted_by_id != user_id and (user_id is not None or s.submitted_by_id is not None)),
    )


def test_the_boards_counts_are_the_sheets_counted_one_by_one():
    stage = released_stage(40)  # Busan: 10 tables of 4, one seating for the stage's games
    chief, organiser = make_staff(stage.event.festival, "chief referee"), make_staff(stage.event.festival, "organiser")
    draw = seating.game_draw(stage, 1)
    by_chief, by_organiser = Actor(user=chief), Actor(user=organiser)
    submit(stage, 1)  # submitted, clean
    submit(stage, 2, (0, 120, 20, 30))  # submitted with a warning
    confirm_sheet(sheet=submit(stage, 3), actor=by_chief)  # confirmed
    confirm_sheet(sheet=submit(stage, 4, (0, 120, 20, 30)), actor=by_chief)  # confirmed with a warning
    return_sheet(sheet=submit(stage, 5), actor=by_chief, reason="recount")  # returned, then submitted again
    submit(stage, 5)
    return_sheet(sheet=submit(stage, 6), actor=by_chief, reason="recount")  # returned, nothing since
    return_sheet(sheet=submit(stage, 6), actor=by_chief, reason="recount again")
    corrected = confirm_sheet(sheet=submit(stage, 7), actor=by_chief)  # corrected: superseded + confirmed
    correct_sheet(sheet=corrected, entry=entry_for(stage, 1, 7, [0, 11, 20, 30]), reason="recount",
                  accept_warnings=True, idempotency_key=key(), actor=by_organiser)
    submit(stage, 8, actor=by_chief)  # the chief's own: not one tap's for them
    submit(stage, 9, actor=by_organiser)
    submit(stage, 1, game=2)  # another game of the same seating
    confirm_sheet(sheet=submit(stage, 2, game=2), actor=by_chief)
    for game in (1, 2, 3):
        for user_id in (chief.pk, organiser.pk, None):
            expected = counted_in_python(stage, game, draw, user_id)
            assert game_counts(stage_id=stage.pk, game=game, draw_id=draw.pk, user_id=user_id) == expected
    assert game_counts(stage_id=stage.pk, game=1, draw_id=draw.pk, user_id=chief.pk) == GameCounts(
        tables=10, confirmed=3, submitted=5, touched=9, with_warnings=2, one_tap=3)


def test_a_game_with_no_sheets_counts_its_tables_only():
    stage = released_stage(16)
    draw = seating.game_draw(stage, 1)
    assert game_counts(stage_id=stage.pk, game=1, draw_id=draw.pk, user_id=None) == GameCounts(4, 0, 0, 0, 0, 0)
