"""Hardening, in a real browser at 360×740: every page passes axe-core (WCAG 2.0/2.1 A and AA, no
"serious" or "critical" violation), has a <title> that names the page, one <h1> and the right <html lang>;
and the key pages (registration, sign-in and desk check-in, a referee's sheet with the tile pad, the chief
referee's board) work with the keyboard alone: every stop shows its focus, a skip link passes the navigation,
and the focus survives htmx swapping the part of the page it is in (a check-in, the board's poll).

The pages are those tests/test_no_server_errors.py walks, filled with one world built once for the module
(a live Busan round with sheets in every state, a Rummikub Word round, a finished event, a desk morning, a
draft draw): rebuilding it for every page would cost minutes. So this module runs its own live server on
that world instead of the per-test `live_server` (whose transactional database is emptied after every
test), and empties the database itself when it is done. Downloads (CSV/XLSX/JSON exports, the public API,
clock.json), POST-only actions and htmx fragments are not pages; their effects are checked on the pages
they return to. axe's full report of every page (all impacts) is written to artifacts/e2e/accessibility/.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone, translation
from django.utils.translation import gettext
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from scoring.models import ScoreSheet, TableLink
from scoring.services import conduct as conduct_services
from scoring.services.links import assign_tables, ensure_links
from scoring.services.sheets import confirm_sheet, submit_sheet
from scoring.services.table_sheets import PERSONAL_PAGE, enter_sheet, seated_player
from scoring.simulation import simulate
from scoring.simulation.word import plausible_word_sheet
from tests.e2e.inflight import wait_until_idle
from tests.factories import (
    make_event,
    make_festival,
    make_player,
    make_registration,
    make_staff,
    ready_event,
    released_stage,
)
from tests.scoring.helpers import entry_for, key
from tournament.models import ConductRecord, Event, Registration
from tournament.services import draws, seating
from tournament.services.audit import Actor
from tournament.services.guardian import token_hash as guardian_hash

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = {"serious", "critical"}
REPORTS = Path(settings.BASE_DIR) / "artifacts" / "e2e" / "accessibility"
# conftest.PHONE, asking for reduced motion: Bootstrap then drops its colour transitions, which axe would
# otherwise catch half-way (a button measured between its two colours).
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 1,
         "reduced_motion": "reduce"}
TIMEOUT_MS = 10_000  # waits, not assertions about time (as tests/e2e/conftest.py)
PASSWORD = "pw-for-tests-only"  # tests/factories.make_staff
LANGS = {"en": "en-GB", "ko": "ko-KR", "zh-hant": "zh-TW"}  # app language → browser locale
SITE_DEFAULT_TITLE = "Rummikub tournaments"  # base.html's title when a page names nothing


# --- the world -----------------------------------------------------------------------------------------


def _submit(stage, game, table, values):
    return submit_sheet(stage=stage, game=game, table_number=table, entry=entry_for(stage, game, table, values),
                        accept_warnings=True, idempotency_key=key(), actor=Actor(label=f"table {table} link"),
                        via=f"table {table} link")


def build_world() -> SimpleNamespace:
    """Everything the pages show, through the services the app uses. Every time is relative to now: the
    live server answers with the real clock."""
    now = timezone.now()
    organiser_actor = Actor(label="organiser")
    festival = make_festival(name="부산 보드게임페스티벌", starts_on=now.date(), ends_on=now.date())
    organiser = make_staff(festival, "organiser")
    call_command("add_organiser", organiser.username)  # may create festivals too
    chief = make_staff(festival, "chief referee")
    desk = make_staff(festival, "desk")
    referee = make_staff(festival, "referee")

    # Registration open now (for the form), with a registered player whose personal page we open.
    open_event = make_event(festival, name="Kids' Rummikub", start=now + dt.timedelta(days=5))
    personal = make_registration(open_event, make_player(festival, name="김민준"))

    # The desk's morning: check-in open, some in, one waiting.
    desk_event = make_event(festival, name="Morning open", checkin_override=Event.CheckinOverride.OPEN)
    for name in ("김서연", "박지훈", "Chan Tai Man", "Lee Ka Yan"):
        make_registration(desk_event, make_player(festival, name=name))
    make_registration(desk_event, make_player(festival, name="김도윤"), checked_in_at=now)
    make_registration(desk_event, make_player(festival, name="김대기"), status=Registration.Status.WAITLISTED)
    desk_reg = Registration.objects.get(event=desk_event, player__name="김서연")
    # Children waiting for the guardian's agreement: on the desk's list (the paper form's tick) and behind the
    # links e-mailed to their guardians, one filled in in Korean, one in Hong Kong Chinese.
    guardian_links = {}
    for language, name in (("ko", "김하늘"), ("zh-hant", "王小欣")):
        kid = make_player(festival, name=name, birth_year=now.year - 10, guardian_name="Parent",
                          guardian_contact=f"parent-{language}@example.org")
        guardian_links[language] = f"{language.replace('-', '')}{'G' * 40}"
        make_registration(desk_event, kid, consent_by=Registration.ConsentBy.GUARDIAN, consent_notice_version=1,
                          consent_how=Registration.ConsentHow.ONLINE, guardian_language=language,
                          guardian_check=Registration.GuardianCheck.WAITING, guardian_held_until=now + dt.timedelta(days=3),
                          guardian_token_hash=guardian_hash(guardian_links[language]))
    # Check-in closed with empty places, late places open (the desk's list), and numbers to keep or redo.
    late_event = make_event(festival, name="Late places open", capacity=3, late_places_opened_at=now,
                            checkin_override=Event.CheckinOverride.CLOSED)
    make_registration(late_event, make_player(festival, name="김참가"), checked_in_at=now)
    for name in ("김대기일", "Chan Siu Ming"):
        make_registration(late_event, make_player(festival, name=name), status=Registration.Status.WAITLISTED)
    numbered_event = ready_event(4, festival=festival, name="Numbered, not started")

    # A live Busan round of 16: table 1 submitted, table 2 confirmed, 3 and 4 still to enter.
    started = now - dt.timedelta(minutes=20)  # a round under way: the clocks count down
    stage = released_stage(16, festival=festival, name="Busan open", start=started)
    live = stage.event
    links = {link.table_number: link for link in ensure_links(event=stage.event, actor=organiser_actor)}
    assign_tables(event=stage.event, first=3, last=3, referee=referee, actor=organiser_actor)
    # Cards that open no table: one replaced by the organiser, one for a table this round does not use.
    replaced = TableLink.objects.create(event=live, table_number=5, revoked_at=now)
    idle = TableLink.objects.create(event=live, table_number=9)
    submitted = _submit(stage, 1, 1, [0, 10, 20, 30])
    confirmed = _submit(stage, 1, 2, [0, 5, 15, 25])
    confirm_sheet(sheet=confirmed, actor=Actor(user=chief))
    warned = live.registrations.order_by("number")[4]
    for n in range(conduct_services.DECISION_AT):  # a third warning: the chief referee must decide
        conduct_services.record_conduct(event=live, registration=warned, kind=ConductRecord.Kind.WARNING,
                                        note=f"Slow play, {n + 1}", stage=stage, game=1,
                                        actor=Actor(user=chief))

    # A Rummikub Word round of 8: table 1 confirmed (to correct), table 2 to enter.
    word_stage = released_stage(8, festival=festival, name="Rummikub Word", game=Event.Game.WORD, start=started)
    word_link = ensure_links(event=word_stage.event, actor=organiser_actor)[1]
    word_sheet = submit_sheet(stage=word_stage, game=1, table_number=1, entry=plausible_word_sheet(random.Random(7), 4),
                              accept_warnings=True, idempotency_key=key(), actor=Actor(label="table 1 link"),
                              via="table 1 link")
    confirm_sheet(sheet=word_sheet, actor=Actor(user=chief))

    # A club night whose players keep the sheets: table 1 entered by seat 1, table 2 still to enter.
    club = released_stage(8, festival=festival, name="Club night", sheets_by=Event.SheetsBy.PLAYERS, start=started)
    club_seats = {t: seating.seats(seating.game_draw(club, 1), table=t) for t in (1, 2)}
    enter_sheet(stage=club, game=1, table_number=1, entry=entry_for(club, 1, 1, (0, 5, 9, 14)), accept_warnings=True,
                idempotency_key=key(), player=seated_player(stage=club, game=1, table_number=1, via=PERSONAL_PAGE,
                                                             registration=club_seats[1][0].registration))

    # A draft draw the organiser has not released yet (the swap form).
    draft_event = ready_event(8, festival=festival, name="Afternoon open")
    draft = draws.draft_draw(stage=draws.start_event(event=draft_event, actor=organiser_actor),
                             actor=organiser_actor, seed=3)

    # Finished events: results, podium, certificates, season; Hong Kong's table movement.
    finished = simulate("busan", 16, 2014, festival=festival, name="Busan final day")
    hong_kong = simulate("hk", 8, 2016, festival=festival, name="Hong Kong rotation")

    return SimpleNamespace(
        festival=festival, organiser=organiser, chief=chief, desk=desk, referee=referee, open_event=open_event,
        personal=personal, desk_event=desk_event, desk_reg=desk_reg, late_event=late_event,
        guardian_links=guardian_links,
        numbered_event=numbered_event, stage=stage, live=live, links=links, replaced=replaced, idle=idle,
        submitted=submitted,
        confirmed=confirmed, warned=warned, word_stage=word_stage, word_link=word_link, word_sheet=word_sheet,
        draft_event=draft_event, draft=draft, finished=finished, hong_kong=hong_kong, live_draw=stage.draws.get(),
        club=club, club_seats=club_seats,
    )


def _club(w, table, position, name="player-sheet-game"):
    registration = w.club_seats[table][position - 1].registration
    kwargs = {"token": registration.player.token, "event": w.club.event.slug}
    if name == "player-sheet-game":
        kwargs.update(stage=1, game=1)
    return reverse(name, kwargs=kwargs)


def ev(event) -> dict:
    return {"festival": event.festival.slug, "event": event.slug}


# --- the pages -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One page: who opens it, in which language, its address, and what its title must name.

    `title` holds msgids (translated into the page's language) or ("msgid %(x)s", {"x": …}) pairs, and
    callables of the world for names from the data. `then(page, world)` drives the page into the state to
    check (a file uploaded, the tile pad open) after it is opened."""

    name: str
    who: str
    url: object  # callable(world) -> path
    title: tuple = ()
    lang: str = "en"
    then: object = None
    status: int = 200
    lands_on: str = ""  # the route `then` ends on, when it is another page


def _upload_import(page, w):
    csv = "event,name,contact,birth_year\n{0},정하은,010-1234-5678,2011\n{0},Wong Siu Ming,,1990\n"
    page.set_input_files("input[type=file]", files=[{
        "name": "players.csv", "mimeType": "text/csv", "buffer": csv.format(w.open_event.slug).encode()}])
    with page.expect_navigation():
        page.locator("main form button[type=submit], main form input[type=submit]").first.click()


def _register_badly(page, w):
    page.fill("#id_name", "12345")
    page.fill("#id_contact", "not a contact")
    page.fill("#id_birth_year", "2001")
    page.check("#id_agree")  # the browser asks for the required agreement before sending
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()
    expect(page.locator(".invalid-feedback").first).to_be_visible()


def _walk_in_namesake(page, w):
    """A walk-in with the name of a stored player: the form comes back with the choice (nothing saved)."""
    page.fill("#id_name", "김서연")
    page.fill("#id_birth_year", "1990")
    page.check("#id_agree")
    with page.expect_navigation():
        page.locator("main form [type=submit]").last.click()
    expect(page.locator("#walk-in-matches")).to_be_visible()


def _open_tile_pad(page, w):
    page.click('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')
    expect(page.locator("#tile-pad")).to_be_visible()
    page.locator('#tile-pad [data-tile="R10"]').click()


def _preview_disqualification(page, w):
    form = page.locator("form", has=page.locator('input[name="disqualify-number"]'))
    form.locator('input[name="disqualify-number"]').fill(str(w.warned.number))
    form.locator('textarea[name="disqualify-note"]').fill("Third warning: slow play")
    with page.expect_navigation():
        form.locator("button[type=submit]").first.click()


def _lock_out(page, w):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        page.fill("input[name=username]", "nobody-at-all")
        page.fill("input[name=password]", "wrong")
        with page.expect_navigation():
            page.click("main form button[type=submit]")


def _live(name, **kw):
    return lambda w: reverse(name, kwargs={**ev(w.live), **kw})


def _name(attr):
    return lambda w: getattr(w, attr).name


CASES = [
    # Public, anonymous.
    Case("home", "anonymous", lambda w: reverse("home"), ("Festivals",)),
    Case("home-ko", "anonymous", lambda w: reverse("home"), ("Festivals",), lang="ko"),
    Case("home-zh-hant", "anonymous", lambda w: reverse("home"), ("Festivals",), lang="zh-hant"),
    Case("invitation-link-used", "anonymous", lambda w: reverse("staff-invitation", args=["used-or-unknown"]),
         ("Invitation",), status=404),
    Case("festival", "anonymous", lambda w: reverse("festival", kwargs={"festival": w.festival.slug}),
         (_name("festival"),)),
    Case("event", "anonymous", _live("event"), (_name("live"),)),
    Case("register", "anonymous", lambda w: reverse("event-register", kwargs=ev(w.open_event)),
         (lambda w: w.open_event.name,)),
    Case("register-ko", "anonymous", lambda w: reverse("event-register", kwargs=ev(w.open_event)),
         (lambda w: w.open_event.name,), lang="ko"),
    Case("register-with-mistakes", "anonymous", lambda w: reverse("event-register", kwargs=ev(w.open_event)),
         (lambda w: w.open_event.name,), then=_register_badly),
    Case("register-closed", "anonymous", lambda w: reverse("event-register", kwargs=ev(w.live)),
         (lambda w: w.live.name,)),
    Case("personal-page", "anonymous", lambda w: reverse("player-page", args=[w.personal.player.token]),
         (lambda w: w.personal.player.name,)),
    Case("guardian-ko", "anonymous", lambda w: reverse("guardian-page", args=[w.guardian_links["ko"]]),
         ("A parent's or guardian's agreement",), lang="ko"),
    Case("guardian-zh-hant", "anonymous", lambda w: reverse("guardian-page", args=[w.guardian_links["zh-hant"]]),
         ("A parent's or guardian's agreement",), lang="zh-hant"),
    Case("erase-my-data-ko", "anonymous", lambda w: reverse("player-erase", args=[w.personal.player.token]),
         ("Erase my data",), lang="ko"),
    Case("public-draw", "anonymous", _live("public-draw"), ("Draw", _name("live"))),
    Case("public-draw-hong-kong", "anonymous", lambda w: reverse("public-draw", kwargs=ev(w.hong_kong)),
         ("Draw", _name("hong_kong"))),
    Case("find-seat", "anonymous", lambda w: reverse("public-seat", kwargs=ev(w.live)) + "?q=Player",
         ("Where do I sit?",)),
    Case("public-table", "anonymous", _live("public-table", number=1), (("Table %(number)s", {"number": 1}),)),
    Case("standings", "anonymous", _live("public-standings"), ("Standings", _name("live"))),
    Case("standings-zh-hant", "anonymous", _live("public-standings"), ("Standings",), lang="zh-hant"),
    Case("standings-final-places", "anonymous", lambda w: reverse("public-standings", kwargs=ev(w.finished)),
         ("Final places", _name("finished"))),
    Case("standings-every-game", "anonymous", lambda w: reverse("public-standings-all", kwargs=ev(w.finished)),
         ("Every game", _name("finished"))),
    Case("standings-stage", "anonymous", lambda w: reverse("public-standings-stage", kwargs={
        **ev(w.finished), "stage": 1}), ("Standings", _name("finished"))),
    Case("find-player", "anonymous", lambda w: reverse("public-find-player", kwargs=ev(w.live)) + "?q=1",
         ("Find a player",)),
    Case("player", "anonymous", _live("public-player", number=1), (_name("live"),)),
    Case("hall", "anonymous", _live("public-hall"), ("Hall display", _name("live"))),
    Case("hall-ko", "anonymous", _live("public-hall"), ("Hall display",), lang="ko"),
    Case("results", "anonymous", lambda w: reverse("results", kwargs=ev(w.finished)), ("Results",)),
    Case("certificates", "anonymous", lambda w: reverse("results-print", kwargs=ev(w.finished)),
         ("Certificates",)),
    Case("season", "anonymous", lambda w: reverse("season") + f"?year={w.finished.starts_at.year}",
         (lambda w: gettext("Season %(year)s") % {"year": w.finished.starts_at.year},)),
    Case("sign-in", "anonymous", lambda w: reverse("login"), ("Staff sign in",)),
    Case("locked-out", "anonymous", lambda w: reverse("login"), ("Account locked",), then=_lock_out),
    Case("not-found", "anonymous", lambda w: "/f/no-such-festival/", ("Not found",), status=404),
    Case("personal-link-not-found", "anonymous", lambda w: "/p/no-such-link/", ("This personal link does not work",),
         status=404),
    Case("not-allowed", "desk", lambda w: reverse("manage-event", kwargs={"festival": w.festival.slug,
                                                                          "event": w.open_event.slug}),
         ("Not allowed",), status=403),
    # A referee at a table, through its private link (classic, the tile pad, Word).
    Case("referee-table", "anonymous", lambda w: reverse("referee-link-table", args=[w.links[3].token]),
         (("Table %(number)s", {"number": 3}),)),
    Case("referee-table-ko", "anonymous", lambda w: reverse("referee-link-table", args=[w.links[3].token]),
         (("Table %(number)s", {"number": 3}),), lang="ko"),
    Case("referee-sheet", "anonymous", lambda w: reverse("referee-link-game", args=[w.links[3].token, 1, 1]),
         (("Table %(number)s, game %(game)s", {"number": 3, "game": 1}),)),
    Case("referee-sheet-tile-pad", "anonymous",
         lambda w: reverse("referee-link-game", args=[w.links[3].token, 1, 1]),
         (("Table %(number)s, game %(game)s", {"number": 3, "game": 1}),), then=_open_tile_pad),
    Case("referee-sheet-zh-hant", "anonymous",
         lambda w: reverse("referee-link-game", args=[w.links[3].token, 1, 1]),
         (("Table %(number)s, game %(game)s", {"number": 3, "game": 1}),), lang="zh-hant"),
    Case("referee-sheet-submitted", "anonymous",
         lambda w: reverse("referee-link-game", args=[w.links[1].token, 1, 1]),
         (("Table %(number)s, game %(game)s", {"number": 1, "game": 1}),)),
    Case("player-sheet-table", "anonymous", lambda w: _club(w, 1, 2, "player-sheet-table"),
         (("Table %(number)s", {"number": 1}),)),
    Case("player-sheet-agree", "anonymous", lambda w: _club(w, 1, 2),
         (("Table %(number)s, game %(game)s", {"number": 1, "game": 1}),)),
    Case("player-sheet-agree-ko", "anonymous", lambda w: _club(w, 1, 3),
         (("Table %(number)s, game %(game)s", {"number": 1, "game": 1}),), lang="ko"),
    Case("player-sheet-enter-zh-hant", "anonymous", lambda w: _club(w, 2, 1),
         (("Table %(number)s, game %(game)s", {"number": 2, "game": 1}),), lang="zh-hant"),
    Case("referee-word-table", "anonymous", lambda w: reverse("referee-link-table", args=[w.word_link.token]),
         (("Table %(number)s", {"number": 2}),)),
    Case("referee-word-sheet", "anonymous",
         lambda w: reverse("referee-link-game", args=[w.word_link.token, 1, 1]),
         (("Table %(number)s, game %(game)s", {"number": 2, "game": 1}),)),
    Case("referee-link-replaced-ko", "anonymous", lambda w: reverse("referee-link-table", args=[w.replaced.token]),
         (("Table %(number)s", {"number": 5}),), lang="ko", status=410),
    Case("referee-link-idle", "anonymous", lambda w: reverse("referee-link-table", args=[w.idle.token]),
         (("Table %(number)s", {"number": 9}),)),
    Case("referee-link-unknown", "anonymous", lambda w: reverse("referee-link-table", args=["A" * 32]),
         ("Table link",), status=404),
    Case("referee-account-table", "referee", lambda w: reverse("referee-table", args=[w.stage.pk, 3]),
         (("Table %(number)s", {"number": 3}),)),
    Case("referee-account-sheet", "referee", lambda w: reverse("referee-game", args=[w.stage.pk, 3, 1]),
         (("Table %(number)s, game %(game)s", {"number": 3, "game": 1}),)),
    # The desk.
    Case("desk", "desk", lambda w: reverse("desk", kwargs=ev(w.desk_event)) + "?q=김",
         ("Check-in desk", _name("desk_event"))),
    Case("desk-missing", "desk", lambda w: reverse("desk-missing", kwargs=ev(w.desk_event)),
         ("Who is missing",)),
    Case("desk-walk-in", "desk", lambda w: reverse("desk-walk-in", kwargs=ev(w.desk_event)),
         ("Walk-in", _name("desk_event"))),
    Case("desk-walk-in-ko", "desk", lambda w: reverse("desk-walk-in", kwargs=ev(w.desk_event)),
         ("Walk-in", _name("desk_event")), lang="ko"),
    Case("desk-walk-in-namesake", "desk", lambda w: reverse("desk-walk-in", kwargs=ev(w.desk_event)),
         ("Walk-in", _name("desk_event")), then=_walk_in_namesake),
    Case("desk-walk-in-namesake-zh-hant", "desk", lambda w: reverse("desk-walk-in", kwargs=ev(w.desk_event)),
         ("Walk-in", _name("desk_event")), lang="zh-hant", then=_walk_in_namesake),
    Case("desk-link", "desk", lambda w: reverse("desk-link", kwargs={**ev(w.desk_event), "registration": w.desk_reg.pk}),
         ("Personal link", lambda w: w.desk_reg.player.name)),
    Case("desk-correct", "desk",
         lambda w: reverse("desk-correct", kwargs={**ev(w.desk_event), "registration": w.desk_reg.pk}),
         ("Correct a player's details", _name("desk_event"))),
    Case("desk-late-places", "desk", lambda w: reverse("desk-late-places", kwargs=ev(w.late_event)),
         ("Late places", _name("late_event"))),
    Case("desk-late-places-zh-hant", "desk", lambda w: reverse("desk-late-places", kwargs=ev(w.late_event)),
         ("Late places", _name("late_event")), lang="zh-hant"),
    # The chief referee.
    Case("board", "chief", _live("board"), ("Live board", _name("live"))),
    Case("board-sheet", "chief", lambda w: reverse("board-sheet", kwargs={**ev(w.live), "sheet_id": w.submitted.pk}),
         (("Table %(table)s, game %(game)s", {"table": 1, "game": 1}),)),
    Case("board-correct", "chief",
         lambda w: reverse("board-correct", kwargs={**ev(w.live), "sheet_id": w.confirmed.pk}),
         ("Correct a sheet",)),
    Case("board-correct-word", "chief",
         lambda w: reverse("board-correct", kwargs={**ev(w.word_stage.event), "sheet_id": w.word_sheet.pk}),
         ("Correct a sheet",)),
    Case("board-stage", "chief", _live("board-stage", stage=1), (lambda w: w.stage.display_name,)),
    Case("confirm-clean-sheets", "chief",
         lambda w: reverse("board-confirm-clean", kwargs=ev(w.live)) + "?stage=1&game=1",
         (("Confirm every clean sheet of game %(game)s", {"game": 1}),)),
    Case("board-referees", "chief", _live("board-referees"), ("Who referees which table", _name("live"))),
    Case("conduct", "chief", _live("conduct"), ("Conduct",)),
    Case("conduct-preview", "chief", _live("conduct"), ("Before you apply",), then=_preview_disqualification),
    # The organiser.
    Case("my-work", "organiser", lambda w: reverse("manage-home"), ("My work",)),
    Case("my-work-referee", "referee", lambda w: reverse("manage-home"), ("My work",)),
    Case("my-work-desk", "desk", lambda w: reverse("manage-home"), ("My work",)),
    Case("my-work-chief", "chief", lambda w: reverse("manage-home"), ("My work",)),
    Case("festival-new", "organiser", lambda w: reverse("manage-festival-new"), ("New festival",)),
    Case("staff", "organiser", lambda w: reverse("manage-staff", kwargs={"festival": w.festival.slug}),
         ("Staff and roles", _name("festival"))),
    Case("manage-festival", "organiser", lambda w: reverse("manage-festival", kwargs={"festival": w.festival.slug}),
         (_name("festival"),)),
    Case("manage-event", "organiser", lambda w: reverse("manage-event", kwargs=ev(w.desk_event)),
         (_name("desk_event"), "Organiser")),
    Case("manage-withdraw", "organiser",
         lambda w: reverse("manage-withdraw", kwargs=ev(w.open_event)) + f"?registration={w.personal.pk}",
         ("Withdraw", lambda w: w.personal.player.name)),
    Case("festival-edit", "organiser", lambda w: reverse("manage-festival-edit", kwargs={"festival": w.festival.slug}),
         ("Edit the festival", _name("festival"))),
    Case("event-presets", "organiser", lambda w: reverse("manage-event-new", kwargs={"festival": w.festival.slug}),
         ("Add an event", _name("festival"))),
    Case("event-form", "organiser",
         lambda w: reverse("manage-event-new", kwargs={"festival": w.festival.slug}) + "?preset=busan",
         ("Add an event", _name("festival"))),
    Case("event-edit-started", "organiser", _live("manage-event-edit"), ("Edit the event", _name("live"))),
    Case("event-schedule", "organiser", _live("manage-event-schedule"), ("The day's schedule", _name("live"))),
    Case("close-check-in", "organiser",
         lambda w: reverse("manage-checkin", kwargs=ev(w.desk_event)) + "?checkin=closed",
         ("Close check-in", _name("desk_event"))),
    Case("manage-event-late-places", "organiser", lambda w: reverse("manage-event", kwargs=ev(w.late_event)),
         (_name("late_event"), "Organiser")),
    Case("reopen-renumber-ko", "organiser",
         lambda w: reverse("manage-checkin", kwargs=ev(w.numbered_event)) + "?checkin=open&renumber=on",
         ("Reopen check-in and renumber everyone", _name("numbered_event")), lang="ko"),
    Case("assign-numbers", "organiser",
         lambda w: reverse("manage-numbers", kwargs=ev(w.desk_event)) + "?method=registration",
         ("Assign player numbers", _name("desk_event"))),
    Case("release-draw", "organiser",
         lambda w: reverse("draw-release", kwargs={**ev(w.draft_event), "draw": w.draft.pk}),
         (("Release the draw of %(stage)s", {"stage": "Round 1"}), _name("draft_event"))),
    Case("close-stage", "organiser", _live("board-close", stage=1), (("Close %(stage)s", {"stage": "Round 1"}),)),
    Case("import", "organiser", lambda w: reverse("manage-import", kwargs={"festival": w.festival.slug}),
         ("Import registrations",)),
    Case("import-preview", "organiser", lambda w: reverse("manage-import", kwargs={"festival": w.festival.slug}),
         ("Check the import",), then=_upload_import, lands_on="manage-import-preview"),
    Case("draws-draft", "organiser", lambda w: reverse("manage-draws", kwargs=ev(w.draft_event)),
         ("Draw", _name("draft_event"))),
    Case("draws-released", "organiser", _live("manage-draws"), ("Draw", _name("live"))),
    Case("draw-print", "organiser", lambda w: reverse("draw-print", kwargs={**ev(w.live), "draw": w.live_draw.pk}),
         ("Draw", _name("live"))),
    Case("table-cards", "organiser",
         lambda w: reverse("draw-cards", kwargs={**ev(w.live), "draw": w.live_draw.pk}), ("Table cards",)),
    Case("table-links", "organiser", _live("board-links", stage=1), ("Table links",)),
    Case("paper-sheets", "organiser", _live("board-print", stage=1), ("Paper score sheets",)),
    Case("referee-cards", "organiser", _live("board-link-cards"), ("Referee cards",)),
    Case("manage-results", "organiser", lambda w: reverse("manage-results", kwargs=ev(w.finished)), ("Results",)),
    Case("manage-certificates", "organiser", lambda w: reverse("manage-results-print", kwargs=ev(w.finished)),
         ("Certificates",)),
]


# --- browser and server for the module -------------------------------------------------------------------


@contextmanager
def module_database(django_db_blocker):
    """The test database, open to every thread for the whole module, and emptied at the end."""
    from django.db import DEFAULT_DB_ALIAS, connection
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        created = None
        if connection.settings_dict["NAME"] != connection.creation._get_test_db_name():
            # pytest-django creates it only when a selected test asks for `db`: this module run on its own.
            created = setup_databases(verbosity=0, interactive=False, aliases={DEFAULT_DB_ALIAS})
        try:
            yield
        finally:
            # Later tests expect an empty database, as after any transactional test.
            call_command("flush", interactive=False, verbosity=0)
            if created is not None:
                teardown_databases(created, verbosity=0)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The world and a live server on it, for the whole module."""
    from pytest_django.live_server_helper import LiveServer

    with module_database(django_db_blocker):
        built = build_world()
        server = LiveServer("localhost")
        built.root = server.url
        try:
            yield built
        finally:
            server.stop()


@dataclass
class Phones:
    """One browser context per (role, language), signed in once and reused: one page each."""

    browser: object
    world: SimpleNamespace
    pages: dict = field(default_factory=dict)

    def open(self, who: str, lang: str = "en"):
        if (who, lang) not in self.pages:
            context = self.browser.new_context(locale=LANGS[lang], **PHONE)
            context.set_default_timeout(TIMEOUT_MS)
            context.set_default_navigation_timeout(TIMEOUT_MS)
            context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": self.world.root}])
            context.add_init_script(path=str(AXE))  # in the page's own world, so no CSP can block it
            page = context.new_page()
            if who != "anonymous":
                sign_in(page, self.world, getattr(self.world, who))
            self.pages[(who, lang)] = page
        return self.pages[(who, lang)]

    def close(self):
        for page in self.pages.values():
            page.context.close()


def sign_in(page, world, user):
    page.goto(world.root + reverse("login"))
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "/accounts/login/" not in page.url, f"{user} could not sign in"


@pytest.fixture(scope="module")
def phones(browser, world):
    phones = Phones(browser, world)
    yield phones
    phones.close()
    wait_until_idle()  # no request may still read a table when the database is emptied
    # While Playwright runs, Django keeps this thread's connection apart (asgiref's Local follows the event
    # loop's context); close it here, or PostgreSQL refuses to drop a test database still in use.
    connections.close_all()


# --- what every page must pass ---------------------------------------------------------------------------


def run_axe(page) -> list[dict]:
    return page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
                   .then(result => result.violations.map(v => ({
                       id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                       nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 300),
                                                 summary: n.failureSummary}))})))""",
        WCAG_TAGS,
    )


def describe(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']}] {v['id']}: {v['help']} ({len(v['nodes'])} element(s)) {v['helpUrl']}")
        for node in v["nodes"][:4]:
            lines.append(f"    {node['target']}  {node['html'][:160]}")
            lines.append("      " + (node["summary"] or "").replace("\n", "\n      ")[:400])
    return "\n".join(lines)


def expected_title_parts(case: Case, world) -> list[str]:
    parts = []
    with translation.override(case.lang):
        for item in case.title:
            if callable(item):
                parts.append(str(item(world)))
            elif isinstance(item, tuple):
                parts.append(gettext(item[0]) % item[1])
            else:
                parts.append(gettext(item))
    return parts


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_page_is_accessible_titled_and_in_its_language(case, world, phones):
    page = phones.open(case.who, case.lang)
    response = page.goto(world.root + case.url(world))
    if case.then:
        case.then(page, world)
        if case.lands_on:
            path = page.url.removeprefix(world.root).split("?")[0]
            assert resolve(path).url_name == case.lands_on, f"{case.name}: ended on {page.url}"
    else:
        assert response.status == case.status, f"{case.name}: HTTP {response.status}"

    violations = run_axe(page)
    REPORTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(REPORTS / f"{case.name}.png"))
    (REPORTS / f"{case.name}.json").write_text(json.dumps(
        {"url": page.url, "title": page.title(), "violations": violations}, ensure_ascii=False, indent=1))
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{case.name} ({page.url}):\n{describe(blocking)}"

    assert page.locator("html").get_attribute("lang") == case.lang
    assert page.locator("h1").count() == 1, f"{case.name}: {page.locator('h1').all_inner_texts()}"
    title = page.title()
    with translation.override(case.lang):
        site, default = gettext("Rummikub"), gettext(SITE_DEFAULT_TITLE)
    names = title.removesuffix(f" · {site}").strip()  # the hall display's own layout has no site suffix
    assert names and names != default, f"{case.name}: the title {title!r} names no page"
    for part in expected_title_parts(case, world):
        assert part in names, f"{case.name}: the title {title!r} does not name {part!r}"


# Routes that are not pages a person reads: actions (POST, then back to a page checked here), htmx
# fragments swapped into pages checked here, and downloads (exports, the public API, the clock's JSON).
NOT_PAGES = {
    "player-withdraw", "player-enter", "player-public-name", "player-results-to-ranking", "desk-checkin", "desk-undo",
    "draw-start", "draw-draft", "draw-swap",
    "draw-release", "draw-unrelease", "board-quick-confirm", "board-confirm", "board-return", "board-lots",
    "board-close", "board-links-make", "board-links-revoke", "board-referees-assign", "board-referees-unassign",
    "results-playoff", "results-lot", "results-points", "conduct-record", "conduct-keep", "manage-checkin",
    "manage-numbers", "manage-late-places", "set_language", "logout",
    "public-standings-live", "public-standings-all-live", "public-standings-stage-live", "public-player-live",
    "public-hall-live",
    "desk-search", "desk-counts", "referee-link-preview", "referee-preview", "board-correct-check",
    "round-clock", "manage-export", "event-export-json", "event-export-standings", "event-export-results",
    "event-export-ranking",
    "api-event", "api-standings", "api-draw", "api-player",
    "manage-staff-add", "manage-staff-remove", "manage-staff-link",  # POSTs (the link page answers one)
    "manage-staff-renew", "manage-staff-withdraw", "staff-invitation-answer",
    "service-worker", "referee-link-manifest", "referee-link-status", "referee-status",  # JavaScript, JSON
    "desk-checkin-queued", "player-data",  # a JSON download
    "player-sheet-preview", "player-sheet-status", "player-sheet-answer", "referee-link-answer",  # htmx, JSON, POST
    "desk-guardian-signed", "manage-guardian-link",  # POSTs (the desk's row, the registrations table)
}


def test_every_page_of_the_app_is_checked(world):
    """A new page (a route in the URLconf) must join CASES or, if it is no page, NOT_PAGES."""
    from tests.test_no_server_errors import routes

    every = {entry.name for _pattern, entry in routes()}
    checked = set()
    for case in CASES:
        try:
            checked.add(case.lands_on or resolve(case.url(world).split("?")[0]).url_name)
        except Resolver404:
            assert case.status == 404, case.name
    assert NOT_PAGES <= every, f"no such routes: {NOT_PAGES - every}"
    assert every - NOT_PAGES - checked == set(), "pages no accessibility case opens"


# --- the keyboard ----------------------------------------------------------------------------------------

FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {what: 'nothing (body)', visible: false, shown: false};
  // A visually hidden radio or checkbox shows its focus on its label (Bootstrap's .btn-check).
  const shown = [el, ...(el.labels || [])].filter(e => {
    const box = e.getBoundingClientRect();
    return box.width > 1 && box.height > 1;
  });
  const ring = shown.some(e => {
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    return outline || (s.boxShadow && s.boxShadow !== 'none');
  });
  const label = (el.getAttribute('aria-label') || el.innerText || el.value || el.name || '').trim().slice(0, 40);
  return {what: `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${label}"`, visible: ring,
          shown: shown.length > 0};
}"""


class Keyboard:
    """Tab through a page the way a keyboard user does, checking at every stop that focus can be seen."""

    def __init__(self, page):
        self.page = page

    def focused(self) -> dict:
        return self.page.evaluate(FOCUSED)

    def press(self, key: str) -> dict:
        self.page.keyboard.press(key)
        now = self.focused()
        assert now["shown"], f"after {key} the focus is on {now['what']}, which cannot be seen"
        assert now["visible"], f"after {key} the focus on {now['what']} has no visible outline or shadow"
        return now

    def tab_to(self, selector: str, limit: int = 60) -> list[str]:
        """Tab until `selector` has the focus (it may have it already)."""
        route = []
        if self.page.evaluate("s => document.activeElement.matches(s)", selector):
            return route
        for _ in range(limit):
            route.append(self.press("Tab")["what"])
            if self.page.evaluate("s => document.activeElement.matches(s)", selector):
                return route
        raise AssertionError(f"{selector} was not reached with Tab; focus went through {route}")

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)

    def inside_main(self) -> bool:
        return self.page.evaluate("() => document.querySelector('main').contains(document.activeElement)")

    def skip_to_main(self) -> None:
        """A visible "skip to content" link comes first, and Enter on it skips the navigation.

        A page that puts the focus in a field itself (autofocus: the sign-in form, the desk's search) starts
        the user in the main content already; the skip link is then found by going back with Shift+Tab."""
        skip = self.page.locator("a[href='#main']")
        if self.page.evaluate("() => document.activeElement === document.body"):
            self.press("Tab")
        else:
            assert self.inside_main(), f"the page starts the focus on {self.focused()['what']}, outside main"
            route = []
            for _ in range(12):
                route.append(self.press("Shift+Tab")["what"])
                if self.page.evaluate("() => document.activeElement.getAttribute('href') === '#main'"):
                    break
            assert route[-1].startswith("a"), f"no skip link before the main content: {route}"
        # (Not expect().to_be_focused(): with several phones open, only one page has the window's focus.)
        assert skip.evaluate("a => a === document.activeElement"), f"the skip link is not first: {self.focused()}"
        box = skip.bounding_box()
        assert box and box["width"] > 1 and box["y"] >= 0, "the focused skip link is not shown"
        self.page.keyboard.press("Enter")
        after = self.press("Tab")
        assert self.inside_main(), f"after the skip link, Tab went to {after['what']}, outside the main content"


def wait_for_focus(kb: Keyboard, selector: str, problem: str) -> None:
    """htmx moves the focus once a swap has settled: wait for it, then check it can be seen."""
    try:
        kb.page.wait_for_function("s => document.activeElement && document.activeElement.matches(s)", arg=selector)
    except PlaywrightTimeout:
        raise AssertionError(f"{problem}: it is on {kb.focused()['what']}") from None
    focus = kb.focused()
    assert focus["visible"], f"the focus on {focus['what']} has no visible outline or shadow"


def keyboard_phone(phones, world, name: str) -> Keyboard:
    context = phones.browser.new_context(locale=LANGS["en"], **PHONE)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    phones.pages[(name, "keyboard")] = page  # closed with the others
    return Keyboard(page)


def keyboard_sign_in(kb: Keyboard, world, user, next_path: str) -> None:
    kb.page.goto(world.root + reverse("login") + f"?next={next_path}")
    kb.tab_to("input[name=username]")  # (autofocus: already there)
    kb.type(user.get_username())
    kb.tab_to("input[name=password]")
    kb.type(PASSWORD)
    with kb.page.expect_navigation():
        kb.page.keyboard.press("Enter")
    assert next_path in kb.page.url, f"not signed in: {kb.page.url}"


def test_a_player_registers_with_the_keyboard_alone(world, phones):
    kb = keyboard_phone(phones, world, "registering player")
    kb.page.goto(world.root + reverse("event-register", kwargs=ev(world.open_event)))
    kb.skip_to_main()
    kb.tab_to("#id_name")
    kb.type("Kim Keyboard")
    kb.tab_to("#id_contact")
    kb.type("keyboard@example.org")
    kb.tab_to("#id_birth_year")
    kb.type("2001")
    kb.tab_to("#id_affiliation")
    kb.type("해운대 클럽")
    kb.tab_to("#id_agree")
    kb.page.keyboard.press("Space")
    kb.tab_to("main form [type=submit]")
    with kb.page.expect_navigation():
        kb.page.keyboard.press("Enter")
    registration = Registration.objects.get(event=world.open_event, player__name="Kim Keyboard")
    assert registration.player.birth_year == 2001 and registration.player.affiliation == "해운대 클럽"
    assert f"/p/{registration.player.token}/" in kb.page.url
    expect(kb.page.locator("h1")).to_have_text("Kim Keyboard")


def test_the_desk_checks_a_player_in_with_the_keyboard(world, phones):
    kb = keyboard_phone(phones, world, "desk volunteer")
    desk = reverse("desk", kwargs=ev(world.desk_event))
    keyboard_sign_in(kb, world, world.desk, desk)
    kb.skip_to_main()
    kb.tab_to("#desk-q")
    kb.type("박지")
    results = kb.page.locator("#desk-results")
    expect(results.locator("li")).to_have_count(1)
    kb.tab_to("#desk-results button")
    kb.page.keyboard.press("Space")
    expect(results.locator("li", has_text="박지훈").locator(".badge.text-bg-success")).to_contain_text("Checked in")
    assert Registration.objects.get(event=world.desk_event, player__name="박지훈").checked_in_at is not None
    # The swapped row keeps the focus (on its Undo button): the volunteer does not start again from the top.
    wait_for_focus(kb, "#desk-results li[data-status=registered] button", "the checked-in row lost the focus")
    expect(kb.page.locator("#desk-results button:focus")).to_have_text("Undo")


def test_a_referee_enters_a_sheet_with_the_keyboard_and_the_tile_pad(world, phones):
    kb = keyboard_phone(phones, world, "referee")
    link = world.links[4]
    kb.page.goto(world.root + reverse("referee-link-game", args=[link.token, 1, 1]))
    kb.skip_to_main()
    # Who went out: each seat's box is its own Tab stop; Space ticks it, and the end follows.
    kb.tab_to("#went-out-1")
    kb.page.keyboard.press("Space")
    expect(kb.page.locator("#went-out-1")).to_be_checked()
    expect(kb.page.locator('input[name=end][value="went_out"]')).to_be_checked()
    # Seat 2's rack on the tile pad: open it, tap three tiles and a joker with Enter and Space, close it.
    kb.tab_to('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')
    kb.page.keyboard.press("Enter")
    pad = kb.page.locator("#tile-pad")
    expect(pad).to_be_visible()
    expect(kb.page.locator('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')).to_have_attribute(
        "aria-expanded", "true")
    for tile, key_name in (("R10", "Enter"), ("R11", "Space"), ("B13", "Enter"), ("J", "Space")):
        kb.tab_to(f'#tile-pad [data-tile="{tile}"]')
        kb.page.keyboard.press(key_name)
    kb.tab_to('#tile-pad [data-pad="close"]')
    kb.page.keyboard.press("Enter")
    expect(pad).to_be_hidden()
    wait_for_focus(kb, '.sheet-pad-toggle[data-pad-for="id_s2_tiles"]', "closing the pad lost the focus")
    expect(kb.page.locator("#id_s2_tiles")).to_have_value("R10 R11 B13 J")
    for seat, value in ((3, "20"), (4, "15")):
        kb.tab_to(f"#id_s{seat}_rack_value")
        kb.type(value)
        kb.tab_to(f"#id_s{seat}_jokers")
        kb.type("0")
    expect(kb.page.locator("#sheet-check")).to_contain_text("No problems found.")
    kb.tab_to(".sheet-submit")
    with kb.page.expect_navigation():
        kb.page.keyboard.press("Enter")
    sheet = ScoreSheet.objects.get(stage=world.stage, game=1, table_number=4)
    assert sheet.status == ScoreSheet.Status.SUBMITTED
    assert {line.position: line.tiles for line in sheet.seats.all()}[2] == "R10 R11 B13 J"


# What the board's poll does every 10 s, at once; it answers when htmx has settled the new board (wired its
# forms): a key pressed before that would send the form without htmx.
POLL_BOARD = """() => new Promise(settled => {
    document.body.addEventListener('htmx:afterSettle', () => settled(), {once: true});
    const board = document.querySelector('#board');
    htmx.ajax('GET', board.getAttribute('hx-get'), {target: '#board', swap: 'outerHTML'});
})"""


def test_the_chief_referee_confirms_on_the_board_with_the_keyboard(world, phones):
    # A sheet of its own to confirm (table 3 of the board's game 1; the page checks above are done with it).
    sheet = _submit(world.stage, 1, 3, [0, 7, 8, 9])
    kb = keyboard_phone(phones, world, "chief referee")
    board = reverse("board", kwargs=ev(world.live))
    keyboard_sign_in(kb, world, world.chief, board)
    kb.skip_to_main()
    row = kb.page.locator('#board li[data-table="3"]')
    expect(row).to_have_attribute("data-state", "submitted")
    kb.tab_to('#board li[data-table="3"] button')
    # The board's poll replaces it: the focus stays put.
    kb.page.evaluate(POLL_BOARD)
    wait_for_focus(kb, f"#board-confirm-{sheet.pk}", "the board's poll took the focus away")
    kb.page.keyboard.press("Enter")
    expect(kb.page.locator('#board li[data-table="3"]')).to_have_attribute("data-state", "confirmed")
    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.CONFIRMED
    expect(kb.page.locator("#board [role=status]")).to_contain_text("Table 3, game 1 is confirmed.")
    # Its Confirm button is gone with the swap; the focus goes to the same sheet's link, and stays there
    # through the next poll.
    wait_for_focus(kb, f"#board-open-{sheet.pk}", "the confirmation lost the focus")
    kb.page.evaluate(POLL_BOARD)
    wait_for_focus(kb, f"#board-open-{sheet.pk}", "the board's poll took the focus away")
