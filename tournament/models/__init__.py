from .audit import AuditEntry
from .conduct import ConductRecord
from .festival import Event, Festival
from .imports import PendingImport
from .play import Draw, DrawTable, Lot, Seat, Stage, StageEntry
from .registration import Player, Registration
from .staff import StaffInvitation, StaffRole

__all__ = [
    "AuditEntry", "ConductRecord", "Draw", "DrawTable", "Event", "Festival", "Lot", "PendingImport", "Player",
    "Registration", "Seat", "Stage", "StageEntry", "StaffInvitation", "StaffRole",
]
