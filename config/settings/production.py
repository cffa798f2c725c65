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


def _site_url() -> str:
    """The address in links sent by e-mail (a guardian's link): DJANGO_SITE_URL, else the first allowed host."""
    url = os.environ.get("DJANGO_SITE_URL", "").strip().rstrip("/")
    if not url:
        host = ALLOWED_HOSTS[0]
        if host.startswith(".") or "*" in host:
            raise ImproperlyConfigured("Set DJANGO_SITE_URL, e.g. 'https://rummikub.example.org': links sent by "
                                       "e-mail need the site's address.")
        url = f"{'http' if PLAIN_HTTP else 'https'}://{host}"
    if not url.startswith(("https://", "http://")):
        raise ImproperlyConfigured(f"DJANGO_SITE_URL must start with https:// or http://, not {url!r}.")
    return url


SITE_URL = _site_url()

# E-mail (a child's guardian gets a link to agree): an SMTP server from the environment. Without
# DJANGO_EMAIL_HOST the messages are written to the log instead, and config/wsgi.py warns at start-up.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "").strip()
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "") or 587)
    EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
    _ssl, _tls = _switch("DJANGO_EMAIL_USE_SSL"), _switch("DJANGO_EMAIL_USE_TLS")
    EMAIL_USE_SSL = _ssl if _ssl is not None else EMAIL_PORT == 465  # port 465: TLS from the first byte
    EMAIL_USE_TLS = _tls if _tls is not None else not EMAIL_USE_SSL  # otherwise STARTTLS
    if EMAIL_USE_SSL and EMAIL_USE_TLS:
        raise ImproperlyConfigured("DJANGO_EMAIL_USE_SSL and DJANGO_EMAIL_USE_TLS exclude each other: set one.")
    # A hung mail server must not hold a registration's request for long.
    EMAIL_TIMEOUT = int(os.environ.get("DJANGO_EMAIL_TIMEOUT", "") or 10)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
EMAIL_CONFIGURED = bool(EMAIL_HOST)
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "").strip() or (
    f"noreply@{SITE_URL.split('://', 1)[1].split('/')[0].split(':')[0]}")
