"""Downloads for the organiser (docs/export.md); the public JSON API is public/views/api.py.

- `manage/<festival>/<event>/export.json` — the whole event ("rummikub-event/1"), the same text as
  `manage.py export_event`; `export/standings.csv|xlsx` and `export/results.csv|xlsx`. Organisers only.
"""


from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import path
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from tournament.permissions import ORGANISER
from tournament.services.errors import ServiceError
from tournament.views.helpers import staff_view

from .. import exports
from ..ranking_file import ranking_file

MAX_PLAYER_NUMBER = 99_999


# --- organiser downloads --------------------------------------------------------------------------------

organiser_view = staff_view(ORGANISER, home="manage-event")


def _download(content, content_type: str, file_name: str) -> HttpResponse:
    return HttpResponse(content, headers={
        "Content-Type": content_type, "Content-Disposition": content_disposition_header(True, file_name),
    })


@require_safe
@organiser_view
def export_json(request, event):
    return _download(exports.event_json(event).encode("utf-8"), "application/json; charset=utf-8",
                     exports.export_file_name(event, "event", "json"))


def _table_download(event, fmt, what):
    if fmt not in exports.FORMATS:
        raise Http404
    return _download(exports.table_file(event, what, fmt), exports.CONTENT_TYPES[fmt],
                     exports.export_file_name(event, what, fmt))


@require_safe
@organiser_view
def export_standings(request, event, fmt):
    return _table_download(event, fmt, "standings")


@require_safe
@organiser_view
def export_results(request, event, fmt):
    return _table_download(event, fmt, "results")


@require_safe
@organiser_view
def export_ranking(request, event, fmt):
    """The file for the festival's ranking body: only the players who agreed (scoring/ranking_file.py)."""
    if fmt not in exports.FORMATS:
        raise Http404
    try:
        content = ranking_file(event, fmt)
    except ServiceError as refusal:
        messages.error(request, refusal.message)
        return redirect("manage-event", festival=event.festival.slug, event=event.slug)
    return _download(content, exports.CONTENT_TYPES[fmt], exports.export_file_name(event, "ranking", fmt))


EVENT = "<slug:festival>/<slug:event>/"

urlpatterns = [
    path("manage/" + EVENT + "export.json", export_json, name="event-export-json"),
    path("manage/" + EVENT + "export/standings.<str:fmt>", export_standings, name="event-export-standings"),
    path("manage/" + EVENT + "export/results.<str:fmt>", export_results, name="event-export-results"),
    path("manage/" + EVENT + "export/ranking.<str:fmt>", export_ranking, name="event-export-ranking"),
]
