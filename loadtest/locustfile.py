"""Locust scenario: 500 phones polling the live pages while 128 referees submit score sheets.

Started by `loadtest/run.py` (see loadtest/README.md), or by hand against a running server:

    locust -f loadtest/locustfile.py --plan plan.json --headless -u 629 -r 60 --run-time 120s \
           --host http://127.0.0.1:8000   # -u = phones + referees + 1 chief referee

`--plan` is the JSON that `python -m loadtest.prepare --out plan.json` wrote (event, table links, players,
the chief referee's sign-in). Three kinds of user, in fixed numbers:

- **Phone** (500): has the event's standings (60 %) or a player's page (40 %) open when the run starts
  and polls its live fragment every 3 s (`--poll-seconds`, as the pages' `hx-trigger`; each phone at its
  own phase) as htmx does —
  `HX-Request: true` and the last ETag in `If-None-Match`; on 5 % of its turns it opens the other page
  instead (a full page, with the ETag of its last visit if any). A 200 or a 304 is right; anything else
  is an error.
- **Referee** (128, one per table): opens the table link `t/<token>/`, opens the game's entry page,
  fills in the form the page sent (every field name, the CSRF token and the idempotency key come from
  the page: the same form a browser posts), sends one live check (`…/preview/`, htmx) and submits a
  went-out game with counted rack values; must be answered by the redirect to the table page. Games 1,
  2 and 3 in turn, then the referee is idle.
- **Chief referee** (1): signs in on the login page, looks at the board of each game (htmx) every 3 s
  and confirms every clean submitted sheet with the board's one-tap confirm, about one tap a second,
  down the board it read: each tap is answered by the tapped row (and the counts out of band), which it
  checks, or by the whole board when the tap completes the game. After each tap it asks the app server itself
  (`--origin`, past the proxy's cache) for the standings fragment as a phone would, to learn the ETag of
  the version that holds the confirmation; with the phones' answers that gives how soon each confirmation
  showed on the phones (loadtest/freshness.py, written to `--freshness`).

**Festival mode** (a plan from `python -m loadtest.prepare --festival`, `loadtest/run.py --festival`): the plan
lists several events. Each phone looks at one event, picked in proportion to its players; there is one
referee per table of every event (a Word table sends the Word sheet the plan holds for it through the Word
entry form; a Hong Kong table waits until its next game is seated, which happens when the previous game's
last sheet is confirmed); two chief referees, each on the boards of their own events; and two desks
(`Desk`, named on the command line) checking in the afternoon event's players as they arrive: search by
name (htmx), tap "Check in", every 10 s the counts. The chief's tap is answered by the tapped row plus the
counts and message out of band (scoring/views/board.py `_tap_answer`), or by the whole board when it
completes the game: the chief checks that the row says "confirmed" and taps the next Confirm of the board
it last read. Freshness is recorded per event (each event's confirmations are ordered by its one chief).

Errors are counted by locust: every 5xx, every timeout or refused connection (network timeout 10 s),
and every answer that is not the one expected (a 403 for CSRF, a 404, a form sent back with errors …).
"""

from __future__ import annotations

import itertools
import json
import random
import re
import urllib.request
from pathlib import Path
from time import perf_counter
from urllib.parse import urlencode, urlsplit

import gevent
from locust import FastHttpUser, between, events, task

# locust runs with the project folder as its working directory (loadtest/run.py), so this imports
from loadtest.freshness import Record, save_all
from loadtest.page_forms import PageForms, browser_data

POLL_SECONDS = 3.0  # templates/public/standings.html and player.html: hx-trigger="every 3s"
STANDINGS_SHARE = 0.6  # phones looking at the standings; the others at their own player page
SWITCH_CHANCE = 0.05  # per poll, a phone opens the other page
TIMEOUT = 10.0
TAP_SECONDS = 1.0  # a chief referee confirms about one sheet a second


@events.init_command_line_parser.add_listener
def _arguments(parser):
    parser.add_argument("--plan", env_var="LOADTEST_PLAN", default="", help="plan.json from loadtest.prepare")
    parser.add_argument("--phones", type=int, default=500, help="phones polling the live pages")
    parser.add_argument("--referees", type=int, default=128, help="referees (one per table, at most the tables)")
    parser.add_argument("--poll-seconds", type=float, default=POLL_SECONDS, help="the phones' poll interval")
    parser.add_argument("--origin", default="", help="the app server itself, past any proxy (for freshness)")
    parser.add_argument("--freshness", default="", help="write the freshness record (JSON) here at the end")


FRESHNESS = Record()  # the one-event plan's
RECORDS: dict[str, Record] = {}  # the festival plan's, per event key
SENT: list[tuple[str, int, int]] = []  # (event key, table, game) of every sheet answered "stored"
POSTED: list[tuple[str, int, int]] = []  # … of every sheet posted (answered or not: the run may end meanwhile)
CHECKED_IN: list[int] = []  # registrations the desks' taps checked in


def record_of(event: dict) -> Record:
    return RECORDS.setdefault(event["key"], Record()) if event.get("key") else FRESHNESS


@events.init.add_listener
def _counts(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None:
        Phone.fixed_count = options.phones
        Referee.fixed_count = options.referees
        Phone.poll_seconds = options.poll_seconds
        if options.plan:
            plan = load_plan(options.plan)
            ChiefReferee.fixed_count = len(plan.get("chiefs") or [plan["chief"]])
            Desk.fixed_count = len(plan["desk"]["accounts"]) if plan.get("desk") else 0


@events.quitting.add_listener
def _save_freshness(environment, **_kwargs):
    options = environment.parsed_options
    if options is not None and options.freshness:
        if RECORDS:
            save_all(RECORDS, Path(options.freshness), sent=SENT, posted=POSTED, checked_in=CHECKED_IN)
        else:
            FRESHNESS.save(Path(options.freshness))


def every(seconds: float | str):
    """Constant pacing, counted from the user's own start.

    Locust's `constant_pacing` counts from the moment the user object was created, so a random delay in
    `on_start` is taken back from the first wait, and the phones spawned in the same second (locust starts
    them in batches) would poll in step forever: bursts of ~60 requests at once, which real phones do not
    send. Here each user keeps its own schedule (`user.due`), set when `on_start` ends.
    `seconds` may name an attribute of the user holding the interval (set from the command line)."""

    def wait_time(user) -> float:
        now = perf_counter()
        interval = getattr(user, seconds) if isinstance(seconds, str) else seconds
        user.due = max(getattr(user, "due", now) + interval, now)  # late (a slow answer): go at once
        return user.due - now

    return wait_time


_plan: dict | None = None


def load_plan(path: str) -> dict:
    global _plan
    if _plan is None:
        with open(path) as source:
            _plan = json.load(source)
    return _plan


def plan_of(user) -> dict:
    path = user.environment.parsed_options.plan
    if not path:
        raise SystemExit("give --plan (or LOADTEST_PLAN): the JSON written by `python -m loadtest.prepare`")
    return load_plan(path)


def events_of(plan: dict) -> list[dict]:
    """The events of the plan: the festival plan's list, or the one event of the one-event plan."""
    if plan.get("events"):
        return plan["events"]
    return [{"key": "", "festival": plan["festival"], "event": plan["event"], "stage": plan["stage"],
             "games": plan["games"], "players": plan["players"], "tables": plan["tables"], "game": "classic",
             "seated_by_confirmation": False, "board": f"/manage/{plan['festival']}/{plan['event']}/board/"}]


def sign_in(user, username: str, password: str, next_url: str, name: str) -> None:
    """The login page, then the sign-in (a real session, CSRF and django-axes), answered by the redirect."""
    login = f"/accounts/login/?next={next_url}"
    user.client.get(login, name=f"{name}: login page")
    with user.client.post(login, name=f"{name}: sign in", allow_redirects=False, catch_response=True, data={
        "username": username, "password": password, "csrfmiddlewaretoken": csrf_of(user), "next": next_url,
    }) as response:
        expect(response, 302)


def csrf_of(user) -> str:
    for cookie in user.client.cookiejar:
        if cookie.name == "csrftoken":
            return cookie.value
    return ""


def expect(response, *statuses: int) -> bool:
    """Mark the response a failure unless its status is one of `statuses`."""
    if response.status_code in statuses:
        response.success()
        return True
    if not response.status_code:  # no answer at all: a timeout or a refused or reset connection
        response.failure(f"no answer: {type(response.error).__name__ if response.error else 'connection'}")
    else:
        response.failure(f"HTTP {response.status_code} (expected {'/'.join(map(str, statuses))})")
    return False


class Phone(FastHttpUser):
    """A player's or visitor's phone with the standings or a player page open (no login, no cookies needed)."""

    fixed_count = 500
    poll_seconds = POLL_SECONDS
    wait_time = every("poll_seconds")
    network_timeout = connection_timeout = TIMEOUT
    _numbers = itertools.count()

    def on_start(self):
        self.id = next(Phone._numbers)
        self.visits = 0  # how often the phone went to the other page and back
        plan = plan_of(self)
        candidates = events_of(plan)
        self.event = random.choices(candidates, weights=[len(event["players"]) for event in candidates])[0]
        self.record = record_of(self.event)
        self.base = f"/f/{self.event['festival']}/{self.event['event']}/"
        self.number = random.choice(self.event["players"])
        self.page = "standings" if random.random() < STANDINGS_SHARE else "player"
        self.etags: dict[str, str] = {}
        gevent.sleep(random.uniform(0, self.poll_seconds))  # phones are not in step with each other
        self.due = perf_counter()

    def _url(self, live: bool) -> tuple[str, str]:
        if self.page == "standings":
            return self.base + ("standings/live/" if live else "standings/"), f"phone: standings {'live' if live else 'page'}"
        url = self.base + f"player/{self.number}/" + ("live/" if live else "")
        return url, f"phone: player {'live' if live else 'page'}"

    def _get(self, live: bool):
        url, name = self._url(live)
        headers = {"Accept-Encoding": "gzip"}  # as every phone's browser
        if url in self.etags:
            headers["If-None-Match"] = self.etags[url]
        if live:
            headers["HX-Request"] = "true"
            headers["HX-Current-URL"] = self.host + self._url(False)[0]
        with self.client.get(url, name=name, headers=headers, catch_response=True) as response:
            if expect(response, 200, 304):
                etag = response.headers.get("ETag") or headers.get("If-None-Match", "")
                if etag:
                    self.etags[url] = etag
                if live and self.page == "standings":
                    # One stay on the standings is one viewer: what was confirmed while the phone had
                    # another page open is not a delay of its standings.
                    self.record.polls.append((self.id * 1000 + self.visits, perf_counter(), etag))

    @task
    def poll(self):
        if random.random() < SWITCH_CHANCE:
            self.page = "player" if self.page == "standings" else "standings"
            self.visits += 1
            self._get(live=False)
        else:
            self._get(live=True)


class Referee(FastHttpUser):
    """One table's referee on a phone, through the table's private link (no account)."""

    fixed_count = 128
    wait_time = between(8, 16)  # between two games (compressed: a real game takes ~23 minutes, R9)
    network_timeout = connection_timeout = TIMEOUT
    _tables = itertools.count()
    SEATED_WAIT = 5.0  # a Hong Kong table looks again for its next game's seats after this

    def on_start(self):
        plan = plan_of(self)
        tables = [(event, table) for event in events_of(plan) for table in event["tables"]]
        self.event, table = tables[next(Referee._tables) % len(tables)]
        self.table = table["number"]
        self.table_url = f"/t/{table['token']}/"
        self.token = table["token"]
        self.games = self.event["games"]
        self.word = self.event.get("game") == "word"
        self.game = 1
        gevent.sleep(random.uniform(0, 20))  # tables do not finish together

    @task
    def next_game(self):
        if self.game > self.games:
            return  # all games sent: the referee's phone is idle
        self.client.get(self.table_url, name="referee: table page")
        gevent.sleep(random.uniform(1, 3))
        game_url = f"{self.table_url}stage-{self.event['stage']}/game/{self.game}/"  # the load test plays round 1
        with self.client.get(game_url, name="referee: game page", catch_response=True) as response:
            if not expect(response, 200):
                return
            forms = PageForms(response.text).matching(re.escape(game_url) + "$")
            if not forms:
                if self.event.get("seated_by_confirmation") and self.game > 1:
                    # Hong Kong: this game is seated when the previous one is confirmed everywhere (R8.2)
                    response.success()
                    gevent.sleep(self.SEATED_WAIT)
                    return
                response.failure("no score-sheet form on the entry page")
                return
        kind = "Word sheet" if self.word else "sheet"
        data = self._fill_word(browser_data(forms[0])) if self.word else self._fill(browser_data(forms[0]))
        gevent.sleep(random.uniform(5, 10))  # counting the racks, typing
        with self.client.post(f"{game_url}preview/", data=data, name=f"referee: live check ({kind})",
                              headers={"HX-Request": "true", "X-CSRFToken": csrf_of(self)},
                              catch_response=True) as response:
            if expect(response, 200):
                check = re.search(r'data-errors="(\d+)" data-warnings="(\d+)"', response.text or "")
                if check and check.group(1) != "0":
                    response.failure(f"the live check found {check.group(1)} mistakes in a plausible sheet")
                elif check and check.group(2) != "0":
                    data["accept_warnings"] = "on"  # the referee reads the warnings and ticks the box
        gevent.sleep(random.uniform(1, 2))
        data["action"] = "submit"
        POSTED.append((self.event.get("key", ""), self.table, self.game))
        with self.client.post(game_url, data=data, name=f"referee: submit {kind}", allow_redirects=False,
                              catch_response=True) as response:
            if response.status_code == 200:  # the form came back: refused or invalid
                alert = re.search(r'class="alert[^"]*"[^>]*>(.*?)</', response.text or "", re.S)
                response.failure(f"sheet refused: {alert.group(1).strip() if alert else 'form sent back'}")
                return
            if not expect(response, 302):
                return
            if urlsplit(response.headers.get("Location", "")).path != self.table_url:
                response.failure(f"redirected to {response.headers.get('Location')!r}, not the table page")
                return
            SENT.append((self.event.get("key", ""), self.table, self.game))
        self.client.get(self.table_url, name="referee: table page")
        self.game += 1

    def _fill(self, data: dict[str, str]) -> dict[str, str]:
        """A went-out game: one seat went out, the others had opened and their racks were counted."""
        seats = sorted(int(m.group(1)) for key in data if (m := re.fullmatch(r"s(\d+)_registration", key)))
        winner = random.choice(seats)
        data["end"] = "went_out"
        data["went_out"] = str(winner)
        losers = [seat for seat in seats if seat != winner]
        joker = random.choice(losers) if random.random() < 0.3 else None  # a set has two jokers (R1)
        for seat in seats:
            data[f"s{seat}_opened"] = "yes"
            if seat != winner:
                data[f"s{seat}_rack_value"] = str(random.randint(2, 60))
                data[f"s{seat}_jokers"] = "1" if seat == joker else "0"
        return data

    def _fill_word(self, data: dict[str, str]) -> dict[str, str]:
        """The Word entry form (scoring/games/word/forms.py) filled in turn by turn with the sheet the plan
        made for this table and game (scoring.simulation.word.plausible_word_sheet), rows as many as turns."""
        fields = self.event["word_sheets"][f"{self.token}/{self.game}"]
        data = {key: value for key, value in data.items() if not re.fullmatch(r"t\d+_\w+", key)}
        return {**data, **fields}


TAP_ROW = re.compile(r'<form method="post" action="([^"]+/quick-confirm/)"[^>]*hx-target="#board-row-(\d+)"')


class ChiefReferee(FastHttpUser):
    """A chief referee on the board: confirms every clean submitted sheet of their events with one tap each."""

    fixed_count = 1
    wait_time = every(3)  # looks at the board of each game every 3 s
    network_timeout = connection_timeout = TIMEOUT
    _numbers = itertools.count()

    def on_start(self):
        plan = plan_of(self)
        number = next(ChiefReferee._numbers)
        account = (plan.get("chiefs") or [plan["chief"]])[number % len(plan.get("chiefs") or [plan["chief"]])]
        every_event = events_of(plan)
        self.events = [event for event in every_event if event.get("key", "") in account.get("events", [""])]
        self.refused: set[str] = set()
        first = self.events[0]["board"]
        sign_in(self, account["username"], account["password"], first, "chief")
        self.client.get(first, name="chief: board")
        self.origin = self.environment.parsed_options.origin or self.host
        for event in self.events:
            event["_live"] = f"{self.origin}/f/{event['festival']}/{event['event']}/standings/live/"
            record_of(event).start_etag = self._public_etag(event, "")

    @task
    def confirm_submitted(self):
        for event in self.events:
            for game in range(1, event["games"] + 1):
                self._game(event, game)

    def _game(self, event: dict, game: int) -> None:
        with self.client.get(f"{event['board']}?stage={event['stage']}&game={game}", name="chief: board (htmx)",
                             headers={"HX-Request": "true"}, catch_response=True) as response:
            if not expect(response, 200):
                return
            board = response.text
        forms = {form["action"]: form for form in PageForms(board).matching(r"/quick-confirm/$")}
        # The tapped row comes back alone: the chief taps the next Confirm of the board already on screen.
        for action, table in TAP_ROW.findall(board):
            if action in self.refused or action not in forms:
                continue
            tapped = perf_counter()
            with self.client.post(action, data=browser_data(forms[action]), name="chief: quick confirm",
                                  headers={"HX-Request": "true", "X-CSRFToken": csrf_of(self)},
                                  catch_response=True) as response:
                if not expect(response, 200):
                    self.refused.add(action)
                    self._confirmed(event, tapped, attempts=1)  # a timed-out tap may still have been stored
                    return
                answer = response.text or ""
                whole = response.headers.get("HX-Retarget") == "#board"  # the tap that completed the game
                if "alert-danger" in answer:  # the confirmation was refused (shown in the message)
                    self.refused.add(action)
                    response.failure("confirmation refused on the board")
                    continue
                if not whole and not self._row_confirmed(answer, table):
                    self.refused.add(action)
                    response.failure("the answer is not the tapped row, confirmed")
                    continue
                self._confirmed(event, tapped)
            gevent.sleep(TAP_SECONDS)  # reads the row, taps the next Confirm
            if whole:
                return

    @staticmethod
    def _row_confirmed(answer: str, table: str) -> bool:
        """The answer holds the tapped table's row (confirmed, no Confirm button left) and nothing of others."""
        rows = re.findall(r'<li [^>]*id="board-row-(\d+)"[^>]*data-state="([^"]*)"', answer)
        return rows == [(table, "confirmed")] and "/quick-confirm/" not in answer

    def _confirmed(self, event: dict, tapped: float, attempts: int = 50) -> None:
        """Note the version that holds the sheet tapped at `tapped`, if the public version changed."""
        record = record_of(event)
        previous = record.confirmations[-1][1] if record.confirmations else record.start_etag
        etag = self._public_etag(event, previous, attempts)
        if etag != previous:
            record.confirmations.append((tapped, etag))

    def _public_etag(self, event: dict, previous: str, attempts: int = 50) -> str:
        """The standings fragment's ETag for an anonymous phone, from the app server itself; asked again
        while it is still `previous` (a worker's cached version), which no confirmation should leave."""
        request = urllib.request.Request(event["_live"], headers={"HX-Request": "true", "Accept-Encoding": "gzip"})
        etag = previous
        for _ in range(attempts):
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    etag = response.headers.get("ETag", "")
            except OSError:  # an overloaded server: this confirmation goes unmeasured, the run goes on
                return previous
            if etag != previous:
                break
            gevent.sleep(0.1)
        return etag


DESK_TAP = 4.0  # a desk volunteer finds a player and taps "Check in" about every 4 s
CHECKIN_FORM = re.compile(r'<form method="post" action="([^"]+/r/(\d+)/checkin/)"')


class Desk(FastHttpUser):
    """A check-in desk (tournament/views/desk.py) of the festival plan: players arrive, the volunteer types
    the name (htmx search), taps "Check in" (htmx: the row in place, the counts out of band); the counts poll
    every 10 s as the page does. Only in the festival mode (named on locust's command line)."""

    fixed_count = 0
    wait_time = between(DESK_TAP - 1, DESK_TAP + 1)
    network_timeout = connection_timeout = TIMEOUT
    _numbers = itertools.count()

    def on_start(self):
        desk = plan_of(self)["desk"]
        number = next(Desk._numbers)
        account = desk["accounts"][number % len(desk["accounts"])]
        self.desk = desk
        # each desk has its own queue of arrivals (two desks, two lines)
        self.arrivals = list(desk["arrivals"][number % len(desk["accounts"])::len(desk["accounts"])])
        sign_in(self, account["username"], account["password"], desk["url"], "desk")
        self.client.get(desk["url"], name="desk: page")
        self.counted = perf_counter()

    @task
    def next_arrival(self):
        if perf_counter() - self.counted >= 10:  # _counts.html: hx-trigger="every 10s"
            self.counted = perf_counter()
            self.client.get(self.desk["counts"], name="desk: counts (htmx)", headers={"HX-Request": "true"})
        if not self.arrivals:
            return
        arrival = self.arrivals.pop(0)
        with self.client.get(f"{self.desk['search']}?{urlencode({'q': arrival['name']})}", name="desk: search (htmx)",
                             headers={"HX-Request": "true"}, catch_response=True) as response:
            if not expect(response, 200):
                return
            action = next((url for url, pk in CHECKIN_FORM.findall(response.text or "") if int(pk) == arrival["id"]),
                          None)
            if action is None:
                response.failure("the arrival is not in the search results with a Check in button")
                return
            forms = PageForms(response.text).matching(re.escape(action) + "$")
        gevent.sleep(random.uniform(0.5, 1.5))  # finds the row, taps
        with self.client.post(action, data=browser_data(forms[0]), name="desk: check-in tap",
                              headers={"HX-Request": "true", "X-CSRFToken": csrf_of(self)},
                              catch_response=True) as response:
            if not expect(response, 200):
                return
            answer = response.text or ""
            if "alert-danger" in answer or f'id="desk-reg-{arrival["id"]}"' not in answer \
                    or "text-bg-success" not in answer:
                response.failure("the check-in tap was not answered by the row, checked in")
                return
            CHECKED_IN.append(arrival["id"])
