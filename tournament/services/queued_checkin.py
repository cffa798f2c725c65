"""A check-in tapped at the desk while the hall's Wi-Fi was down, sent when it came back (R9).

The phone keeps each tap with a one-time key (static/js/desk-outbox.js) and may send it more than once (an
answer lost on the way back). The key, kept in the check-in's audit record, tells the two cases apart when
the player is already checked in: this very tap arrived before (fine, once), or another desk checked the
player in meanwhile (reported to the desk, never a second check-in). The time recorded is the arrival's:
the server does not take a phone's clock on trust.
"""

import re

from django.db import transaction
from django.utils import timezone

from ..models import AuditEntry, Registration
from .audit import Actor, record
from .checkin import admit
from .locking import lock_event, lock_registration

KEY_SHAPE = re.compile(r"[0-9a-f]{32}")
CHECKED_IN, ALREADY = "checked_in", "already"


def check_in_queued(*, registration: Registration, actor: Actor, key: str, now=None) -> tuple[Registration, str]:
    """CHECKED_IN (now, or by this same tap sent earlier) or ALREADY (by another desk meanwhile). A refusal
    (check-in closed, a withdrawn or waiting-list player) raises ServiceError, as a tap online would."""
    now = now or timezone.now()
    with transaction.atomic():
        event = lock_event(registration.event_id)
        registration = lock_registration(registration, "player")
        if registration.is_checked_in:
            mine = AuditEntry.objects.filter(action="checkin.in", target_type="registration",
                                             target_id=registration.pk, after__key=key).exists()
            return registration, CHECKED_IN if mine else ALREADY
        admit(event=event, registration=registration, actor=actor, now=now)
        record(actor=actor, action="checkin.in", target=registration, event=event,
               after={"checked_in": now.isoformat(), "key": key, "queued": True})
    return registration, CHECKED_IN
