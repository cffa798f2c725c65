"""An uploaded XLSX workbook's rows, read one at a time.

openpyxl holds a row whole while it reads it, and the shared strings whole, so the file is checked before
openpyxl sees it: the zip's unpacked size, then one pass over its XML that counts elements and cells and stops
at the first bound passed (a few hundred KB on disk can hold a million cells). That pass refuses any document
type declaration, entity or external reference in any part, where it meets it, before anything is expanded:
spreadsheet programs never write one, and nested entities behind a padded DTD turn 17 KB into gigabytes of
text ("billion laughs"). defusedxml's parser does the refusing. Then the active sheet is streamed (read-only
mode) without the size the sheet declares, which is the file's claim, not its content. Bounds on what the rows
hold (characters) are `reading`'s.
"""

import io
import zipfile
from collections.abc import Iterator
from xml.etree.ElementTree import ParseError

import openpyxl
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser
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


def xml_declarations_refused() -> ImportFileError:
    return ImportFileError(_("This workbook contains XML declarations (a DTD or entities) that spreadsheet programs "
                             "do not write, so it was not read. Open it in Excel and save it again as .xlsx."),
                           code="xml_declarations")


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
    """Every part's XML elements (all of them), cells (per part) and cells in a row, without keeping any; a
    DTD, an entity or an external reference anywhere refuses the file."""
    counter = _ElementCounter()
    for info in archive.infolist():
        counter.cells = counter.in_row = 0
        parser = DefusedXMLParser(target=counter, forbid_dtd=True, forbid_entities=True, forbid_external=True)
        with archive.open(info) as part:
            try:
                while chunk := part.read(CHUNK):
                    parser.feed(chunk)
                parser.close()
            except DefusedXmlException:
                raise xml_declarations_refused() from None
            except ParseError:
                continue  # not XML (a picture), or broken: openpyxl reads no cell from it either


class _ElementCounter:
    """The parser's target: counts as elements start and keeps nothing (no tree is built)."""

    def __init__(self):
        self.elements = self.cells = self.in_row = 0

    def start(self, tag, _attributes):
        self.elements += 1
        if self.elements > MAX_XLSX_ELEMENTS:
            raise _too_large()
        local = tag.rpartition("}")[2]
        if local == ROW:
            self.in_row = 0
        elif local == CELL:
            self.cells, self.in_row = self.cells + 1, self.in_row + 1
            if self.in_row > MAX_COLUMNS:
                raise too_wide()
            if self.cells > MAX_CELLS:
                raise too_many_cells()

    def close(self):
        return None


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
