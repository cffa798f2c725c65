"""Who acts at a table that keeps its own sheet, from a request: the player whose personal page it is, or the
seat whose 4-digit code was typed through the table card. Wrong codes through one card are counted
(django-ratelimit, settings.SEAT_CODE_RATE): ten thousand codes are not tried one after another."""

from django.conf import settings
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage

from tournament.services.errors import ServiceError

from ..services.access import TableAccess
from ..services.table_sheets import PERSONAL_PAGE, TABLE_CARD, AtTable, seated_player

GROUP = "seat-code"


def _too_many(request, access: TableAccess, *, count: bool) -> bool:
    token = access.link.token
    usage = get_usage(request, group=GROUP, key=lambda _group, _request: token, rate=settings.SEAT_CODE_RATE,
                      method="POST", increment=count)
    return usage is not None and usage["should_limit"]


def seated_here(request, access: TableAccess, game: int) -> AtTable:
    """The seated player acting in this POST, or ServiceError saying why nobody is."""
    if access.asks_seat_code and _too_many(request, access, count=False):
        raise ServiceError(_("Too many wrong seat codes were typed on this table's card: wait ten minutes, or ask "
                             "the chief referee."), code="seat_code_limit")
    try:
        return seated_player(stage=access.stage, game=game, table_number=access.table_number,
                             via=PERSONAL_PAGE if access.player is not None else TABLE_CARD,
                             registration=access.player, link=access.link,
                             code=request.POST.get("seat_code", "")[:8])
    except ServiceError as error:
        if error.code == "seat_code" and access.asks_seat_code:
            _too_many(request, access, count=True)
        raise
