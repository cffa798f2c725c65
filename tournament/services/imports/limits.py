"""What one uploaded registrations file may hold, and the error that refuses a file as a whole.

The bounds are on content, not only on bytes: a 30 KB spreadsheet whose cells all point to one long shared
string unpacks to hundreds of MB of text. Reading stops at the first bound passed, so a refused file costs
milliseconds and a few MB whatever it claims to hold. Real festivals have 64–500 players; a registrations
sheet has about ten columns of a few dozen characters.
"""

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from ..errors import ServiceError

MAX_FILE_BYTES = 2 * 1024 * 1024
# At about 12 ms a row the import stays well inside a request.
MAX_ROWS = 2000
MAX_CELLS = 40_000  # 2,000 rows of 20 columns
MAX_COLUMNS = 200  # cells in one row, empty ones before the last too
MAX_CELL_CHARS = 1000  # the longest field, the school or club, has 200
MAX_CHARS = 1_000_000  # 2,000 rows of 500 characters
# An XLSX is a zip: 2 MB of it may unpack to gigabytes (a "zip bomb"). Real registration sheets of 2,000
# rows unpack to a few MB. openpyxl holds the shared strings whole, so this also bounds their memory.
MAX_XLSX_UNPACKED_BYTES = 20 * 1024 * 1024
# XML elements in all of a workbook's parts: a sheet of 2,000 rows and 10 columns has about 45,000 and its
# shared strings, styles and theme a few thousand more.
MAX_XLSX_ELEMENTS = 150_000


class ImportFileError(ServiceError):
    """The file as a whole cannot be read (encoding, format, size, columns, content beyond a bound)."""


def grouped(number: int) -> str:
    return number_format(number, force_grouping=True)


def too_many_cells() -> ImportFileError:
    return ImportFileError(
        _("The file has more than %(limit)s cells. Delete the columns the import does not need, or split the "
          "file.") % {"limit": grouped(MAX_CELLS)}, code="too_many_cells")


def too_wide() -> ImportFileError:
    return ImportFileError(_("A row of the file is wider than %(limit)s columns. Delete the columns the import "
                             "does not need.") % {"limit": grouped(MAX_COLUMNS)}, code="too_wide")


def too_many_rows() -> ImportFileError:
    return ImportFileError(_("The file has more than %(limit)s rows; at most %(limit)s can be imported at once.")
                           % {"limit": grouped(MAX_ROWS)}, code="too_many_rows")


def long_cell(row: int) -> ImportFileError:
    return ImportFileError(
        _("Row %(row)s has a cell of more than %(limit)s characters; no registration needs that many. Check the "
          "file.") % {"row": row, "limit": grouped(MAX_CELL_CHARS)}, code="long_cell")


def too_many_chars() -> ImportFileError:
    return ImportFileError(_("The file holds more than %(limit)s characters. Split it into smaller files.")
                           % {"limit": grouped(MAX_CHARS)}, code="too_many_chars")
