"""The service worker that keeps the referee's table, the desk and the players' pages working through a dropped
hall Wi-Fi.

It is `static/js/sw.js`, served here at the site root (`/sw.js`) so that its scope covers the table links
(`/t/<token>/…`), the desk and the players' pages; what it caches, and what it never caches, is decided in that
file and by the server's answers (tournament/device.py). It is told here where its outbox store is and where
the sign-out is sent (it clears what it keeps when it sees it). Pages that want it name it
`/sw.js?v=<version>` (the `offline_worker` context variable): the version is a hash of the scripts, styles and
icons, so an update of the app installs a new worker, which drops the caches of the old one.
"""

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.templatetags.static import static
from django.urls import path, reverse
from django.views.decorators.http import require_safe

WORKER = "js/sw.js"
# The outbox's store and send function, which the worker imports (its name carries a hash in production).
OUTBOX_STORE = "js/outbox-store.js"
# The assets a sheet needs, whose change must refresh every phone's copy.
VERSIONED = ("js", "css", "vendor", "icons")


def _static_file(name: str) -> Path:
    found = finders.find(name)
    return Path(found if found else Path(settings.STATIC_ROOT) / name)


@cache
def offline_version() -> str:
    """A short hash of every script, style and icon: it names the caches of this version of the app."""
    digest = hashlib.sha256()
    root = _static_file(WORKER).parent.parent
    for folder in VERSIONED:
        for file in sorted((root / folder).rglob("*")):
            if file.is_file():
                digest.update(file.relative_to(root).as_posix().encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


@require_safe
def service_worker(request):
    strict = b'"use strict";\n'
    address = (f"self.RK_OUTBOX_STORE = {json.dumps(static(OUTBOX_STORE))};\n"
               f"self.RK_SIGN_OUT = {json.dumps(reverse('logout'))};\n").encode()
    body = _static_file(WORKER).read_bytes().replace(strict, strict + address, 1)
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    # Browsers look for an update of the worker on every navigation; it must never come from a cache.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


urlpatterns = [
    path("sw.js", service_worker, name="service-worker"),
]
