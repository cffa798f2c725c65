"""A name someone can see: every name the app takes — a player's, a guardian's, a festival's, an event's, a
timetable slot's, an account's — has at least one character that shows.

Here, not in tournament/forms, because services that make names (accounts) check it too.
"""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

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
