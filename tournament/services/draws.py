"""Table draws (R8): start an event's first stage, draft a draw, swap by hand, release.

The algorithms live in `tournament.formats` (plain data in, plain data out); this module turns
registrations into entrants, stores what the algorithms return, and logs every step.
"""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..formats import busan, format_of, hongkong
from ..formats.draw import (
    ALGORITHM_VERSION,
    Constraints,
    Entrant,
    draw_tables,
    evaluate,
    new_seed,
    swap_players,
)
from ..formats.strategy import BUSAN
from ..models import ConductRecord, Draw, Event, Registration, Stage, StageEntry
from .audit import Actor, record
from .confirmation import Blocker, Preview, refuse
from .errors import ServiceError
from .locking import lock_event
from .seating import draw_size, met_pairs, player_ids, swap_places, write_seating


def busan_settings(event: Event) -> busan.BusanSettings:
    return BUSAN.settings(event.stage_games, event.final_games)  # R8.1: top 4 of round 3 go to the final


def constraints_of(event: Event) -> Constraints:
    return Constraints(
        same_affiliation=event.avoid_same_affiliation,
        repeat_opponents=event.avoid_repeat_opponents,
        spread_seeds=event.spread_seeds,
    )


def checked_in(event: Event):
    return Registration.objects.filter(
        event=event, status=Registration.Status.REGISTERED, checked_in_at__isnull=False
    ).select_related("player")


def stage_players(stage: Stage, *, still_playing: bool = False):
    players = Registration.objects.filter(stage_entries__stage=stage).select_related("player")
    if still_playing:
        # R9: a disqualified, withdrawn or forfeited player leaves every later draw.
        players = players.exclude(conduct_records__kind__in=ConductRecord.LEAVES_EVENT)
    return players


def entrants_of(registrations) -> list[Entrant]:
    return [
        Entrant(id=r.id, number=r.number, affiliation=r.player.affiliation or None, seed_rank=r.seed_rank)
        for r in registrations
    ]


def start_blockers(event: Event) -> list[Blocker]:
    """Why the first stage cannot be created now (the draw page shows them beside the button)."""
    if event.stages.exists():
        return [Blocker("started", _("This event has already started."))]
    if not event.numbers_assigned_at:
        return [Blocker("not_numbered", _("Close check-in and assign player numbers before the first draw."))]
    if checked_in(event).count() < 2:
        return [Blocker("too_few", _("At least two checked-in players are needed for a draw."))]
    return []


def start_event(*, event: Event, actor: Actor) -> Stage:
    """Create the first stage once check-in is closed and the players are numbered (R8.1, R8.2)."""
    with transaction.atomic():
        event = lock_event(event)
        refuse(start_blockers(event))
        registrations = list(checked_in(event).values_list("id", flat=True))
        players = len(registrations)
        first = format_of(event).first_stage(event, players)
        stage = Stage.objects.create(event=event, number=1, name=first.name, games=first.games,
                                     advance=first.advance, advance_count=first.k)
        StageEntry.objects.bulk_create([StageEntry(stage=stage, registration_id=r) for r in registrations])
        record(actor=actor, action="stage.created", target=stage, event=event,
               after={"number": stage.number, "players": players, "games": stage.games, "advance": stage.advance})
    return stage


def _violations_data(violations, tables) -> list[dict]:
    """The constraints the seating could not keep, as the draw stores them. At one table everyone sits together
    (R8.1: the final of four): no seating keeps anybody apart there, so nothing is a constraint left unmet."""
    if len(tables) <= 1:
        return []
    return [
        {"constraint": v.constraint, "table": v.table, "players": list(v.players), "detail": v.detail}
        for v in violations
    ]


def _constraints_data(constraints: Constraints) -> dict:
    return {"same_affiliation": constraints.same_affiliation, "repeat_opponents": constraints.repeat_opponents,
            "spread_seeds": constraints.spread_seeds}


def draft_draw(*, stage: Stage, actor: Actor, seed: int | None = None) -> Draw:
    """A new draft seating for the stage's first game (a redraw discards the earlier draft)."""
    with transaction.atomic():
        event = lock_event(stage.event_id)
        stage = Stage.objects.select_related("event__festival").get(pk=stage.pk)
        if stage.draws.filter(status=Draw.Status.RELEASED).exists():
            raise ServiceError(_("This stage's draw is already released; un-release it first."), code="released")
        seed = new_seed() if seed is None else seed
        registrations = list(stage_players(stage, still_playing=True))
        entrants = entrants_of(registrations)
        constraints = constraints_of(event)
        pairs = met_pairs(event)
        if format_of(event).seats_by_number(stage_number=stage.number, first_seating=event.first_seating):
            tables = hongkong.initial_tables(entrants, seat_seed=seed)
            violations, _unmet = evaluate(tables, entrants, pairs, constraints)
            method = Draw.Method.BY_NUMBER
        else:
            result = draw_tables(entrants, met_pairs=pairs, constraints=constraints, seed=seed)
            tables, violations, method = result.tables, result.violations, Draw.Method.RANDOM
        discarded = list(stage.draws.filter(status=Draw.Status.DRAFT, game=1).values_list("id", flat=True))
        stage.draws.filter(id__in=discarded).update(status=Draw.Status.DISCARDED)
        unmet = _violations_data(violations, tables)
        draw = write_seating(Draw(stage=stage, game=1, method=method, seed=seed, algorithm_version=ALGORITHM_VERSION,
                                  constraints=_constraints_data(constraints),
                                  violations=unmet, created_by=actor.user), tables)
        record(actor=actor, action="draw.drafted", target=draw, event=event,
               after={"seed": seed, "algorithm": ALGORITHM_VERSION, "method": method, "tables": len(tables),
                      "unmet": len(unmet), "discarded": discarded})
    return draw


def swap_seats(*, draw: Draw, first: int, second: int, actor: Actor) -> Draw:
    """The organiser swaps two players of a draft by hand; the unmet constraints are checked again."""
    with transaction.atomic():
        lock_event(draw.stage.event_id)
        draw = Draw.objects.select_related("stage__event").get(pk=draw.pk)
        if not draw.is_draft:
            raise ServiceError(_("Only a draft can be changed; un-release the draw first."), code="not_draft")
        if first == second:
            raise ServiceError(_("Choose two different players to swap."), code="same")
        event = draw.stage.event
        tables = player_ids(draw)
        if not {first, second} <= {player for table in tables for player in table}:
            raise ServiceError(_("Both players must be seated in this draw."), code="not_seated")
        registrations = list(stage_players(draw.stage))
        result = swap_players(tables, first, second, entrants_of(registrations), met_pairs(event),
                              Constraints(**draw.constraints))
        was_first, was_second = swap_places(draw, first, second)
        draw.violations = _violations_data(result.violations, result.tables)
        draw.swaps += 1
        draw.save(update_fields=["violations", "swaps"])
        record(actor=actor, action="draw.swapped", target=draw, event=event,
               before={"first": list(was_first), "second": list(was_second)},
               after={"first": list(was_second), "second": list(was_first), "unmet": len(draw.violations)})
    return draw


def release_preview(draw: Draw) -> Preview:
    """What releasing a draft does: every seated player and the public see their tables."""
    stage = draw.stage
    title = _("Release the draw of %(stage)s") % {"stage": stage.display_name}
    if not draw.is_draft:
        return Preview(title=title, blockers=[Blocker("not_draft", _("Only a draft can be released."))])
    tables, players = draw_size(draw)
    # A draw seats at least two players; the tables may be one (R8.1: the final).
    shown = (ngettext("%(players)s players at %(tables)s table; players and the public will see it.",
                      "%(players)s players at %(tables)s tables; players and the public will see it.", tables)
             if stage.event.public_draw else
             ngettext("%(players)s players at %(tables)s table; players will see it on their own pages (the public "
                      "draw pages are switched off for this event).",
                      "%(players)s players at %(tables)s tables; players will see it on their own pages (the public "
                      "draw pages are switched off for this event).", tables))
    lines = [
        shown % {"players": players, "tables": tables},
        _("Until a result is entered you can take it back to draft, with a reason."),
    ]
    if draw.violations and tables > 1:  # at one table nobody can be kept apart (_violations_data)
        lines.insert(1, ngettext("%(count)s constraint could not be met (see the draw page).",
                                 "%(count)s constraints could not be met (see the draw page).",
                                 len(draw.violations)) % {"count": len(draw.violations)})
    return Preview(title=title, lines=lines,
                   facts=["release", draw.pk, draw.status, draw.swaps, players, tables, len(draw.violations),
                          stage.event.public_draw])


def release_draw(*, draw: Draw, actor: Actor, now=None, expect: str | None = None) -> Draw:
    """`expect`: the state of `release_preview` the organiser confirmed (services.confirmation)."""
    now = now or timezone.now()
    with transaction.atomic():
        lock_event(draw.stage.event_id)
        draw = Draw.objects.select_related("stage__event").get(pk=draw.pk)
        release_preview(draw).require(expect)
        draw.status = Draw.Status.RELEASED
        draw.released_at = now
        draw.save(update_fields=["status", "released_at"])
        record(actor=actor, action="draw.released", target=draw, event=draw.stage.event,
               after={"seed": draw.seed, "swaps": draw.swaps})
    return draw


def unrelease_draw(*, draw: Draw, actor: Actor, reason: str = "") -> Draw:
    """Take a released draw back to draft (e.g. a player was missed), allowed while no game has been played."""
    with transaction.atomic():
        lock_event(draw.stage.event_id)
        draw = Draw.objects.select_related("stage__event").get(pk=draw.pk)
        if not draw.is_released:
            raise ServiceError(_("This draw is not released."), code="not_released")
        # Score sheets (the scoring app) point at the seating they were entered against; a submission holds
        # the event lock shared, so none can slip in between this check and the change.
        if hasattr(draw, "sheets") and draw.sheets.exists():
            raise ServiceError(_("Results have been entered for this draw; it can no longer be taken back."),
                               code="has_results")
        draw.status = Draw.Status.DRAFT
        draw.released_at = None
        draw.save(update_fields=["status", "released_at"])
        record(actor=actor, action="draw.unreleased", target=draw, event=draw.stage.event, reason=reason)
    return draw
