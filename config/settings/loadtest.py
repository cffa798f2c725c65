"""The load test (`loadtest/`): development settings with DEBUG off, served by gunicorn on loopback.

Production's settings cannot run over plain HTTP on 127.0.0.1 (secure cookies, HTTPS redirect, HSTS), so
the load test starts from development and switches off what would distort the figures: DEBUG (which keeps
every SQL query in memory and renders technical error pages) and WhiteNoise's per-request file lookups.
The database comes from DATABASE_URL as everywhere (`loadtest/run.py` sets it). Never use for a real event.
"""

from .development import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
WHITENOISE_AUTOREFRESH = False
