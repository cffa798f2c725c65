"""A festival's registrations (or one event's) as a CSV or XLSX file: its bytes, name and content type.

The export uses the import's column layout (`layout`) and lists withdrawn registrations too; reading such a
file back skips them. Reads only.
"""

import tablib
from django.utils.translation import gettext as _

from ...models import Event, Registration
from ..errors import ServiceError
from .layout import COLUMN_LABELS, EXPORT_COLUMNS, neutralise

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def _local(moment, tzinfo) -> str:
    return moment.astimezone(tzinfo).strftime("%Y-%m-%d %H:%M") if moment else ""


def registrations_dataset(*, festival, event: Event | None = None) -> tablib.Dataset:
    """Every registration (withdrawn too) in registration order; headers in the active language. One query."""
    registrations = (
        Registration.objects.filter(event__festival=festival)
        .select_related("event", "player")
        .order_by("created_at", "id")
    )
    if event is not None:
        registrations = registrations.filter(event=event)
    dataset = tablib.Dataset(headers=[str(COLUMN_LABELS[column]) for column in EXPORT_COLUMNS])
    dataset.title = str(_("Registrations"))
    tzinfo = festival.tzinfo
    for registration in registrations:
        player = registration.player
        row = [
            registration.event.slug, player.name, player.contact, player.birth_year or "", player.affiliation,
            player.ranking_id, player.guardian_name, player.guardian_contact,
            str(registration.get_status_display()), registration.number or "",
            _local(registration.checked_in_at, tzinfo), _local(registration.created_at, tzinfo),
            registration.consent_notice_version or "", _local(registration.consented_at, tzinfo),
            str(registration.get_consent_by_display()) if registration.consent_by else "",
            str(registration.get_consent_how_display()) if registration.consent_how else "",
            str(registration.get_guardian_check_display()) if registration.guardian_check else "",
            _local(registration.guardian_checked_at, tzinfo), registration.guardian_checked_name,
        ]
        dataset.append([neutralise(value) for value in row])
    return dataset


def export_registrations(*, festival, fmt: str, event: Event | None = None) -> bytes:
    """The file's bytes. CSV is UTF-8 with a BOM, so Excel shows Hangul and Chinese correctly."""
    dataset = registrations_dataset(festival=festival, event=event)
    if fmt == "csv":
        return ("\ufeff" + dataset.export("csv")).encode("utf-8")
    if fmt == "xlsx":
        return dataset.export("xlsx")
    raise ServiceError(_("Unknown file format."), code="format")


def export_file_name(*, festival, fmt: str, event: Event | None = None) -> str:
    parts = [festival.slug, event.slug if event else "", "registrations"]
    return "-".join(part for part in parts if part) + f".{fmt}"
