"""What an imported event must satisfy besides the shape of its file (`event_file`): what the services would
have refused when the event was played, checked again, because a file can be edited by hand.

- A player's details follow the public registration form's rules (no control or invisible characters, a
  reachable contact, a plausible birth year …) and are cleaned the way the form cleans them.
- A sheet is judged again by its game's rules engine (`scoring.games.game_of(event).judge`): it has no error,
  and every score, win and penalty the file records (and a Word turn's points) is what the rules give.

Nothing here touches the database; a failed check stops the import through `event_file.refuse`.
"""

from dataclasses import replace

from django.utils.translation import gettext as _

from rules.word import JOKER_LEFT_PENALTY
from tournament.models import Event, Seat
from tournament.registration_fields import PlayerFields
from tournament.services.registration import PlayerDetails

from ..exports import number
from ..games import game_of
from ..games.classic import Entry, SeatEntry
from ..games.word import WordEntry, WordTurnEntry
from ..models import ScoreSheet, SheetSeat, WordTurn
from .event_file import Node, refuse

# A player's fields in the file, and the kind each one has there.
PLAYER_FIELDS = {"name": "text", "contact": "text", "birth_year": "int", "affiliation": "text", "ranking_id": "text"}


# Stand-ins the form accepts for an erased player's contact and birth year (never stored: see below).
ERASED_STAND_INS = {"contact": "erased@example.invalid", "birth_year": 2000}


def player_details(node: Node) -> PlayerDetails:
    """The details of the player `node`, as the registration form would have taken them. A player whose
    personal data was erased comes without contact and birth year, and stays so."""
    erased = erased_at(node) is not None
    data = {name: node.get(name, kind, null=erased and name in ERASED_STAND_INS)
            for name, kind in PLAYER_FIELDS.items()}
    if erased:
        data.update(ERASED_STAND_INS)
    form = PlayerFields(data=data)
    if not form.is_valid():
        name, errors = next(iter(form.errors.items()))
        refuse(f"{node.where}.{name}", " ".join(errors))
    details = form.player_details()
    return replace(details, contact="", birth_year=None) if erased else details


def erased_at(node: Node):
    return node.get("personal_data_erased_at", "moment", null=True, default=None)  # files before erasure: none


def _entry(event: Event, sheet: ScoreSheet, lines: list[SheetSeat], turns: list[WordTurn]):
    """The referee's entry that gives these rows, as a returned sheet is entered again: a rack typed as tiles
    decides its value, its jokers and whether the player could have opened."""
    if event.game == Event.Game.WORD:
        return WordEntry(end=sheet.end, jokers_left={line.position: line.jokers for line in lines}, turns=tuple(
            WordTurnEntry(seat=turn.position, words=turn.words, drew=turn.drew, used_all_tiles=turn.used_all_tiles)
            for turn in turns))
    return Entry(end=sheet.end, seats=tuple(
        SeatEntry(position=line.position, registration_id=line.registration.pk, went_out=line.went_out,
                  tiles=line.tiles, rack_value=None if line.tiles else line.rack_value,
                  jokers=None if line.tiles or line.went_out else line.jokers, opened=line.opened,
                  could_open=None if line.tiles else line.could_open, conduct_penalty=line.conduct_penalty)
        for line in lines))


def _results(event: Event, result) -> dict:
    """A seat's results as the game's strategy stores them from the rules' `result`."""
    if event.game == Event.Game.WORD:
        return {"penalty": JOKER_LEFT_PENALTY * result.jokers_left, "score": result.total, "win": result.win}
    return {"penalty": result.penalty, "score": result.score, "win": result.win}


def _shown(value) -> str:
    """A value as the file writes it: true/false, or a number without needless decimals."""
    return str(value).lower() if isinstance(value, bool) else str(number(value))


def judge_sheet(*, event: Event, sheet: ScoreSheet, where: str, seated: list, lines: list[SheetSeat],
                turns: list[WordTurn]) -> None:
    """Judge the sheet at `where` in the file again. `seated`: (seat, registration) of its table; `lines` and
    `turns`: its rows as the file records them, in the file's order."""
    seats = [Seat(position=position, registration=registration) for position, registration in seated]
    judgement = game_of(event).judge(event, seats, _entry(event, sheet, lines, turns))
    if judgement.errors:
        refuse(where, " ".join(str(problem["message"]) for problem in judgement.errors))
    recorded = [(f"{where}.seats[{index}]", line, _results(event, judgement.result(line.position)))
                for index, line in enumerate(lines)]
    if event.game == Event.Game.WORD:
        recorded += [(f"{where}.turns[{index}]", turn, {"points": scored.points})
                     for index, (turn, scored) in enumerate(zip(turns, judgement.score.turns, strict=True))]
    for place, row, results in recorded:
        for name, expected in results.items():
            if _shown(getattr(row, name)) != _shown(expected):
                refuse(f"{place}.{name}", _("the file says %(recorded)s, but the rules give %(expected)s for this "
                                            "sheet (was the file edited?)")
                       % {"recorded": _shown(getattr(row, name)), "expected": _shown(expected)})
