"""One small festival day with something in every state, for the fuzzer to aim at.

Festival A holds: a classic Busan round with sheets submitted, confirmed, returned and warned, table links,
an assigned referee and warnings (one player at three); a Rummikub Word round; a round released but not
started; a Busan round whose players keep their own sheets (docs/player-run-tables.md: a sheet entered by a
player and waiting for the table's answers, one disputed through the table card, one agreed by the whole table,
one table still to enter with a player out by the chief referee's decision; table cards with seat codes);
events at the steps before the first draw (check-in closed; numbered; a draft to swap and release); three
events open for registration (one overlapping another) with check-in open at the desk; and a finished Hong
Kong event with results. Festival B is someone else's: its ids are the "other festival" ones.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.utils import timezone

from scoring.games.word import WordEntry, WordTurnEntry
from scoring.models import RefereeAssignment, ScoreSheet, SheetAnswer, TableLink
from scoring.services.conduct import record_conduct
from scoring.services.links import ensure_links
from scoring.services.sheets import confirm_sheet, return_sheet, submit_sheet
from scoring.services.table_sheets import PERSONAL_PAGE, TABLE_CARD, answer_sheet, enter_sheet, seated_player
from scoring.simulation import simulate
from tests.factories import make_event, make_festival, make_player, make_registration, make_staff, ready_event
from tests.factories import released_stage as make_released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import Draw, Event, Player, Registration, StaffInvitation, Stage
from tournament.permissions import CHIEF_REFEREE, DESK, ORGANISER, REFEREE
from tournament.services import draws as draw_services
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.invitations import invite

SYSTEM = Actor(label="fuzz world")
# Who sends a request: staff of festival A by role, the organiser of festival B, a signed-in user without a
# role, a superuser, and nobody.
OUTSIDER = "other festival's organiser"
NO_ROLE = "user without a role"
SUPERUSER = "superuser"
ANONYMOUS = "anonymous"
PEOPLE = (ORGANISER, CHIEF_REFEREE, REFEREE, DESK, OUTSIDER, NO_ROLE, SUPERUSER, ANONYMOUS)


@dataclass
class World:
    festival: object
    other_festival: object
    events: dict[str, Event]  # by a short name (build_world's last lines)
    users: dict[str, User | None]
    sheets: dict[str, ScoreSheet] = field(default_factory=dict)
    # Invitation links by festival id: only their hashes are stored, so the world keeps the tokens it made.
    invitation_links: dict[int, list[str]] = field(default_factory=dict)

    def event(self, name: str) -> Event:
        return self.events[name]

    def user(self, who: str) -> User | None:
        return self.users[who]

    # --- pools of real values, for ids and references the fuzzer draws from -------------------------------

    def event_slugs(self) -> list[tuple[str, str]]:
        return [(e.festival.slug, e.slug) for e in self.events.values()]

    def registrations(self, event: Event | None = None) -> list[int]:
        rows = Registration.objects.filter(event=event) if event else Registration.objects.all()
        return list(rows.order_by("pk").values_list("pk", flat=True))

    def numbers(self, event: Event | None = None) -> list[int]:
        rows = Registration.objects.filter(number__isnull=False)
        rows = rows.filter(event=event) if event else rows
        return sorted(set(rows.values_list("number", flat=True)))

    def sheet_ids(self, event: Event | None = None) -> list[int]:
        rows = ScoreSheet.objects.filter(stage__event=event) if event else ScoreSheet.objects.all()
        return list(rows.order_by("pk").values_list("pk", flat=True))

    def draw_ids(self, event: Event | None = None) -> list[int]:
        rows = Draw.objects.filter(stage__event=event) if event else Draw.objects.all()
        return list(rows.order_by("pk").values_list("pk", flat=True))

    def stage_ids(self) -> list[int]:
        return list(Stage.objects.order_by("pk").values_list("pk", flat=True))

    def invitation_tokens(self, festival=None) -> list[str]:
        if festival is not None:
            return list(self.invitation_links.get(festival.pk, []))
        return [token for tokens in self.invitation_links.values() for token in tokens]

    def invitation_ids(self, festival=None) -> list[int]:
        rows = StaffInvitation.objects.filter(festival=festival) if festival else StaffInvitation.objects.all()
        return list(rows.order_by("pk").values_list("pk", flat=True))

    def link_ids(self, event: Event | None = None) -> list[int]:
        rows = TableLink.objects.filter(event=event) if event else TableLink.objects.all()
        return list(rows.order_by("pk").values_list("pk", flat=True))

    def link_tokens(self) -> list[str]:
        return list(TableLink.objects.order_by("pk").values_list("token", flat=True))

    def player_tokens(self) -> list[str]:
        return list(Player.objects.order_by("pk").values_list("token", flat=True))

    def seat_codes(self, event: Event | None = None) -> list[str]:
        """The codes printed on the live table cards (of `event`), each once."""
        rows = TableLink.objects.filter(revoked_at__isnull=True)
        rows = rows.filter(event=event) if event else rows
        return sorted({code for codes in rows.values_list("seat_codes", flat=True) for code in codes})

    def answering_tokens(self, event: Event) -> list[str]:
        """The personal-page tokens of the players who answered a sheet of `event`, those who disputed first:
        their table's pages show a sheet with the table's answers (and a dispute's reason)."""
        rows = SheetAnswer.objects.filter(sheet__stage__event=event).order_by("-answer", "-answered_at", "-pk")
        return list(dict.fromkeys(rows.values_list("registration__player__token", flat=True)))

    def user_ids(self) -> list[int]:
        return list(User.objects.order_by("pk").values_list("pk", flat=True))


def _open_event(festival, name: str, *, days: int, hour: int, capacity: int = 128, **fields) -> Event:
    """Registration and withdrawal open now (views read the real clock), check-in opened by the organiser."""
    start = (timezone.now() + dt.timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return make_event(festival, start=start, hours=3, name=name, capacity=capacity,
                      checkin_override=Event.CheckinOverride.OPEN, **fields)


def _sheet(stage, table, values, *, game=1, winner=0):
    return submit_sheet(stage=stage, game=game, table_number=table,
                        entry=entry_for(stage, game, table, values, winner=winner), accept_warnings=True,
                        idempotency_key=key(), actor=SYSTEM, via="fuzz world")


def _word_sheet(stage, table):
    turns = [WordTurnEntry(seat=1, words="PLANET"), WordTurnEntry(seat=2, words="GARDEN")]
    return submit_sheet(stage=stage, game=1, table_number=table, entry=WordEntry(end="went_out", turns=tuple(turns)),
                        accept_warnings=True, idempotency_key=key(), actor=SYSTEM, via="fuzz world")


def _players_round(festival, *, start, chief: Actor) -> dict[str, ScoreSheet]:
    """A Busan round whose players keep their own sheets, as its tables leave it mid-game 1: table 1 entered by
    seat 1 from their personal page and agreed by seat 2 (waiting for the others); table 2 entered by seat 2 and
    disputed by seat 3 through the table card; table 3 agreed by the whole table; table 4 still to enter, its
    seat 4 disqualified (refused whatever they send)."""
    stage = make_released_stage(16, festival=festival, name="Players", sheets_by=Event.SheetsBy.PLAYERS,
                                start=start)
    ensure_links(event=stage.event, actor=SYSTEM)
    cards = {link.table_number: link for link in TableLink.objects.filter(event=stage.event)}

    def at(table: int, position: int, *, card: bool = False):
        if card:
            return seated_player(stage=stage, game=1, table_number=table, via=TABLE_CARD, link=cards[table],
                                 code=cards[table].seat_codes[position - 1])
        seat = seating.seats(seating.game_draw(stage, 1), table=table)[position - 1]
        return seated_player(stage=stage, game=1, table_number=table, via=PERSONAL_PAGE,
                             registration=seat.registration)

    def entered(table: int, position: int, values) -> ScoreSheet:
        return enter_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, values),
                           accept_warnings=True, idempotency_key=key(), player=at(table, position))

    def answer(sheet: ScoreSheet, position: int, reason: str = "", *, card: bool = False) -> None:
        answer_sheet(sheet=sheet, version=sheet.version, player=at(sheet.table_number, position, card=card),
                     agree=not reason, reason=reason, idempotency_key=key())

    waiting, disputed, agreed = entered(1, 1, [0, 5, 9, 14]), entered(2, 2, [0, 6, 8, 12]), entered(3, 1, [0, 3, 4, 7])
    answer(waiting, 2)
    answer(disputed, 3, "seat 3 had a joker left", card=True)
    for position in (2, 3, 4):
        answer(agreed, position)
    out = seating.seats(seating.game_draw(stage, 1), table=4)[3].registration
    record_conduct(event=stage.event, registration=out, kind="disqualified", note="left the hall", actor=chief)
    return {"player_waiting": waiting, "player_disputed": disputed, "player_agreed": agreed}


def build_world() -> World:
    festival = make_festival(name="Fuzz festival")
    users = {role: make_staff(festival, role) for role in (ORGANISER, CHIEF_REFEREE, REFEREE, DESK)}
    other_festival = make_festival(name="Someone else's festival")
    users[OUTSIDER] = make_staff(other_festival, ORGANISER)
    users[NO_ROLE] = User.objects.create_user(username="no-role", password="pw-for-tests-only")
    users[SUPERUSER] = User.objects.create_superuser(username="root", password="pw-for-tests-only")
    users[ANONYMOUS] = None
    chief = Actor(user=users[CHIEF_REFEREE])

    classic = make_released_stage(16, festival=festival, name="Classic")  # Busan round 1: 4 tables, 3 games
    ensure_links(event=classic.event, actor=SYSTEM)
    RefereeAssignment.objects.create(event=classic.event, table_number=1, referee=users[REFEREE])
    sheets = {
        "submitted": _sheet(classic, 1, [0, 10, 20, 30]),
        "confirmed": confirm_sheet(sheet=_sheet(classic, 2, [0, 5, 6, 7]), actor=chief),
        "returned": return_sheet(sheet=_sheet(classic, 3, [0, 8, 9, 10]), actor=chief, reason="recount"),
        "warned": _sheet(classic, 4, [0, 120, 20, 30]),  # a rack over 100: an accepted warning
    }

    # Three warnings for player 5 wait for the chief referee's decision (R9); player 6 has one.
    warned = Registration.objects.get(event=classic.event, number=5)
    for note in ("talked during play", "slow play", "showed tiles"):
        record_conduct(event=classic.event, registration=warned, kind="warning", note=note, actor=chief,
                       stage=classic, game=1)
    record_conduct(event=classic.event, registration=Registration.objects.get(event=classic.event, number=6),
                   kind="warning", note="late", actor=chief)

    word = make_released_stage(8, festival=festival, name="Word", game=Event.Game.WORD, start=classic.event.starts_at)
    ensure_links(event=word.event, actor=SYSTEM)
    sheets["word_submitted"] = _word_sheet(word, 1)
    sheets["word_confirmed"] = confirm_sheet(sheet=_word_sheet(word, 2), actor=chief)

    fresh = make_released_stage(8, festival=festival, name="Fresh").event  # released, no sheet yet
    sheets |= _players_round(festival, start=classic.event.starts_at, chief=chief)
    players = sheets["player_waiting"].stage.event

    numbered = ready_event(8, festival=festival, name="Numbered")  # numbered, waiting for its first draw
    closing = make_event(festival, name="Closing", checkin_override=Event.CheckinOverride.CLOSED)
    for _ in range(6):  # checked in, check-in closed, numbers not yet assigned
        make_registration(closing, checked_in_at=timezone.now())

    ready = ready_event(8, festival=festival, name="Ready")  # a draft draw waits to be swapped and released
    stage = draw_services.start_event(event=ready, actor=SYSTEM)
    draw_services.draft_draw(stage=stage, actor=SYSTEM, seed=7)

    opened = _open_event(festival, "Open", days=10, hour=10, capacity=4)
    later = _open_event(festival, "Later", days=10, hour=15)
    clash = _open_event(festival, "Clash", days=10, hour=11)
    for i in range(6):  # four places: two on the waiting list; one player also in "later"
        registration = make_registration(opened, queued_at=timezone.now())
        if i >= 4:
            Registration.objects.filter(pk=registration.pk).update(status=Registration.Status.WAITLISTED)
        if i == 0:
            make_registration(later, registration.player)
    make_registration(opened, status=Registration.Status.WITHDRAWN, withdrawn_at=timezone.now())
    first = Registration.objects.filter(event=opened).order_by("pk").first()
    Registration.objects.filter(pk=first.pk).update(checked_in_at=timezone.now())

    finished = simulate("hk", 8, seed=3, festival=festival, name="Finished")

    other = make_released_stage(8, festival=other_festival, name="Other").event
    ensure_links(event=other, actor=SYSTEM)
    sheets["other"] = _sheet(other.stages.get(), 1, [0, 1, 2, 3])
    make_player(other_festival)

    assert seating.game_draw(classic, 1) is not None
    events = {"classic": classic.event, "word": word.event, "fresh": fresh, "players": players, "numbered": numbered,
              "closing": closing, "ready": ready, "open": opened, "later": later,
              "clash": clash, "finished": finished, "other": other}
    invitation_links = {
        place.pk: [invite(festival=place, identifier=identifier, role=DESK, actor=Actor(user=organiser)).token
                   for identifier in ("newcomer@example.org", "no-role")]
        for place, organiser in ((festival, users[ORGANISER]), (other_festival, users[OUTSIDER]))}
    return World(festival=festival, other_festival=other_festival, events=events, users=users, sheets=sheets,
                 invitation_links=invitation_links)
