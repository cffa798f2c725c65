"""Rummikub Word sheets (issue 8, R10) through the same sheet life cycle as classic ones.

A Word sheet is a normal ScoreSheet: same states, versions, idempotency, constraints, audit, confirmation
(`sheets.confirm_sheet` works unchanged) and corrections. Its SheetSeat rows hold each player's TOTAL as
`score`, `win`, `penalty` = 30 per joker left and `jokers` = jokers left, so standings, exports and the board
read it like any sheet; the turns themselves are WordTurn rows. rules.word judges: a dictionary miss is a
warning the referee may overrule (house dictionaries differ), impossible letter counts are errors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from rules.errors import NotationError
from rules.validation import ERROR
from rules.word import JOKER_LEFT_PENALTY, Turn, WordGame, WordSeat, check_word_sheet
from rules.word.scoring import WordGameScore
from tournament.models import Seat, Stage
from tournament.services.audit import Actor, record
from tournament.services.errors import ServiceError

from ..models import ScoreSheet, SheetSeat, WordTurn
from .problems import message
from .sheets import SheetExists, SheetRefused, _check_playable, _locked, live_sheet, table_seats

MAX_WORDS_TEXT = 400


@dataclass(frozen=True)
class WordTurnEntry:
    """One turn as entered: the seat that played, the words (space-separated text) or drew."""

    seat: int
    words: str = ""
    drew: bool = False
    used_all_tiles: bool = False


@dataclass(frozen=True)
class WordJudgement:
    """rules.word's verdict in the user's language, shaped like records.Judgement for the shared templates."""

    problems: list[dict] = field(default_factory=list)
    score: WordGameScore | None = None
    dictionary: str | None = None

    @property
    def errors(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] == ERROR]

    @property
    def warnings(self) -> list[dict]:
        return [p for p in self.problems if p["severity"] != ERROR]

    def turn_problems(self, index: int) -> list[dict]:
        return [p for p in self.problems if p.get("turn") == index]

    @property
    def table_problems(self) -> list[dict]:
        return [p for p in self.problems if p.get("turn") is None]

    def result(self, position: int):
        if self.score is None:
            return None
        return next((s for s in self.score.seats if s.seat == position), None)

    def turn_result(self, index: int):
        if self.score is None or not 1 <= index <= len(self.score.turns):
            return None
        return self.score.turns[index - 1]


def _problem(code: str, severity: str, *, seat=None, turn=None, word=None, fallback="") -> dict:
    text = message(code, fallback)
    if word:
        text = f"{text} ({word})"
    return {"code": code, "seat": seat, "turn": turn, "word": word, "severity": severity, "message": text}


def to_word_game(seats: list[Seat], turns: list[WordTurnEntry], jokers_left: dict[int, int]
                 ) -> tuple[WordGame | None, list[dict]]:
    """The rules.word record of what was entered; unreadable words are errors (per turn), never exceptions."""
    problems, record_turns = [], []
    for index, turn in enumerate(turns, start=1):
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
                                jokers_left=jokers_left.get(s.position, 0)) for s in seats)
    return WordGame(seats=word_seats, turns=tuple(record_turns)), []


def judge_word(seats: list[Seat], turns: list[WordTurnEntry], jokers_left: dict[int, int]) -> WordJudgement:
    """What the live check shows and what the submit applies: the same rules.word.check_word_sheet."""
    game, problems = to_word_game(seats, turns, jokers_left)
    if game is None:
        return WordJudgement(problems=problems)
    check = check_word_sheet(game)
    found = [_problem(p.code, p.severity, seat=p.seat, turn=p.turn, word=p.word, fallback=p.message)
             for p in check.problems]
    return WordJudgement(problems=found, score=check.score, dictionary=check.dictionary)


def word_entry_from_form(cleaned: dict, seats: list[Seat], rows: int) -> tuple[list[WordTurnEntry], dict[int, int]]:
    """The turns (blank rows skipped) and jokers left per seat from scoring.forms.word's cleaned data."""
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
    return turns, jokers


def _check_turn_seats(turns: list[WordTurnEntry], jokers_left: dict[int, int], seats: list[Seat]) -> None:
    positions = {s.position for s in seats}
    if any(t.seat not in positions for t in turns) or any(p not in positions for p in jokers_left):
        raise ServiceError(_("The sheet must name exactly the players seated at this table."), code="wrong_players")


def _judge_or_refuse(seats, turns, jokers_left, accept_warnings: bool) -> WordJudgement:
    judgement = judge_word(seats, turns, jokers_left)
    if judgement.errors:
        raise SheetRefused(_("The sheet has mistakes; correct them first."), judgement=judgement, code="errors")
    if judgement.warnings and not accept_warnings:
        raise SheetRefused(_("Please check the warnings and confirm that the sheet is right."),
                           judgement=judgement, code="warnings")
    return judgement


def _snapshot(judgement: WordJudgement, seats: list[Seat], end: str) -> dict:
    return {"end": end, "game": "word", "turns": len(judgement.score.turns), "seats": [
        {"seat": s.position, "registration": s.registration_id, "score": judgement.result(s.position).total,
         "win": judgement.result(s.position).win} for s in seats]}


def _create(*, stage, game, table_number, draw, seats, turns, end, judgement: WordJudgement, key, actor, via,
            status, corrects=None, reason="", now=None) -> ScoreSheet:
    version = (ScoreSheet.objects.filter(stage=stage, game=game, table_number=table_number)
               .aggregate(v=Max("version"))["v"] or 0) + 1
    decided = status == ScoreSheet.Status.CONFIRMED
    sheet = ScoreSheet.objects.create(
        stage=stage, game=game, table_number=table_number, draw=draw, version=version, status=status, end=end,
        warnings=judgement.warnings, idempotency_key=key, submitted_by=actor.user, submitted_via=via,
        corrects=corrects, reason=reason, decided_by=actor.user if decided else None,
        decided_at=now if decided else None,
    )
    # "Went out" = the player whose turn ended the game by emptying the rack (R10), when it ended that way.
    last = turns[-1].seat if turns and end == ScoreSheet.End.WENT_OUT else None
    SheetSeat.objects.bulk_create([
        SheetSeat(sheet=sheet, position=s.position, registration_id=s.registration_id,
                  went_out=s.position == last, jokers=judgement.result(s.position).jokers_left,
                  penalty=JOKER_LEFT_PENALTY * judgement.result(s.position).jokers_left,
                  score=judgement.result(s.position).total, win=judgement.result(s.position).win)
        for s in seats
    ])
    WordTurn.objects.bulk_create([
        WordTurn(sheet=sheet, index=scored.number, position=entry.seat, words=" ".join(scored.words),
                 drew=not scored.words, used_all_tiles=entry.used_all_tiles, points=scored.points)
        for entry, scored in zip(turns, judgement.score.turns, strict=True)
    ])
    return sheet


def _check_end(end: str) -> None:
    if end not in ScoreSheet.End.values:
        raise ServiceError(message("bad_end"), code="bad_end")


def submit_word_sheet(*, stage: Stage, game: int, table_number: int, turns: list[WordTurnEntry],
                      jokers_left: dict[int, int], accept_warnings: bool, idempotency_key: str, actor: Actor,
                      via: str, end: str = ScoreSheet.End.WENT_OUT, now=None) -> ScoreSheet:
    """A referee submits a Word game's sheet; mirrors sheets.submit_sheet (same key ⇒ same sheet)."""
    now = now or timezone.now()
    _check_end(end)
    existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            stage = Stage.objects.select_related("event").get(pk=stage.pk)
            if stage.event.game != stage.event.Game.WORD:
                raise ServiceError(_("This event is not a Rummikub Word event."), code="not_word")
            draw, seats = _check_playable(stage, game, table_number)
            _check_turn_seats(turns, jokers_left, seats)
            judgement = _judge_or_refuse(seats, turns, jokers_left, accept_warnings)
            current = live_sheet(stage, game, table_number)
            if current is not None:
                if current.idempotency_key == idempotency_key:
                    return current
                raise SheetExists(current)
            sheet = _create(stage=stage, game=game, table_number=table_number, draw=draw, seats=seats,
                            turns=turns, end=end, judgement=judgement, key=idempotency_key, actor=actor, via=via,
                            status=ScoreSheet.Status.SUBMITTED, now=now)
            record(actor=actor, action="sheet.submitted", target=sheet, event=stage.event,
                   after=_snapshot(judgement, seats, end))
            return sheet
    except IntegrityError:
        existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
        if existing is not None:
            return existing
        raise SheetExists(live_sheet(stage, game, table_number)) from None


def correct_word_sheet(*, sheet: ScoreSheet, turns: list[WordTurnEntry], jokers_left: dict[int, int],
                       reason: str, accept_warnings: bool, idempotency_key: str, actor: Actor,
                       end: str = ScoreSheet.End.WENT_OUT, now=None) -> ScoreSheet:
    """A confirmed Word sheet corrected: a new confirmed version, the old one superseded (as correct_sheet)."""
    from .progress import after_confirmation, correction_effects

    now = now or timezone.now()
    if not reason.strip():
        raise ServiceError(_("A correction needs a reason."), code="reason")
    _check_end(end)
    existing = ScoreSheet.objects.filter(idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        old = _locked(sheet)
        if old.status != ScoreSheet.Status.CONFIRMED:
            raise ServiceError(_("Only a confirmed sheet can be corrected."), code="not_confirmed")
        seats = table_seats(old.draw, old.table_number)
        _check_turn_seats(turns, jokers_left, seats)
        judgement = _judge_or_refuse(seats, turns, jokers_left, accept_warnings)
        old.status = ScoreSheet.Status.SUPERSEDED
        old.save(update_fields=["status"])
        new = _create(stage=old.stage, game=old.game, table_number=old.table_number, draw=old.draw, seats=seats,
                      turns=turns, end=end, judgement=judgement, key=idempotency_key, actor=actor, via=str(actor),
                      status=ScoreSheet.Status.CONFIRMED, corrects=old, reason=reason.strip(), now=now)
        before = [{"position": p, "score": str(s), "win": w}
                  for p, s, w in old.seats.values_list("position", "score", "win")]
        record(actor=actor, action="sheet.corrected", target=new, event=old.stage.event,
               before={"sheet": old.pk, "seats": before}, after=_snapshot(judgement, seats, end),
               reason=reason.strip())
        correction_effects(sheet=new, actor=actor)
        after_confirmation(sheet=new, actor=actor)
    return new
