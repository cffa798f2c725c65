from .audit import AuditEntry
from .festival import Event, Festival
from .play import Draw, DrawTable, Seat, Stage
from .registration import Player, Registration

__all__ = ["AuditEntry", "Draw", "DrawTable", "Event", "Festival", "Player", "Registration", "Seat", "Stage"]
