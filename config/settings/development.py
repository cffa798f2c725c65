"""Local development: `make run`. Never use outside your own machine."""

from .base import *  # noqa: F403
from .base import env_list

DEBUG = True
SECRET_KEY = "development-only-not-secret"  # noqa: S105
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# One process, one memory cache: fine for ratelimit on a laptop.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.E003", "django_ratelimit.W001"]
# Static files come straight from static/ (no collectstatic in development or tests).
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
