"""Uploads waiting for the organiser's confirmation: their rows in the database under a random key.

The preview and the confirm step read the rows again from here; the sender's session holds only the keys (the
view checks the key is in it), so the rows never travel with every request, and any app server finds them.
What is kept is bounded: the file by `limits`, the stored rows by `MAX_STORED_CHARS`, each organiser's
waiting uploads by `KEPT_PER_USER`, and every one expires after `KEPT_FOR`.
"""

import datetime as dt
import json
import secrets

from django.utils import timezone
from django.utils.translation import gettext as _

from ...models import PendingImport
from .limits import MAX_CHARS, ImportFileError
from .reading import ENCODING_NAMES, ParsedFile

KEPT_FOR = dt.timedelta(hours=12)
KEPT_PER_USER = 3
# The rows as JSON: their text (at most limits.MAX_CHARS) with quotes, commas and row numbers around it.
MAX_STORED_CHARS = 3 * MAX_CHARS


def keep(*, festival, user, file_name: str, parsed: ParsedFile, now=None) -> PendingImport:
    """Store an upload for its preview; forget the expired ones and this organiser's oldest beyond the few kept."""
    if len(json.dumps(parsed.rows, ensure_ascii=False)) > MAX_STORED_CHARS:
        raise ImportFileError(_("This file is too large to preview. Split it into smaller files."),
                              code="too_large")
    now = now or timezone.now()
    PendingImport.objects.filter(created_at__lt=now - KEPT_FOR).delete()
    upload = PendingImport.objects.create(
        key=secrets.token_urlsafe(16), festival=festival, uploaded_by=user, file_name=file_name[:255],
        rows=parsed.rows, encoding=ENCODING_NAMES.get(parsed.encoding, ""), ignored_columns=parsed.ignored_columns,
        skipped_withdrawn=parsed.skipped_withdrawn,
    )
    older = PendingImport.objects.filter(uploaded_by=user).order_by("-created_at", "-pk")[KEPT_PER_USER:]
    PendingImport.objects.filter(pk__in=list(older.values_list("pk", flat=True))).delete()
    return upload


def find(*, key: str, festival, user, now=None) -> PendingImport | None:
    """The upload this organiser sent for this festival under `key`, unless it was forgotten or has expired."""
    now = now or timezone.now()
    return PendingImport.objects.filter(key=key, festival=festival, uploaded_by=user,
                                        created_at__gte=now - KEPT_FOR).first()


def forget(*, key: str) -> None:
    PendingImport.objects.filter(key=key).delete()
