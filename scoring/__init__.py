"""Score sheets, confirmation, standings and exports (built on `tournament` and `rules`)."""
