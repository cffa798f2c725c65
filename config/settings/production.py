"""Production (docker-compose, gunicorn). Everything secret or site-specific comes from the environment."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_list

DEBUG = False
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("django-insecure") or "development" in SECRET_KEY:
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY to a long random value (at least 50 characters).")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Set DJANGO_ALLOWED_HOSTS, e.g. 'rummikub.example.org'.")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")


def _switch(name: str) -> bool | None:
    """A yes/no variable: None when unset or empty; a typo stops the start instead of guessing."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return None
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {os.environ[name]!r}.")


def _plain_http() -> bool:
    """DJANGO_PLAIN_HTTP=true, or DJANGO_SECURE_SSL_REDIRECT=false (the name older instructions give)."""
    plain, redirect = _switch("DJANGO_PLAIN_HTTP"), _switch("DJANGO_SECURE_SSL_REDIRECT")
    if plain is not None and redirect is not None and plain == redirect:
        raise ImproperlyConfigured("DJANGO_PLAIN_HTTP and DJANGO_SECURE_SSL_REDIRECT contradict each other: "
                                   "set DJANGO_PLAIN_HTTP only.")
    return plain if plain is not None else redirect is False


# HTTPS (the default): TLS ends at the reverse proxy, which says so in X-Forwarded-Proto. Plain HTTP, for a
# closed hall network only: a browser drops a Secure cookie over http:// (except on loopback), so the
# cookies, the redirect and HSTS all switch together; config/wsgi.py warns at start-up.
PLAIN_HTTP = _plain_http()
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = not PLAIN_HTTP
SECURE_HSTS_SECONDS = 0 if PLAIN_HTTP else int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not PLAIN_HTTP
SECURE_HSTS_PRELOAD = not PLAIN_HTTP
SESSION_COOKIE_SECURE = not PLAIN_HTTP
CSRF_COOKIE_SECURE = not PLAIN_HTTP
