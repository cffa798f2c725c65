"""The floor of bench/http.py: bare Django answering "hello" through CommonMiddleware only.

This one module is the settings, the URLconf and the WSGI application, so the floor shares nothing with the
project (no database, no templates, no other middleware): `DJANGO_SETTINGS_MODULE=bench.floor gunicorn
bench.floor:application`. Used only by the benchmark.
"""

from django.http import HttpResponse
from django.urls import path

DEBUG = False
SECRET_KEY = "bench-floor-not-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "bench.floor"
INSTALLED_APPS: list[str] = []
MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
DATABASES: dict = {}
USE_I18N = False


def hello(request):
    return HttpResponse("hello", content_type="text/plain")


urlpatterns = [path("hello/", hello)]

_application = None


def application(environ, start_response):
    """Built on the first request: the settings module cannot build a handler while it is being imported."""
    global _application
    if _application is None:
        from django.core.wsgi import get_wsgi_application

        _application = get_wsgi_application()
    return _application(environ, start_response)
