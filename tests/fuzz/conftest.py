import pytest
from django.db import transaction

from tests.fuzz.world import build_world


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Built once per module inside a transaction that is rolled back at the end, so nothing leaks into
    other tests; each test (pytest-django's `db`) and each example (engine) nest savepoints inside it."""
    with django_db_blocker.unblock():
        with transaction.atomic():
            yield build_world()
            transaction.set_rollback(True)
