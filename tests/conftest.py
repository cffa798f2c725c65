import pytest
from django.db import connection


@pytest.fixture
def on_postgres(db):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks; runs in the PostgreSQL pass of .ci/run")
    return True
