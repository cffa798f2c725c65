"""Everything that differs between the games an event can play — Rummikub and Rummikub Word (R10).

A score sheet has one life cycle whatever the game (`scoring.services.sheets`: submit, confirm, return,
correct) and one referee page and one correction page around it. What differs — how an entry is judged, which
rows it stores, which form and partials are shown — is a small strategy (`base.SheetGame`), chosen once from
`event.game` by `game_of`. Each game keeps its entry, judgement and forms in its own package.
"""

from .base import Judgement, SheetGame
from .classic import CLASSIC
from .word import WORD

GAMES = {CLASSIC.key: CLASSIC, WORD.key: WORD}


def game_of(event) -> SheetGame:
    return GAMES[event.game]


__all__ = ["CLASSIC", "GAMES", "WORD", "Judgement", "SheetGame", "game_of"]
