"""Punctuation that belongs to the language, not to the template: Chinese writes "標籤：值", "甲、乙", "公開賽
（12月3日）" and runs its sentences on; Korean and English write "label: value", "a, b", "Open (3 Dec)" and put a
space between sentences. `{% colon %}` after a label, `names|joined` for a list, `aside|bracketed` after a word,
`{% dash %}` before what is said of a thing, `{% full_stop %}` after a sentence built from pieces,
`{% sentence_space %}` between two translated sentences."""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, pgettext

register = template.Library()

# Languages that write no space between sentences. A catalogue cannot say so: gettext reads an empty
# translation as "not translated" and shows the English space.
RUN_ON_SENTENCES = ("zh",)


@register.simple_tag
def colon() -> str:
    return pgettext("after a label, before its value", ": ")


@register.simple_tag
def full_stop() -> str:
    """After a sentence the template builds from pieces."""
    return pgettext("at the end of a sentence", ".")


@register.simple_tag
def dash() -> str:
    """Between a thing and what is said of it: " — " in English and Korean, "——" on the text in Chinese."""
    return pgettext("between a thing and what is said of it", " — ")


@register.simple_tag
def comma() -> str:
    return pgettext("between the items of a list", ", ")


@register.filter(is_safe=True)
def joined(items) -> str:
    """The items (escaped) with the language's list separator between them."""
    return mark_safe(conditional_escape(comma()).join(conditional_escape(item) for item in items))


@register.filter(is_safe=True)
def bracketed(aside) -> str:
    """The aside (escaped) in the language's brackets, with the space before them that the language puts."""
    return mark_safe(conditional_escape(pgettext("an aside after a word, in brackets", " (%(aside)s)"))
                     .replace("%(aside)s", conditional_escape(aside)))


@register.simple_tag
def sentence_space() -> str:
    return "" if (get_language() or "").startswith(RUN_ON_SENTENCES) else " "
