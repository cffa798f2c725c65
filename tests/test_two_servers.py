"""Two app servers on one PostgreSQL database and one Redis cache serve one event alike.

The checks of `loadtest/two_servers.py` (see its docstring) against two real gunicorn servers, in the
PostgreSQL pass of the suite: the event is built here and committed (`transactional_db`), so the servers
see it in the test database; sheets of one game go through both servers. Needs the machine's Redis
(127.0.0.1:6379; TWO_SERVERS_REDIS_URL to change it — its database is flushed): skipped without it
locally, a failure in CI.
"""

import os
from urllib.parse import quote

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.db import connection

from loadtest.prepare import build
from loadtest.two_servers import PLAYERS, log_problems, run_servers

pytestmark = [pytest.mark.postgres, pytest.mark.server]  # server: two gunicorn processes
REDIS_URL = os.environ.get("TWO_SERVERS_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.fixture
def redis_url() -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        if os.environ.get("CI"):
            pytest.fail(f"no Redis at {REDIS_URL}: {error}")
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


def database_url() -> str:
    """The test database, for the servers (pytest-django made it: test_<name>)."""
    s = connection.settings_dict
    credentials = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else "")
    return f"postgres://{credentials}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def test_two_servers_agree_while_sheets_go_through_both(on_postgres, transactional_db, redis_url, tmp_path):
    plan = build(PLAYERS, seed=6)
    # The test settings hash passwords with MD5, which the servers' settings do not accept.
    chief = User.objects.get(username=plan["chief"]["username"])
    chief.password = PBKDF2PasswordHasher().encode(plan["chief"]["password"], salt="twoservers", iterations=1000)
    chief.save(update_fields=["password"])
    steps: list[str] = []
    scenario = run_servers(database_url(), redis_url, plan, tmp_path, workers=1, games=1, say=steps.append)
    tables = len(plan["tables"])
    confirmed = [step for step in steps if "submitted via" in step and "confirmed via" in step]
    assert len(confirmed) == tables
    # Both directions: some sheets entered on A and confirmed on B, the others the other way round.
    assert any("via A, confirmed via B" in step for step in confirmed)
    assert any("via B, confirmed via A" in step for step in confirmed)
    assert any(step.startswith("chief referee signed in on A; the same session opened the board on B")
               for step in steps)
    rate_limit = next(step for step in steps if step.startswith("registration rate limit"))
    assert rate_limit.endswith("A 429, B 429")  # the 5th and 6th posts, one on each server
    assert scenario.phone.requests["A"] > 50 and scenario.phone.requests["B"] > 50
    assert log_problems(tmp_path) == []  # no 5xx answer, no traceback on either server
