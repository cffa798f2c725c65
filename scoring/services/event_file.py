"""Reading a "rummikub-event/1" export (docs/export.md) back, value by value.

Every value is fetched through `Node.get` with the kind it must have, so a malformed or foreign file stops
at the first wrong value with a message that names where it is ("stages[1].games[0].tables[2].seats[3].score:
expected a number"). Nothing here touches the database.
"""

import datetime as dt
import json
import re
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

from tournament.services.errors import ServiceError

from ..exports import SCHEMA

# 500 players play about 1,000 sheets in a day; their export is about 5 MB.
MAX_FILE_BYTES = 50 * 1024 * 1024
MISSING = object()
# What no database column or spreadsheet cell can hold: NUL and the other control characters (tabs and line
# breaks are text), and halves of UTF-16 surrogate pairs, which JSON can write but are no characters at all.
UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class ImportRefused(ServiceError):
    """The file cannot be imported; nothing was written. `message` says why (translated)."""


def refuse(where: str, problem: str):
    raise ImportRefused(_("The file does not fit rummikub-event/1 at %(where)s: %(problem)s")
                        % {"where": where, "problem": problem}, code="invalid")


def _whole(value, where):
    # Beyond 64 bits no database column holds it (SQLite would not even say so with a database error).
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63:
        return value
    refuse(where, _("expected a whole number"))


def _text(value, where):
    if isinstance(value, str):
        unstorable = UNSTORABLE.search(value)
        if unstorable is None:
            return value
        refuse(where, _("contains a control character (U+%(code)s), which cannot be stored")
               % {"code": f"{ord(unstorable.group()):04X}"})
    refuse(where, _("expected text"))


def _flag(value, where):
    if isinstance(value, bool):
        return value
    refuse(where, _("expected true or false"))


def _number(value, where):
    if isinstance(value, int | Decimal | float) and not isinstance(value, bool):
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            number = None
        if number is not None and number.is_finite():
            return number
    refuse(where, _("expected a number"))


def _moment(value, where):
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value)
            moment.astimezone(dt.UTC)  # 0001-01-01T00:00+14:00 has no UTC time
        except (ValueError, TypeError, OverflowError):
            moment = None
        if moment is not None and moment.tzinfo is not None:
            return moment
    refuse(where, _("expected a date and time with its UTC offset"))


def _day(value, where):
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    refuse(where, _("expected a date (YYYY-MM-DD)"))


def _list(value, where):
    if isinstance(value, list):
        return value
    refuse(where, _("expected a list"))


def _object(value, where):
    if isinstance(value, dict):
        return value
    refuse(where, _("expected an object"))


KINDS = {"int": _whole, "text": _text, "bool": _flag, "number": _number, "moment": _moment, "day": _day,
         "list": _list, "object": _object}


class Node:
    """A JSON object of the file and where it is, for messages."""

    def __init__(self, value, where: str):
        self.value = _object(value, where or _("the file"))
        self.where = where

    def _path(self, key) -> str:
        return f"{self.where}.{key}" if self.where else str(key)

    def has(self, key: str) -> bool:
        return key in self.value

    def get(self, key: str, kind: str, *, null: bool = False, choices=None, default=MISSING):
        where = self._path(key)
        if key not in self.value:
            if default is not MISSING:
                return default
            refuse(where, _("missing"))
        value = self.value[key]
        if value is None:
            if null:
                return None
            refuse(where, _("must not be empty (null)"))
        value = KINDS[kind](value, where)
        if choices is not None and value not in choices:
            refuse(where, _("expected one of: %(choices)s") % {"choices": ", ".join(map(str, choices))})
        return value

    def nodes(self, key: str) -> list["Node"]:
        """A list of objects."""
        where = self._path(key)
        return [Node(item, f"{where}[{index}]") for index, item in enumerate(self.get(key, "list"))]

    def values(self, key: str, kind: str) -> list:
        """A list of plain values of one kind."""
        where = self._path(key)
        return [KINDS[kind](item, f"{where}[{index}]") for index, item in enumerate(self.get(key, "list"))]


def load(document) -> Node:
    """The file's top object, once it is JSON and says it is a rummikub-event/1 export."""
    if isinstance(document, bytes | bytearray):
        if len(document) > MAX_FILE_BYTES:
            raise ImportRefused(_("The file is too large (more than %(mb)s MB).")
                                % {"mb": MAX_FILE_BYTES // (1024 * 1024)}, code="too_large")
        try:
            document = document.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ImportRefused(_("The file is not UTF-8 text, so it is not an event export."),
                                code="not_json") from None
    if isinstance(document, str):
        try:
            document = json.loads(document, parse_float=Decimal)
        except (ValueError, RecursionError) as error:
            raise ImportRefused(_("The file is not JSON (%(error)s), so it is not an event export.")
                                % {"error": error}, code="not_json") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise ImportRefused(_("The file is not an event export: it does not say \"schema\": \"%(schema)s\".")
                            % {"schema": SCHEMA}, code="foreign")
    return Node(document, "")
