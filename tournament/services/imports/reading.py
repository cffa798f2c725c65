"""An uploaded CSV/XLSX file's bytes to plain rows of text, or one message saying why the file cannot be read.

Everything about the file as a file lives here: its format and size, the text encodings of Korean and Hong
Kong Excel, the zip-bomb guard for XLSX, header names in every language, blank and withdrawn rows. Nothing
here touches the database; whether a row makes sense for the festival is `validation`'s question.
"""

import datetime as dt
import io
import zipfile
from dataclasses import dataclass, field

import tablib
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from ...models import Registration
from ..errors import ServiceError
from .layout import COLUMN_LABELS, EXPORT_COLUMNS, FORMATS, FORMULA_STARTS, IMPORT_COLUMNS, header_key

MAX_FILE_BYTES = 2 * 1024 * 1024
# Real festivals have 64–500 players; at about 12 ms a row the import stays well inside a request.
MAX_ROWS = 2000
# An XLSX is a zip: 2 MB of it may unpack to gigabytes (a "zip bomb"). Real registration sheets of 5,000
# rows unpack to a few MB.
MAX_XLSX_UNPACKED_BYTES = 40 * 1024 * 1024
# Korean Excel writes CP949 (EUC-KR plus every other Hangul syllable), Hong Kong Excel Big5 (HKSCS). Many byte
# strings are valid in both, so when both decode, the Hangul decides: real Korean text uses the 2,350 common
# syllables of EUC-KR (KS X 1001) almost exclusively, Big5 bytes read as CP949 give rare syllables about
# every other character.
TEXT_ENCODINGS = ("utf-8-sig", "euc_kr", "cp949", "big5hkscs")
RARE_HANGUL_LIMIT = 0.2
ENCODING_NAMES = {"utf-8-sig": "UTF-8", "euc_kr": "EUC-KR", "big5hkscs": "Big5", "cp949": "CP949"}

REQUIRED_COLUMNS = ("name", "contact", "birth_year")

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
