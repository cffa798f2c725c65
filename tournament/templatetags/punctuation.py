"""Punctuation that belongs to the language, not to the template: Chinese writes "標籤：值" and "甲、乙",
Korean and English "label: value" and "a, b". `{% colon %}` after a label, `names|joined` for a list."""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import pgettext

register = template.Library()


@register.simple_tag
def colon() -> str:
    return pgettext("after a label, before its value", ": ")


@register.simple_tag
def comma() -> str:
    return pgettext("between the items of a list", ", ")


@register.filter(is_safe=True)
def joined(items) -> str:
    """The items (escaped) with the language's list separator between them."""
    return mark_safe(conditional_escape(comma()).join(conditional_escape(item) for item in items))
