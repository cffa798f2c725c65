"""How a sheet names who sent it. A sheet keeps the sender as it was written then (`submitted_via`: a username,
"text" for an imported file, or a table link's label, stored in English as data), and the page shows a table
link's label in the reader's language."""

import re

from django import template
from django.utils.translation import gettext as _

register = template.Library()

LINK_LABEL = re.compile(r"table (\d+) link\Z")  # scoring.models.TableLink.label
PLAYER_LABEL = re.compile(r"player (\d+), seat (\d+)\Z")  # scoring.services.table_sheets.AtTable.label


@register.filter
def sender(via) -> str:
    match = LINK_LABEL.match(str(via or ""))
    if match:
        return _("table %(table)s link") % {"table": match.group(1)}
    match = PLAYER_LABEL.match(str(via or ""))
    if match:
        return _("player %(number)s, seat %(seat)s") % {"number": match.group(1), "seat": match.group(2)}
    return via
