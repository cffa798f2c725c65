"""An organiser's uploaded registrations file, read and waiting for confirmation (the import's preview)."""

from django.conf import settings
from django.db import models

from .festival import Festival


class PendingImport(models.Model):
    """The rows of an uploaded file (plain text, bounded by `services.imports.limits`) under a random key.

    Kept in the database, not in the session: the session holds only the keys, so a large upload cannot make
    every request of its sender heavy, and every app server finds it. `services.imports.pending` deletes it
    when it is imported or discarded, and when it expires.
    """

    key = models.CharField(max_length=32, unique=True)
    festival = models.ForeignKey(Festival, on_delete=models.CASCADE, related_name="+")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    file_name = models.CharField(max_length=255)
    rows = models.JSONField()
    encoding = models.CharField(max_length=16, blank=True)
    ignored_columns = models.JSONField(default=list)
    skipped_withdrawn = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.file_name} ({self.festival_id})"
