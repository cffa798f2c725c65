"""PostgreSQL restarts (or drops the app's connections) while the app keeps its connections open between
requests (CONN_MAX_AGE): the next requests must succeed, and a submission cut off half-way records nothing,
so that sending it again records exactly one sheet.

A real gunicorn process with the production settings (tests/served.py, one worker, so one persistent
connection) on the test database; `pg_terminate_backend` is what a restart does to the app's connections.
"""

import random
import threading
import time
import urllib.parse

import psycopg
import pytest
from django.db import connection

from loadtest.page_forms import PageForms, browser_data
from loadtest.two_servers import Browser, went_out
from scoring.models import ScoreSheet
from scoring.services.links import ensure_links
from tests.factories import released_stage
from tests.served import production_server, served_database_url
from tournament.services.audit import Actor

pytestmark = [pytest.mark.postgres, pytest.mark.server]  # server: a gunicorn process
APP = "rummikub-served"  # the server's connections' application_name, so the test finds exactly them


def admin():
    """A connection of the test's own, outside Django's (which the test's ORM calls use)."""
    s = connection.settings_dict
    return psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"],
                           password=s["PASSWORD"] or None, dbname=s["NAME"], autocommit=True)


def app_backends(db) -> list[tuple[int, str | None]]:
    """(pid, what it waits for) of every connection the server holds."""
    return db.execute("SELECT pid, wait_event_type FROM pg_stat_activity WHERE application_name = %s", [APP]).fetchall()


def terminate_all(db) -> None:
    """A restart ends every connection, also one the server opens while the others are ending."""
    deadline = time.monotonic() + 10
    while app_backends(db):
        assert time.monotonic() < deadline, "the server's connections did not end"
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", [APP])
        time.sleep(0.05)


@pytest.fixture
def served(on_postgres, transactional_db, tmp_path):
    """(server, table link, stage, admin connection): a released round of one table, served with persistent
    connections (ten minutes)."""
    stage = released_stage(4)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    url = served_database_url(tmp_path) + "?" + urllib.parse.urlencode({"application_name": APP})
    with admin() as db, production_server(database_url=url, out=tmp_path, env={"DB_CONN_MAX_AGE": "600", "DJANGO_PLAIN_HTTP": "true"}) as server:
        yield server, link, stage, db


def test_requests_after_the_database_dropped_an_idle_connection_succeed(served):
    server, link, _stage, db = served
    phone = Browser("phone")
    table = f"/t/{link.token}/"
    assert phone.request(server, table).status == 200
    first = app_backends(db)
    assert phone.request(server, table).status == 200
    assert app_backends(db) == first and len(first) == 1, "the server should keep one connection between requests"

    terminate_all(db)  # as a PostgreSQL restart does, while the app is idle

    answers = [phone.request(server, table).status for _ in range(3)]
    assert answers == [200, 200, 200]
    assert len(app_backends(db)) == 1 and app_backends(db) != first


def test_a_submission_cut_off_by_a_restart_records_nothing_and_its_resend_records_one_sheet(served):
    server, link, stage, db = served
    referee = Browser("referee")
    game_url = f"/t/{link.token}/stage-{stage.number}/game/1/"
    page = referee.request(server, game_url)
    [form] = PageForms(page.text).matching(f"{game_url}$")
    data = went_out(browser_data(form), random.Random(1))

    # The submission gets as far as writing its sheet, then waits (a lock the test holds), and its connection
    # is cut there: what a restart in the middle of a submission does.
    with psycopg.connect(**db.info.get_parameters(), autocommit=False) as holder:
        holder.execute("LOCK TABLE scoring_scoresheet IN EXCLUSIVE MODE")
        answer = {}
        sending = threading.Thread(target=lambda: answer.update(status=referee.request(server, game_url, data).status))
        sending.start()
        deadline = time.monotonic() + 20
        while ("Lock",) not in [(wait,) for _pid, wait in app_backends(db)]:
            assert time.monotonic() < deadline and sending.is_alive(), "the submission never reached the sheet"
            time.sleep(0.05)
        terminate_all(db)
        sending.join(30)
        holder.rollback()
    assert answer["status"] == 500, "the cut-off submission cannot have succeeded"
    assert not ScoreSheet.objects.filter(stage=stage).exists(), "half a submission was kept"

    # The referee sends it again (the page keeps the same idempotency key), twice.
    assert [referee.request(server, game_url, data).status for _ in range(2)] == [302, 302]
    [sheet] = ScoreSheet.objects.filter(stage=stage)
    assert sheet.idempotency_key == data["idempotency_key"] and sheet.status == ScoreSheet.Status.SUBMITTED
    assert referee.request(server, f"/t/{link.token}/").status == 200
