from .audit import AuditEntry
from .festival import Event, Festival
from .registration import Player, Registration

__all__ = ["AuditEntry", "Event", "Festival", "Player", "Registration"]
