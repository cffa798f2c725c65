"""What lets a table's phone work through a dropped hall Wi-Fi (the service worker itself is
tournament/views/offline.py): the table link's web app manifest, and a game's sheet status for the phone's
outbox to ask about once it has sent a sheet queued offline (static/js/outbox.js).
"""

import json

from django.http import HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from ..models import ScoreSheet
from ..services.access import TableAccess
from .referee import by_account, by_link


@require_safe
def manifest(request, access: TableAccess):
    """The table link as an app on the phone's home screen: it opens the table, by the event and table name."""
    name = _("%(event)s · Table %(table)s") % {"event": access.stage.event.name, "table": access.table_number}
    table_url = access.table_url()
    body = {
        "name": name,
        "short_name": _("Table %(table)s") % {"table": access.table_number},
        "start_url": table_url,
        "scope": table_url,
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#212529",
        "icons": [
            {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return HttpResponse(json.dumps(body, ensure_ascii=False), content_type="application/manifest+json")


@require_safe
def sheet_status(request, access: TableAccess, game: int):
    """Where a game's newest sheet is (submitted, confirmed, returned with its reason): the outbox of the
    phone asks after sending a queued sheet."""
    sheet = (ScoreSheet.objects.filter(stage=access.stage, table_number=access.table_number, game=game)
             .exclude(status=ScoreSheet.Status.SUPERSEDED).order_by("-version").first())
    if sheet is None:
        return JsonResponse({"status": "none"})
    return JsonResponse({"status": sheet.status, "key": sheet.idempotency_key,
                         "reason": sheet.reason if sheet.status == ScoreSheet.Status.RETURNED else ""})


urlpatterns = [
    path("t/<str:token>/manifest.webmanifest", never_cache(by_link(manifest)), name="referee-link-manifest"),
    path("t/<str:token>/stage-<int:stage>/game/<int:game>/status/", never_cache(by_link(sheet_status)),
         name="referee-link-status"),
    path("referee/<int:stage_id>/<int:table>/game/<int:game>/status/", never_cache(by_account(sheet_status)),
         name="referee-status"),
]
