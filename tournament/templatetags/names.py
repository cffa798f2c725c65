"""Players' names in templates: `{% name_of player %}` and `{% affiliation_of player %}`.

On a public page (the default) they show what the public may see of the player at the page's `event`
(tournament/public_names.py); a staff view rendering a template it shares with a public page sets
`for_staff` in its context and gets the name and school or club as registered."""

from django import template

from ..masking import mask_name
from ..public_names import public_affiliation, public_name

register = template.Library()


@register.simple_tag(takes_context=True)
def name_of(context, player) -> str:
    return player.name if context.get("for_staff") else public_name(player, context["event"])


@register.simple_tag(takes_context=True)
def affiliation_of(context, player) -> str:
    return player.affiliation if context.get("for_staff") else public_affiliation(player, context["event"])


@register.filter
def masked(name: str) -> str:
    """`name` as masked public pages show it (the player's own page shows them what that looks like)."""
    return mask_name(name)
