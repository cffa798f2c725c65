"""What a registrations file looks like, the same in both directions: the formats, the columns and their
labels, how header and event names are compared, and the guard against spreadsheet formulas.

Reading and exporting share these, so a file the organiser exported can be imported again.
"""

import unicodedata

from django.utils.translation import gettext_lazy

FORMATS = ("csv", "xlsx")
# A cell starting with one of these is run as a formula by spreadsheet programs (CSV/formula injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# The guardian's columns are needed only on a child's row (services.consent.needs_guardian).
IMPORT_COLUMNS = ("event", "name", "contact", "birth_year", "affiliation", "ranking_id", "guardian_name",
                  "guardian_contact")
# The consent columns show what each registration agreed to (services.consent); an import declares its own.
EXPORT_COLUMNS = IMPORT_COLUMNS + ("status", "number", "checked_in_at", "registered_at", "consent_notice_version",
                                   "consented_at", "consent_by", "consent_how", "guardian_check",
                                   "guardian_checked_at", "guardian_checked_name")

COLUMN_LABELS = {
    "event": gettext_lazy("Event"),
    "name": gettext_lazy("Name"),
    "contact": gettext_lazy("E-mail or phone"),
    "birth_year": gettext_lazy("Birth year"),
    "affiliation": gettext_lazy("School or club"),
    "ranking_id": gettext_lazy("National ranking id"),
    "guardian_name": gettext_lazy("Parent's or guardian's name"),
    "guardian_contact": gettext_lazy("Parent's or guardian's e-mail or phone"),
    "status": gettext_lazy("Status"),
    "number": gettext_lazy("Player number"),
    "checked_in_at": gettext_lazy("Checked in at"),
    "registered_at": gettext_lazy("Registered at"),
    "consent_notice_version": gettext_lazy("Notice version agreed to"),
    "consented_at": gettext_lazy("Agreed at"),
    "consent_by": gettext_lazy("Agreed by"),
    "consent_how": gettext_lazy("How agreed"),
    # A child's guardian's agreement, as the organiser checked it (services.guardian).
    "guardian_check": gettext_lazy("Guardian's agreement checked"),
    "guardian_checked_at": gettext_lazy("Guardian agreed at"),
    "guardian_checked_name": gettext_lazy("Guardian who agreed"),
}


def header_key(value) -> str:
    """'Birth year', 'birth_year', ' 출생 연도 ' … compared without case, spaces and punctuation."""
    text = unicodedata.normalize("NFKC", str(value or "")).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def neutralise(value):
    """Export guard against formula injection (OWASP): text that a spreadsheet would run gets a leading '."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
