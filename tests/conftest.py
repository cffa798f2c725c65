import pytest
from django.db import connection


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
