"""An uploaded XLSX workbook's rows, read one at a time.

openpyxl holds a row whole while it reads it, and the shared strings whole, so the file is checked before
openpyxl sees it: the zip's unpacked size, then one pass over its XML that counts elements and cells and stops
at the first bound passed (a few hundred KB on disk can hold a million cells). Then the active sheet is
streamed (read-only mode) without the size the sheet declares, which is the file's claim, not its content.
Bounds on what the rows hold (characters) are `reading`'s.
"""

import io
import zipfile
from collections.abc import Iterator
from xml.parsers import expat

import openpyxl
from django.utils.translation import gettext as _

from .limits import (
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_XLSX_ELEMENTS,
    MAX_XLSX_UNPACKED_BYTES,
    ImportFileError,
    too_many_cells,
    too_wide,
)

# A sheet's row and cell elements (SpreadsheetML), whatever their namespace prefix.
ROW, CELL = "row", "c"
CHUNK = 64 * 1024


def _unreadable() -> ImportFileError:
    return ImportFileError(_("This file could not be read as an XLSX file."), code="unreadable")


def _too_large() -> ImportFileError:
    return ImportFileError(_("This spreadsheet is too large. Split it into files of at most %(rows)s rows.")
                           % {"rows": MAX_ROWS}, code="too_large")


def _check_container(content: bytes) -> None:
    if not zipfile.is_zipfile(io.BytesIO(content)):
        raise _unreadable()
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_XLSX_UNPACKED_BYTES:
                raise _too_large()
            _count_elements(archive)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError):
        raise _unreadable() from None


def _count_elements(archive: zipfile.ZipFile) -> None:
    """Every part's XML elements (all of them), cells (per part) and cells in a row, without keeping any."""
    elements = 0
    for info in archive.infolist():
        cells = in_row = 0

        def start(name, _attributes):
            nonlocal elements, cells, in_row
            elements += 1
            if elements > MAX_XLSX_ELEMENTS:
                raise _too_large()
            local = name.rpartition(" ")[2]
            if local == ROW:
                in_row = 0
            elif local == CELL:
                cells, in_row = cells + 1, in_row + 1
                if in_row > MAX_COLUMNS:
                    raise too_wide()
                if cells > MAX_CELLS:
                    raise too_many_cells()

        parser = expat.ParserCreate(namespace_separator=" ")
        parser.StartElementHandler = start
        with archive.open(info) as part:
            try:
                while chunk := part.read(CHUNK):
                    parser.Parse(chunk, False)
                parser.Parse(b"", True)
            except expat.ExpatError:
                continue  # not XML (a picture), or broken: openpyxl reads no cell from it either


def sheet_rows(content: bytes) -> Iterator[tuple]:
    """The active sheet's rows as tuples of cell values (formulas as their last computed value), from the
    first row on; a missing row is an empty tuple. Raises ImportFileError before reading an oversized file."""
    _check_container(content)
    try:
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except Exception:  # a broken file can fail deep inside openpyxl in many ways; all mean the same
        raise _unreadable() from None
    return _rows(book)


def _rows(book) -> Iterator[tuple]:
    try:
        sheet = book.active
        sheet.reset_dimensions()
        yield from sheet.iter_rows(values_only=True)
    except Exception:  # only openpyxl's errors: the caller's do not pass through a generator's frame
        raise _unreadable() from None
    finally:
        book.close()
