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
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    # Tests need no durability: a commit that does not wait for the disk makes the browser and transaction
    # tests (every write committed, every table emptied after each test) several times faster.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"  # noqa: F405
