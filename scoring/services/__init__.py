"""Score-sheet use cases: one function each, keyword-only, one transaction, an audit entry."""
