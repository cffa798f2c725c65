"""config/settings/production.py as it is, for a gunicorn server a test starts (tests/served.py).

Only the static files differ: they come from static/ through the finders, as in development, instead of
collectstatic's hashed manifest, which a test would first have to build (the image builds it once).
Every security setting, cookie flag and middleware is production's own.
"""

from config.settings.production import *  # noqa: F403

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
