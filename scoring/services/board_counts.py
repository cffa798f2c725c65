"""What the chief referee's live board counts of one game: its tables; the tables with a confirmed, with a
submitted, with any live or returned sheet; the live sheets with warnings; the submitted sheets one tap may
confirm. One statement, the same for 16 tables or 512, for the whole board and for one tap's answer.

Written in SQL, not built with the ORM: each tap on the board answers with these counts (issue 31), and the ORM
took about 1.5 ms of CPU to build this aggregate of five filtered counts each time (a sixth of the 10 ms a tap is
allowed), for a statement the database then runs in a few hundredths of that; the draw's table count is a
subquery of it, which the seating module writes (its tables are read there only). Plain SQL that SQLite and
PostgreSQL both run (CASE inside COUNT rather than FILTER); the tests check it against the sheets counted one
by one in Python (tests/scoring/test_board_counts.py), on both databases in CI.
"""

from dataclasses import dataclass

from django.db import connection

from tournament.services import seating

from ..models import ScoreSheet

# Plain strings, not the enum members (a database driver may pass an enum by its name).
CONFIRMED, SUBMITTED, RETURNED = (status.value for status in (ScoreSheet.Status.CONFIRMED, ScoreSheet.Status.SUBMITTED,
                                                              ScoreSheet.Status.RETURNED))


@dataclass(frozen=True)
class GameCounts:
    tables: int  # the draw's tables
    confirmed: int  # tables with a confirmed sheet
    submitted: int  # tables with a submitted sheet
    touched: int  # tables with a live (submitted or confirmed) or a returned sheet
    with_warnings: int  # live sheets with warnings
    one_tap: int  # submitted sheets without warnings that `user_id` did not submit


def _sql(by_nobody: bool) -> str:
    q = connection.ops.quote_name
    status, table, warnings, by = q("status"), q("table_number"), q("warnings"), q("submitted_by_id")
    not_theirs = f"{by} IS NOT NULL" if by_nobody else f"({by} IS NULL OR {by} <> %s)"
    return (
        f"SELECT {seating.table_count_sql()}, "
        f"COUNT(DISTINCT CASE WHEN {status} = %s THEN {table} END), "
        f"COUNT(DISTINCT CASE WHEN {status} = %s THEN {table} END), "
        f"COUNT(DISTINCT CASE WHEN {status} IN (%s, %s, %s) THEN {table} END), "
        f"COUNT(CASE WHEN {status} IN (%s, %s) AND {warnings} <> %s THEN 1 END), "
        f"COUNT(CASE WHEN {status} = %s AND {warnings} = %s AND {not_theirs} THEN 1 END) "
        f"FROM {q(ScoreSheet._meta.db_table)} WHERE {q('stage_id')} = %s AND {q('game')} = %s AND {q('draw_id')} = %s"
    )


def game_counts(*, stage_id: int, game: int, draw_id: int, user_id: int | None) -> GameCounts:
    """The board's counts of game `game` of the stage, among the sheets entered for the seating `draw_id`; one
    statement. `user_id`: the chief referee looking (their own sheets are not one tap's: someone else confirms)."""
    # The empty list as the database stores the JSON field (text on SQLite, jsonb on PostgreSQL), as the ORM's
    # `warnings=[]` passes it.
    none = ScoreSheet._meta.get_field("warnings").get_db_prep_value([], connection)
    params = [draw_id, CONFIRMED, SUBMITTED, SUBMITTED, CONFIRMED, RETURNED, SUBMITTED, CONFIRMED, none, SUBMITTED,
              none, *([] if user_id is None else [user_id]), stage_id, game, draw_id]
    with connection.cursor() as cursor:
        cursor.execute(_sql(user_id is None), params)
        return GameCounts(*cursor.fetchone())
