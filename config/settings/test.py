"""pytest: fast hashing, plain static storage, in-memory cache."""

from .development import *  # noqa: F403

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
AXES_ENABLED = True
# Browser tests wait for the live server to finish its requests before the database is emptied.
MIDDLEWARE = ["tests.e2e.inflight.middleware", *MIDDLEWARE]  # noqa: F405
# Sent e-mails are kept in django.core.mail.outbox; links in them point at the test client's host.
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
SITE_URL = "http://testserver"
