"""Rendered public pages and fragments: in the shared cache, and the most recent also in this process.

A key names one rendering for good: it holds the page's ETag (the event's version and public settings, the
language, the page, who is signed in) and, for full pages, the address. So the copy a worker keeps is never
staler than the shared one; it spares the second round trip to the shared cache, and the transfer of up to
~160 KB, for every phone asking for a page already rendered — on a busy machine each round trip also waits
for Redis to be scheduled. A worker keeps its copy at most `LOCAL_SECONDS` and `MAX_BYTES` in all, the
least recently asked for going first.
"""

import threading
import time
from collections import OrderedDict

from django.core.cache import cache

SECONDS = 300  # in the shared cache (the key changes with every change anyway)
LOCAL_SECONDS = 60
MAX_BYTES = 16 * 1024 * 1024

_kept: "OrderedDict[str, tuple[float, bytes]]" = OrderedDict()
_lock = threading.Lock()
_size = 0


def _keep(key: str, content: bytes) -> None:
    global _size
    if len(content) > MAX_BYTES // 4:
        return
    with _lock:
        old = _kept.pop(key, None)
        if old is not None:
            _size -= len(old[1])
        _kept[key] = (time.monotonic() + LOCAL_SECONDS, content)
        _size += len(content)
        while _size > MAX_BYTES:
            _size -= len(_kept.popitem(last=False)[1][1])


def get(key: str) -> bytes | None:
    global _size
    with _lock:
        item = _kept.get(key)
        if item is not None:
            if item[0] > time.monotonic():
                _kept.move_to_end(key)
                return item[1]
            _size -= len(_kept.pop(key)[1])
    content = cache.get(key)
    if content is not None:
        _keep(key, content)
    return content


def put(key: str, content: bytes) -> None:
    cache.set(key, content, SECONDS)
    _keep(key, content)


def forget() -> None:
    """Tests: a rolled-back test database may reuse ids, and so a key."""
    global _size
    with _lock:
        _kept.clear()
        _size = 0
