"""The live server's requests, as the browser tests need them (tests only: config/settings/test.py).

On SQLite the test database lives in memory, and Django's live server shares its ONE connection between the
test and every request thread. Two requests at once on that connection — a board poll reading score sheets
while a confirmation writes one — fail with "database table is locked". A deployed app has a connection per
worker and a database that waits for its lock, so on SQLite the live server answers one request at a time.

The test's own statements (factories, checks of what was stored) run in the test's thread on that same
connection, while a phone may still be loading something in the background (a service worker filling its
cache, a poll): on SQLite they wait for the request in progress too (`statements_wait_for_requests`).

A browser test also ends while its phones may still be polling; pytest-django then empties the database, and
a request still reading a table would make that fail. The `phone` fixture closes the phones, then waits here
until the server is idle."""

import collections
import contextlib
import threading
import time
from urllib.parse import urlsplit

from django.db import connection

_lock = threading.Lock()
_one_at_a_time = threading.Lock()
_active = 0
_last_seen = 0.0  # when a request last began or ended (time.monotonic)
# A request the server has accepted is counted only once it reaches the middleware: the server is idle when
# nothing has run for this long, not at the first instant between two requests.
QUIET = 0.3
# What the server has answered lately ("GET /t/…/status/"): a test waits for a service worker's whole exchange
# (it posts, then asks where its sheet is) before it takes the connection away.
_answered: collections.deque = collections.deque(maxlen=2000)


def middleware(get_response):
    def count(request):
        global _active, _last_seen
        with _lock:
            _active += 1
            _last_seen = time.monotonic()
        try:
            shared = connection.vendor == "sqlite"
            with _one_at_a_time if shared else contextlib.nullcontext():
                return get_response(request)
        finally:
            with _lock:
                _active -= 1
                _last_seen = time.monotonic()
                _answered.append(f"{request.method} {request.path}")
    return count


@contextlib.contextmanager
def statements_wait_for_requests():
    """While open, a statement from this thread (the test's) waits until no request is being answered, on
    SQLite; the request threads sharing the connection pass straight through."""
    if connection.vendor != "sqlite":
        yield
        return
    test_thread = threading.get_ident()

    def one_at_a_time(execute, sql, params, many, context):
        if threading.get_ident() != test_thread:
            return execute(sql, params, many, context)
        with _one_at_a_time:
            return execute(sql, params, many, context)

    with connection.execute_wrapper(one_at_a_time):
        yield


def answered(method: str, url: str) -> bool:
    """The server has finished answering a `method` request for `url` (an address or a path)."""
    with _lock:
        return f"{method} {urlsplit(url).path}" in _answered


def wait_until_idle(timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _lock:
            if _active == 0 and time.monotonic() - _last_seen >= QUIET:
                return True
        time.sleep(0.02)
    return False
