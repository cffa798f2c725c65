"""A fixed clock for tests: `django.utils.timezone.now` answers one moment, for the code under test and for
the database's auto_now fields alike (they read the same function)."""

import datetime as dt

from django.utils import timezone


def fixed_clock(monkeypatch, moment: dt.datetime) -> None:
    """From now on (until the test ends) it is `moment`, an aware datetime."""
    assert moment.tzinfo is not None, "a fixed clock needs an aware datetime"
    utc = moment.astimezone(dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: utc)
