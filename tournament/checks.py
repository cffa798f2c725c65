"""System checks of a deployment: what would make every page fail is said before anything is served.

`static_files_collected` runs with every management command that checks (`check`, `migrate`, `runserver`) and
config/wsgi.py asks `missing_static_files` before gunicorn serves a page. Not tagged "staticfiles": collectstatic
runs those checks first, and this one must not stop the command that fixes it.
"""

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.checks import Error, register

COLLECT = "python manage.py collectstatic --noinput"


def missing_static_files() -> str:
    """What is wrong, or "": with DEBUG off the manifest storage names every static file by its hash from
    staticfiles.json, and without it every page that links a stylesheet answers 500."""
    if settings.DEBUG or not isinstance(staticfiles_storage, ManifestFilesMixin):
        return ""
    if staticfiles_storage.read_manifest() is not None:
        return ""
    where = staticfiles_storage.path(staticfiles_storage.manifest_name)
    return (f"The static files are not collected ({where} is missing): every page would answer 500. Run "
            f"`{COLLECT}` with the same settings (DJANGO_SETTINGS_MODULE, DJANGO_STATIC_ROOT), then start the "
            f"server again.")


@register()
def static_files_collected(app_configs=None, **kwargs):
    problem = missing_static_files()
    if not problem:
        return []
    return [Error(problem, hint=f"Run: {COLLECT}", id="tournament.E001")]
