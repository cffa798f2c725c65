"""Settings that are short lists (games per round, ranking points, standings order, languages), kept as JSON.

Each field's `ListValidator` is the one place that says what a valid list is, with the message organisers
see; full_clean (the admin, model forms, the import) and the plain forms built from the field all use it.
Organisers still type the list as comma text ("100, 70, 50"): see `tournament.list_text`.
"""

from django.core import validators
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.deconstruct import deconstructible

from ..list_text import CommaListField, as_text, parse_list


@deconstructible
class ListValidator:
    """A list of whole numbers from `low` to `high`, or of codes that `choices()` lists; at least `least` items.

    `choices` is a function so that a list read from the settings is read when checking, not frozen into a
    migration. One `message` for every fault, with the allowed codes as %(codes)s."""

    def __init__(self, message, *, low=None, high=None, choices=None, least=0):
        self.message, self.low, self.high, self.choices, self.least = message, low, high, choices, least

    @property
    def numbers(self) -> bool:
        return self.choices is None

    def allows(self, item) -> bool:
        if self.numbers:
            return type(item) is int and self.low <= item <= self.high  # not bool, not 3.0
        return isinstance(item, str) and item in self.choices()

    def error(self) -> ValidationError:
        # Not code "invalid": a model field puts its own "invalid" message (JSONField's "not JSON") in its place.
        codes = "" if self.numbers else ", ".join(self.choices())
        return ValidationError(self.message, code="invalid_list", params={"codes": codes})

    def __call__(self, value) -> None:
        if not isinstance(value, list) or len(value) < self.least or not all(self.allows(v) for v in value):
            raise self.error()

    def __eq__(self, other) -> bool:
        return isinstance(other, ListValidator) and self.deconstruct() == other.deconstruct()


class ListField(models.JSONField):
    """A JSON list checked by its ListValidator and typed as comma text in forms.

    `max_length` caps the comma text, as the text column it replaced did (and the reverse migration needs)."""

    @property
    def rule(self) -> ListValidator:
        return next(v for v in self.validators if isinstance(v, ListValidator))

    def parse(self, text: str) -> list:
        """The list from its comma text (the export file writes some lists so); the field's error if unreadable."""
        return parse_list(text, self.rule)

    def validate(self, value, model_instance) -> None:
        super().validate(value, model_instance)
        if self.max_length is not None and isinstance(value, list):
            validators.MaxLengthValidator(self.max_length)(as_text(value))

    def formfield(self, **kwargs):
        # Not JSONField's form field: organisers type "3,3,3", not JSON. No hidden initial value either (a
        # callable default would add one), so the page is as it was with a text column.
        defaults = {"form_class": CommaListField, "rule": self.rule, "max_length": self.max_length,
                    "show_hidden_initial": False}
        return models.Field.formfield(self, **{**defaults, **kwargs})
