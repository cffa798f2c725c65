import logging
import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

from rules.word.dictionary import default_dictionary
from tournament.checks import missing_static_files

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()

# gunicorn runs no system checks: refuse to start rather than answer every page with 500 (tournament/checks.py).
_missing = missing_static_files()
if _missing:
    raise ImproperlyConfigured(_missing)

if getattr(settings, "PLAIN_HTTP", False):
    logging.getLogger("config").warning(
        "Serving over plain HTTP (DJANGO_PLAIN_HTTP): cookies without the Secure flag, no redirect to HTTPS, no "
        "HSTS. Anyone on the network can read passwords and sessions: use this only on a closed hall network.")

if not getattr(settings, "EMAIL_CONFIGURED", True):
    logging.getLogger("config").warning(
        "No DJANGO_EMAIL_HOST: e-mails (a child's guardian's link) are written to the log, not sent. Set "
        "DJANGO_EMAIL_HOST and its companions (README, Deploying).")

# Each worker reads the Rummikub Word dictionary (R10, about 128,000 words) as it starts, not during the first
# referee's live check of a Word sheet, which would wait about 200 ms for it (docs/PERFORMANCE.md, festival).
default_dictionary()
