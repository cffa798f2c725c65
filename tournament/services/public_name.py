"""A player's own choice of how the public sees their name (tournament/public_names.py decides what shows)."""

from django.db import transaction

from ..models import Player, Registration
from .audit import Actor, record
from .locking import lock_event, lock_player


def set_shown_masked(*, player: Player, masked: bool, actor: Actor) -> Player:
    """The player asks (from their personal page) to be shown masked on public pages even where their events
    show full names, or takes it back. Each of their events gets the record: it changes what that event's
    public pages show, so it moves the event's public version (public/version.py) and no page cached with the
    old name is served again."""
    with transaction.atomic():
        event_ids = sorted(set(Registration.objects.filter(player=player).values_list("event_id", flat=True)))
        events = [lock_event(pk) for pk in event_ids]  # in a fixed order, as every service takes them
        player = lock_player(player)
        if player.shown_masked == masked:
            return player
        player.shown_masked = masked
        player.save(update_fields=["shown_masked"])
        action = "player.masked" if masked else "player.unmasked"
        change = {"before": {"shown_masked": not masked}, "after": {"shown_masked": masked}}
        for event in events:
            record(actor=actor, action=action, target=player, event=event, **change)
        if not events:
            record(actor=actor, action=action, target=player, festival=player.festival, **change)
        return player
