"""Has anything the public sees of an event changed? The version and the ETags of every public answer.

- `event_version(event)`: a per-event change counter for ETag / 304 answers. Every service that changes
  what the public sees (sheets confirmed or corrected, draws released or taken back, Hong Kong movement,
  lots, stages closed, check-in, registrations) writes an `AuditEntry` with `event=`; conduct records are
  counted too, in case one is created without an audit line. So the version is the newest audit id and
  the newest conduct id of the event: one indexed query, kept a few seconds in the shared cache and
  dropped whenever such a record is written (public/cache.py). Actions the public does not see
  (`QUIET_ACTIONS`: a submitted sheet, a draft draw …) are left out. Event settings that are not audited
  (what the public sees, the standings order, the rules) go into the ETag from the event row itself.
  public/live.py also keys its rendered pages and fragments by the ETag (one rendering per change).
"""

import hashlib

from django.core.cache import cache
from django.db.models import OuterRef, Subquery
from django.utils.translation import get_language

from tournament.models import AuditEntry, ConductRecord, Event

from .cache import MISSING, SECONDS, version_key

# Bump when the public pages' markup changes, so browsers do not keep an old page after a deployment.
RENDER_VERSION = "2"


# Audited actions the public pages do not show: a submitted (not yet confirmed) or returned sheet, a draft
# draw, table links and referee assignments, single check-ins. They leave the version alone, so 128 referees
# submitting sheets do not make 500 phones download unchanged standings.
QUIET_ACTIONS = (
    "sheet.submitted", "sheet.returned", "draw.drafted", "draw.swapped", "link.created", "link.revoked",
    "referee.assigned", "referee.unassigned", "checkin.in", "checkin.undone", "checkin.override",
)


def event_version(event: Event) -> tuple[int, int]:
    """(newest audit id, newest conduct id) of the event: changes whenever public data may have changed.

    Kept in the shared cache and dropped when a record is written (public/cache.py), so an
    unchanged poll runs no SQL."""
    key = version_key(event.pk)
    # Fetched already with the event row (public/cache.py), possibly as None: not in the cache.
    version = event.__dict__.get("_cached_version", MISSING)
    if version is MISSING:
        version = cache.get(key)
    if version is None:
        version = _stored_version(event)
        cache.set(key, version, SECONDS)
    return version


def _stored_version(event: Event) -> tuple[int, int]:
    audited = AuditEntry.objects.filter(event=OuterRef("pk")).exclude(action__in=QUIET_ACTIONS)
    newest = (
        Event.objects.filter(pk=event.pk)
        .annotate(
            audit=Subquery(audited.order_by("-id").values("id")[:1]),
            conduct=Subquery(ConductRecord.objects.filter(event=OuterRef("pk")).order_by("-id").values("id")[:1]),
        )
        .values_list("audit", "conduct")
        .first()
    )
    audit, conduct = newest or (None, None)
    return audit or 0, conduct or 0


def event_state(event: Event) -> tuple:
    """Everything the public pages of `event` depend on: its data version and its public settings.

    Computed once per request (kept on the event instance, which views fetch once per request), so the
    ETag and the standings snapshot (public/snapshot.py) share one query."""
    state = getattr(event, "_public_state", None)
    if state is None:
        settings_key = (event.pk, event.slug, event.festival_id, event.name, event.public_draw, event.public_standings,
                        event.public_scores, event.public_names, event.public_affiliations, tuple(event.tiebreaks),
                        event.ruleset, event.format, tuple(event.ranking_points))
        state = event._public_state = (event_version(event), settings_key)
    return state


def etag_for(event: Event, request, *parts) -> str:
    """An ETag for one representation of a public page of `event`.

    It changes with the event's data and public settings (`event_state`), the language, who is signed in
    (the page header differs) and `parts` (which page, which stage, which player)."""
    return _digest(event_state(event), request, parts)


def content_etag(event: Event, request, *parts) -> str:
    """An ETag for a representation whose `parts` hold all it shows of the event's data (a player's card,
    public/card.py): like `etag_for`, but it changes with the event's public settings, not with
    every change of the event's data, so a confirmation elsewhere leaves it alone."""
    return _digest(event_state(event)[1], request, parts)


def data_etag(event: Event, *parts) -> str:
    """An ETag for data that is the same for everyone (the API, public/views/api.py): it changes with the event's
    data and public settings, the language (a withdrawn player's name is said in it) and `parts`."""
    raw = repr((RENDER_VERSION, event_state(event), "data", get_language(), parts))
    return hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()


def _digest(state, request, parts) -> str:
    user = request.user.pk if request.user.is_authenticated else 0
    raw = repr((RENDER_VERSION, state, get_language(), user, parts))
    return hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()
