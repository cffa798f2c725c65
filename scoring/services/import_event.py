"""Importing an event export ("rummikub-event/1") into a database: an event moves machines mid-day.

`import_event` recreates, in ONE transaction, what the export carries: the festival (unless it exists),
the event with its rules and draw settings, players and registrations (check-in times, numbers), stages
and who entered them, every released seating, every confirmed score sheet (all seat fields, Word turns),
conduct records and the chief referee's decisions, and every lot. Any wrong value, broken reference or
inconsistency stops it with a message naming the place in the file, and nothing is written.

It does not replay the services: the file is the record of what the services did. It does check that the
records fit together (a sheet names the players seated at its table; the standings in the file follow from
its sheets) and what the services would have refused (`import_checks`: players by the registration form's
rules, every sheet judged again by the rules engine), so that a hand-edited or truncated file cannot leave an
event the app would trip over.
Not carried by the export, so not imported: submitted sheets still waiting for confirmation, returned and
superseded versions, drafts, staff accounts (sheets keep who entered them as text), private links.

One module on purpose: the importer is one pass over one document, each step resolving the ids the steps
before it created.
"""

import uuid
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django.utils.translation import gettext as _

from tournament.formats import format_of
from tournament.models import (
    ConductRecord,
    Draw,
    Event,
    Festival,
    Lot,
    Player,
    Registration,
    Stage,
    StageEntry,
)
from tournament.models.fields import ListField
from tournament.models.registration import contact_key, erased_contact_key, name_key
from tournament.schedule import as_json, stored
from tournament.services.audit import Actor, record
from tournament.services.seating import write_seating

from ..exports import EVENT_SETTINGS, number, places
from ..models import ScoreSheet, SheetSeat, WordTurn
from ..standings import event_standings
from .event_file import ImportRefused, Node, load, refuse
from .import_checks import erased_at, judge_sheet, player_details

IMPORT_LABEL = "import"
# What a draw was asked to respect (tournament.formats.draw.Constraints; a swap in a draft rebuilds it).
CONSTRAINTS = {"same_affiliation", "repeat_opponents", "spread_seeds"}
# How the event's settings (exports.EVENT_SETTINGS) are written in the file, by model field; the rest are numbers
# (and list settings, comma text: `_list_setting`).
SETTING_KINDS = {"DateTimeField": "moment", "BooleanField": "bool", "CharField": "text"}


@dataclass
class Imported:
    event: Event
    festival_created: bool
    counts: dict[str, int] = field(default_factory=dict)


def _valid(obj, where: str, exclude=()) -> None:
    """The model's own field rules (lengths, ranges, choices, list settings) without a query; relations and other
    JSON (an empty list of unmet constraints is fine) are the import's job."""
    skip = [f.name for f in obj._meta.concrete_fields if f.is_relation or f.primary_key
            or (f.get_internal_type() == "JSONField" and not isinstance(f, ListField))] + list(exclude)
    try:
        obj.clean_fields(exclude=skip)
        obj.clean()
    except ValidationError as error:
        problems = error.message_dict if hasattr(error, "error_dict") else {"": error.messages}
        name, messages = next(iter(problems.items()))
        refuse(f"{where}.{name}" if name and name != "__all__" else where, " ".join(messages))


def _list_setting(data: Node, field: ListField, where: str) -> list:
    """A list setting the file writes as comma text ("3,3,3"; files of older versions as the organiser typed it)."""
    try:
        return field.parse(data.get(field.name, "text"))
    except ValidationError as error:
        refuse(f"{where}.{field.name}", " ".join(error.messages))


def _create_all(model, objects: list) -> None:
    """Insert in bulk; the objects get their ids (PostgreSQL, SQLite from 3.35), which later rows refer to."""
    if connection.features.can_return_rows_from_bulk_insert:
        model.objects.bulk_create(objects, batch_size=500)
    else:
        for obj in objects:
            obj.save(force_insert=True)


def _restamp(model, objects, name: str, moments: list) -> None:
    """auto_now_add fields get the time of saving; put back the time the file recorded."""
    for obj, moment in zip(objects, moments, strict=True):
        setattr(obj, name, moment)
    if objects:
        model.objects.bulk_update(objects, [name], batch_size=500)


class _Importer:
    def __init__(self, root: Node, festival_slug: str | None, actor: Actor):
        self.root, self.festival_slug, self.actor = root, festival_slug, actor
        self.registrations: dict[int, Registration] = {}  # the file's player id → the new registration
        self.stages: dict[int, Stage] = {}  # stage index → stage
        self.counts = {"players": 0, "reused_players": 0, "stages": 0, "draws": 0, "sheets": 0, "lots": 0,
                       "conduct": 0}

    # --- references ---------------------------------------------------------------------------------

    def registration(self, player_id, where: str) -> Registration:
        if isinstance(player_id, bool) or player_id not in self.registrations:
            refuse(where, _("%(id)s is not the id of a player in the file") % {"id": player_id})
        return self.registrations[player_id]

    def stage(self, index, where: str) -> Stage:
        if index not in self.stages:
            refuse(where, _("there is no stage %(index)s in the file") % {"index": index})
        return self.stages[index]

    # --- festival and event -------------------------------------------------------------------------

    def festival(self) -> tuple[Festival, bool]:
        data = Node(self.root.get("festival", "object"), "festival")
        slug = self.festival_slug or data.get("slug", "text")
        existing = Festival.objects.filter(slug=slug).first()
        if existing is not None:
            return existing, False
        festival = Festival(
            slug=slug, name=data.get("name", "text"), venue=data.get("venue", "text"),
            starts_on=data.get("starts_on", "day"), ends_on=data.get("ends_on", "day"),
            contact=data.get("contact", "text"),
            languages=_list_setting(data, Festival._meta.get_field("languages"), "festival"),
            timezone=data.get("timezone", "text"),
            ranking_recipient=data.get("ranking_recipient", "text", default=""),
            ranking_recipient_keeps=data.get("ranking_recipient_keeps", "text", default=""),
        )
        _valid(festival, "festival")
        festival.save()
        record(actor=self.actor, action="festival.imported", target=festival, festival=festival,
               after={"slug": festival.slug, "name": festival.name})
        return festival, True

    def event(self, festival: Festival) -> Event:
        data = Node(self.root.get("event", "object"), "event")
        ruleset = Node(data.get("ruleset", "object"), "event.ruleset")
        event = Event(
            festival=festival, slug=data.get("slug", "text"), name=data.get("name", "text"),
            game=data.get("game", "text", choices=Event.Game.values),
            format=data.get("format", "text", choices=Event.Format.values),
            ruleset=ruleset.get("slug", "text", choices=Event.Ruleset.values),
            starts_at=data.get("starts_at", "moment"), ends_at=data.get("ends_at", "moment"),
            tiebreaks=data.values("tiebreaks", "text"), ranking_points=data.values("ranking_points", "int"),
            # Added later: files written before have neither (R9's rule applies, the timetable is generated).
            under_15_no_points=data.get("under_15_no_points", "bool", default=True),
            timetable=data.get("timetable", "list", default=[]),
            late_places_opened_at=data.get("late_places_opened_at", "moment", null=True, default=None),
            # Added later too: files written before show names in full and schools, as events did then.
            public_names=data.get("public_names", "text", choices=Event.PublicNames.values,
                                  default=Event.PublicNames.FULL),
            public_affiliations=data.get("public_affiliations", "bool", default=True),
        )
        for name in EVENT_SETTINGS:
            model_field = Event._meta.get_field(name)
            if isinstance(model_field, ListField):
                setattr(event, name, _list_setting(data, model_field, "event"))
            else:
                kind = SETTING_KINDS.get(model_field.get_internal_type(), "int")
                setattr(event, name, data.get(name, kind, null=model_field.null))
        event.timetable = as_json(stored(event))  # only readable slots, in the stored shape
        _valid(event, "event")
        if Event.objects.filter(festival=festival, slug=event.slug).exists():
            raise ImportRefused(
                _("The festival “%(festival)s” already has an event “%(event)s”; nothing was imported. "
                  "Import into another festival with --festival.") % {"festival": festival.slug,
                                                                     "event": event.slug}, code="exists")
        event.save()
        return event

    # --- players ------------------------------------------------------------------------------------

    def players(self, event: Event) -> None:
        festival = event.festival
        nodes = self.root.nodes("players")
        ids = [node.get("id", "int") for node in nodes]
        if len(set(ids)) != len(ids):
            refuse("players", _("two players have the same id"))
        numbers = [n for n in (node.get("number", "int", null=True) for node in nodes) if n is not None]
        if len(set(numbers)) != len(numbers):
            refuse("players", _("two players have the same player number"))
        known = {(p.name_key, p.contact_key): p for p in Player.objects.filter(festival=festival)}
        # In the file's id order: lists ordered by id (stage entries) keep their order in the copy.
        ordered = sorted(zip(ids, nodes, strict=True), key=lambda pair: pair[0])
        rows, stamps, new_players = [], [], []
        for player_id, node in ordered:
            details = player_details(node)
            person = Player(festival=festival, name=details.name, contact=details.contact,
                            birth_year=details.birth_year, affiliation=details.affiliation,
                            ranking_id=details.ranking_id)
            person.name_key = name_key(person.name)
            person.contact_key = contact_key(person.contact, festival.phone_region)
            person.personal_data_erased_at = erased_at(node)
            person.results_to_ranking = node.get("results_to_ranking", "bool", null=True, default=None)
            erased = person.personal_data_erased_at is not None
            if erased:  # one person per erased player of the file
                person.contact_key = erased_contact_key(f"{event.slug}-{player_id}")
            _valid(person, node.where, exclude=["token", "contact", "birth_year"] if erased else ["token"])
            key = (person.name_key, person.contact_key)
            if key in known:
                person = known[key]  # the same person already plays another event of this festival
                self.counts["reused_players"] += 1
            else:
                known[key] = person
                new_players.append(person)
            registration = Registration(
                event=event, player=person, number=node.get("number", "int", null=True),
                status=node.get("registration_status", "text", choices=Registration.Status.values),
                queued_at=node.get("queued_at", "moment", null=True),
                checked_in_at=node.get("checked_in_at", "moment", null=True),
                withdrawn_at=node.get("withdrawn_at", "moment", null=True),
                promoted_at=node.get("promoted_at", "moment", null=True, default=None),  # added later
                seed_rank=node.get("seed_rank", "int", null=True),
                under_age=node.get("under_age", "bool", null=True, default=None),
            )
            _valid(registration, node.where)
            rows.append(registration)
            stamps.append(node.get("registered_at", "moment"))
            self.registrations[player_id] = registration
        _create_all(Player, new_players)  # no Player.save(): the identity keys are set above
        _create_all(Registration, rows)
        _restamp(Registration, rows, "created_at", stamps)
        self.counts["players"] = len(rows)

    # --- stages, seatings, sheets -------------------------------------------------------------------

    def stages_(self, event: Event) -> None:
        for node in self.root.nodes("stages"):
            index = node.get("index", "int")
            if index in self.stages:
                refuse(node.where, _("two stages have the index %(index)s") % {"index": index})
            stage = Stage(event=event, number=index, name=node.get("name", "text"),
                          games=node.get("games_planned", "int"),
                          advance=node.get("rule", "text", choices=Stage.Advance.values),
                          advance_count=node.get("advance_count", "int"),
                          closed_at=node.get("closed_at", "moment", null=True))
            _valid(stage, node.where)
            stage.save()
            self.stages[index] = stage
            entered = node.values("players", "int")
            if len(set(entered)) != len(entered):
                refuse(f"{node.where}.players", _("a player is entered twice"))
            StageEntry.objects.bulk_create([
                StageEntry(stage=stage, registration=self.registration(p, f"{node.where}.players"))
                for p in entered
            ])
            draws = self.draws(stage, node, set(entered))
            self.sheets(stage, node, draws)
        self.counts["stages"] = len(self.stages)

    def draws(self, stage: Stage, node: Node, entered: set[int]) -> dict[int, tuple[Draw, dict]]:
        """The stage's released seatings: game → (draw, {table number: [(seat, registration)]})."""
        out = {}
        for draw_node in node.nodes("draws"):
            where = draw_node.where
            game = draw_node.get("game", "int")
            if not 1 <= game <= stage.games or game in out:
                refuse(f"{where}.game", _("no such game in this stage, or a second seating for it"))
            # What the draw could not meet names players by id: the copy's ids, like the seats.
            violations = [
                {**v_node.value, "players": [self.registration(p, f"{v_node.where}.players").pk
                                             for p in v_node.values("players", "int")]}
                for v_node in draw_node.nodes("violations")
            ]
            constraints = Node(draw_node.get("constraints", "object"), f"{where}.constraints")
            for name in constraints.value:
                if name not in CONSTRAINTS:
                    refuse(f"{where}.constraints.{name}", _("expected one of: %(choices)s")
                           % {"choices": ", ".join(sorted(CONSTRAINTS))})
                constraints.get(name, "bool")
            draw = Draw(stage=stage, game=game, status=Draw.Status.RELEASED,
                        method=draw_node.get("method", "text", choices=Draw.Method.values),
                        seed=draw_node.get("seed", "int"),
                        algorithm_version=draw_node.get("algorithm_version", "text"),
                        constraints=constraints.value, violations=violations,
                        swaps=draw_node.get("swaps", "int"),
                        released_at=draw_node.get("released_at", "moment", null=True))
            _valid(draw, where)
            tables: dict[int, list[tuple[int, Registration]]] = {}
            seated = set()
            for table_node in draw_node.nodes("tables"):
                number_ = table_node.get("number", "int")
                players = table_node.values("seats", "int")
                if number_ in tables or number_ < 1 or not players:
                    refuse(f"{table_node.where}.number", _("a table number is repeated, not positive, or empty"))
                if seated & set(players) or len(set(players)) != len(players) or not set(players) <= entered:
                    refuse(f"{table_node.where}.seats",
                           _("a player is seated twice, or is not entered in this stage"))
                seated |= set(players)
                tables[number_] = [(position, self.registration(p, f"{table_node.where}.seats"))
                                   for position, p in enumerate(players, start=1)]
            write_seating(draw, {number: [registration.pk for _position, registration in seats]
                                 for number, seats in tables.items()})
            _restamp(Draw, [draw], "created_at", [draw_node.get("created_at", "moment")])
            out[game] = (draw, tables)
        self.counts["draws"] += len(out)
        return out

    def sheets(self, stage: Stage, node: Node, draws: dict[int, tuple[Draw, dict]]) -> None:
        event = stage.event
        sheets, stamps, lines, turns = [], [], [], []
        for game_node in node.nodes("games"):
            game = game_node.get("index", "int")
            seating_game = format_of(event).draw_game(game)
            numbers = set()
            for table_node in game_node.nodes("tables"):
                where = table_node.where
                number_ = table_node.get("number", "int")
                if number_ in numbers:
                    refuse(f"{where}.number", _("two sheets for one table and game"))
                numbers.add(number_)
                draw, tables = draws.get(seating_game, (None, {}))
                if draw is None or number_ not in tables or not 1 <= game <= stage.games:
                    refuse(where, _("the file has no released seating for this game and table"))
                sheet = ScoreSheet(
                    stage=stage, game=game, table_number=number_, draw=draw,
                    version=table_node.get("version", "int"), status=ScoreSheet.Status.CONFIRMED,
                    end=table_node.get("end", "text", choices=ScoreSheet.End.values),
                    warnings=table_node.get("warnings", "list"), idempotency_key=f"import-{uuid.uuid4().hex}",
                    submitted_via=table_node.get("submitted_via", "text"),
                    decided_at=table_node.get("confirmed_at", "moment", null=True),
                    reason=table_node.get("reason", "text"),
                )
                _valid(sheet, where)
                seat_lines = [self.seat_line(sheet, seat_node) for seat_node in table_node.nodes("seats")]
                expected = {(position, r.pk) for position, r in tables[number_]}
                if {(line.position, line.registration.pk) for line in seat_lines} != expected or len(
                        seat_lines) != len(expected):
                    refuse(f"{where}.seats", _("the sheet does not name exactly the players seated at this table"))
                sheet_turns = []
                if event.game == Event.Game.WORD:
                    sheet_turns = self.word_turns(sheet, table_node, {position for position, _r in tables[number_]})
                judge_sheet(event=event, sheet=sheet, where=where, seated=tables[number_], lines=seat_lines,
                            turns=sheet_turns)
                sheets.append(sheet)
                stamps.append(table_node.get("submitted_at", "moment"))
                lines += seat_lines
                turns += sheet_turns
        _create_all(ScoreSheet, sheets)
        _restamp(ScoreSheet, sheets, "submitted_at", stamps)
        SheetSeat.objects.bulk_create(lines, batch_size=500)
        WordTurn.objects.bulk_create(turns, batch_size=500)
        self.counts["sheets"] += len(sheets)

    def seat_line(self, sheet: ScoreSheet, node: Node) -> SheetSeat:
        line = SheetSeat(
            sheet=sheet, position=node.get("seat", "int"),
            registration=self.registration(node.get("player", "int"), f"{node.where}.player"),
            went_out=node.get("went_out", "bool"), tiles=node.get("tiles", "text", null=True) or "",
            rack_value=node.get("rack_value", "int", null=True), jokers=node.get("jokers", "int"),
            opened=node.get("opened", "bool"), could_open=node.get("could_open", "bool", null=True),
            conduct_penalty=node.get("conduct_penalty", "bool"), penalty=node.get("penalty", "number"),
            score=node.get("score", "number"), win=node.get("win", "bool"),
        )
        _valid(line, node.where)
        return line

    def word_turns(self, sheet: ScoreSheet, table_node: Node, positions: set[int]) -> list[WordTurn]:
        turns = []
        for index, node in enumerate(table_node.nodes("turns"), start=1):
            turn = WordTurn(sheet=sheet, index=index, position=node.get("seat", "int", choices=sorted(positions)),
                            words=" ".join(node.values("words", "text")), drew=node.get("drew", "bool"),
                            used_all_tiles=node.get("used_all_tiles", "bool"), points=node.get("points", "int"))
            _valid(turn, node.where)
            turns.append(turn)
        return turns

    # --- conduct and lots ---------------------------------------------------------------------------

    def conduct(self, event: Event) -> None:
        records, stamps = [], []
        for node in self.root.nodes("players"):
            registration = self.registrations[node.get("id", "int")]
            for c_node in node.nodes("conduct"):
                stage_index = c_node.get("stage", "int", null=True)
                conduct = ConductRecord(
                    event=event, registration=registration,
                    kind=c_node.get("kind", "text", choices=ConductRecord.OFFENCES),
                    stage=None if stage_index is None else self.stage(stage_index, f"{c_node.where}.stage"),
                    game=c_node.get("game", "int", null=True), note=c_node.get("note", "text"),
                )
                _valid(conduct, c_node.where)
                records.append(conduct)
                stamps.append(c_node.get("at", "moment"))
            for k_node in node.nodes("kept_playing"):
                k_node.get("warnings", "int")  # what the player had then: the file's warning records say it again
                kept = ConductRecord(event=event, registration=registration, kind=ConductRecord.Kind.KEPT,
                                     note=k_node.get("note", "text"))
                _valid(kept, k_node.where)
                records.append(kept)
                stamps.append(k_node.get("at", "moment"))
        ConductRecord.objects.bulk_create(records)
        _restamp(ConductRecord, records, "created_at", stamps)
        self.counts["conduct"] = sum(1 for r in records if r.kind != ConductRecord.Kind.KEPT)

    def lots(self) -> None:
        lots, stamps = [], []
        for node in self.root.nodes("lots"):
            where = node.where
            players = [self.registration(p, f"{where}.players").pk for p in node.values("players", "int")]
            numbers_node = Node(node.get("numbers", "object"), f"{where}.numbers")
            numbers = {}
            for key in numbers_node.value:
                player = int(key) if str(key).isdecimal() else key
                numbers[str(self.registration(player, f"{where}.numbers").pk)] = numbers_node.get(key, "int")
            lot = Lot(stage=self.stage(node.get("stage", "int"), f"{where}.stage"),
                      purpose=node.get("purpose", "text", choices=Lot.Purpose.values),
                      game=node.get("game", "int", null=True), table_number=node.get("table", "int", null=True),
                      players=players, numbers=numbers, seed=node.get("seed", "text"))
            _valid(lot, where)
            lots.append(lot)
            stamps.append(node.get("at", "moment"))
        Lot.objects.bulk_create(lots)
        _restamp(Lot, lots, "created_at", stamps)
        self.counts["lots"] = len(lots)

    # --- the check at the end -----------------------------------------------------------------------

    def check_standings(self, event: Event) -> None:
        """The file's standings must follow from its sheets and lots, as this copy computes them."""
        expected = []
        for node in self.root.nodes("standings"):
            player = self.registration(node.get("player", "int"), f"{node.where}.player").pk
            expected.append((player, node.get("rank", "int"), node.get("games", "int"), node.get("wins", "int"),
                             number(node.get("points", "number"))))
        computed = [(line.player, line.rank, line.games, line.wins, number(line.points))
                    for line in event_standings(event).lines]
        if expected != computed:
            raise ImportRefused(_("The standings in the file do not follow from its score sheets and lots (was "
                                  "the file edited?); nothing was imported."), code="inconsistent")

    def check_places(self, event: Event) -> None:
        """The file's final places, when it has them (older files do not), must be the copy's."""
        if not self.root.has("places"):
            return
        expected = [(node.get("place", "int"), self.registration(node.get("player", "int"), f"{node.where}.player").pk,
                     number(node.get("ranking_points", "number")), node.get("decided_by", "text"))
                    for node in self.root.nodes("places")]
        computed = [(p["place"], p["player"], p["ranking_points"], p["decided_by"]) for p in places(event)]
        if expected != computed:
            raise ImportRefused(_("The places in the file do not follow from its score sheets, lots and playoffs "
                                  "(was the file edited?); nothing was imported."), code="inconsistent")


def import_event(*, document, actor: Actor, festival_slug: str | None = None) -> Imported:
    """Recreate an exported event (text, bytes or parsed JSON) in this database — all of it or nothing.

    `festival_slug`: the festival to import into (created from the file's festival details when it does not
    exist); by default the file's own festival."""
    root = load(document)
    importer = _Importer(root, festival_slug, actor)
    try:
        with transaction.atomic():
            festival, created = importer.festival()
            event = importer.event(festival)
            importer.players(event)
            importer.stages_(event)
            importer.conduct(event)
            importer.lots()
            importer.check_standings(event)
            importer.check_places(event)
            record(actor=actor, action="event.imported", target=event, event=event,
                   after={"schema": root.get("schema", "text"), "festival_created": created, **importer.counts})
    except DatabaseError as error:  # a constraint the checks above did not foresee: still nothing written
        raise ImportRefused(_("The file could not be stored (%(error)s); nothing was imported.")
                            % {"error": error}, code="database") from error
    return Imported(event=event, festival_created=created, counts=importer.counts)
