"""The import itself: the only part of the import that writes, in one transaction.

It takes the festival's event locks (`locking.lock_festival_events`), checks every row again (the state may
have changed since the preview), registers the rows through `services.registration.register` — the same
rules as the public form — and writes one audit record. Every (remaining valid) row is imported, or none.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ...models import Registration
from ..audit import Actor, record
from ..consent import Consent, needs_guardian
from ..errors import ServiceError
from ..locking import lock_festival_events
from ..registration import register
from .validation import fingerprint, validate_rows


class ImportRefused(ServiceError):
    """The confirm step found rows that are not (or no longer) valid; `reports` says which and why."""

    def __init__(self, message, *, reports, code="invalid"):
        super().__init__(message, code=code)
        self.reports = reports


@dataclass(frozen=True)
class ImportResult:
    registered: int
    waitlisted: int

    @property
    def total(self) -> int:
        return self.registered + self.waitlisted


def import_registrations(
    *, festival, rows: list[list], actor: Actor, file_name: str, consent_held: bool, drop_invalid: bool = False,
    expected: str = "", now=None,
) -> ImportResult:
    """Register every row, or — when the organiser chose to drop the bad ones — every valid row; else nothing.

    Re-checks every row under the festival's event locks (the state may have changed since the preview). With
    `drop_invalid`, `expected` is the fingerprint of the preview the organiser saw: if other rows are valid
    now, nothing is imported and the organiser looks again.

    `consent_held`: the organiser declares it holds every player's consent to the collection notice (a child's
    from the parent or guardian named in the row); without it nothing is imported. Each registration records
    that consent as held by the organiser (ConsentHow.IMPORT).
    """
    now = now or timezone.now()
    if not consent_held:
        raise ImportRefused(_("Nothing was imported: tick the box that says you hold every player's consent to the "
                              "collection notice (a child's from their parent or guardian)."),
                            reports=validate_rows(festival=festival, rows=rows), code="consent")
    with transaction.atomic():
        # Lock the festival's events in a fixed order: registrations and withdrawals wait until we are done.
        lock_festival_events(festival)
        reports = validate_rows(festival=festival, rows=rows)
        valid = [report for report in reports if report.ok]
        if len(valid) < len(reports) and not drop_invalid:
            raise ImportRefused(
                _("Nothing was imported: %(bad)s rows have problems. Correct them, or drop them.")
                % {"bad": len(reports) - len(valid)}, reports=reports)
        if drop_invalid and expected != fingerprint(reports):
            raise ImportRefused(
                _("Nothing was imported: the rows changed since your preview (someone registered or withdrew "
                  "meanwhile). Check the preview again."), reports=reports, code="changed")
        if not valid:
            raise ImportRefused(_("Nothing was imported: no row is valid."), reports=reports, code="empty")
        counts = {Registration.Status.REGISTERED: 0, Registration.Status.WAITLISTED: 0}
        for report in valid:
            try:
                by = (Registration.ConsentBy.GUARDIAN if needs_guardian(festival, report.details.birth_year)
                      else Registration.ConsentBy.PLAYER)
                registration = register(event=report.event, details=report.details, actor=actor, now=now,
                                        by_organiser=True, consent=Consent(by=by, how=Registration.ConsentHow.IMPORT))
            except ServiceError as error:
                # Checked above under lock, so this should not happen; if it does, the whole import is undone.
                raise ImportRefused(
                    _("Nothing was imported: row %(row)s: %(problem)s") % {"row": report.line, "problem": error.message},
                    reports=reports, code=error.code) from None
            counts[registration.status] += 1
        record(actor=actor, action="import.registrations", festival=festival,
               after={"rows": len(valid), "file": file_name, "dropped": len(reports) - len(valid),
                      "consent_held": True})
    return ImportResult(registered=counts[Registration.Status.REGISTERED],
                        waitlisted=counts[Registration.Status.WAITLISTED])
