"""Conduct during an event (R9; HK conduct rules 9, 15 and 17).

- Rule 9: a referee gives up to two verbal warnings; on a third offence the chief referee decides whether
  to disqualify. `pending_decisions` lists players with three or more warnings and no decision yet; the
  decision is a disqualification record or a "keeps playing" record (`keep_playing`).
- Rules 15 and 17: a player who does not finish every game (or leaves unwell) forfeits, i.e. withdraws.

A disqualification, withdrawal or forfeit (`ConductRecord.LEAVES_EVENT`) takes the player out of every later
draw (`tournament.services.draws.draft_draw`, Hong Kong movement, Busan advancement); their confirmed results
stay and are marked. `departure_effect` shows all of that BEFORE it is applied; nothing is re-drawn
automatically — the software's merge proposal for a short table is for the organiser to decide on.
"""

from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from tournament.formats import format_of
from tournament.formats.tables import MIN_TABLE, MergeProposal, merge_proposal
from tournament.models import ConductRecord, Draw, Event, Registration, Stage, StageEntry
from tournament.services.audit import Actor, record
from tournament.services.confirmation import Unconfirmed, state_of
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event
from tournament.services.seating import player_ids, table_of, working_draw

from ..models import ScoreSheet, SheetSeat
from .progress import current_stage

Kind = ConductRecord.Kind
# HK rule 9: two verbal warnings; the third offence goes to the chief referee.
DECISION_AT = 3
MAX_NOTE = 2000
KEPT_ACTION = "conduct.kept"


def departures(event: Event) -> dict[int, ConductRecord]:
    """Registration id → the record that took the player out of the event (disqualified, withdrew, forfeit)."""
    out: dict[int, ConductRecord] = {}
    for conduct in (ConductRecord.objects.filter(event=event, kind__in=ConductRecord.LEAVES_EVENT)
                    .select_related("stage").order_by("created_at", "id")):
        out.setdefault(conduct.registration_id, conduct)
    return out


def warning_counts(event: Event) -> dict[int, int]:
    counts: dict[int, int] = {}
    for registration_id in ConductRecord.objects.filter(event=event, kind=Kind.WARNING).values_list(
            "registration_id", flat=True):
        counts[registration_id] = counts.get(registration_id, 0) + 1
    return counts


def decided_at(event: Event) -> dict[int, int]:
    """Registration id → the number of warnings the player had when the chief referee last decided to keep
    them on (one query)."""
    warnings: dict[int, int] = {}
    decided: dict[int, int] = {}
    for registration_id, kind in (ConductRecord.objects.filter(event=event, kind__in=(Kind.WARNING, Kind.KEPT))
                                  .order_by("created_at", "id").values_list("registration_id", "kind")):
        if kind == Kind.WARNING:
            warnings[registration_id] = warnings.get(registration_id, 0) + 1
        else:
            decided[registration_id] = warnings.get(registration_id, 0)
    return decided


def pending_decisions(event: Event) -> list[tuple[int, int]]:
    """(registration id, warnings) for players on their third warning (or more) whose case is not decided."""
    counts = warning_counts(event)
    left = departures(event)
    kept = decided_at(event)
    return sorted(
        (registration_id, count) for registration_id, count in counts.items()
        if count >= DECISION_AT and registration_id not in left and kept.get(registration_id, 0) < count
    )


def _clean_note(note: str) -> str:
    note = (note or "").strip()
    if not note:
        raise ServiceError(_("Say briefly what happened."), code="note")
    if len(note) > MAX_NOTE:
        raise ServiceError(_("The note is too long (at most %(max)s characters).") % {"max": MAX_NOTE}, code="note")
    return note


def _locked_entrant(event: Event, registration: Registration) -> Registration:
    lock_event(event)
    registration = Registration.objects.filter(pk=registration.pk, event=event).first()
    if registration is None:
        raise ServiceError(_("This player is not in this event."), code="other_event")
    if not StageEntry.objects.filter(stage__event=event, registration=registration).exists():
        raise ServiceError(_("Conduct is recorded during the event, for players who play in it."),
                           code="not_playing")
    return registration


def _check_when(event: Event, stage: Stage | None, game: int | None) -> None:
    if stage is not None and stage.event_id != event.pk:
        raise ServiceError(_("That round is not part of this event."), code="other_stage")
    if game is not None and (stage is None or not 1 <= game <= stage.games):
        raise ServiceError(_("That game is not part of the round."), code="game")


def record_conduct(*, event: Event, registration: Registration, kind: str, note: str, actor: Actor,
                   stage: Stage | None = None, game: int | None = None, request_key: str = "",
                   expect: str | None = None) -> ConductRecord:
    """Record a warning, disqualification, withdrawal or forfeit (R9). Records are never changed or deleted.

    `request_key`: the form's one-time key; the same key again returns the record it made (a resent form).
    `expect`: for a departure, the `departure_effect(…).state` the chief referee confirmed; the effect is
    worked out again under the lock and a change since refuses (tournament.services.confirmation)."""
    if kind not in ConductRecord.OFFENCES:
        raise ServiceError(_("Choose what to record."), code="kind")
    note = _clean_note(note)
    with transaction.atomic():
        registration = _locked_entrant(event, registration)
        if request_key:
            sent = ConductRecord.objects.filter(request_key=request_key).first()
            if sent is not None:
                if sent.registration_id != registration.pk or sent.kind != kind:
                    raise ServiceError(_("This form was already used for another record. Reload the page."),
                                       code="key_reused")
                return sent
        _check_when(event, stage, game)
        left = ConductRecord.objects.filter(registration=registration, kind__in=ConductRecord.LEAVES_EVENT).first()
        if left is not None:
            raise ServiceError(_("This player already left the event (%(kind)s).") % {"kind": left.get_kind_display()},
                               code="already_left")
        if expect is not None and kind in ConductRecord.LEAVES_EVENT and expect != departure_effect(
                event=event, registration=registration, kind=kind).state:
            raise Unconfirmed(stale=bool(expect))
        try:
            with transaction.atomic():  # the same key sent for two players at once: one wins, one is refused
                conduct = ConductRecord.objects.create(
                    event=event, registration=registration, kind=kind, stage=stage, game=game, note=note,
                    created_by=actor.user, request_key=request_key or None)
        except IntegrityError:
            raise ServiceError(_("This form was already used for another record. Reload the page."),
                               code="key_reused") from None
        warnings = ConductRecord.objects.filter(registration=registration, kind=Kind.WARNING).count()
        record(actor=actor, action=f"conduct.{kind}", target=conduct, event=event, reason=note,
               after={"registration": registration.pk, "number": registration.number, "kind": kind,
                      "stage": stage.number if stage else None, "game": game, "warnings": warnings})
    return conduct


def keep_playing(*, event: Event, registration: Registration, note: str, actor: Actor) -> int:
    """The chief referee decides NOT to disqualify after a third warning (R9): a "keeps playing" record.
    Returns the warnings the decision was taken on."""
    note = _clean_note(note)
    with transaction.atomic():
        registration = _locked_entrant(event, registration)
        warnings = ConductRecord.objects.filter(registration=registration, kind=Kind.WARNING).count()
        if warnings < DECISION_AT:
            raise ServiceError(_("There is nothing to decide: the player has fewer than three warnings."),
                               code="nothing_to_decide")
        if ConductRecord.objects.filter(registration=registration, kind__in=ConductRecord.LEAVES_EVENT).exists():
            raise ServiceError(_("This player already left the event."), code="already_left")
        if decided_at(event).get(registration.pk, 0) >= warnings:
            return warnings  # already decided at this many warnings (a phone sending twice): nothing to record
        kept = ConductRecord.objects.create(event=event, registration=registration, kind=Kind.KEPT, note=note,
                                            created_by=actor.user)
        record(actor=actor, action=KEPT_ACTION, target=kept, event=event, reason=note,
               after={"registration": registration.pk, "number": registration.number, "warnings": warnings})
    return warnings


# --- what a departure would change (shown before it is applied) ------------------------------------------


@dataclass
class Effect:
    registration: Registration
    kind: str
    games_played: int = 0
    stage: Stage | None = None  # the event's current stage
    draw: Draw | None = None  # the current or next seating the player sits in
    games_left: list[int] = field(default_factory=list)  # that seating's games their table has still to play
    table: int | None = None
    left_at_table: int = 0  # players still at their table without them
    proposal: MergeProposal | None = None
    names: dict[int, str] = field(default_factory=dict)  # registration id → "#12 Name" for the proposal
    notes: list[str] = field(default_factory=list)  # translated sentences: later draws, advancement, results

    @property
    def state(self) -> str:
        """What the page showed, as the confirmation carries it back (tournament.services.confirmation)."""
        return state_of(["departure", self.registration.pk, self.kind, self.games_played,
                         self.draw.pk if self.draw else None, self.table, self.left_at_table, self.games_left,
                         [str(note) for note in self.notes]])

    @property
    def short_table(self) -> bool:
        return self.table is not None and self.proposal is not None and self.proposal.needed

    @property
    def moves(self) -> list[tuple[str, int, int]]:
        if not self.proposal:
            return []
        return [(self.names.get(m.player_id, str(m.player_id)), m.from_table, m.to_table) for m in self.proposal.moves]


def _label(registration: Registration) -> str:
    return f"#{registration.number} {registration.player.name}" if registration.number else registration.player.name


def _games_of(stage: Stage, draw: Draw) -> list[int]:
    """The games a seating is used for: Busan one draw for the whole stage, Hong Kong one per game."""
    return format_of(stage.event).games_of_draw(draw.game, stage.games)


def departure_effect(*, event: Event, registration: Registration, kind: str) -> Effect:
    """What a disqualification, withdrawal or forfeit would change — nothing is changed here."""
    effect = Effect(registration=registration, kind=kind)
    effect.games_played = SheetSeat.objects.filter(
        registration=registration, sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED).count()
    label = str(Kind(kind).label) if kind in Kind.values else kind
    effect.notes.append(_(
        "Their %(games)s confirmed game result(s) stay in the standings and the exports, marked “%(kind)s”."
    ) % {"games": effect.games_played, "kind": label})
    stage = current_stage(event)
    effect.stage = stage
    if stage is None:
        return effect
    entered = StageEntry.objects.filter(stage=stage, registration=registration).exists()
    if not entered:
        effect.notes.append(_("They are not in %(stage)s, the current round: no draw changes.")
                            % {"stage": stage.display_name})
        return effect
    out = set(departures(event)) | {registration.pk}
    draw = working_draw(stage)
    seat_table = table_of(draw, registration) if draw is not None else None
    if draw is not None and seat_table is not None:
        played = set(ScoreSheet.objects.filter(
            stage=stage, table_number=seat_table, status=ScoreSheet.Status.CONFIRMED).values_list("game", flat=True))
        effect.games_left = [g for g in _games_of(stage, draw) if g not in played]
    if draw is not None and seat_table is not None and draw.is_draft:
        effect.notes.append(_("The draft draw of %(stage)s seats them: draw it again and they are left out.")
                            % {"stage": stage.display_name})
    if draw is not None and seat_table is not None and effect.games_left:
        effect.draw, effect.table = draw, seat_table
        tables = {number: [p for p in players if p not in out]
                  for number, players in enumerate(player_ids(draw), start=1)}
        effect.left_at_table = len(tables.get(seat_table, []))
        effect.proposal = merge_proposal(tables)
        movers = {m.player_id for m in effect.proposal.moves}
        effect.names = {r.pk: _label(r) for r in Registration.objects.filter(pk__in=movers).select_related("player")}
        if draw.is_released:
            effect.notes.append(_(
                "Table %(table)s keeps %(players)s player(s) for game(s) %(games)s; the seating is not re-drawn."
            ) % {"table": seat_table, "players": effect.left_at_table,
                 "games": ", ".join(str(g) for g in effect.games_left)})
    if format_of(event).each_game_anew:  # the later games are seated by movement, without them (R8.2)
        if stage.games > (draw.game if draw else 0):
            effect.notes.append(_("They are seated nowhere in the following games: the top two of each table "
                                  "move up without them."))
    elif stage.advance in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE) and not stage.closed_at:
        effect.notes.append(_("They cannot advance from %(stage)s; the places they could have taken go to the "
                              "next players, and they are not in the next round's draw.")
                            % {"stage": stage.display_name})
    if effect.proposal is not None and effect.proposal.needed:
        effect.notes.append(_("A table would be left with fewer than %(min)s players: see the proposal below. "
                              "Nothing is moved unless the organiser redraws or swaps by hand.") % {"min": MIN_TABLE})
    return effect
