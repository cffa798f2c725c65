from .audit import AuditEntry
from .festival import Event, Festival
from .play import Draw, DrawTable, Lot, Seat, Stage, StageEntry
from .registration import Player, Registration

__all__ = [
    "AuditEntry", "Draw", "DrawTable", "Event", "Festival", "Lot", "Player", "Registration", "Seat", "Stage",
    "StageEntry",
]
