"""How far a stage is, and from confirmed sheets to the next step of the event (R7, R8): Hong Kong movement
after every game, Busan advancement at the end of a stage, ties at the cut resolved by recorded lots.

`stage_progress` is the one answer to "is this game (this stage) complete, which game is being played", and
`current_stage` to "which stage is the event at"; the pages and services ask them.

Only confirmed sheets count. Everything here reads them as plain `SeatResult`s and asks
`tournament.formats` what follows.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.formats import EventFormat, busan, format_of, hongkong
from tournament.formats.draw import ALGORITHM_VERSION, draw_seat_orders, new_seed
from tournament.formats.ranking import SeatResult, draw_lot
from tournament.models import ConductRecord, Draw, Event, Lot, Registration, Stage, StageEntry
from tournament.services.audit import Actor, record
from tournament.services.confirmation import Blocker, Group, Preview
from tournament.services.draws import busan_settings
from tournament.services.errors import ServiceError
from tournament.services.locking import lock_event
from tournament.services.seating import counted_draws, game_draw, player_ids, table_numbers_of, write_seating

from ..models import ScoreSheet, SheetSeat


def stage_results(stage: Stage, game: int | None = None) -> list[SeatResult]:
    rows = SheetSeat.objects.filter(sheet__stage=stage, sheet__status=ScoreSheet.Status.CONFIRMED)
    if game is not None:
        rows = rows.filter(sheet__game=game)
    return [
        SeatResult(player_id=registration, table=table, score=score, win=win, game=g)
        for registration, table, score, win, g in rows.values_list(
            "registration_id", "sheet__table_number", "score", "win", "sheet__game"
        )
    ]


@dataclass(frozen=True)
class GameProgress:
    """One game of a stage: its seating, its tables, how many of them have a confirmed sheet."""

    game: int
    draw: Draw | None  # the released seating it is played in (Busan: the stage's; Hong Kong: its own); None: none yet
    tables: int
    confirmed: int

    @property
    def complete(self) -> bool:
        return self.tables > 0 and self.confirmed == self.tables


@dataclass(frozen=True)
class StageProgress:
    """Where a stage stands (`stage_progress`); its first six fields are `scoring.live.Play`'s, with the same
    meaning, so a page reading one reads the other."""

    stage: Stage | None
    game: int | None  # the first game not confirmed at every table; None when complete or nothing is released
    released: bool  # a seating of the stage is released
    complete: bool  # every game has every table of its seating confirmed
    tables: int  # tables in the stage's seating (the most of any game's)
    confirmed: int  # confirmed sheets in `game` (`tables` when complete)
    per_game: tuple[GameProgress, ...] = ()  # every game of the stage, in order

    @property
    def tables_per_game(self) -> tuple[int, ...]:
        return tuple(g.tables for g in self.per_game)

    @property
    def confirmed_per_game(self) -> tuple[int, ...]:
        return tuple(g.confirmed for g in self.per_game)

    def of(self, game: int) -> GameProgress | None:
        return self.per_game[game - 1] if 1 <= game <= len(self.per_game) else None

    @property
    def seated_game(self) -> int:
        """The game the live board opens on: the first seated game not confirmed at every table, else the last
        seated one (a Hong Kong game waiting for its movement is not seated yet, R8.2); 1 before any seating."""
        seated = [g for g in self.per_game if g.draw is not None or g.tables]
        return next((g.game for g in seated if not g.complete), seated[-1].game if seated else 1)


NO_STAGE = StageProgress(None, None, False, False, 0, 0)


def progress_of(stage: Stage, fmt: EventFormat, *, tables: Mapping[int, int], confirmed: Mapping[int, int],
                draws: Mapping[int, Draw] | None = None) -> StageProgress:
    """A stage's progress from what was read already: `tables`, the table count of each released seating by its
    `Draw.game` (and `draws`, those seatings, if read); `confirmed`, the confirmed sheets by game. No query.

    The current game is the first one not confirmed at every table. In Hong Kong a game is seated once every
    table of the game before is confirmed (R8.2): until then it has no tables, so it is current as soon as the
    game before is complete."""
    draws = draws or {}
    games = tuple(
        GameProgress(game, draws.get(fmt.draw_game(game)), tables.get(fmt.draw_game(game), 0), confirmed.get(game, 0))
        for game in range(1, stage.games + 1))
    if not tables:
        return StageProgress(stage, None, False, False, 0, 0, games)
    most = max(tables.values())
    current = next((g for g in games if not g.complete), None)
    if current is None:
        return StageProgress(stage, None, True, True, most, most, games)
    return StageProgress(stage, current.game, True, False, most, current.confirmed, games)


def stage_progress(stage: Stage) -> StageProgress:
    """Where `stage` stands: per game its tables and confirmed sheets, the game being played, complete or not.
    Two queries whatever the size of the event (the stage comes with its event)."""
    draws = {draw.game: draw for draw in counted_draws(stage)}
    confirmed = dict(ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED)
                     .values("game").annotate(n=Count("id")).values_list("game", "n"))
    return progress_of(stage, format_of(stage.event), draws=draws, confirmed=confirmed,
                       tables={game: draw.table_count for game, draw in draws.items()})


def current_stage(event: Event) -> Stage | None:
    """The event's current stage: its newest, the one being played (or waiting for its draw, or played last).
    One query. (`seating.stage_in_play` is narrower: the stage a table plays in now, released and not closed.)"""
    return event.stages.order_by("-number").first()


def event_progress(event: Event) -> StageProgress:
    """`stage_progress` of the event's current stage; three queries whatever the event's size."""
    stage = current_stage(event)
    return stage_progress(stage) if stage is not None else NO_STAGE


def game_complete(stage: Stage, game: int) -> bool:
    found = stage_progress(stage).of(game)
    return found is not None and found.complete


def lots_tiebreak(stage: Stage, purpose: str, game: int | None = None) -> dict[int, int]:
    tiebreak: dict[int, int] = {}
    for lot in Lot.objects.filter(stage=stage, purpose=purpose, game=game):
        tiebreak.update(lot.tiebreak)
    return tiebreak


def leavers(event: Event) -> set[int]:
    """R9: disqualified, withdrawn or forfeited players leave every later draw and cannot advance."""
    return set(ConductRecord.objects.filter(event=event, kind__in=ConductRecord.LEAVES_EVENT)
               .values_list("registration_id", flat=True))


def without_leavers(stage: Stage, tables) -> list[list[int]]:
    out = leavers(stage.event)
    return [[p for p in table if p not in out] for table in tables]


def after_confirmation(*, sheet: ScoreSheet, actor: Actor, movement_seed: int | None = None) -> None:
    """Hong Kong: once every table of a game is confirmed, the top two move up a table (R8.2)."""
    stage = sheet.stage
    if not format_of(stage.event).each_game_anew or sheet.game >= stage.games:
        return
    if stage.draws.filter(game=sheet.game + 1).exclude(status=Draw.Status.DISCARDED).exists():
        return
    if game_complete(stage, sheet.game):
        apply_movement(stage=stage, game=sheet.game, actor=actor, seed=movement_seed)


def apply_movement(*, stage: Stage, game: int, actor: Actor, seed: int | None = None) -> Draw:
    """Seat game+1 from game's confirmed results; ties for moving are settled by a recorded lot (R7).
    The caller holds the event lock."""
    current = game_draw(stage, game)
    tables = without_leavers(stage, player_ids(current))
    seed = new_seed() if seed is None else seed
    moved = hongkong.movement(tables, stage_results(stage, game), lot_seed=seed)
    Lot.objects.bulk_create([  # one statement however many tables had a tie
        Lot(stage=stage, purpose=Lot.Purpose.MOVE, game=game, table_number=table_number, players=list(lot.players),
            numbers={str(p): n for p, n in lot.numbers.items()}, seed=str(lot.seed), created_by=actor.user)
        for table_number, lot in moved.lots
    ])
    next_tables = draw_seat_orders(moved.next_tables, f"{seed}/seats")
    draw = write_seating(Draw(stage=stage, game=game + 1, status=Draw.Status.RELEASED, method=Draw.Method.MOVEMENT,
                              seed=seed, algorithm_version=ALGORITHM_VERSION, released_at=timezone.now(),
                              created_by=actor.user), next_tables)
    record(actor=actor, action="draw.moved", target=draw, event=stage.event,
           after={"game": game + 1, "seed": seed, "lots": len(moved.lots)})
    return draw


def planned(stage: Stage, players: int, tables) -> busan.PlannedStage:
    return busan.PlannedStage(
        number=stage.number, name=stage.name, players=players, table_sizes=tuple(len(t) for t in tables),
        games=stage.games, advance=stage.advance, k=stage.advance_count, advancing=0,
    )


def advancement(stage: Stage) -> busan.Advancement | None:
    """Who goes on from a Busan stage (R8.1), with ties at the cut unless a recorded lot settles them."""
    draw = game_draw(stage, 1)
    if draw is None or stage.advance not in (Stage.Advance.PER_TABLE, Stage.Advance.PER_STAGE):
        return None
    tables = player_ids(draw)
    return busan.advancement(
        planned(stage, sum(len(t) for t in tables), tables), tables, stage_results(stage),
        tiebreak=lots_tiebreak(stage, Lot.Purpose.ADVANCE), withdrawn=leavers(stage.event),
    )


def stage_complete(stage: Stage) -> bool:
    return stage_progress(stage).complete


def draw_lots_at_cut(*, stage: Stage, actor: Actor, seed: int | None = None) -> list[Lot]:
    """R7: the software draws numbered cards for the players tied at the cut and records them.

    `seed` (default: fresh random ones) makes the lots reproducible, e.g. in the simulation."""
    with transaction.atomic():
        lock_event(stage.event_id)
        stage = Stage.objects.select_related("event").get(pk=stage.pk)
        if not stage_complete(stage):
            raise ServiceError(_("Lots are drawn once every game of the stage is confirmed."), code="incomplete")
        result = advancement(stage)
        if result is None or result.resolved:
            raise ServiceError(_("There is no tie at the cut."), code="no_tie")
        lots = []
        for index, tie in enumerate(result.ties):
            lot_seed = new_seed() if seed is None else f"{seed}/{index}"
            lot = draw_lot(tie.players, lot_seed)
            lots.append(Lot.objects.create(
                stage=stage, purpose=Lot.Purpose.ADVANCE, table_number=tie.table, players=list(lot.players),
                numbers={str(p): n for p, n in lot.numbers.items()}, seed=str(lot_seed), created_by=actor.user,
            ))
            record(actor=actor, action="lot.drawn", target=lots[-1], event=stage.event,
                   after={"players": list(lot.players), "numbers": {str(p): n for p, n in lot.numbers.items()},
                          "places": tie.places})
    return lots


TABLES_NAMED = 8  # a blocker names this many tables, then "…"


def missing_sheets(stage: Stage) -> list[Blocker]:
    """Per game, the tables without a confirmed sheet (or the seating still missing); two queries when every game
    is complete (`stage_progress`), four to name the tables missing."""
    state = stage_progress(stage)
    if not state.released:
        return [Blocker("not_released", _("The draw of %(stage)s is not released yet.")
                        % {"stage": stage.display_name})]
    waiting = [g for g in state.per_game if not g.complete]
    if not waiting:
        return []
    numbers = table_numbers_of({g.draw.pk for g in waiting if g.draw})
    confirmed = set(ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED,
                                              game__in=[g.game for g in waiting])
                    .values_list("game", "table_number"))
    blockers = []
    for g in waiting:
        game, draw = g.game, g.draw
        if draw is None:  # Hong Kong: seated by the movement once the game before is complete (R8.2)
            blockers.append(Blocker("unseated", _("Game %(game)s is not seated yet: it is seated when every table "
                                                  "of game %(before)s is confirmed.") % {"game": game, "before": game - 1},
                                    game=game - 1))
            continue
        missing = [n for n in numbers.get(draw.pk, []) if (game, n) not in confirmed]
        if len(missing) == 1:
            blockers.append(Blocker("incomplete", _("Table %(table)s, game %(game)s has no confirmed sheet.")
                                    % {"table": missing[0], "game": game}, game=game, table=missing[0]))
        elif missing:
            named = ", ".join(str(n) for n in missing[:TABLES_NAMED]) + (", …" if len(missing) > TABLES_NAMED else "")
            blockers.append(Blocker("incomplete", _("Game %(game)s: %(count)s tables have no confirmed sheet "
                                                    "(%(tables)s).") % {"game": game, "count": len(missing),
                                                                        "tables": named}, game=game))
    return blockers


_UNKNOWN = object()


def closing_blockers(stage: Stage, *, complete: bool | None = None, result=_UNKNOWN) -> list[Blocker]:
    """Why the stage cannot be closed now: closed already, sheets not confirmed, ties at the cut without a lot.
    A page that knows already whether every game is `complete` and the `advancement` result passes them."""
    if stage.closed_at:
        return [Blocker("closed", _("This stage is already closed."))]
    blockers = [] if complete else missing_sheets(stage)
    if blockers:
        return blockers
    if result is _UNKNOWN:
        result = advancement(stage)
    if result is not None and not result.resolved:
        count = len(result.ties)
        return [Blocker("tie", ngettext("%(count)s tie at the cut still needs a lot.",
                                        "%(count)s ties at the cut still need a lot.", count) % {"count": count})]
    return []


def closing_preview(stage: Stage) -> Preview:
    """What closing the stage does (R8.1): who advances, who is out, the lots that settled ties, what comes
    next; or why it cannot be closed yet (`blockers`: the page shows them beside the button, the service
    refuses with them)."""
    title = _("Close %(stage)s") % {"stage": stage.display_name}
    blockers = [Blocker("closed", _("This stage is already closed."))] if stage.closed_at else missing_sheets(stage)
    result = advancement(stage) if not blockers else None
    blockers = blockers or closing_blockers(stage, complete=True, result=result)
    if blockers:
        return Preview(title=title, blockers=blockers)
    players = sorted(StageEntry.objects.filter(stage=stage).values_list("registration_id", flat=True))
    closed_line = _("Referees can no longer enter sheets for it; corrections stay possible.")
    if result is None:
        lines = [ngettext("%(count)s player; nobody goes on to another round from here.",
                          "%(count)s players; nobody goes on to another round from here.",
                          len(players)) % {"count": len(players)}, closed_line]
        return Preview(title=title, lines=lines, facts=["close", stage.pk, players])
    advancing = list(result.advancing)
    lots = Lot.objects.filter(stage=stage, purpose=Lot.Purpose.ADVANCE).count()
    lines = [ngettext("%(advance)s player advances, %(out)s are out.", "%(advance)s players advance, %(out)s are out.",
                      len(advancing)) % {"advance": len(advancing), "out": len(players) - len(advancing)}]
    if lots:
        lines.append(ngettext("%(count)s tie at the cut is resolved by lot.",
                              "%(count)s ties at the cut are resolved by lot.", lots) % {"count": lots})
    lines += [_("%(next)s is created with them, ready to be drawn.")
              % {"next": next_plan(stage, len(advancing)).display_name}, closed_line]
    names = dict(Registration.objects.filter(pk__in=advancing).values_list("pk", "player__name"))
    return Preview(title=title, lines=lines, groups=[Group(_("Advancing"), [names.get(p, str(p)) for p in advancing])],
                   facts=["close", stage.pk, advancing, players, lots])


def next_plan(stage: Stage, advancing: int) -> Stage:
    """The stage that follows a Busan stage with `advancing` players (R8.1), not saved."""
    upcoming = busan.plan(advancing, busan_settings(stage.event), first_stage=stage.number + 1)[0]
    return Stage(event=stage.event, number=stage.number + 1, name=upcoming.name, games=upcoming.games,
                 advance=upcoming.advance, advance_count=upcoming.k)


def close_stage(*, stage: Stage, actor: Actor, now=None, expect: str | None = None) -> Stage | None:
    """End a stage: in Busan everyone who advances enters the next stage (R8.1). Returns the next stage.
    `expect`: the state of `closing_preview` the organiser confirmed (tournament.services.confirmation)."""
    now = now or timezone.now()
    with transaction.atomic():
        lock_event(stage.event_id)
        stage = Stage.objects.select_related("event").get(pk=stage.pk)
        closing_preview(stage).require(expect)
        next_stage = None
        result = advancement(stage)
        stage.closed_at = now
        stage.save(update_fields=["closed_at"])
        if result is not None:
            next_stage = next_plan(stage, len(result.advancing))
            next_stage.save()
            StageEntry.objects.bulk_create([StageEntry(stage=next_stage, registration_id=p) for p in result.advancing])
        record(actor=actor, action="stage.closed", target=stage, event=stage.event,
               after={"next": next_stage.number if next_stage else None})
    return next_stage


def correction_effects(*, sheet: ScoreSheet, actor: Actor) -> list[str]:
    """A correction after the next seating exists: warn, show what would change, re-draw nothing."""
    stage = sheet.stage
    notes = []
    if format_of(stage.event).each_game_anew:  # the next game was seated from this one's results (R8.2)
        later = stage.draws.filter(game=sheet.game + 1).exclude(status=Draw.Status.DISCARDED).first()
        if later is not None:
            moved = hongkong.movement(without_leavers(stage, player_ids(sheet.draw)),
                                      stage_results(stage, sheet.game),
                                      tiebreak=lots_tiebreak(stage, Lot.Purpose.MOVE, sheet.game))
            if moved.next_tables is not None and sorted(map(sorted, moved.next_tables)) != sorted(
                    map(sorted, player_ids(later))):
                notes.append(_("This correction changes who should have moved up after game %(game)s; "
                               "the next game's seating was not changed.") % {"game": sheet.game})
    elif stage.closed_at:
        result = advancement(stage)
        entered = set(StageEntry.objects.filter(stage__event=stage.event, stage__number=stage.number + 1)
                      .values_list("registration_id", flat=True))
        if result is not None and set(result.advancing) != entered:
            notes.append(_("This correction changes who advanced from %(stage)s; the next round was not "
                           "re-drawn.") % {"stage": stage.display_name})
    for note in notes:
        record(actor=actor, action="sheet.correction_warning", target=sheet, event=stage.event, reason=note)
    return notes
