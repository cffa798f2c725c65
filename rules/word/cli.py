"""``python -m rules word [--no-dictionary] FILE|-``: check and score a Rummikub Word sheet (R10).

Prints the sheet normalised (words in canonical spelling) plus, per turn, ``number``, ``longest``,
``points``, ``doubled`` and ``total`` (the seat's running total); per seat ``turn_points``,
``joker_penalty``, ``total`` and ``win``; and ``ok``, ``winners``, ``problems``, ``dictionary``.
Exit codes as for ``score``: 0 scored (warnings may be listed), 1 sheet errors (score fields null),
2 unusable input. Without the dictionary package the warning ``dictionary_unavailable`` is listed.
"""

from __future__ import annotations

from typing import TextIO

from ..cli_json import InputError, emit, error, read_json
from .dictionary import DEFAULT_DICTIONARY
from .record import word_game_from_dict, word_game_to_dict
from .scoring import check_word_sheet


def cmd_word(args, out: TextIO, stdin: TextIO) -> int:
    try:
        data = read_json(args.file, stdin)
    except InputError as e:
        return error(out, e.code, e.message)
    game = word_game_from_dict(data)  # RecordError -> exit 2 in rules.cli.main
    check = check_word_sheet(game, dictionary=None if args.no_dictionary else DEFAULT_DICTIONARY)
    result = word_game_to_dict(game)
    score = check.score
    for i, turn in enumerate(result["turns"]):
        turn.update(
            score.turns[i].to_dict()
            if score
            else dict.fromkeys(("number", "longest", "points", "doubled", "total"))
        )
        if not score:
            turn["number"] = i + 1
    for i, seat in enumerate(result["seats"]):
        seat.update(
            score.seats[i].to_dict()
            if score
            else dict.fromkeys(("turn_points", "joker_penalty", "total", "win"))
        )
    result.update(
        ok=check.ok,
        winners=score.winners if score else [],
        problems=[p.to_dict() for p in check.problems],
        dictionary=check.dictionary,
    )
    emit(out, result)
    return 0 if check.ok else 1
