"""The organiser's import and export of registrations (issue 3).

Reading a file (CSV or XLSX, through tablib) and checking its rows are plain functions; nothing touches the
database until `import_registrations`, which re-checks every row under locks and registers them through
`services.registration.register` — the same rules as the public form (R9: capacity → waiting list, no two
overlapping events, no duplicate) — in ONE transaction: every (remaining valid) row or none.
"""

import datetime as dt
import hashlib
import io
import unicodedata
import zipfile
from dataclasses import dataclass, field

import tablib
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# The public form holds the field rules (name, contact, birth year …); one definition for both ways in.
from ..forms.registration import RegistrationForm
from ..models import Event, Registration
from ..models.registration import contact_key, name_key
from .audit import Actor, record
from .errors import ServiceError
from .locking import lock_festival_events
from .registration import PlayerDetails, register

MAX_FILE_BYTES = 2 * 1024 * 1024
# Real festivals have 64–500 players; at about 12 ms a row the import stays well inside a request.
MAX_ROWS = 2000
# An XLSX is a zip: 2 MB of it may unpack to gigabytes (a "zip bomb"). Real registration sheets of 5,000
# rows unpack to a few MB.
MAX_XLSX_UNPACKED_BYTES = 40 * 1024 * 1024
FORMATS = ("csv", "xlsx")
# Korean Excel writes CP949 (EUC-KR plus every other Hangul syllable), Hong Kong Excel Big5 (HKSCS). Many byte
# strings are valid in both, so when both decode, the Hangul decides: real Korean text uses the 2,350 common
# syllables of EUC-KR (KS X 1001) almost exclusively, Big5 bytes read as CP949 give rare syllables about
# every other character.
TEXT_ENCODINGS = ("utf-8-sig", "euc_kr", "cp949", "big5hkscs")
RARE_HANGUL_LIMIT = 0.2
ENCODING_NAMES = {"utf-8-sig": "UTF-8", "euc_kr": "EUC-KR", "big5hkscs": "Big5", "cp949": "CP949"}
# A cell starting with one of these is run as a formula by spreadsheet programs (CSV/formula injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

IMPORT_COLUMNS = ("event", "name", "contact", "birth_year", "affiliation", "ranking_id")
EXPORT_COLUMNS = IMPORT_COLUMNS + ("status", "number", "checked_in_at", "registered_at")
REQUIRED_COLUMNS = ("name", "contact", "birth_year")

COLUMN_LABELS = {
    "event": gettext_lazy("Event"),
    "name": gettext_lazy("Name"),
    "contact": gettext_lazy("E-mail or phone"),
    "birth_year": gettext_lazy("Birth year"),
    "affiliation": gettext_lazy("School or club"),
    "ranking_id": gettext_lazy("National ranking id"),
    "status": gettext_lazy("Status"),
    "number": gettext_lazy("Player number"),
    "checked_in_at": gettext_lazy("Checked in at"),
    "registered_at": gettext_lazy("Registered at"),
}

# Header names organisers type in Korean and Chinese sheets (besides the English codes and the translated
# export labels, which are accepted in every language of the site).
HEADER_ALIASES = {
    "event": ("종목", "대회종목", "경기", "項目", "比賽項目", "賽事", "組別"),
    "name": ("이름", "성명", "선수명", "姓名", "名字", "參賽者"),
    "contact": ("email", "e-mail", "phone", "연락처", "전화", "전화번호", "이메일", "聯絡", "聯絡方式",
                "聯絡電話", "電話", "電郵", "電子郵件"),
    "birth_year": ("born", "출생연도", "출생년도", "생년", "出生年份", "出生年"),
    "affiliation": ("school", "club", "소속", "학교", "所屬", "學校", "學校或團體", "學校團體"),
    "ranking_id": ("ranking", "랭킹id", "랭킹번호", "排名編號", "排名"),
    "status": ("상태", "狀態"),
}


class ImportFileError(ServiceError):
    """The file as a whole cannot be read (encoding, format, size, columns)."""


class ImportRefused(ServiceError):
    """The confirm step found rows that are not (or no longer) valid; `reports` says which and why."""

    def __init__(self, message, *, reports, code="invalid"):
        super().__init__(message, code=code)
        self.reports = reports


def header_key(value) -> str:
    """'Birth year', 'birth_year', ' 출생 연도 ' … compared without case, spaces and punctuation."""
    text = unicodedata.normalize("NFKC", str(value or "")).casefold()
    return "".join(ch for ch in text if ch.isalnum())


def _header_lookup() -> dict[str, str]:
    lookup = {}
    for column, aliases in HEADER_ALIASES.items():
        for alias in aliases:
            lookup[header_key(alias)] = column
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            for column, label in COLUMN_LABELS.items():
                lookup.setdefault(header_key(str(label)), column)
    for column in EXPORT_COLUMNS:
        lookup[header_key(column)] = column
    return lookup


def _withdrawn_words() -> set[str]:
    words = {header_key(Registration.Status.WITHDRAWN.value)}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            words.add(header_key(str(Registration.Status.WITHDRAWN.label)))
    return words


def cell_text(value) -> str:
    """A cell as text: spreadsheet numbers without '.0', and the export's formula guard (') removed."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    text = str(value).strip()
    if len(text) > 1 and text[0] == "'" and text[1] in FORMULA_STARTS:
        text = text[1:]
    return text


def neutralise(value):
    """Export guard against formula injection (OWASP): text that a spreadsheet would run gets a leading '."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


# --- reading a file -------------------------------------------------------------------------------------


@dataclass
class ParsedFile:
    """Rows as plain lists of text, JSON-safe so the preview can keep them in the session.

    Each row is [row number in the sheet (header = 1), event, name, contact, birth_year, affiliation, ranking_id].
    """

    rows: list[list]
    encoding: str = ""
    ignored_columns: list[str] = field(default_factory=list)
    skipped_withdrawn: int = 0


def file_format(name: str) -> str:
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension in FORMATS:
        return extension
    if extension == "xls":
        raise ImportFileError(_("Old Excel files (.xls) cannot be read. In Excel, save the sheet as .xlsx or CSV."),
                              code="xls")
    raise ImportFileError(_("Please upload a .csv or .xlsx file."), code="extension")


def _rare_hangul_share(text: str) -> float:
    syllables = [ch for ch in text if "\uac00" <= ch <= "\ud7a3"]
    if not syllables:
        return 1.0
    rare = sum(1 for ch in syllables if not _encodes(ch, "euc_kr"))
    return rare / len(syllables)


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def decode_text(content: bytes) -> tuple[str, str]:
    """The text of a CSV file and the encoding it was in (UTF-8 with or without BOM, EUC-KR/CP949, Big5)."""
    decoded = {}
    for encoding in TEXT_ENCODINGS:
        try:
            decoded[encoding] = content.decode(encoding)
        except UnicodeDecodeError:
            continue
        if encoding in ("utf-8-sig", "euc_kr"):
            break  # unambiguous enough: a file in another encoding practically never decodes as these
    if "cp949" in decoded and "big5hkscs" in decoded:
        if _rare_hangul_share(decoded["cp949"]) > RARE_HANGUL_LIMIT:
            del decoded["cp949"]
        else:
            del decoded["big5hkscs"]
    for encoding, text in decoded.items():
        if "\x00" not in text:  # NUL: binary data, or UTF-16; neither is a CSV we can read
            return text, encoding
    raise ImportFileError(
        _("This file is not a readable CSV text file. Save it from Excel as “CSV UTF-8” and try again."),
        code="encoding",
    )


def _load_dataset(*, fmt: str, content: bytes) -> tuple[tablib.Dataset, str]:
    if fmt == "csv":
        text, encoding = decode_text(content)
        if not text.strip():
            raise ImportFileError(_("The file is empty."), code="empty")
        loader, source = "csv", text
    else:
        encoding = ""
        _check_xlsx_container(content)
        loader, source = "xlsx", io.BytesIO(content)
    try:
        dataset = tablib.Dataset().load(source, format=loader)
    except tablib.InvalidDimensions:
        raise ImportFileError(
            _("Some rows have more cells than the header row has columns. Remove the extra cells and try again."),
            code="dimensions",
        ) from None
    except Exception:  # a broken file can fail deep inside csv/openpyxl in many ways; all mean the same
        raise ImportFileError(_("This file could not be read as a %(format)s file.") % {"format": fmt.upper()},
                              code="unreadable") from None
    return dataset, encoding


def _check_xlsx_container(content: bytes) -> None:
    unreadable = ImportFileError(_("This file could not be read as an XLSX file."), code="unreadable")
    if not zipfile.is_zipfile(io.BytesIO(content)):
        raise unreadable
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise unreadable from None
    if unpacked > MAX_XLSX_UNPACKED_BYTES:
        raise ImportFileError(_("This spreadsheet is too large. Split it into files of at most %(rows)s rows.")
                              % {"rows": MAX_ROWS}, code="too_large")


def _column_positions(headers) -> tuple[dict[str, int], list[str]]:
    lookup = _header_lookup()
    positions, ignored = {}, []
    for index, header in enumerate(headers or []):
        column = lookup.get(header_key(header))
        if column is None:
            if cell_text(header):
                ignored.append(cell_text(header))
            continue
        if column in positions:
            raise ImportFileError(_("The column “%(column)s” appears twice.") % {"column": cell_text(header)},
                                  code="columns")
        positions[column] = index
    return positions, ignored


def read_registrations_file(*, name: str, content: bytes, default_event: str = "") -> ParsedFile:
    """Read an uploaded CSV/XLSX into rows of text. Raises ImportFileError with a message for the organiser.

    `default_event` (an event slug) fills the event of rows that have none.
    """
    fmt = file_format(name)
    if len(content) > MAX_FILE_BYTES:
        raise ImportFileError(_("The file is larger than 2 MB. Split it into smaller files."), code="too_large")
    if not content:
        raise ImportFileError(_("The file is empty."), code="empty")
    dataset, encoding = _load_dataset(fmt=fmt, content=content)
    positions, ignored = _column_positions(dataset.headers)
    missing = [column for column in REQUIRED_COLUMNS if column not in positions]
    if "event" not in positions and not default_event:
        missing.insert(0, "event")
    if missing:
        raise ImportFileError(
            _("The file has no column for: %(missing)s. The first row must name the columns: %(expected)s.")
            % {
                "missing": ", ".join(str(COLUMN_LABELS[column]) for column in missing),
                "expected": ", ".join(IMPORT_COLUMNS),
            },
            code="columns",
        )
    if dataset.height > MAX_ROWS:
        raise ImportFileError(_("The file has %(rows)s rows; at most %(limit)s can be imported at once.")
                              % {"rows": dataset.height, "limit": MAX_ROWS}, code="too_many_rows")
    withdrawn = _withdrawn_words()
    parsed = ParsedFile(rows=[], encoding=encoding, ignored_columns=ignored)
    for number, values in enumerate(dataset, start=2):
        cells = {column: cell_text(values[index]) for column, index in positions.items()}
        if not any(cells.values()):
            continue  # blank lines at the end of a sheet
        if header_key(cells.get("status", "")) in withdrawn:
            # An export lists withdrawn registrations too; importing them would enter them again.
            parsed.skipped_withdrawn += 1
            continue
        parsed.rows.append([number, cells.get("event") or default_event]
                           + [cells.get(column, "") for column in IMPORT_COLUMNS[1:]])
    if not parsed.rows and not parsed.skipped_withdrawn:
        raise ImportFileError(_("The file has a header row but no registrations."), code="no_rows")
    return parsed


# --- checking the rows ------------------------------------------------------------------------------------


@dataclass
class RowReport:
    line: int
    values: dict
    event: Event | None = None
    details: PlayerDetails | None = None
    problems: list[str] = field(default_factory=list)
    # What importing now would give: "registered" (a place) or "waitlisted".
    outcome: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _resolve_events(festival) -> tuple[dict, dict, dict]:
    events = list(festival.events.all())
    by_slug = {event.slug: event for event in events}
    by_name: dict[str, list[Event]] = {}
    for event in events:
        by_name.setdefault(header_key(event.name), []).append(event)
    return by_slug, by_name, {event.pk: event for event in events}


def _find_event(text: str, by_slug: dict, by_name: dict) -> tuple[Event | None, str]:
    if not text:
        return None, _("No event given.")
    if text in by_slug:
        return by_slug[text], ""
    candidates = by_name.get(header_key(text), [])
    if len(candidates) == 1:
        return candidates[0], ""
    if candidates:
        return None, _("Several events are called “%(event)s”; use the event's short name (%(slugs)s).") % {
            "event": text, "slugs": ", ".join(event.slug for event in candidates)}
    return None, _("Unknown event “%(event)s”.") % {"event": text}


def _field_problems(values: dict) -> tuple[PlayerDetails | None, list[str]]:
    """The public registration form's rules for each field, so imported players meet the same standard."""
    form = RegistrationForm(data=values)
    problems = []
    if values["name"].startswith(FORMULA_STARTS):
        problems.append(_("Name: a name cannot start with =, +, - or @ (it looks like a spreadsheet formula)."))
    if not form.is_valid():
        for name, errors in form.errors.items():
            label = form.fields[name].label if name in form.fields else ""
            problems.extend(f"{label}: {error}" if label else str(error) for error in errors)
    if problems:
        return None, problems
    return form.player_details(), []


def validate_rows(*, festival, rows: list[list]) -> list[RowReport]:
    """Every row's problems, in a constant number of queries.

    Problems: fields (missing name, bad contact, birth year outside 1900..this year, too long), unknown event,
    duplicate (earlier in the file, or already registered) and R9 time clashes (earlier in the file, or with
    the person's current registrations). A row is compared only with earlier rows that are valid, so the valid
    rows together can always be imported, and dropping the bad ones never makes a good one bad.
    """
    by_slug, by_name, by_pk = _resolve_events(festival)
    active = (
        Registration.objects.filter(event__festival=festival, status__in=Registration.ACTIVE)
        .values_list("player__name_key", "player__contact_key", "event_id")
    )
    entered: dict[tuple, list[tuple[Event, str]]] = {}  # person → events they are (or will be) in, and where
    for person_name, person_contact, event_id in active:
        entered.setdefault((person_name, person_contact), []).append((by_pk[event_id], ""))
    taken = dict(
        festival.events.annotate(
            taken=Count("registrations", filter=Q(registrations__status=Registration.Status.REGISTERED))
        ).values_list("pk", "taken")
    )

    reports = []
    for line, *cells in rows:
        values = dict(zip(IMPORT_COLUMNS, cells, strict=True))
        report = RowReport(line=line, values=values)
        reports.append(report)
        report.event, event_problem = _find_event(values["event"], by_slug, by_name)
        report.details, report.problems = _field_problems(values)
        if event_problem:
            report.problems.insert(0, event_problem)
        if not report.ok:
            continue
        person = (name_key(report.details.name), contact_key(report.details.contact))
        for other, where in entered.get(person, []):
            if other.pk == report.event.pk:
                report.problems.append(
                    _("Same person as row %(row)s for this event.") % {"row": where} if where
                    else _("Already registered for this event.")
                )
            elif other.overlaps(report.event):
                clash = {"event": other.name, "row": where}
                report.problems.append(
                    _("Runs at the same time as “%(event)s” (row %(row)s); a player cannot enter both (R9).") % clash
                    if where else
                    _("Already entered in “%(event)s”, which runs at the same time (R9).") % clash
                )
        if not report.ok:
            continue
        entered.setdefault(person, []).append((report.event, str(line)))
        places_left = report.event.capacity - taken.get(report.event.pk, 0)
        report.outcome = Registration.Status.REGISTERED if places_left > 0 else Registration.Status.WAITLISTED
        taken[report.event.pk] = taken.get(report.event.pk, 0) + 1
    return reports


def fingerprint(reports: list[RowReport]) -> str:
    """Which rows were valid when the organiser looked: the confirm step imports exactly those or nothing."""
    valid = ",".join(str(report.line) for report in reports if report.ok)
    return hashlib.sha256(valid.encode()).hexdigest()[:32]


# --- the import itself -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    registered: int
    waitlisted: int

    @property
    def total(self) -> int:
        return self.registered + self.waitlisted


def import_registrations(
    *, festival, rows: list[list], actor: Actor, file_name: str, drop_invalid: bool = False,
    expected: str = "", now=None,
) -> ImportResult:
    """Register every row, or — when the organiser chose to drop the bad ones — every valid row; else nothing.

    Re-checks every row under the festival's event locks (the state may have changed since the preview). With
    `drop_invalid`, `expected` is the fingerprint of the preview the organiser saw: if other rows are valid
    now, nothing is imported and the organiser looks again.
    """
    now = now or timezone.now()
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
                registration = register(event=report.event, details=report.details, actor=actor, now=now,
                                        by_organiser=True)
            except ServiceError as error:
                # Checked above under lock, so this should not happen; if it does, the whole import is undone.
                raise ImportRefused(
                    _("Nothing was imported: row %(row)s: %(problem)s") % {"row": report.line, "problem": error.message},
                    reports=reports, code=error.code) from None
            counts[registration.status] += 1
        record(actor=actor, action="import.registrations", festival=festival,
               after={"rows": len(valid), "file": file_name, "dropped": len(reports) - len(valid)})
    return ImportResult(registered=counts[Registration.Status.REGISTERED],
                        waitlisted=counts[Registration.Status.WAITLISTED])


# --- export ----------------------------------------------------------------------------------------------

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
            registration.event.slug, player.name, player.contact, player.birth_year, player.affiliation,
            player.ranking_id, str(registration.get_status_display()), registration.number or "",
            _local(registration.checked_in_at, tzinfo), _local(registration.created_at, tzinfo),
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
