"""An uploaded CSV/XLSX file's bytes to plain rows of text, or one message saying why the file cannot be read.

Everything about the file as a file lives here: its format and size, the text encodings of Korean and Hong
Kong Excel, header names in every language, blank and withdrawn rows, and the bounds on what it may hold
(`limits`), counted row by row as it is read (the XLSX's own guards are in `workbook`). Nothing here touches
the database; whether a row makes sense for the festival is `validation`'s question.
"""

import csv
import datetime as dt
import io
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from ...models import Registration
from .layout import COLUMN_LABELS, EXPORT_COLUMNS, FORMATS, FORMULA_STARTS, IMPORT_COLUMNS, header_key
from .limits import (
    MAX_CELL_CHARS,
    MAX_CELLS,
    MAX_CHARS,
    MAX_COLUMNS,
    MAX_FILE_BYTES,
    MAX_ROWS,
    ImportFileError,
    long_cell,
    too_many_cells,
    too_many_chars,
    too_many_rows,
    too_wide,
)
from .workbook import sheet_rows

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
    "guardian_name": ("guardian", "parent", "보호자", "보호자이름", "보호자성명", "법정대리인", "家長", "監護人",
                      "家長姓名", "監護人姓名"),
    "guardian_contact": ("guardian contact", "parent contact", "보호자연락처", "보호자전화", "법정대리인연락처",
                         "家長聯絡電話", "家長電話", "監護人聯絡電話", "監護人電話"),
    "status": ("상태", "狀態"),
}


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


# Earlier catalogues called a withdrawn registration this; files exported then still say so.
EARLIER_WITHDRAWN_LABELS = ("已退賽",)


def _withdrawn_words() -> set[str]:
    words = {header_key(Registration.Status.WITHDRAWN.value)} | {header_key(w) for w in EARLIER_WITHDRAWN_LABELS}
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
    """Rows as plain lists of text, JSON-safe so the preview can keep them (`pending`).

    Each row is [row number in the sheet (header = 1), event, name, contact, birth_year, affiliation, ranking_id,
    guardian_name, guardian_contact].
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


def _csv_rows(content: bytes) -> tuple[Iterator[list], str]:
    text, encoding = decode_text(content)
    if not text.strip():
        raise ImportFileError(_("The file is empty."), code="empty")
    return _csv_lines(text), encoding


def _csv_lines(text: str) -> Iterator[list]:
    """Every row that is not a blank line; a row wider than the first (the header) is refused."""
    width = None
    try:
        for cells in csv.reader(io.StringIO(text)):
            if not cells:
                continue
            if width is None:
                width = len(cells)
            elif len(cells) > width:
                raise ImportFileError(_("Some rows have more cells than the header row has columns. Remove the "
                                        "extra cells and try again."), code="dimensions")
            yield cells
    except csv.Error:
        raise ImportFileError(_("This file could not be read as a %(format)s file.") % {"format": "CSV"},
                              code="unreadable") from None


class _Tally:
    """What the rows read so far hold; refuses the file at the first bound passed, before reading on."""

    def __init__(self):
        self.rows = self.cells = self.chars = 0

    def texts(self, number: int, values) -> list[str]:
        """The row's cells as text, counted as they are made."""
        self.rows += 1
        if self.rows > MAX_ROWS + 1:  # the header and MAX_ROWS rows of players
            raise too_many_rows()
        if len(values) > MAX_COLUMNS:
            raise too_wide()
        self.cells += len(values)
        if self.cells > MAX_CELLS:
            raise too_many_cells()
        texts = []
        for value in values:
            text = cell_text(value)
            if len(text) > MAX_CELL_CHARS:
                raise long_cell(number)
            self.chars += len(text)
            if self.chars > MAX_CHARS:
                raise too_many_chars()
            texts.append(text)
        return texts


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
    rows, encoding = _csv_rows(content) if fmt == "csv" else (sheet_rows(content), "")
    tally, header, header_line = _Tally(), [], 0
    for header_line, values in enumerate(rows, start=1):
        header = tally.texts(header_line, values)
        if any(header):
            break  # the header is the first row that is not blank: a sheet may start lower down
    positions, ignored = _column_positions(header)
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
    withdrawn = _withdrawn_words()
    parsed = ParsedFile(rows=[], encoding=encoding, ignored_columns=ignored)
    for number, values in enumerate(rows, start=header_line + 1):
        texts = tally.texts(number, values)
        cells = {column: texts[index] if index < len(texts) else "" for column, index in positions.items()}
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
