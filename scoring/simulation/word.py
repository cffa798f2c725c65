"""Plausible Rummikub Word sheets (R10), imagined rather than played, for `simulate_event --game word`.

Players take turns in seat order: a first placement of one 6–9 letter word, then one or two 3–7 letter
words or a draw; the game ends when the last player empties the rack ("used all tiles") or, now and then,
when time is called. Words come from rules.word's default dictionary (a small fixed list without it), never
need a joker, and are not repeated, so a sheet has no errors and rarely a warning. Pure: no database.
"""

from __future__ import annotations

import random
from functools import cache

from rules.word import default_dictionary, jokers_needed

from ..games.word import WordEntry, WordTurnEntry
from ..models import ScoreSheet

FALLBACK_WORDS = (
    "DISAPPEAR", "PLANET", "GARDEN", "SILVER", "MARKET", "WINTER", "CASTLE", "BRIDGE", "ORANGE", "TRAVEL",
    "LAP", "CHIP", "EAR", "TILE", "RACK", "WORD", "GAME", "PLAY", "STONE", "LIGHT", "HOUSE", "RIVER", "TABLE",
    "CLOUD", "BREAD", "SMILE", "DANCE", "MUSIC", "PAPER", "TRAIN", "APPLE", "HEART", "NIGHT", "SPORT",
)
DREW = 0.22  # share of later turns where the player drew
TWO_WORDS = 0.3  # share of playing turns that form a second word
TIME_CALLED = 0.08  # share of games stopped by time
JOKER_KEPT = 0.06  # share of players still holding a joker at the end


@cache
def _words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(first placement words of 6–9 letters, later words of 3–7 letters), sorted: same seed, same words."""
    dictionary = default_dictionary()
    pool = dictionary.words if dictionary is not None else FALLBACK_WORDS
    usable = sorted(w for w in pool if 3 <= len(w) <= 9 and jokers_needed(w) == 0)
    return tuple(w for w in usable if len(w) >= 6), tuple(w for w in usable if len(w) <= 7)


def _pick(rng: random.Random, words: tuple[str, ...], used: set[str], count: int) -> list[str]:
    chosen: list[str] = []
    while len(chosen) < count:
        word = rng.choice(words)
        if word not in used and jokers_needed(chosen + [word]) == 0:
            chosen.append(word)
            used.add(word)
    return chosen


def plausible_word_sheet(rng: random.Random, players: int) -> WordEntry:
    """A Word sheet (turns, jokers left per seat, how it ended) for a table of `players` (2–4) in seat
    positions 1..players."""
    first_words, later_words = _words()
    used: set[str] = set()
    placed: set[int] = set()
    rounds = rng.randint(6, 10)
    turns = []
    for number in range(rounds * players - rng.randrange(players)):
        seat = number % players + 1
        if seat not in placed:
            turns.append(WordTurnEntry(seat=seat, words=" ".join(_pick(rng, first_words, used, 1))))
            placed.add(seat)
        elif rng.random() < DREW:
            turns.append(WordTurnEntry(seat=seat, drew=True))
        else:
            count = 2 if rng.random() < TWO_WORDS else 1
            turns.append(WordTurnEntry(seat=seat, words=" ".join(_pick(rng, later_words, used, count))))
    end = ScoreSheet.End.TIME if rng.random() < TIME_CALLED else ScoreSheet.End.WENT_OUT
    last = turns[-1]
    if end == ScoreSheet.End.WENT_OUT:  # the last player emptied the rack with a word
        words = last.words or " ".join(_pick(rng, later_words, used, 1))
        turns[-1] = WordTurnEntry(seat=last.seat, words=words, used_all_tiles=True)
    jokers = {seat: 0 for seat in range(1, players + 1)}
    holders = [s for s in jokers if not (end == ScoreSheet.End.WENT_OUT and s == last.seat) and rng.random() < JOKER_KEPT]
    for seat in holders[:2]:
        jokers[seat] = 1
    return WordEntry(end=end, turns=tuple(turns), jokers_left=jokers)
