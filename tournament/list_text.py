"""A list typed as comma text: organisers write "100, 70, 50" in one box, the code gets [100, 70, 50].

The model side (what a valid list is) is `tournament.models.fields.ListField` and its `ListValidator`; this
module only reads and writes the text, so the admin, the organiser's pages, the import and the export all
read it the same way. `CommaListField` is the text box every form gets for a ListField (its `formfield`).
Here, not in tournament/forms, because the models and the export read the text too.
"""

import re
import unicodedata

from django import forms

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
