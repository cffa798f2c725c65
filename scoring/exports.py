"""An event as plain data: the JSON export ("rummikub-event/1", see docs/export.md) and the
standings and game-results tables (CSV/XLSX through tablib).

Only CONFIRMED score sheets are exported. Scores and points are Decimals in the database; in JSON they are
numbers with at most two decimals (`number`), never strings. Every builder reads the database in a constant
number of queries, whatever the size of the event. The export is meant to be read back.
"""

import json
from decimal import ROUND_HALF_UP, Decimal

import tablib
from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rules.rulesets import get_ruleset
from tournament.list_text import as_text
from tournament.models import (
    ConductRecord,
    Event,
    Festival,
    Lot,
    Registration,
    Stage,
    StageEntry,
)
from tournament.services import seating
from tournament.services.errors import ServiceError
from tournament.services.imports.exporting import CONTENT_TYPES
from tournament.services.imports.layout import neutralise

from .models import ScoreSheet, SheetSeat, WordTurn
from .results.event import event_results
from .standings import event_standings

SCHEMA = "rummikub-event/1"
FORMATS = ("csv", "xlsx")
TABLES = ("standings", "results")
CENT = Decimal("0.01")


def number(value):
    """A Decimal as a JSON number: an int when whole (-7), else a float of two decimals (33.33)."""
    if value is None:
        return None
    value = Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)
    if value == value.to_integral_value():
        return int(value)
    return float(value)


class ExportEncoder(json.JSONEncoder):
    """Safety net for anything the builders did not convert: Decimals as numbers, dates as ISO text."""

    def default(self, o):
        if isinstance(o, Decimal):
            return number(o)
        if hasattr(o, "isoformat"):
            return o.isoformat()
        return super().default(o)


def dumps(data) -> str:
    """The export's text: UTF-8 names as they are, two-space indent, keys in the documented order."""
    return json.dumps(data, cls=ExportEncoder, ensure_ascii=False, indent=2) + "\n"


def _iso(moment):
    return moment.isoformat() if moment else None


# Event settings a re-import needs beyond the documented core, copied as they are (times as ISO text,
# games per round as comma text: "3,3,3").
EVENT_SETTINGS = (
    "capacity", "registration_opens_at", "registration_closes_at", "withdrawal_deadline", "checkin_opens_at",
    "checkin_closes_at", "checkin_override", "numbering", "numbering_seed", "numbers_assigned_at", "stage_games",
    "final_games", "rotation_games", "first_seating", "avoid_same_affiliation", "avoid_repeat_opponents",
    "spread_seeds", "public_draw", "public_standings", "public_scores",
)


def _festival(festival: Festival) -> dict:
    return {
        "slug": festival.slug, "name": festival.name, "venue": festival.venue,
        "starts_on": festival.starts_on.isoformat(), "ends_on": festival.ends_on.isoformat(),
        "contact": festival.contact, "languages": as_text(festival.languages), "timezone": festival.timezone,
        "ranking_recipient": festival.ranking_recipient, "ranking_recipient_keeps": festival.ranking_recipient_keeps,
    }


def _setting(value):
    if hasattr(value, "isoformat"):
        return _iso(value)
    return as_text(value) if isinstance(value, list) else value


def _event_settings(event: Event) -> dict:
    return {name: _setting(getattr(event, name)) for name in EVENT_SETTINGS}


def _kept_playing(by_player: dict[int, list[ConductRecord]]) -> dict[int, list[dict]]:
    """The chief referee's decisions to keep a player on after a third warning (R9), each with the warnings
    the player had then."""
    kept: dict[int, list[dict]] = {}
    for registration, records in by_player.items():
        warnings = 0
        for conduct in records:
            if conduct.kind == ConductRecord.Kind.WARNING:
                warnings += 1
            elif conduct.kind == ConductRecord.Kind.KEPT:
                kept.setdefault(registration, []).append(
                    {"warnings": warnings, "note": conduct.note, "at": _iso(conduct.created_at)})
    return kept


def player_status(registration: Registration, left: dict[int, ConductRecord]) -> str:
    """The registration's status, or how the player left the event (disqualified, withdrew, forfeit)."""
    if registration.pk in left:
        return left[registration.pk].kind
    return registration.status


def _conduct(event: Event):
    """(records by registration, the record that took each leaver out of the event) — one query."""
    by_player: dict[int, list[ConductRecord]] = {}
    left: dict[int, ConductRecord] = {}
    for conduct in ConductRecord.objects.filter(event=event).select_related("stage").order_by("created_at", "id"):
        by_player.setdefault(conduct.registration_id, []).append(conduct)
        if conduct.kind in ConductRecord.LEAVES_EVENT:
            left.setdefault(conduct.registration_id, conduct)
    return by_player, left


def _seat(line: SheetSeat) -> dict:
    return {
        "seat": line.position, "player": line.registration_id, "went_out": line.went_out,
        "tiles": line.tiles or None, "rack_value": line.rack_value, "jokers": line.jokers, "opened": line.opened,
        "could_open": line.could_open, "conduct_penalty": line.conduct_penalty, "penalty": number(line.penalty),
        "score": number(line.score), "win": line.win,
    }


def _add_word_turns(event: Event, tables: dict[tuple[int, int], dict[int, dict]]) -> None:
    turns = (WordTurn.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
             .select_related("sheet").order_by("sheet_id", "index"))
    for games in tables.values():
        for table in games.values():
            table["turns"] = []
    for turn in turns:
        sheet = turn.sheet
        table = tables.get((sheet.stage_id, sheet.game), {}).get(sheet.table_number)
        if table is None:
            continue
        table["turns"].append({
            "seat": turn.position, "words": turn.words.split(), "drew": turn.drew,
            "used_all_tiles": turn.used_all_tiles, "points": turn.points,
        })


def _draws(event: Event) -> dict[int, list[dict]]:
    """Every released seating (the one being played too), by stage id — one query."""
    seats = seating.event_seats(event)
    by_stage: dict[int, dict[int, dict]] = {}
    for seat in seats:
        draw = seat.draw
        draws = by_stage.setdefault(draw.stage_id, {})
        exported = draws.get(draw.pk)
        if exported is None:
            exported = draws[draw.pk] = {
                "game": draw.game, "method": draw.method, "seed": draw.seed,
                "algorithm_version": draw.algorithm_version, "constraints": draw.constraints,
                "violations": draw.violations, "swaps": draw.swaps, "created_at": _iso(draw.created_at),
                "released_at": _iso(draw.released_at), "tables": [],
            }
        tables = exported["tables"]
        if not tables or tables[-1]["number"] != seat.table.number:
            tables.append({"number": seat.table.number, "seats": []})
        tables[-1]["seats"].append(seat.registration_id)
    return {stage_id: list(draws.values()) for stage_id, draws in by_stage.items()}


def _stages(event: Event, stages: list[Stage]) -> list[dict]:
    lines = (SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
             .select_related("sheet").order_by("sheet__stage__number", "sheet__game", "sheet__table_number",
                                               "position"))
    tables: dict[tuple[int, int], dict[int, dict]] = {}
    for line in lines:
        sheet = line.sheet
        games = tables.setdefault((sheet.stage_id, sheet.game), {})
        table = games.get(sheet.table_number)
        if table is None:
            table = games[sheet.table_number] = {
                "number": sheet.table_number, "end": sheet.end, "version": sheet.version,
                "confirmed_at": _iso(sheet.decided_at), "seats": [],
                "warnings": sheet.warnings, "submitted_at": _iso(sheet.submitted_at),
                "submitted_via": sheet.submitted_via, "reason": sheet.reason,
            }
        table["seats"].append(_seat(line))
    if event.game == Event.Game.WORD:  # Rummikub Word (R10): the per-turn record, one more query
        _add_word_turns(event, tables)
    entries: dict[int, list[int]] = {}
    for stage_id, registration_id in StageEntry.objects.filter(stage__event=event).order_by(
            "registration_id").values_list("stage_id", "registration_id"):
        entries.setdefault(stage_id, []).append(registration_id)
    draws = _draws(event)
    out = []
    for index, stage in enumerate(stages):
        following = stages[index + 1] if index + 1 < len(stages) else None
        played = {game for stage_id, game in tables if stage_id == stage.pk}
        out.append({
            "index": stage.number, "name": stage.name, "display_name": stage.display_name,
            "games_planned": stage.games, "rule": stage.advance, "advance_count": stage.advance_count,
            "closed_at": _iso(stage.closed_at), "players": entries.get(stage.pk, []),
            "advance": entries.get(following.pk, []) if following else [],
            "games": [
                {"index": game, "tables": [t for _n, t in sorted(tables.get((stage.pk, game), {}).items())]}
                for game in range(1, max([stage.games, *played]) + 1)
            ],
            "draws": draws.get(stage.pk, []),
        })
    return out


def _lots(event: Event) -> list[dict]:
    out = []
    for lot in Lot.objects.filter(stage__event=event).select_related("stage").order_by("created_at", "id"):
        numbers = lot.tiebreak
        order = sorted(numbers, key=lambda p: -numbers[p])
        out.append({
            "stage": lot.stage.number, "game": lot.game, "table": lot.table_number, "purpose": lot.purpose,
            "players": [int(p) for p in lot.players], "numbers": {str(p): n for p, n in numbers.items()},
            "winner": order[0] if order else None, "order": order, "seed": lot.seed, "at": _iso(lot.created_at),
        })
    return out


def places(event: Event) -> list[dict]:
    """Who won: every player's final place as the results page shows it (`event_results`), and what decided
    it — the deciding stage's games ("final": the Busan final, a Hong Kong event's games), the stage a player
    went out in ("stage"), a recorded lot or a playoff. Empty until the deciding stage is complete."""
    results = event_results(event)
    if not results.final:
        return []
    return [
        {"place": row.place, "player": row.registration.pk, "ranking_points": number(row.ranking_points),
         "decided_by": row.decided_by or ("final" if row.stage == results.deciding_stage else "stage")}
        for row in results.rows
    ]


def event_export(event: Event) -> dict:
    """The whole event as the documented "rummikub-event/1" object (docs/export.md)."""
    by_player, left = _conduct(event)
    registrations = list(Registration.objects.filter(event=event).select_related("player").order_by(
        F("number").asc(nulls_last=True), "created_at", "id"))
    stages = list(Stage.objects.filter(event=event).select_related("event").order_by("number"))
    standings = event_standings(event)
    kept = _kept_playing(by_player)
    return {
        "schema": SCHEMA,
        "festival": _festival(event.festival),
        "event": {
            "slug": event.slug, "name": event.name, "festival": event.festival.slug, "format": event.format,
            "game": event.game, "starts_at": _iso(event.starts_at), "ends_at": _iso(event.ends_at),
            "ruleset": get_ruleset(event.ruleset).to_dict(), "tiebreaks": event.tiebreaks,
            "ranking_points": event.ranking_points, "under_15_no_points": event.under_15_no_points,
            "timetable": event.timetable, "late_places_opened_at": _iso(event.late_places_opened_at),
            "public_names": event.public_names, "public_affiliations": event.public_affiliations,
            **_event_settings(event),
        },
        "players": [
            {
                "id": r.pk, "number": r.number, "name": r.player.name, "affiliation": r.player.affiliation,
                "birth_year": r.player.birth_year, "status": player_status(r, left),
                "registration_status": r.status, "checked_in": r.checked_in_at is not None,
                "ranking_id": r.player.ranking_id, "results_to_ranking": r.player.results_to_ranking,
                "contact": r.player.contact, "registered_at": _iso(r.created_at), "queued_at": _iso(r.queued_at),
                # After an erasure: no contact nor birth year, and R9's under 15 as stored then.
                "personal_data_erased_at": _iso(r.player.personal_data_erased_at), "under_age": r.under_age,
                "checked_in_at": _iso(r.checked_in_at), "withdrawn_at": _iso(r.withdrawn_at),
                "promoted_at": _iso(r.promoted_at),
                "seed_rank": r.seed_rank, "kept_playing": kept.get(r.pk, []),
                "conduct": [
                    {"kind": c.kind, "stage": c.stage.number if c.stage else None, "game": c.game, "note": c.note,
                     "at": _iso(c.created_at)}
                    for c in by_player.get(r.pk, []) if c.kind != ConductRecord.Kind.KEPT
                ],
            }
            for r in registrations
        ],
        "stages": _stages(event, stages),
        "standings": [
            {"rank": line.rank, "player": line.player, "games": line.games, "wins": line.wins,
             "points": number(line.points), "total": number(line.total), "average": number(line.average),
             "tied": line.tied}
            for line in standings.lines
        ],
        "lots": _lots(event),
        "places": places(event),
    }


def event_json(event: Event) -> str:
    return dumps(event_export(event))


def export_file_name(event: Event, what: str, fmt: str) -> str:
    return f"{event.festival.slug}-{event.slug}-{what}.{fmt}"


# --- spreadsheets: standings and every game result, headers in the reader's language -------------------

STANDINGS_COLUMNS = {
    "rank": gettext_lazy("Rank"), "place": gettext_lazy("Final place"), "number": gettext_lazy("Player number"), "name": gettext_lazy("Name"),
    "affiliation": gettext_lazy("School or club"), "games": gettext_lazy("Games"), "wins": gettext_lazy("Wins"),
    "points": gettext_lazy("Points"), "total": gettext_lazy("Total points"), "status": gettext_lazy("Status"),
}
RESULTS_COLUMNS = {
    "stage": gettext_lazy("Round"), "game": gettext_lazy("Game"), "table": gettext_lazy("Table"),
    "seat": gettext_lazy("Seat"), "number": gettext_lazy("Player number"), "name": gettext_lazy("Name"),
    "end": gettext_lazy("How the game ended"), "went_out": gettext_lazy("Went out"),
    "tiles": gettext_lazy("Tiles"), "rack_value": gettext_lazy("Rack value"), "jokers": gettext_lazy("Jokers"),
    "penalty": gettext_lazy("Penalty"), "score": gettext_lazy("Score"), "win": gettext_lazy("Win"),
    "status": gettext_lazy("Status"),
}


def _status_label(registration: Registration, left: dict[int, ConductRecord]) -> str:
    if registration.pk in left:
        return str(left[registration.pk].get_kind_display())
    return str(registration.get_status_display())


def _yes(value: bool) -> str:
    return str(_("yes")) if value else ""


def standings_dataset(event: Event) -> tablib.Dataset:
    standings = event_standings(event)
    _by_player, left = _conduct(event)
    stage_names = {s.number: s.display_name for s in Stage.objects.filter(event=event)}
    game_headers = [
        _("%(stage)s, game %(game)s") % {"stage": stage_names.get(stage, stage), "game": game}
        for stage, game in standings.columns
    ]
    dataset = tablib.Dataset(headers=[str(label) for label in STANDINGS_COLUMNS.values()] + game_headers)
    dataset.title = str(_("Standings"))
    # Once the results are final, each player's final place (stage reached first), as every page says it.
    results = event_results(event)
    places = {row.registration.pk: f"{row.place}=" if row.tied else row.place for row in results.rows} \
        if results.final else {}
    for line in standings.lines:
        registration = standings.registrations[line.player]
        player = registration.player
        cells = [number(line.cells[column].score) if column in line.cells else "" for column in standings.columns]
        row = [line.rank, places.get(registration.pk, ""), registration.number or "", player.name, player.affiliation, line.games, line.wins,
               number(line.points), number(line.total), _status_label(registration, left), *cells]
        dataset.append([neutralise(value) for value in row])
    return dataset


def results_dataset(event: Event) -> tablib.Dataset:
    """One row per player per game, from confirmed sheets, in play order."""
    _by_player, left = _conduct(event)
    lines = (SheetSeat.objects.filter(sheet__stage__event=event, sheet__status=ScoreSheet.Status.CONFIRMED)
             .select_related("sheet__stage", "registration__player")
             .order_by("sheet__stage__number", "sheet__game", "sheet__table_number", "position"))
    dataset = tablib.Dataset(headers=[str(label) for label in RESULTS_COLUMNS.values()])
    dataset.title = str(_("Game results"))
    ends = dict(ScoreSheet.End.choices)
    for line in lines:
        sheet, registration = line.sheet, line.registration
        row = [sheet.stage.display_name, sheet.game, sheet.table_number, line.position, registration.number or "",
               registration.player.name, str(ends.get(sheet.end, sheet.end)), _yes(line.went_out), line.tiles,
               "" if line.rack_value is None else line.rack_value, line.jokers, number(line.penalty),
               number(line.score), _yes(line.win), _status_label(registration, left)]
        dataset.append([neutralise(value) for value in row])
    return dataset


def table_file(event: Event, what: str, fmt: str) -> bytes:
    """The standings or the game results as a spreadsheet's bytes (`encoded`)."""
    if what not in TABLES or fmt not in FORMATS:
        raise ServiceError(_("Unknown file format."), code="format")
    return encoded(standings_dataset(event) if what == "standings" else results_dataset(event), fmt)


def encoded(dataset: tablib.Dataset, fmt: str) -> bytes:
    """A spreadsheet's bytes. CSV is UTF-8 with a BOM so Excel shows Hangul and Chinese (as the registrations)."""
    if fmt == "csv":
        return ("\ufeff" + dataset.export("csv")).encode("utf-8")
    return dataset.export("xlsx")


__all__ = ["CONTENT_TYPES", "SCHEMA", "event_export", "event_json", "number", "table_file"]
