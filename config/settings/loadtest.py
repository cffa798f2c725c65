"""The load test (`loadtest/`): development settings with DEBUG off, served by gunicorn on loopback.

Production's settings cannot run over plain HTTP on 127.0.0.1 (secure cookies, HTTPS redirect, HSTS), so
the load test starts from development and switches off what would distort the figures: DEBUG (which keeps
every SQL query in memory and renders technical error pages) and WhiteNoise's per-request file lookups.
The database comes from DATABASE_URL as everywhere (`loadtest/run.py` sets it). Never use for a real event.
"""

import os

from .development import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
WHITENOISE_AUTOREFRESH = False

# Benchmarks only (bench/http.py --without): take one of the public side's shortcuts out, to measure what it
# pays for (docs/PERFORMANCE.md). "not-modified": the 304 answered before the stack; "direct": the live view
# called without the rest of the stack below it; "lane": Django's own session, auth and messages middleware
# for every request.
_WITHOUT = set(filter(None, os.environ.get("RUMMIKUB_BENCH_WITHOUT", "").split(",")))
_LANE = {"public.lane.SessionMiddleware": "django.contrib.sessions.middleware.SessionMiddleware",
         "public.lane.AuthenticationMiddleware": "django.contrib.auth.middleware.AuthenticationMiddleware",
         "public.lane.MessageMiddleware": "django.contrib.messages.middleware.MessageMiddleware"}
MIDDLEWARE = [  # noqa: F405
    _LANE.get(name, name) if "lane" in _WITHOUT else name for name in MIDDLEWARE  # noqa: F405
    if not ("not-modified" in _WITHOUT and name == "public.lane.NotModifiedMiddleware")
    and not ("direct" in _WITHOUT and name == "public.lane.PublicViewMiddleware")
]
