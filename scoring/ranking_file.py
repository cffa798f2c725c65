"""The file the organiser sends to the festival's ranking body (Festival.ranking_recipient): each player's final
place and ranking points, with what the notice's "Giving results to a third party" section names — and only for
players who agreed to it separately (Player.results_to_ranking). Nobody else's data is in it."""

import tablib
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from tournament.models import Event
from tournament.services.errors import ServiceError
from tournament.services.imports.layout import neutralise

from .exports import FORMATS, encoded, number
from .results.event import event_results

COLUMNS = (pgettext_lazy("final place", "Place"), gettext_lazy("Name"), gettext_lazy("Birth year"), gettext_lazy("School or club"),
           gettext_lazy("National ranking id"), gettext_lazy("Ranking points"))


def ranking_dataset(event: Event) -> tablib.Dataset:
    """The rows of the placed players who agreed, in the order of their places."""
    if not event.festival.ranking_recipient:
        raise ServiceError(_("This festival gives results to no ranking body."), code="no_recipient")
    results = event_results(event)
    if not results.final:
        raise ServiceError(_("The places are not decided yet: the file is ready once the final is confirmed."),
                           code="not_final")
    dataset = tablib.Dataset(headers=[str(label) for label in COLUMNS])
    dataset.title = str(_("Ranking"))
    for row in results.rows:
        player = row.registration.player
        if not player.results_to_ranking:
            continue
        dataset.append([neutralise(value) for value in (
            row.place, player.name, player.birth_year or "", player.affiliation, player.ranking_id,
            number(row.ranking_points))])
    return dataset


def ranking_file(event: Event, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise ServiceError(_("Unknown file format."), code="format")
    return encoded(ranking_dataset(event), fmt)
