"""Settings shared by every environment. Values that differ per deployment come from the environment."""

import ipaddress
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "crispy_forms",
    "crispy_bootstrap5",
    "django_htmx",
    "axes",
    "csp",
    "tournament",
    "scoring",
    "public",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # An unchanged live fragment polled by an anonymous phone: its 304 here, the rest skipped.
    "public.lane.NotModifiedMiddleware",
    # The service worker's offline copy of a page made to work offline may be kept (tournament/device.py):
    # outside the next one, the only answer it makes storable.
    "tournament.device.OfflineCopyMiddleware",
    # Outside the rest, so refusals and error pages of the staff addresses are never stored either.
    "tournament.middleware.NoStoreForStaffMiddleware",
    "tournament.middleware.CSPMiddleware",  # django-csp's, building the policy once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Django's session, auth and messages middleware, skipped for anonymous public polls (public/lane.py).
    "public.lane.SessionMiddleware",
    "tournament.middleware.ResetTimezoneMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "public.lane.AuthenticationMiddleware",
    "public.lane.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # The live public pages straight to their view, for anonymous phones (public/lane.py).
    "public.lane.PublicViewMiddleware",
    "django_ratelimit.middleware.RatelimitMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into a clear page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournament.context_processors.offline_context",
                "tournament.context_processors.csrf_placeholder",
            ],
        },
    },
]

# Connections stay open between requests (CONN_MAX_AGE); one the database has dropped meanwhile (a
# PostgreSQL restart) is found and replaced before the request uses it, instead of failing it.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several gunicorn workers write to one SQLite file on a small event: wait for the lock
    # instead of failing, and let readers run while a writer commits.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "config.redis_cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
# A staff account made by an organiser sets its password through a one-time link; staff are often added a
# week ahead of the day.
PASSWORD_RESET_TIMEOUT = 7 * 24 * 3600
LOGIN_REDIRECT_URL = "manage-home"
LOGOUT_REDIRECT_URL = "home"

# Password guessing: 5 failures per user name and address lock that pair for 15 minutes.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "tournament.sign_in_attempts.attempted_username"

# E-mail: only a child's guardian is written to (services.guardian). Development prints the messages on the
# console (`make run`); tests keep them in memory; production sends them through SMTP (production.py).
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = "noreply@localhost"
# The site's address in links sent by e-mail, where no request says it (a command run by cron).
SITE_URL = os.environ.get("DJANGO_SITE_URL", "http://127.0.0.1:8000").rstrip("/")

# Registration floods (tournament/views/registration.py): per client address, with room for a class or a club
# registering together from one school network; and per contact, from any address.
RATELIMIT_VIEW = "tournament.views.errors.rate_limited"
REGISTRATION_RATE = os.environ.get("REGISTRATION_RATE", "40/10m")
REGISTRATION_CONTACT_RATE = os.environ.get("REGISTRATION_CONTACT_RATE", "5/m")
# Wrong seat codes typed through one table card (a player-run table) before it waits: the codes are 4 digits.
SEAT_CODE_RATE = os.environ.get("SEAT_CODE_RATE", "20/10m")

# The client's address, alike for the lock-out and the rate limits: the reverse proxy's X-Real-IP, believed
# only from the proxies listed here (docker-compose.yml gives nginx's fixed address); otherwise the
# connection's own address.
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES")
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError as error:  # a typo would otherwise break every request, not the start
        raise ImproperlyConfigured(f"DJANGO_TRUSTED_PROXIES: {error}") from error
AXES_CLIENT_IP_CALLABLE = "tournament.client_address.client_address"
RATELIMIT_IP_META_KEY = "tournament.client_address.client_address"

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("ko", _("Korean")),
    ("zh-hant", _("Traditional Chinese")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# One set of date and time formats per language for the whole app (config/formats/<language>/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "Asia/Seoul"

STATIC_URL = "static/"
# Where `collectstatic` puts the hashed, compressed static files whitenoise serves (the Docker image builds them
# at /app/staticfiles); DJANGO_STATIC_ROOT puts them elsewhere on a server of your own.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# Scripts send the CSRF token from <meta name="csrf-token"> (static/js/app.js), never from the cookie.
CSRF_COOKIE_HTTPONLY = True
# The default CSRF failure page styles itself inline, which the policy below blocks.
CSRF_FAILURE_VIEW = "tournament.views.errors.csrf_failure"

# Content-Security-Policy (django-csp 4): nothing inline. Every script and style is a file under static/
# (htmx is told not to inject its own <style> and never to eval: see <meta name="htmx-config"> in the
# templates); QR codes are inline SVG markup, and Bootstrap's CSS draws a few icons from data: URLs.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        # The service worker (/sw.js) and the table link's web app manifest come from the site itself.
        "worker-src": [SELF],
        "manifest-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "object-src": [NONE],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
