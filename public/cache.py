"""The shared cache in front of what every public poll asks first: which event, and has it changed.

A phone polling an unchanged page needs only the event row (its public switches go into the ETag) and the
event's version (`public.version.event_version`). Both are kept in the default cache — Redis in production,
shared by every worker — and dropped when they change:

- an event's version when an audit record or a conduct record of the event is written or deleted (every
  service that changes what the public sees writes one), immediately and again once the transaction
  commits, so a reader that fetched the old version in between cannot keep it;
- an event row when the event or its festival is saved (under its old and its new address) or deleted.

Everything is also kept only a few seconds (`SECONDS`), which bounds what the dropping cannot reach: a
`QuerySet.update()` that sends no signal, a reader that stored the old value just after the commit, and the
per-process memory cache of a machine without Redis (each worker then drops only its own copy).
Staff pages never read from here: they change these rows and must see them as they are.
"""

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save

SECONDS = 2


def event_key(festival_slug: str, event_slug: str) -> str:
    return f"public-event:{festival_slug}:{event_slug}"


def version_key(event_id: int) -> str:
    return f"public-version:{event_id}"


def forget(*keys: str) -> None:
    cache.delete_many(keys)
    transaction.on_commit(lambda: cache.delete_many(keys))


def _record_changed(sender, instance, **kwargs):
    if instance.event_id is not None:
        forget(version_key(instance.event_id))


def _event_saving(sender, instance, **kwargs):
    """The address the event had until now (a renamed event must not answer there from the cache)."""
    from tournament.models import Event

    if instance.pk is not None:
        old = Event.objects.filter(pk=instance.pk).values_list("festival__slug", "slug").first()
        if old is not None:
            forget(event_key(*old))


def _event_changed(sender, instance, **kwargs):
    from tournament.models import Festival

    slug = Festival.objects.filter(pk=instance.festival_id).values_list("slug", flat=True).first()
    if slug is not None:
        forget(event_key(slug, instance.slug), version_key(instance.pk))


def _festival_saving(sender, instance, **kwargs):
    """Every event of the festival, under the festival's address until now and from now on."""
    from tournament.models import Event, Festival

    if instance.pk is None:
        return
    old = Festival.objects.filter(pk=instance.pk).values_list("slug", flat=True).first()
    slugs = list(Event.objects.filter(festival_id=instance.pk).values_list("slug", flat=True))
    keys = [event_key(festival, slug) for festival in {old, instance.slug} - {None} for slug in slugs]
    if keys:
        forget(*keys)


def connect() -> None:
    from tournament.models import AuditEntry, ConductRecord, Event, Festival

    for model in (AuditEntry, ConductRecord):
        post_save.connect(_record_changed, sender=model, dispatch_uid=f"public-cache-{model.__name__}-save")
        post_delete.connect(_record_changed, sender=model, dispatch_uid=f"public-cache-{model.__name__}-delete")
    pre_save.connect(_event_saving, sender=Event, dispatch_uid="public-cache-event-saving")
    post_save.connect(_event_changed, sender=Event, dispatch_uid="public-cache-event-save")
    # Before the save, while the old address can still be read; the keys lapse within SECONDS anyway.
    pre_save.connect(_festival_saving, sender=Festival, dispatch_uid="public-cache-festival-saving")
    # Deleted rows: the event resolves to nothing anyway once its key lapses; drop it now.
    post_delete.connect(_event_changed, sender=Event, dispatch_uid="public-cache-event-delete")


# The event id last seen at each address, per process: only a hint that lets one round trip fetch the event
# row and its version together. Both values still come from the shared cache, and the hint is checked
# against the row it came with (an address given to another event just costs the second round trip).
_ids: dict[tuple[str, str], int] = {}
_MAX_IDS = 4096
MISSING = object()


def public_event(festival_slug: str, event_slug: str):
    """The event (with its festival) for a public page, from the cache when it is there; 404 when none.

    Fetched with it in the same round trip, when this process has seen the address before: the event's
    version, kept on the instance as `_cached_version` (None when the cache has none) for
    `public.version.event_version`."""
    from django.http import Http404

    from tournament.models import Event

    key = event_key(festival_slug, event_slug)
    hint = _ids.get((festival_slug, event_slug))
    version = MISSING
    if hint is None:
        event = cache.get(key)
    else:
        found = cache.get_many([key, version_key(hint)])
        event = found.get(key)
        if event is not None and event.pk == hint:
            version = found.get(version_key(hint))
    if event is None:
        event = Event.objects.select_related("festival").filter(festival__slug=festival_slug, slug=event_slug).first()
        if event is None:
            raise Http404
        cache.set(key, event, SECONDS)
    if hint != event.pk:
        if len(_ids) >= _MAX_IDS:
            _ids.clear()
        _ids[festival_slug, event_slug] = event.pk
    if version is not MISSING:
        event._cached_version = version
    return event
