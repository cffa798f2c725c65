"""The festival's time zone for the request being answered.

Every page shows times on the festival's wall clock, whatever the server's zone (settings.TIME_ZONE) or the
visitor's phone, and every form reads the times typed into it on that clock. The zone is switched on here only:
by each way a request finds its festival — by its address (`views.helpers.get_festival` / `get_event`, the
public pages' `public.live.event_of`) or by a token (the personal page, the referee's table, the guardian's
link) — and switched off after every request (middleware.ResetTimezoneMiddleware). A shared fetch (the public
pages' cached event row, public/cache.py) never switches it: the stack between a fetch and the view would reset
it (tests/test_public_direct.py)."""

from django.utils import timezone


def use_festival_zone(festival) -> None:
    timezone.activate(festival.tzinfo)
