"""One function per use case: keyword-only arguments, one transaction, an audit record of who did what.

Views parse input with a form and call exactly one of these. They raise `ServiceError` (a message in the
user's language) when the request cannot be carried out; nothing is changed in that case.

The locking rule (`locking.lock_event`): every service that changes an event takes that event's lock first,
inside its transaction, before reading what it decides on; a table's own score sheet takes it shared. Other
rows are locked only through `locking`'s functions too (a player, a registration, `lock_rows`).
"""

from .errors import ServiceError

__all__ = ["ServiceError"]
