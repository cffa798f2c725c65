"""Every URL that accepts a POST, with what its form holds and who may send it.

One line per endpoint: `E(url name, {field: kind}, who may, events to aim at)`. A field name may hold `{p}`
(expanded for seats 1–5: the fifth seat never exists), `{i}` (turn rows 0–13) or `{a}` (the conduct page's
three form prefixes). Kinds are in values.KINDS. URL arguments get real ids of the aimed event, of other
events and festivals, and nonsense (engine.url_arguments). `who` are the people who may change something;
anyone else must change nothing (ANYONE: whoever holds the address's token — a player's page, a table card —
needs no account, and what they may do is checked by who the token names: test_fuzz_endpoints.py). `writes`,
when given, are the only tables an accepted request may change besides the audit log.
tests/fuzz/test_fuzz_endpoints.py fails if a POST-accepting URL is missing.
"""

from dataclasses import dataclass, field, replace

from tests.fuzz.world import NO_ROLE, PEOPLE, SUPERUSER
from tournament.permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE

ANYONE = PEOPLE
ORGANISERS = (ORGANISER, SUPERUSER)
DESK_STAFF = (DESK, *ORGANISERS)
CHIEFS = (CHIEF_REFEREE, *ORGANISERS)
REFEREES = (REFEREE, *CHIEFS)
NOBODY = ()  # pages that only show: a POST must change nothing, whoever sends it
PLAYING = ("classic", "word", "fresh", "players", "finished", "other")
EVERY_EVENT = ("classic", "word", "fresh", "players", "numbered", "closing", "ready", "open", "later", "clash",
               "finished", "other")
# A table keeping its own sheet: mostly the player-run event, sometimes a referees' one and another festival's
# (where a player's page and a card's answer can only refuse).
PLAYER_RUN = ("players",) * 5 + ("classic", "other")


@dataclass(frozen=True)
class Endpoint:
    name: str
    fields: dict[str, str] = field(default_factory=dict)
    who: tuple[str, ...] = NOBODY
    events: tuple[str, ...] = EVERY_EVENT
    files: dict[str, str] = field(default_factory=dict)
    recipe: str = ""  # values.RECIPES: a whole valid form, damaged a little (forms too intricate to guess)
    idempotent: bool = False  # sent twice (a phone on bad Wi-Fi), the second changes nothing
    writes: tuple[str, ...] = ()  # the tables (model labels) it may change besides the audit log; () unchecked
    weight: int = 1  # times the examples: an endpoint that can succeed only at a few of the aims


E = Endpoint

SHEET = {"idempotency_key": "key", "end": "end", "went_out": "seat", "accept_warnings": "bool",
         "action": "sheet_action", "s{p}_registration": "seat_registration", "s{p}_tiles": "tiles",
         "s{p}_rack_value": "rack", "s{p}_jokers": "jokers", "s{p}_opened": "yes_no",
         "s{p}_could_open": "yes_no", "s{p}_conduct_penalty": "bool"}
WORD_SHEET = {"idempotency_key": "key", "rows": "rows", "end": "end", "accept_warnings": "bool",
              "action": "sheet_action", "t{i}_seat": "seat", "t{i}_words": "words", "t{i}_drew": "bool",
              "t{i}_used_all": "bool", "j{p}_jokers": "jokers"}
ANY_SHEET = SHEET | WORD_SHEET
CORRECTION = ANY_SHEET | {"reason": "reason", "idempotency_key": "correction_key"}
# A seated player's entry or correction (of the version they opened) at a player-run table; the table card
# asks for the seat's code.
TABLE_SHEET = ANY_SHEET | {"seat_code": "seat_code", "correcting": "version"}
ANSWER = {"sheet": "sheet", "version": "version", "answer": "sheet_answer", "reason": "reason", "key": "key",
          "seat_code": "seat_code"}
SHEET_WRITES = ("scoring.ScoreSheet", "scoring.SheetSeat", "scoring.WordTurn", "scoring.SheetAnswer")
ANSWER_WRITES = ("scoring.SheetAnswer",)
BOARD_FILTER = {"stage": "stage_no", "game": "game", "warnings": "bool"}
CONFIRM = {"confirm": "fingerprint"}  # the state a confirmation page showed (never guessed right here)
CONDUCT = {"action": "conduct_action", "confirm": "fingerprint", "{a}-number": "number", "{a}-kind": "conduct_kind",
           "{a}-stage": "stage_no", "{a}-game": "game", "{a}-note": "note", "{a}-key": "key"}
REGISTRATION = {"name": "name", "contact": "contact", "birth_year": "birth_year", "affiliation": "name",
                "ranking_id": "short_text", "guardian_name": "name", "guardian_contact": "contact",
                "guardian_agrees": "bool", "agree": "bool", "notice_version": "notice_version"}

FESTIVAL = {"name": "name", "slug": "slug", "starts_on": "date", "ends_on": "date", "venue": "name",
            "contact": "contact", "timezone": "timezone", "languages": "language_code", "privacy_notice": "note",
            "guardian_age": "guardian_age", "retention_days": "retention_days",
            "guardian_hold_days": "guardian_hold_days"}
EVENT_FORM = {"preset": "preset", "name": "name", "slug": "slug", "game": "game_kind", "format": "format",
              "ruleset": "ruleset", "capacity": "players", "expected_players": "players", "day": "date",
              "checkin_opens": "time", "checkin_closes": "time", "starts": "time", "ends": "time",
              "registration_opens_at": "moment", "registration_closes_at": "moment", "withdrawal_deadline": "moment",
              "stage_games": "stage_games", "final_games": "games", "rotation_games": "games",
              "first_seating": "first_seating", "ranking_points": "points", "under_15_no_points": "bool",
              "tiebreaks": "tiebreaks", "public_draw": "bool", "public_standings": "bool", "public_scores": "bool",
              "public_names": "public_names", "public_affiliations": "bool", "numbering": "numbering",
              "avoid_same_affiliation": "bool", "avoid_repeat_opponents": "bool", "spread_seeds": "bool", "walk_ins": "bool", "sheets_by": "sheets_by", "agreement_minutes": "agreement_minutes", "propose": "propose"}
SCHEDULE = {"action": "slot_action", "slot-TOTAL_FORMS": "games", "slot-INITIAL_FORMS": "games",
            "slot-{s}-kind": "slot_kind", "slot-{s}-number": "stage_no", "slot-{s}-label": "name",
            "slot-{s}-starts": "time", "slot-{s}-ends": "time", "slot-{s}-remove": "bool"}

ENDPOINTS = [
    # --- anyone: registration, the player's page, a table's private link, language, signing in and out ---
    E("event-register", REGISTRATION, ANYONE, ("open", "later", "clash", "classic", "other"), recipe="registration"),
    E("player-withdraw", {"confirm": "bool"}, ANYONE),
    E("player-public-name", {"masked": "yes_no_name"}, ANYONE, idempotent=True),
    E("player-results-to-ranking", {"agrees": "yes_no_name"}, ANYONE, idempotent=True),
    E("player-enter", {}, ANYONE, ("later", "clash", "open", "classic", "other")),
    E("player-erase", {"confirm": "bool", "hide_in_results": "bool"}, ANYONE),
    # A child's guardian agrees on the e-mailed link (its token is never a player's, so nothing changes here).
    E("guardian-page", {"name": "name", "agree": "bool", "ranking_agrees": "bool"}, NOBODY),
    # A table card: a referee's sheet, or at a player-run table a seated player's entry or correction (and below,
    # their answer), each with the seat's code printed on the card.
    E("referee-link-game", TABLE_SHEET, ANYONE, (*PLAYING, "players", "players"), recipe="table_sheet",
      writes=SHEET_WRITES),
    E("referee-link-preview", ANY_SHEET, ANYONE, PLAYING, recipe="sheet"),
    # An answer succeeds only aimed at a table with a sheet to answer (three of the world's tables, game 1).
    E("referee-link-answer", ANSWER, ANYONE, PLAYER_RUN, recipe="answer", writes=ANSWER_WRITES, weight=3),
    # A table that keeps its own sheet, from a seated player's personal page (the token is the player's: no
    # account). The table page and the status only show; the preview only checks.
    E("player-sheet-game", TABLE_SHEET, ANYONE, PLAYER_RUN, recipe="table_sheet", writes=SHEET_WRITES),
    E("player-sheet-preview", ANY_SHEET, NOBODY, PLAYER_RUN, recipe="sheet"),
    E("player-sheet-answer", ANSWER, ANYONE, PLAYER_RUN, recipe="answer", writes=ANSWER_WRITES, weight=3),
    E("player-sheet-table", {}, NOBODY, PLAYER_RUN),
    E("player-sheet-status", {}, NOBODY, PLAYER_RUN),
    E("referee-game", ANY_SHEET, REFEREES, PLAYING, recipe="sheet", writes=SHEET_WRITES),
    E("referee-preview", ANY_SHEET, REFEREES, PLAYING, recipe="sheet"),
    E("set_language", {"language": "language", "next": "next"}, NOBODY),
    E("login", {"username": "username", "password": "password", "next": "next"}, NOBODY),
    E("logout", {"next": "next"}, NOBODY),
    # --- the desk ---------------------------------------------------------------------------------------
    E("desk-checkin", {"next": "next"}, DESK_STAFF, ("open", "later", "classic", "other")),
    E("desk-undo", {"next": "next"}, DESK_STAFF, ("open", "later", "classic", "other")),
    E("desk-guardian-signed", {"signed": "bool", "next": "next"}, DESK_STAFF, ("open", "later", "classic", "other")),
    E("desk-checkin-queued", {"key": "key"}, DESK_STAFF, ("open", "later", "classic", "other"), idempotent=True),
    E("desk-walk-in", REGISTRATION | {"person": "walk_in_person", "seen": "walk_in_seen"}, DESK_STAFF, ("open", "later", "numbered", "classic", "other"),
      recipe="registration"),
    E("desk-correct", {"name": "name", "affiliation": "name", "birth_year": "birth_year", "next": "next"},
      DESK_STAFF, ("open", "later", "classic", "other")),
    E("desk-late-places", {"registration": "registration"}, DESK_STAFF, ("closing", "open", "numbered", "classic",
                                                                         "other")),
    # --- the organiser: registrations, check-in, numbers, draws ------------------------------------------
    E("manage-import", {"default_event": "event_slug", "upload": "bool"}, ORGANISERS, files={"file": "sheet_file"},
      recipe="upload"),
    E("manage-import-preview", {"action": "import_action", "seen": "fingerprint", "consent_held": "bool"},
      ORGANISERS),
    E("manage-checkin", {"checkin": "checkin", "renumber": "bool"} | CONFIRM, ORGANISERS),
    E("manage-late-places", {}, ORGANISERS, ("closing", "open", "numbered", "classic", "other")),
    E("manage-numbers", {"method": "numbering"} | CONFIRM, ORGANISERS, ("closing", "open", "numbered", "classic", "other")),
    E("manage-withdraw", {"registration": "registration", "reason": "reason"}, ORGANISERS),
    E("manage-guardian-link", {"registration": "registration"}, ORGANISERS),
    E("draw-start", {}, ORGANISERS, ("numbered", "closing", "ready", "classic", "other")),
    E("draw-draft", {"seed": "seed"}, ORGANISERS, ("ready", "classic", "other")),
    E("draw-swap", {"first": "seated", "second": "seated"}, ORGANISERS, ("ready", "classic", "other"), recipe="swap"),
    E("draw-release", CONFIRM, ORGANISERS, ("ready", "fresh", "classic", "other")),
    E("draw-unrelease", {"reason": "reason"}, ORGANISERS, ("fresh", "ready", "classic", "other")),
    # --- festivals and events, made and edited by organisers ---------------------------------------------
    E("manage-festival-new", FESTIVAL, (SUPERUSER,), recipe="festival"),  # the world's staff may not create
    E("manage-festival-edit", FESTIVAL, ORGANISERS, recipe="festival_edit"),
    E("manage-event-new", EVENT_FORM, ORGANISERS, recipe="event"),
    E("manage-event-edit", EVENT_FORM, ORGANISERS, recipe="event_edit"),
    E("manage-event-schedule", SCHEDULE, ORGANISERS, recipe="schedule"),
    # --- staff and roles: invitations made by organisers, answered by the invited ----------------------
    E("manage-staff-add", {"identifier": "identifier", "role": "role"}, ORGANISERS),
    E("manage-staff-remove", {"user": "user", "role": "role"}, ORGANISERS),
    E("manage-staff-link", {"user": "user"}, ORGANISERS),
    E("manage-staff-renew", {"invitation": "invitation"}, ORGANISERS),
    E("manage-staff-withdraw", {"invitation": "invitation"}, ORGANISERS),
    E("staff-invitation", {"answer": "answer", "username": "username", "password1": "password",
                           "password2": "password"}, ANYONE),
    # The world invites the account without a role (tests/fuzz/world.py): it may accept or decline its own.
    E("staff-invitation-answer", {"invitation": "invitation", "answer": "answer"}, (NO_ROLE,)),
    # --- the chief referee's board and the organiser's table links ---------------------------------------
    E("board-quick-confirm", BOARD_FILTER, CHIEFS, PLAYING),
    E("board-confirm", {}, CHIEFS, PLAYING),
    E("board-return", {"reason": "reason"}, CHIEFS, PLAYING),
    E("board-confirm-clean", BOARD_FILTER | CONFIRM, CHIEFS, PLAYING),
    E("board-correct", CORRECTION, CHIEFS, PLAYING, recipe="correction"),
    E("board-correct-check", CORRECTION, CHIEFS, PLAYING, recipe="correction"),
    E("board-lots", {}, ORGANISERS, PLAYING),
    E("board-close", CONFIRM, ORGANISERS, PLAYING),
    E("board-links-make", {}, ORGANISERS, PLAYING),
    E("board-links-revoke", {"link": "link"}, ORGANISERS, PLAYING),
    E("board-referees-assign", {"first": "table", "last": "table", "referee": "user", "stage": "stage_no"}, CHIEFS,
      PLAYING, idempotent=True),
    E("board-referees-unassign", {"first": "table", "last": "table", "referee": "user", "stage": "stage_no"}, CHIEFS,
      PLAYING),
    # --- results and conduct -----------------------------------------------------------------------------
    E("results-playoff", {"place": "place"}, CHIEFS, ("finished", "classic", "other")),
    E("results-lot", {"place": "place"}, CHIEFS, ("finished", "classic", "other")),
    E("results-points", {"ranking_points": "points"}, ORGANISERS, ("finished", "classic", "other")),
    E("conduct-record", CONDUCT, CHIEFS, PLAYING, recipe="conduct"),
    E("conduct-keep", {"number": "number", "note": "note"}, CHIEFS, PLAYING, recipe="keep"),
]

# A phone on bad Wi-Fi sends twice (DESIGN.md): the second of these must change nothing. A new draft draw and a
# swap are meant to happen again when asked again, and so is a new invitation link (the one shown before is
# lost: that is why it is asked for). A conduct form carries a one-time key for this.
ONCE_ENOUGH = {e.name for e in ENDPOINTS} - {"draw-draft", "draw-swap", "manage-staff-renew", "manage-staff-link"}
ENDPOINTS = [replace(e, idempotent=e.name in ONCE_ENOUGH) for e in ENDPOINTS]

# Pages that show something and do not refuse a POST: whatever is posted, nothing may change.
SHOWING = ["home", "festival", "event", "public-draw", "public-seat", "public-table", "public-standings",
           "public-standings-live", "public-standings-all", "public-standings-all-live", "public-standings-stage",
           "public-standings-stage-live", "public-find-player",
           "public-player", "public-player-live", "public-hall", "public-hall-live", "player-page", "manage-draws",
           "draw-print", "draw-cards"]
ENDPOINTS += [E(name, {"q": "name", "next": "next"}, NOBODY) for name in SHOWING]

BY_NAME = {endpoint.name: endpoint for endpoint in ENDPOINTS}
assert len(BY_NAME) == len(ENDPOINTS), "an endpoint is listed twice"
