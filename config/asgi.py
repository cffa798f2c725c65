"""ASGI entry point, for an ASGI server (uvicorn, daphne). The deployment itself runs gunicorn on WSGI."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_asgi_application()
