from pathlib import Path

import pytest
from django.db import connection

E2E = Path(__file__).parent / "e2e"
# Fixtures that start a server: a test asking for one (directly or through another fixture) is a server test.
SERVER_FIXTURES = {"live_server"}


def pytest_collection_modifyitems(config, items):
    """Marks `server` every test that starts a server: the browser tests (tests/e2e) and every test on
    pytest-django's live server (the nginx micro-cache's too). Modules that start gunicorn or an SMTP server in
    their own code carry the marker themselves. `make test-fast` leaves these out.

    Marks `postgres` every test that asks for `on_postgres`, so `-m postgres` selects all the tests that only
    PostgreSQL runs, marked by hand or not."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if E2E in Path(item.path).parents or SERVER_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.server)
        if "on_postgres" in fixtures:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture
def on_postgres(db):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks; runs in the PostgreSQL pass of .ci/run")
    return True


@pytest.fixture(autouse=True)
def fresh_caches():
    """Each test starts with empty caches: a rolled-back database reuses ids, and ids make cache keys; the
    rate limits count in the cache too."""
    from django.core.cache import cache

    from public import rendered
    from public.snapshot import forget_snapshots

    cache.clear()
    forget_snapshots()
    rendered.forget()
    yield


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request in Korean or Chinese leaves its language active in the thread (LocaleMiddleware activates it
    and nothing deactivates it): the next test would read the services' messages in that language."""
    from django.utils import translation

    yield
    translation.deactivate()
