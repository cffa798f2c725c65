"""One function per use case: keyword-only arguments, one transaction, rows locked, an audit entry.

Views parse input with a form and call exactly one of these. They raise `ServiceError` (a message in the
user's language) when the request cannot be carried out; nothing is changed in that case.
"""

from .errors import ServiceError

__all__ = ["ServiceError"]
