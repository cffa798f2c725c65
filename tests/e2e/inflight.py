"""How many requests the live server is answering right now (tests only: config/settings/test.py).

A browser test ends while its phones may still be polling; pytest-django then empties the shared in-memory
SQLite database, and a request still reading a table makes that fail ("database table is locked"). The
`phone` fixture closes the phones, then waits here until the server is idle."""

import threading
import time

_lock = threading.Lock()
_active = 0


def middleware(get_response):
    def count(request):
        global _active
        with _lock:
            _active += 1
        try:
            return get_response(request)
        finally:
            with _lock:
                _active -= 1
    return count


def wait_until_idle(timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _lock:
            if _active == 0:
                return True
        time.sleep(0.02)
    return False
