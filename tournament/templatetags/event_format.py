"""What the pages say about an event's format (tournament.formats.strategy), in the reader's language:
`{% movement_note event %}`, `event|each_game_anew`."""

from django import template
from django.utils.translation import gettext

from ..formats import format_of

register = template.Library()


@register.simple_tag
def movement_note(event) -> str:
    """What players are told about moving tables between games (R8.2); nothing where nobody moves."""
    note = format_of(event).movement_note
    return gettext(note) if note else ""


@register.filter
def each_game_anew(event) -> bool:
    """Every game is seated anew (R8.2): a seating holds one game, and says which."""
    return format_of(event).each_game_anew
