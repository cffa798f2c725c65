"""The organiser's import (upload → preview → confirm) and export of a festival's registrations.

The uploaded file is read once; its rows (plain text) wait in the database (`services.imports.pending`) under a
random key, which only the sender's session holds, until the organiser confirms. Every page view and the
confirm step check the rows again against the current state.
"""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from ..forms.imports import ImportConfirmForm, ImportUploadForm
from ..models import Event
from ..permissions import ORGANISER
from ..services.audit import Actor
from ..services.errors import ServiceError
from ..services.imports import exporting, importing, layout, limits, pending, reading, validation
from .helpers import query_text, staff_view

SESSION_KEY = "pending_imports"  # the keys of this session's uploads, newest last


organiser_view = staff_view(ORGANISER, home="manage-import")


def _keys(request) -> list[str]:
    keys = request.session.get(SESSION_KEY, [])
    return keys if isinstance(keys, list) else []


def _remember(request, key: str) -> None:
    request.session[SESSION_KEY] = (_keys(request) + [key])[-pending.KEPT_PER_USER:]


def _pending(request, festival, key):
    if key not in _keys(request):
        return None
    return pending.find(key=key, festival=festival, user=request.user)


def _forget(request, key) -> None:
    pending.forget(key=key)
    request.session[SESSION_KEY] = [known for known in _keys(request) if known != key]


@require_http_methods(["GET", "POST"])
@organiser_view
def import_upload(request, festival):
    form = ImportUploadForm(request.POST or None, request.FILES or None, festival=festival)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        default_event = form.cleaned_data["default_event"]
        try:
            parsed = reading.read_registrations_file(
                name=upload.name, content=upload.read(), default_event=default_event.slug if default_event else ""
            )
            kept = pending.keep(festival=festival, user=request.user, file_name=upload.name, parsed=parsed)
        except ServiceError as error:
            form.add_error("file", error.message)
        else:
            _remember(request, kept.key)
            return redirect("manage-import-preview", festival=festival.slug, key=kept.key)
    return render(request, "tournament/manage/import.html", {
        "festival": festival, "form": form, "columns": layout.IMPORT_COLUMNS,
        "max_rows": limits.MAX_ROWS, "events": festival.events.all(),
    })


@require_http_methods(["GET", "POST"])
@organiser_view
def import_preview(request, festival, key):
    upload = _pending(request, festival, key)
    if upload is None:
        messages.error(request, _("This upload is no longer waiting to be imported. Please upload the file again."))
        return redirect("manage-import", festival=festival.slug)
    reports = None
    if request.method == "POST":
        form = ImportConfirmForm(request.POST)
        action = form.cleaned_data["action"] if form.is_valid() else ""
        if action == "cancel":
            _forget(request, key)
            messages.info(request, _("The upload was discarded; nothing was imported."))
            return redirect("manage-import", festival=festival.slug)
        if action in ("all", "valid"):
            try:
                result = importing.import_registrations(
                    festival=festival, rows=upload.rows, actor=Actor.of(request), file_name=upload.file_name,
                    drop_invalid=action == "valid", expected=form.cleaned_data["seen"],
                    consent_held=form.cleaned_data["consent_held"],
                )
            except importing.ImportRefused as error:
                messages.error(request, error.message)
                reports = error.reports
            else:
                _forget(request, key)
                messages.success(request, ngettext(
                    "Imported %(total)s registration: %(registered)s with a place, %(waitlisted)s on the waiting list.",
                    "Imported %(total)s registrations: %(registered)s with a place, %(waitlisted)s on the waiting list.",
                    result.total,
                ) % {"total": result.total, "registered": result.registered, "waitlisted": result.waitlisted})
                return redirect("manage-import", festival=festival.slug)
        else:
            messages.error(request, _("Please choose one of the buttons below."))
    if reports is None:
        reports = validation.validate_rows(festival=festival, rows=upload.rows)
    valid = sum(report.ok for report in reports)
    only_problems = request.GET.get("show") == "problems"
    return render(request, "tournament/manage/import_preview.html", {
        "festival": festival,
        "key": key,
        "pending": {"file": upload.file_name, "encoding": upload.encoding, "ignored": upload.ignored_columns,
                    "skipped": upload.skipped_withdrawn},
        "reports": [report for report in reports if not report.ok] if only_problems else reports,
        "only_problems": only_problems,
        "total": len(reports),
        "valid": valid,
        "invalid": len(reports) - valid,
        "seen": validation.fingerprint(reports),
    })


@require_GET
@organiser_view
def export(request, festival, fmt):
    if fmt not in layout.FORMATS:
        raise Http404
    event = None
    if request.GET.get("event"):
        event = Event.objects.filter(festival=festival, slug=query_text(request, "event")).first()
        if event is None:
            raise Http404
    content = exporting.export_registrations(festival=festival, fmt=fmt, event=event)
    file_name = exporting.export_file_name(festival=festival, fmt=fmt, event=event)
    return HttpResponse(content, headers={
        "Content-Type": exporting.CONTENT_TYPES[fmt],
        "Content-Disposition": content_disposition_header(True, file_name),
    })


urlpatterns = [
    path("<slug:festival>/import/", import_upload, name="manage-import"),
    path("<slug:festival>/import/<str:key>/", import_preview, name="manage-import-preview"),
    path("<slug:festival>/export.<str:fmt>", export, name="manage-export"),
]
