"""What several forms read the same way.

- A list typed as comma text: organisers write "100, 70, 50" in one box, the code gets [100, 70, 50]. The model
  side (what a valid list is) is `tournament.models.fields.ListField`; this module only reads and writes the
  text, so the admin, the organiser's pages, the import and the export all read it the same way.
- A name someone can see (`validate_visible_name`): every name the app takes — a player's, a guardian's, a
  festival's, an event's, a timetable slot's, an account's — has at least one character that shows.
"""

import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

NUMBER = re.compile(r"[0-9]{1,9}")  # longer is out of any field's range; int() of 5000 digits would fail


def as_text(values) -> str:
    """[100, 70, 50] → "100,70,50": how the pages and the export file write a list."""
    return ",".join(str(value) for value in values)


def parse_list(text: str, rule) -> list:
    """" 100, 70,50" → [100, 70, 50] (or codes, when `rule` is not about numbers); blank text → [].

    Full-width digits and commas (typed with a Korean or Chinese keyboard) count as ordinary ones. Every part
    must be there ("1,,2" and "10," are refused) and numbers are plain digits: anything else raises the
    field's one error, `rule.error()` (a `tournament.models.fields.ListValidator`). Values are not checked here."""
    parts = [part.strip() for part in unicodedata.normalize("NFKC", text or "").split(",")]
    if parts == [""]:
        return []
    if "" in parts or (rule.numbers and not all(NUMBER.fullmatch(part) for part in parts)):
        raise rule.error()
    return [int(part) for part in parts] if rule.numbers else parts


class CommaListField(forms.Field):
    """A text box whose cleaned value is a list checked by `rule` (a `tournament.models.fields.ListValidator`)."""

    widget = forms.TextInput

    def __init__(self, *, rule, max_length=None, **kwargs):
        self.rule, self.max_length = rule, max_length
        super().__init__(validators=[rule], **kwargs)

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        if self.max_length is not None and not widget.is_hidden:
            attrs["maxlength"] = str(self.max_length)
        return attrs

    def prepare_value(self, value):
        return as_text(value) if isinstance(value, list | tuple) else value

    def to_python(self, value) -> list:
        if isinstance(value, list):
            return value
        text = str(value or "").strip()
        if self.max_length is not None and len(text) > self.max_length:
            raise self.rule.error()
        return parse_list(text, self.rule)


# Characters that show nothing, by Unicode category: spaces and separators (Z*), control, format (zero-width
# joiners, bidi marks, tag characters), surrogate, private-use and unassigned code points (C*), and combining
# marks (M*), which show only on a letter before them.
INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Mc", "Me"})
# Letters and symbols drawn as blank space, which their categories do not tell: the Hangul fillers (category Lo,
# Unicode's "default ignorable" letters) and the blank Braille pattern (So).
BLANK_CHARACTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_invisible(ch: str) -> bool:
    return ch in BLANK_CHARACTERS or ch.isspace() or unicodedata.category(ch) in INVISIBLE_CATEGORIES


def validate_visible_name(value: str) -> None:
    """Refuses a name (not empty) whose every character is invisible; raises ValidationError code "invisible".
    For forms (a field's validator) and for services that make names (accounts): catch and re-raise as theirs."""
    if value and all(is_invisible(ch) for ch in value):
        raise ValidationError(_("This name is made of only blank or invisible characters. Please type a name "
                                "that can be read."), code="invisible")
