"""A Rummikub Word sheet as entered (R10): turn by turn — the seat that played, the words formed or "drew" —
then each player's jokers left; and its judgement by rules.word, the same for the live check and the submit.

A dictionary miss is a warning the referee may overrule (house dictionaries differ); impossible letter
counts are errors.
"""

from dataclasses import dataclass, field

from rules.errors import NotationError
from rules.validation import ERROR
from rules.word import Turn, WordGame, WordSeat, check_word_sheet

from ..base import Judgement
from ..problems import message

MAX_WORDS_TEXT = 400


@dataclass(frozen=True)
class WordTurnEntry:
    """One turn as entered: the seat that played, the words (space-separated text) or drew."""

    seat: int
    words: str = ""
    drew: bool = False
    used_all_tiles: bool = False


@dataclass(frozen=True)
class WordEntry:
    end: str
    turns: tuple[WordTurnEntry, ...]
    jokers_left: dict[int, int] = field(default_factory=dict)  # seat position → jokers left on the rack


def _problem(code: str, severity: str, *, seat=None, turn=None, word=None, fallback="") -> dict:
    text = message(code, fallback)
    if word:
        text = f"{text} ({word})"
    return {"code": code, "seat": seat, "turn": turn, "word": word, "severity": severity, "message": text}


def to_word_game(seats, entry: WordEntry) -> tuple[WordGame | None, list[dict]]:
    """The rules.word record of what was entered; unreadable words are errors (per turn), never exceptions."""
    problems, record_turns = [], []
    for index, turn in enumerate(entry.turns, start=1):
        if turn.drew and turn.words.strip():
            problems.append(_problem("drew_with_words", ERROR, seat=turn.seat, turn=index))
            continue
        try:
            record_turns.append(Turn(seat=turn.seat, words=turn.words[:MAX_WORDS_TEXT],
                                     used_all_tiles=turn.used_all_tiles))
        except NotationError as error:
            problems.append(_problem("bad_word", ERROR, seat=turn.seat, turn=index, word=str(error.token)[:40]))
    if problems:
        return None, problems
    word_seats = tuple(WordSeat(seat=s.position, player=str(s.registration_id),
                                jokers_left=entry.jokers_left.get(s.position, 0)) for s in seats)
    return WordGame(seats=word_seats, turns=tuple(record_turns)), []


def judge(seats, entry: WordEntry) -> Judgement:
    game, problems = to_word_game(seats, entry)
    if game is None:
        return Judgement(problems=problems)
    check = check_word_sheet(game)
    found = [_problem(p.code, p.severity, seat=p.seat, turn=p.turn, word=p.word, fallback=p.message)
             for p in check.problems]
    results = {s.seat: s for s in check.score.seats} if check.score is not None else {}
    return Judgement(problems=found, score=check.score, results=results)


def entry_from_form(cleaned: dict, seats, rows: int) -> WordEntry:
    """The turns (blank rows skipped) and jokers left per seat from the Word form's cleaned data."""
    turns = []
    for i in range(rows):
        words = (cleaned.get(f"t{i}_words") or "").strip()
        drew = bool(cleaned.get(f"t{i}_drew"))
        seat = cleaned.get(f"t{i}_seat")
        if not words and not drew or not seat:
            continue
        turns.append(WordTurnEntry(seat=int(seat), words=words, drew=drew,
                                   used_all_tiles=bool(cleaned.get(f"t{i}_used_all"))))
    jokers = {s.position: cleaned.get(f"j{s.position}_jokers") or 0 for s in seats}
    return WordEntry(end=cleaned.get("end") or "", turns=tuple(turns), jokers_left=jokers)
